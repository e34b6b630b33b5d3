// The backward map (preimage) of a layout: physical point -> every logical point mapping to it.
//
//   L^-1(p) = { x in [0, E_D) : p in L(x) }   (empty, one, or several points)
//
// Because every iter lives on one axis, the point set P = {O + f_R(r)} is a product of
// per-axis value sets P_a and f_D is a sum of per-axis maps, so the preimage is the product
// over the axes a used by D of the per-axis solutions
//   { digits of D on a : f_{D,a}(digits) = p[a] - v, v in P_a },
// and every other axis must have p[a] in P_a. A per-axis equation is solved
//  - greedily when the axis's iters form a mixed radix (sorted by |stride| descending, each
//    |stride| is at least 1 + the span of the smaller ones): O(n_a) per value v, at most one
//    solution;
//  - otherwise by a depth-first search over the digits, largest |stride| first, pruned by
//    the interval of values the remaining digits can reach and by their stride gcd: the cost
//    is the number of partial solutions visited (bounded; see kMaxSearchNodes).
// Total cost: sum over axes of |P_a| times the per-axis decode cost, plus the output size.
// The domain [0, E_D) is never enumerated.
//
//   Layout la = *Layout::Parse("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp");
//   Inverse(la, {8, 16}, *PhysCoord::Parse("warp=6,lane=8,reg=1"));  // {{2, 9}}
#ifndef AXE_LAYOUT_INVERSE_H_
#define AXE_LAYOUT_INVERSE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/coord.h"
#include "axe/layout/layout.h"

namespace axe {

// Search budget of the general (non mixed-radix) decoder per query.
inline constexpr int64_t kMaxSearchNodes = int64_t{1} << 24;

// A layout prepared for repeated preimage queries.
class InverseMap {
 public:
  // Precomputes per-axis decoders and replica value sets. ResourceExhausted if an axis has
  // more than kMaxEnumeratedPoints distinct replica values.
  static absl::StatusOr<InverseMap> Build(const Layout& layout);

  // Flat indices x with p in L(x), ascending. ResourceExhausted if there are more than
  // kMaxEnumeratedPoints of them or the search exceeds kMaxSearchNodes.
  absl::StatusOr<std::vector<int64_t>> Preimage(const PhysCoord& p) const;

  // True when every axis of D decodes greedily (mixed radix).
  bool mixed_radix() const;

  struct Digit {
    int64_t extent;
    int64_t abs_stride;
    bool negative;
    int64_t weight;    // B_k: the digit's place value in the flat index
    int64_t max_rest;  // sum of |s|(e-1) over this digit and the ones after it
    int64_t gcd_rest;  // gcd of |s| over this digit and the ones after it
  };
  struct AxisDecoder {
    Axis axis;
    std::vector<Digit> digits;  // extent > 1 only, |stride| descending
    int64_t neg_shift = 0;      // sum of |s|(e-1) over the negative-stride digits
    bool greedy = true;
    std::vector<int64_t> replica_values;  // P_a, sorted (just {O[a]} without replicas)
  };

 private:
  std::vector<AxisDecoder> decoders_;                          // axes used by D
  std::vector<std::pair<Axis, std::vector<int64_t>>> others_;  // R/O axes not used by D
};

// Preimage as flat indices, ascending.
absl::StatusOr<std::vector<int64_t>> InverseFlat(const Layout& layout, const PhysCoord& p);
// Preimage as coordinates of an admitted shape, in increasing (row-major) order.
absl::StatusOr<std::vector<std::vector<int64_t>>> Inverse(const Layout& layout,
                                                          absl::Span<const int64_t> shape,
                                                          const PhysCoord& p);

}  // namespace axe

#endif  // AXE_LAYOUT_INVERSE_H_
