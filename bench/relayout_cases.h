// Layouts of the relayout benchmark cases, shared with tests/runtime (which checks the
// hand-written TPU tiling against a direct formula of XLA's tiling).
#ifndef AXE_BENCH_RELAYOUT_CASES_H_
#define AXE_BENCH_RELAYOUT_CASES_H_

#include <cstdint>
#include <string>

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace axe::bench {

// The Axe layout of XLA's bf16[rows, cols]{1,0:T(8,128)(2,1)} (TPU) over the (rows, cols)
// domain, written by hand (tests/relayout/tpu_tiling_test.cc checks it against XLA's tiling
// formula and against xla::ToAxe). Requires rows % 8 == 0 and cols % 128 == 0 (no padding).
//
// T(8,128) cuts the row-major (rows, cols) array into 8x128 tiles, stored tile after tile
// in row-major tile order; T(2,1) then cuts each 8x128 tile into 2x1 sub-tiles stored in
// row-major sub-tile order, so a tile holds (4, 128, 2) = (row pair, column, row in pair).
// Splitting the logical row r into (r/8, (r%8)/2, r%2) and the column c into
// (c/128, c%128), the offsets are
//   r/8 -> (cols/128)*1024,  (r%8)/2 -> 256,  r%2 -> 1,  c/128 -> 1024,  c%128 -> 2.
inline std::string TpuTiledLayoutText(int64_t rows, int64_t cols) {
  return absl::StrCat("S[(", rows / 8, ",4,2,", cols / 128, ",128):(", (cols / 128) * 1024,
                      ",256,1,1024,2)]");
}

// The Axe layout, over the source's logical shape `shape`, of the row-major destination of
// the permutation "out dim j = in dim perm[j]": input dim perm[j] gets the row-major stride
// of output dim j. PermutedLayoutText({2,3}, {1,0}) == "S[(2,3):(1,2)]".
inline std::string PermutedLayoutText(const std::vector<int64_t>& shape,
                                      const std::vector<int>& perm) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t j = perm.size(); j-- > 0;) {
    strides[static_cast<size_t>(perm[j])] = stride;
    stride *= shape[static_cast<size_t>(perm[j])];
  }
  return absl::StrCat("S[(", absl::StrJoin(shape, ","), "):(", absl::StrJoin(strides, ","), ")]");
}

}  // namespace axe::bench

#endif  // AXE_BENCH_RELAYOUT_CASES_H_
