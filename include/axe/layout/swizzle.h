// A swizzled layout (the paper's separate innermost swizzle; TVM's ComposeLayout): a
// memory-only layout whose addresses are then permuted by an XOR swizzle, numerically
// CuTe's Swizzle<B, M, S> in element units.
//
// Parameters (M, B, S) = (per_element, swizzle_len, atom_len), with S >= B >= 0, M >= 0 and
// M + S + B <= 32. For an address m produced by the inner layout, with x = m >> M:
//   swizzle_inner = true:   x' = x ^ ((x & (((1 << B) - 1) << S)) >> S)
//   swizzle_inner = false:  x' = x ^ ((x & ((1 << B) - 1)) << S)
//   address = (x' << M) + (m & ((1 << M) - 1))
// Only address bits below M + S + B change, so the swizzle repeats every 2^(M+S+B)
// elements and keeps every address inside its aligned block of that size.
//
// Text form: "Swizzled(M,B,S, <layout>)", plus ", inner=false" before ')' when
// swizzle_inner is false; "ComposeLayout(M,B,S,<layout>)" is accepted on input. Beware:
// CuTe's template order is Swizzle<B,M,S>, the text order here is M, B, S.
//
//   SwizzledLayout s = *SwizzledLayout::Parse("Swizzled(3,3,3, S[(8,64):(64,1)])");
//   s.ApplyBase({8, 64}, {3, 21});   // {m:205}: 64*3 + 8*((21/8) ^ 3) + 21 % 8
#ifndef AXE_LAYOUT_SWIZZLE_H_
#define AXE_LAYOUT_SWIZZLE_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/layout/coord.h"
#include "axe/layout/layout.h"
#include "axe/layout/slice.h"

namespace axe {

class SwizzledLayout {
 public:
  // Errors (InvalidArgument): a negative parameter, S < B, M + S + B > 32, or a layout that
  // is not on a single memory axis (every iter of D and R and every offset on one axis of
  // kind memory).
  static absl::StatusOr<SwizzledLayout> Create(int per_element, int swizzle_len, int atom_len,
                                               Layout layout, bool swizzle_inner = true);
  // Parses the text form (see above); the inner layout's axis names take their kinds from
  // `catalog`. Errors name the position.
  static absl::StatusOr<SwizzledLayout> Parse(absl::string_view text,
                                              const AxisCatalog& catalog = AxisCatalog::Standard());
  // True when `text` (after leading whitespace) starts a swizzled layout rather than a
  // plain one ("Swizzled(" or "ComposeLayout(").
  static bool LooksSwizzled(absl::string_view text);

  int per_element() const { return m_; }  // M
  int swizzle_len() const { return b_; }  // B
  int atom_len() const { return s_; }     // S
  bool swizzle_inner() const { return inner_; }
  const Layout& layout() const { return layout_; }
  // The memory axis the addresses live on.
  Axis axis() const { return axis_; }
  // 2^(M+S+B): the swizzle's period in elements.
  int64_t period() const { return int64_t{1} << (m_ + s_ + b_); }
  int64_t size() const { return layout_.size(); }

  // The swizzled address of an inner address. Because S >= B the bits read and the bits
  // written are disjoint, so Swizzle is its own inverse: Swizzle(Swizzle(a)) == a.
  int64_t Swizzle(int64_t address) const;

  // Swizzled f_D(x) + O, and the swizzled replica set, as apply.h defines them.
  absl::StatusOr<PhysCoord> ApplyBase(int64_t flat) const;
  absl::StatusOr<PhysCoord> ApplyBase(absl::Span<const int64_t> shape,
                                      absl::Span<const int64_t> coord) const;
  absl::StatusOr<std::vector<PhysCoord>> Apply(int64_t flat) const;
  absl::StatusOr<std::vector<PhysCoord>> Apply(absl::Span<const int64_t> shape,
                                               absl::Span<const int64_t> coord) const;

