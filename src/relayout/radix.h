// Splitting one logical dimension of a relayout into strided boxes.
//
// After grouping (L||S) each side maps a logical index x of dimension d through a mixed
// radix: digits (extent e_j, stride s_j), most significant first, with place values
// W_j = prod of the later extents, and address(x) = sum_j ((x / W_j) mod e_j) * s_j.
// Tiling makes several digits (x = 8*tile + row); padding makes the real range [0, S) end
// inside a tile.
//
// When the place values of all sides, taken together, form a divisor chain
// V_0 > V_1 > ... > V_{m-1} = 1 (each divides the previous), x is written in that common
// radix and every side is linear in each common digit: level i contributes c_i * sigma_i
// with sigma_i = s_j * V_i / W_j (j the side's digit holding V_i). A range [lo, hi) of x
// is then a union of at most 2m boxes, each a fixed prefix of digits plus a run of one
// digit and all finer digits: exactly the loops of a strided copy.
#ifndef AXE_SRC_RELAYOUT_RADIX_H_
#define AXE_SRC_RELAYOUT_RADIX_H_

#include <cstdint>
#include <optional>
#include <vector>

namespace axe::relayout::internal {

struct Digit {
  int64_t extent;
  int64_t stride;
};

// The common radix of several sides of one dimension.
struct CommonRadix {
  std::vector<int64_t> weights;               // V_0 > ... > V_{m-1} = 1
  std::vector<std::vector<int64_t>> strides;  // [side][level] = sigma
};

// `sides[k]` holds side k's digits (extent > 1), most significant first. nullopt when the
// place values do not form a divisor chain (or a stride overflows).
std::optional<CommonRadix> MakeCommonRadix(const std::vector<std::vector<Digit>>& sides);

// address(x) of one side (x within the side's range).
int64_t DigitsValue(const std::vector<Digit>& digits, int64_t x);

// A box of a decomposition: x = start + c * V_level + (finer digits), c in [0, count).
struct RadixBox {
  int64_t start;
  size_t level;
  int64_t count;
};

// Splits [lo, hi) into boxes, coarsest in the middle: ascending to alignment, then
// descending. Boxes are disjoint, in increasing order, and cover the range exactly.
std::vector<RadixBox> DecomposeInterval(int64_t lo, int64_t hi,
                                        const std::vector<int64_t>& weights);

}  // namespace axe::relayout::internal

#endif  // AXE_SRC_RELAYOUT_RADIX_H_
