// Test support for the relayout engine: seeded random buffer layouts (permutations, tilings
// and nested tilings with padding, gaps, negative strides, offsets, replicas, layouts that
// do not split per dimension) and buffers sized for them with guard bytes.
#ifndef AXE_TESTS_RUNTIME_RANDOM_RELAYOUT_H_
#define AXE_TESTS_RUNTIME_RANDOM_RELAYOUT_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "axe/relayout/buffer_layout.h"

namespace axe::testing {

struct RandomBufferOptions {
  bool destination = false;  // no broadcast; replicas only as disjoint copies
  bool allow_flat = true;    // sometimes a layout that does not split per dimension
};

// A random buffer layout holding a tensor of `shape`.
relayout::BufferLayout RandomBufferLayout(std::mt19937_64& rng, const std::vector<int64_t>& shape,
                                          const RandomBufferOptions& options = {});

// A random shape of rank 1..max_rank with extents in [1, max_extent] (sometimes 0), at most
// max_elements elements.
std::vector<int64_t> RandomShape(std::mt19937_64& rng, int max_rank, int64_t max_extent,
                                 int64_t max_elements);

// [min, max] of the offsets a buffer layout can address over its whole domain (replicas
// included).
std::pair<int64_t, int64_t> AddressRange(const relayout::BufferLayout& b,
                                         const std::vector<int64_t>& shape);

// A byte buffer covering a layout's address range plus guard bytes on both sides, filled
// with a seeded pattern. base() is the pointer that offset 0 maps to.
class GuardedBuffer {
 public:
  GuardedBuffer(const relayout::BufferLayout& b, const std::vector<int64_t>& shape,
                int element_bytes, uint64_t seed);
  uint8_t* base() { return bytes_.data() + origin_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
  size_t origin_ = 0;
};

}  // namespace axe::testing

#endif  // AXE_TESTS_RUNTIME_RANDOM_RELAYOUT_H_
