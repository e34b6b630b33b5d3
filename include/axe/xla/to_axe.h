// Exact conversion between XLA array layouts and Axe layouts (docs/xla.md, "The Axe form").
//
// ToAxe (the spec's `to_axe`): the memory-only Axe layout (axis m, offsets in elements) of an
// array's nested tiled layout, over a DOMAIN shape reported with the real dims. The domain is
// the real box, except that a dim whose tiles do not divide it is padded (bf16[3,5] under
// T(8,128) has domain (8,128)), and consecutive dims that a `*` fold merges AND pads become
// one domain dim. For every index of the real box, mapped into the domain (folded dims
// combine row-major), ApplyBase(layout, domain, DomainIndex(index)) == NestedLinearIndex.
// The layout lists the non-unit digits of the domain's row-major flat index in order, each
// with its stride (each domain dim's digits form one block; Canonicalize merges them further).
// E, L, S and M do not affect the map. When no Axe layout expresses the map (padding inside
// an already split dimension, say) the error is FailedPrecondition "not expressible ...".
//
//   AxeForm f = *ToAxe(*ParseShape("f32[3,5]{1,0:T(2,2)}"));
//   f.layout.ToString();   // "S[(2,2,3,2):(12,2,4,1)]"
//   f.domain;              // {4, 6}
//
// FromAxe (the spec's `from_axe`): the XLA layout (minor_to_major and tiles) realising a
// memory-only Axe layout over dims, found by trying candidates (untiled; one tile level of
// every rank; one level followed by (q,1)) and verifying each with ToAxe: a returned layout
// is always correct. Otherwise FailedPrecondition "not expressible as an XLA layout ...".
//
//   FromAxe(*axe::Layout::Parse("S[(2,2,2,4):(16,1,8,2)]"), {4, 8});   // {1,0:T(2,8)(2,1)}
#ifndef AXE_XLA_TO_AXE_H_
#define AXE_XLA_TO_AXE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/layout/layout.h"
#include "axe/xla/layout.h"
#include "axe/xla/shape.h"

namespace axe::xla {

// One dim of the domain: a run of consecutive logical dims (a single dim unless a `*` fold
// merged and padded several) and its size. The domain index of a real index e is
// Σ_j e_j · weights[j - first_dim] over the run.
struct DomainDim {
  int64_t first_dim = 0;
  int64_t last_dim = 0;
  int64_t size = 1;
  std::vector<int64_t> weights;

  friend bool operator==(const DomainDim&, const DomainDim&) = default;
};

struct AxeForm {
  axe::Layout layout;           // memory-only, over `domain` (digit form, see above)
  std::vector<int64_t> domain;  // the domain shape (one entry per domain dim)
  std::vector<DomainDim> domain_dims;
  std::vector<int64_t> real_dims;  // the array's dims

  // True when the domain differs from the real box.
  bool padded() const { return domain != real_dims; }
  // The domain index of an index of the real box. Errors: wrong rank, out of bounds.
  absl::StatusOr<std::vector<int64_t>> DomainIndex(absl::Span<const int64_t> index) const;
  // The row-major flat index of DomainIndex(index) (the Axe layout's logical flat index).
  absl::StatusOr<int64_t> DomainFlatIndex(absl::Span<const int64_t> index) const;
};

// Errors: not a valid array with a layout (a buffer's array is accepted), unbounded dims, no
// elements (an Axe extent is >= 1), a tile ending with `*`, or "not expressible".
absl::StatusOr<AxeForm> ToAxe(const Shape& shape);
// Parses (strictly) and converts; for callers holding HLO text such as
// "bf16[16,256]{1,0:T(8,128)(2,1)}".
absl::StatusOr<AxeForm> ToAxe(absl::string_view shape_text);

// Preconditions (else "not expressible" naming the reason): every iter on one memory axis,
// no replicas, zero offset, positive strides, Π dims == size, and the layout groups by dims.
// The result has L = 1, E = 0, S = 0.
absl::StatusOr<Layout> FromAxe(const axe::Layout& layout, absl::Span<const int64_t> dims);

}  // namespace axe::xla

#endif  // AXE_XLA_TO_AXE_H_
