// JAX's device-local layout `Layout(major_to_minor, tiling=None,
// sub_byte_element_size_in_bits=0)` (jax.experimental.layout; spec jax-layout-format.md
// §1-2) and its sentinel `Layout.AUTO`.
//
// LocalLayout is named so that it does not clash with axe::Layout (the Axe layout). It is an
// immutable value; ==, the hash and the text cover all three fields, so `tiling=None` and
// `tiling=()` differ. As in JAX, nothing is validated on construction (beyond size bounds):
// the rank is checked when the layout meets a value (CheckCompatibleAval) and the
// permutation when it becomes an XLA layout (ToXla).
//
//   LocalLayout l = *LocalLayout::Parse("Layout((1, 0), ((8, 128),))");
//   l.ToString();  // Layout(major_to_minor=(1, 0), tiling=((8, 128),),
//   sub_byte_element_size_in_bits=0) l.ToXla(DType::kF32)->ToString();  // {0,1:T(8,128)}
//
// Parse() reads JAX's repr and the forms people type: the old spellings `_tiling=` and
// `_sub_byte_element_size_in_bits=`, the old name `DeviceLocalLayout(...)`, positional
// arguments, lists for tuples, any whitespace. Errors name the character position.
#ifndef AXE_SHARDING_LOCAL_LAYOUT_H_
#define AXE_SHARDING_LOCAL_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"
#include "axe/xla/layout.h"

namespace axe::sharding {

class LocalLayout {
 public:
  using Tile = std::vector<int64_t>;
  using Tiling = std::vector<Tile>;

  // Bounds on a value (so that every value prints within kMaxTextLength): entries of
  // major_to_minor, tiles, entries of one tile.
  static constexpr size_t kMaxRank = 64;
  static constexpr size_t kMaxTiles = 16;
  static constexpr size_t kMaxTileRank = 64;
  static constexpr size_t kMaxTextLength = size_t{1} << 16;

  // Errors (InvalidArgument): a bound above exceeded.
  static absl::StatusOr<LocalLayout> Create(std::vector<int64_t> major_to_minor,
                                            std::optional<Tiling> tiling = std::nullopt,
                                            int64_t sub_byte_element_size_in_bits = 0);
  // Reads the repr and the forms above; errors name the character position.
  static absl::StatusOr<LocalLayout> Parse(absl::string_view text);

  // The layout of xla::Layout `layout` as JAX's Layout.from_pjrt_layout reads it:
  // major_to_minor = the reversed minor_to_major, tiling = the tiles (`()` when there are
  // none, as JAX reads an untiled layout), sub_byte_element_size_in_bits = E. Errors: a
  // bound exceeded, a tile with a combined (`*`) dimension.
  static absl::StatusOr<LocalLayout> FromXla(const xla::Layout& layout);

  const std::vector<int64_t>& major_to_minor() const { return major_to_minor_; }
  const std::optional<Tiling>& tiling() const { return tiling_; }
  int64_t sub_byte_element_size_in_bits() const { return sub_byte_element_size_in_bits_; }

  // JAX's `update(**kw)`: modified copies (the same bounds as Create).
  absl::StatusOr<LocalLayout> WithMajorToMinor(std::vector<int64_t> major_to_minor) const;
  absl::StatusOr<LocalLayout> WithTiling(std::optional<Tiling> tiling) const;
  LocalLayout WithSubByteElementSizeInBits(int64_t bits) const;

  // JAX's check_compatible_aval (InvalidArgument, JAX's ValueError text):
  //   Length of major_to_minor and the rank of the value should match. Got
  //   major_to_minor=(1, 0) and shape=(8,)
  absl::Status CheckCompatibleAval(absl::Span<const int64_t> shape) const;

  // The XLA layout (spec §2): minor_to_major = reversed major_to_minor; the tiles; E =
  // sub_byte_element_size_in_bits when non-zero, otherwise, when a tiling is present (even
  // `()`) and `dtype` is an integer type narrower than 8 bits, its bit width. (JAX itself
  // drops a non-zero sub-byte size when tiling is None; axe keeps it, so that FromXla gives
  // it back.) Errors (InvalidArgument): major_to_minor is not a permutation of 0..rank-1
  // (naming the entry), a tile entry < 1 (naming the tile), a negative sub-byte size.
  absl::StatusOr<xla::Layout> ToXla(DType dtype) const;

  // JAX's repr: Layout(major_to_minor=(1, 0), tiling=None, sub_byte_element_size_in_bits=0).
  std::string ToString() const;
  // A tiling as a Python tuple of tuples: ((8, 128), (2, 1)), ((128,),), (); "None" for none.
  static std::string TilingToString(const std::optional<Tiling>& tiling);

  friend bool operator==(const LocalLayout&, const LocalLayout&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const LocalLayout& l) {
    return H::combine(std::move(h), l.major_to_minor_, l.tiling_.has_value(),
                      l.tiling_ ? *l.tiling_ : Tiling{}, l.sub_byte_element_size_in_bits_);
  }
  friend std::ostream& operator<<(std::ostream& os, const LocalLayout& l) {
    return os << l.ToString();
  }

 private:
  LocalLayout(std::vector<int64_t> major_to_minor, std::optional<Tiling> tiling, int64_t bits)
      : major_to_minor_(std::move(major_to_minor)),
        tiling_(std::move(tiling)),
        sub_byte_element_size_in_bits_(bits) {}

  std::vector<int64_t> major_to_minor_;
  std::optional<Tiling> tiling_;  // nullopt: None
  int64_t sub_byte_element_size_in_bits_ = 0;
};

// `Layout.AUTO`: let the compiler choose the layout. A unit value (all AUTOs are equal);
// repr `AUTO`; Parse reads `AUTO`, `Layout.AUTO` and `DeviceLocalLayout.AUTO`.
struct AutoLayout {
  static absl::StatusOr<AutoLayout> Parse(absl::string_view text);
  std::string ToString() const { return "AUTO"; }

  friend bool operator==(const AutoLayout&, const AutoLayout&) { return true; }
  template <typename H>
  friend H AbslHashValue(H h, const AutoLayout&) {
    return H::combine(std::move(h), absl::string_view("AUTO"));
  }
  friend std::ostream& operator<<(std::ostream& os, const AutoLayout&) { return os << "AUTO"; }
};

}  // namespace axe::sharding

#endif  // AXE_SHARDING_LOCAL_LAYOUT_H_
