// What an XLA memory space number S(n) means (docs/xla.md, "Memory spaces").
//
//   MemorySpaceName(5);          // "pinned_host"
//   MemorySpaceDescription(1);   // "fast memory: VMEM on TPU, ..."
#ifndef AXE_XLA_MEMORY_SPACE_H_
#define AXE_XLA_MEMORY_SPACE_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace axe::xla {

// A stable short name: 0 "default", 1 "fast", 5 "pinned_host", 6 "unpinned_host", anything
// else "device_specific".
absl::string_view MemorySpaceName(int64_t memory_space);

// One line in words, e.g. "default device memory (HBM on TPU and GPU)".
std::string MemorySpaceDescription(int64_t memory_space);

// XLA stores the memory space in an int8: values outside [-128, 127] wrap (S(300) -> 44).
bool FitsXlaInt8(int64_t memory_space);

}  // namespace axe::xla

#endif  // AXE_XLA_MEMORY_SPACE_H_
