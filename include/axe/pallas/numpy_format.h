// Arrays printed the way NumPy's print() and JAX's repr() show them, so that results can be
// compared with Pallas documentation and tests character for character.
//
//   FormatNumpy(a)      // "[[ 0  0  1]\n [10 10 11]]"
//   FormatNumpyRepr(a)  // "Array([[ 0,  0,  1],\n       [10, 10, 11]], dtype=int32)"
//
// Every element is padded to a common width (integers: the widest of min and max; floats:
// NumPy's "maxprec" mode with precision 8 — integral values print as "42.", NaN as "nan",
// and scientific notation when the non-zero magnitudes span more than 1000x, exceed 1e8 or
// go below 1e-4; bool: " True"/"False"). Unlike NumPy, lines are never wrapped and large
// arrays are never summarized with "...".
#ifndef AXE_PALLAS_NUMPY_FORMAT_H_
#define AXE_PALLAS_NUMPY_FORMAT_H_

#include <string>

#include "axe/pallas/array.h"

namespace axe::pallas {

// NumPy print(a) / str(a). A 0-d array prints as its scalar ("42", "42.0", "nan", "True").
std::string FormatNumpy(const AnyArray& a);
// JAX's repr(a): "Array(<elements, comma-separated>, dtype=<name>)"; an empty array adds
// "shape=(...)" as NumPy does.
std::string FormatNumpyRepr(const AnyArray& a);

}  // namespace axe::pallas

#endif  // AXE_PALLAS_NUMPY_FORMAT_H_
