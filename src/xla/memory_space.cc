#include "axe/xla/memory_space.h"

#include "absl/strings/str_cat.h"
#include "axe/xla/layout.h"

namespace axe::xla {

absl::string_view MemorySpaceName(int64_t memory_space) {
  switch (memory_space) {
    case Layout::kDefaultMemorySpace: return "default";
    case Layout::kGenericFastMemorySpace: return "fast";
    case Layout::kHostMemorySpace: return "pinned_host";
    case Layout::kUnpinnedHostMemorySpace: return "unpinned_host";
    default: return "device_specific";
  }
}

std::string MemorySpaceDescription(int64_t memory_space) {
  switch (memory_space) {
    case Layout::kDefaultMemorySpace: return "default device memory (HBM on TPU and GPU)";
    case Layout::kGenericFastMemorySpace:
      return "fast memory: VMEM (the core's vector scratch memory) on TPU, the alternate memory of "
             "memory-space assignment, collective memory on GPU";
    case Layout::kHostMemorySpace: return "host memory, pinned (JAX memory kind pinned_host)";
    case Layout::kUnpinnedHostMemorySpace:
      return "host memory, unpinned (JAX memory kind unpinned_host)";
    default:
      return absl::StrCat("device-specific memory space ", memory_space,
                          FitsXlaInt8(memory_space) ? "" : " (XLA's int8 field cannot hold it)");
  }
}

bool FitsXlaInt8(int64_t memory_space) { return memory_space >= -128 && memory_space <= 127; }

}  // namespace axe::xla
