// The one type for a list of dimension sizes (a shape) or of dimension numbers (axes, a
// permutation): a plain std::vector<int64_t>, which every public API takes and returns.
// Code that names the concept uses this alias instead of declaring its own.
//
//   Dims shape = {8, 128};
//   Dims perm = {1, 0};
//
// The Pallas interpreter keeps pallas::Shape (an inline small vector) for its per-program
// loops, where a heap allocation per block would show.
#ifndef AXE_BASE_DIMS_H_
#define AXE_BASE_DIMS_H_

#include <cstdint>
#include <vector>

namespace axe {

using Dims = std::vector<int64_t>;

}  // namespace axe

#endif  // AXE_BASE_DIMS_H_
