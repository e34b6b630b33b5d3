// An iter (extent, stride, axis): c in [0, extent) maps to (c * stride)@axis.
//
//   Iter{4, 1, Axis::Get("lane")}   // written 4:1@lane
#ifndef AXE_LAYOUT_ITER_H_
#define AXE_LAYOUT_ITER_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>

#include "axe/layout/axis.h"

namespace axe {

struct Iter {
  int64_t extent = 1;
  int64_t stride = 1;
  Axis axis;

  // "e:s" on the memory axis m, "e:s@axis" otherwise.
  std::string ToString() const;

  friend bool operator==(const Iter&, const Iter&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const Iter& it) {
    return H::combine(std::move(h), it.extent, it.stride, it.axis);
  }
  friend std::ostream& operator<<(std::ostream& os, const Iter& it) { return os << it.ToString(); }
};

// "s" on m, "s@axis" otherwise (the stride part of the text form).
std::string FormatStride(int64_t stride, Axis axis);

}  // namespace axe

#endif  // AXE_LAYOUT_ITER_H_
