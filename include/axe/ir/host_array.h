// A concrete array on the host: what impl rules take and return and what a closed jaxpr's
// constants hold. Elements are stored as doubles in row-major order (every value of the
// integral types up to 2^53 and of every float type up to f64 is exact), which is what the
// reference interpreter computes with.
#ifndef AXE_IR_HOST_ARRAY_H_
#define AXE_IR_HOST_ARRAY_H_

#include <bit>
#include <cstdint>
#include <vector>

#include "axe/ir/shaped_array.h"

namespace axe::ir {

struct HostArray {
  ShapedArray aval;
  std::vector<double> values;  // NumElements() of them, row-major

  friend bool operator==(const HostArray& a, const HostArray& b) {
    if (a.aval != b.aval || a.values.size() != b.values.size()) return false;
    if (!IsKeyType(a.aval.dtype())) return a.values == b.values;
    for (size_t i = 0; i < a.values.size(); ++i) {
      if (std::bit_cast<uint64_t>(a.values[i]) != std::bit_cast<uint64_t>(b.values[i])) {
        return false;
      }
    }
    return true;
  }
};

}  // namespace axe::ir

#endif  // AXE_IR_HOST_ARRAY_H_