  // "Swizzled(M,B,S, <layout>)" or "Swizzled(M,B,S, <layout>, inner=false)".
  std::string ToString() const;

  friend bool operator==(const SwizzledLayout& a, const SwizzledLayout& b) {
    return a.m_ == b.m_ && a.b_ == b.b_ && a.s_ == b.s_ && a.inner_ == b.inner_ &&
           a.layout_ == b.layout_;
  }
  template <typename H>
  friend H AbslHashValue(H h, const SwizzledLayout& l) {
    return H::combine(std::move(h), l.m_, l.b_, l.s_, l.inner_, l.layout_);
  }
  friend std::ostream& operator<<(std::ostream& os, const SwizzledLayout& l) {
    return os << l.ToString();
  }

 private:
  SwizzledLayout(int m, int b, int s, bool inner, Layout layout, Axis axis)
      : m_(m), b_(b), s_(s), inner_(inner), layout_(std::move(layout)), axis_(axis) {}

  int m_, b_, s_;
  bool inner_;
  Layout layout_;
  Axis axis_;  // derived from layout_
};

// The same swizzle over the canonical inner layout.
SwizzledLayout Canonicalize(const SwizzledLayout& layout);

// Tiles the swizzled atom `inner` (on inner_shape) by `outer` (on outer_shape): the inner
// layout is tiled (tile.h) and (M, B, S) kept, so that the result maps
// (x, y) -> Σ ⊙ outer(x) + swizzled inner(y). That is a repeated swizzle atom only when
// every scaled outer stride and offset is a multiple of the period 2^(M+S+B); otherwise
// the tile is rejected (InvalidArgument naming the iter), as is an outer layout that uses
// another axis than the inner one, and every error of Tile().
//
//   Tile(S[(8,4):(1,8)], {8, 4}, Swizzled(3,3,3, S[512]), {8, 64})
//   // Swizzled(3,3,3, S[(64,4,64):(64,4096,1)])
absl::StatusOr<SwizzledLayout> Tile(const Layout& outer, absl::Span<const int64_t> outer_shape,
                                    const SwizzledLayout& inner,
                                    absl::Span<const int64_t> inner_shape);

// Every logical coordinate of `shape` that the swizzled layout maps to `point` (sorted):
// the swizzle is its own inverse, so this is the inner layout's Inverse (inverse.h) of the
// point with its address swizzled. Errors: those of Inverse().
absl::StatusOr<std::vector<std::vector<int64_t>>> Inverse(const SwizzledLayout& layout,
                                                          absl::Span<const int64_t> shape,
                                                          const PhysCoord& point);

// The swizzled layout of a box sub-tensor: the swizzle applies after the inner layout, so
// this is the same (M, B, S) over Slice(inner) (slice.h), or no answer with Slice's reason.
struct MaybeSwizzledLayout {
  std::optional<SwizzledLayout> layout;
  std::string reason;  // why there is no layout (empty when there is one)
  bool has_value() const { return layout.has_value(); }
  // The text of the layout, or "none: <reason>".
  std::string ToString() const { return layout ? layout->ToString() : "none: " + reason; }
};
absl::StatusOr<MaybeSwizzledLayout> Slice(const SwizzledLayout& layout,
                                          absl::Span<const int64_t> shape,
                                          absl::Span<const Interval> region);

// Views each element as n sub-elements (n a power of two): M + log2 n and Unpack of the
// inner layout (pack.h). Errors: n is not a power of two, or the inner Unpack fails.
absl::StatusOr<SwizzledLayout> Unpack(const SwizzledLayout& layout, int64_t n);
// The inverse: M - log2 n (requires M >= log2 n) and Pack of the inner layout.
absl::StatusOr<SwizzledLayout> Pack(const SwizzledLayout& layout, int64_t n);

}  // namespace axe

#endif  // AXE_LAYOUT_SWIZZLE_H_
