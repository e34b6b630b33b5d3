// Helpers of the distributed runtime's tests: random host data, the host reference of a
// shard (a box sliced out of row-major data), and random local layouts.
#ifndef AXE_TESTS_RUNTIME_DIST_TEST_UTIL_H_
#define AXE_TESTS_RUNTIME_DIST_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "axe/runtime/array.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/format.h"
#include "axe/sharding/sharding.h"
#include "axe/xla/layout.h"
#include "axe/xla/tile.h"

namespace axe::runtime::test_util {

inline std::vector<uint8_t> RandomBytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> out(n);
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

// The row-major bytes of box `index` of a row-major tensor of `shape`.
inline std::vector<uint8_t> SliceRowMajor(const std::vector<uint8_t>& data,
                                          const std::vector<int64_t>& shape,
                                          const std::vector<Interval>& index, int element_bytes) {
  const size_t rank = shape.size();
  int64_t count = 1;
  for (const auto& [a, b] : index) count *= b - a;
  std::vector<uint8_t> out;
  out.reserve(static_cast<size_t>(count * element_bytes));
  if (count == 0) return out;
  std::vector<int64_t> pos(rank);
  for (size_t i = 0; i < rank; ++i) pos[i] = index[i].begin;
  for (int64_t n = 0; n < count; ++n) {
    int64_t flat = 0;
    for (size_t i = 0; i < rank; ++i) flat = flat * shape[i] + pos[i];
    const uint8_t* p = data.data() + flat * element_bytes;
    out.insert(out.end(), p, p + element_bytes);
    for (size_t i = rank; i-- > 0;) {
      if (++pos[i] < index[i].end) break;
      pos[i] = index[i].begin;
    }
  }
  return out;
}

// A random XLA layout for a shard of `shape`: none (row-major), a random permutation, or,
// when the last two dims allow it, a random permutation with a (2, 4) or (4, 2) tile (tiles
// that may pad the shard's buffer).
inline std::optional<xla::Layout> RandomLocalLayout(std::mt19937_64& rng,
                                                    const std::vector<int64_t>& shape) {
  const int kind = static_cast<int>(rng() % 3);
  if (kind == 0) return std::nullopt;
  std::vector<int64_t> minor_to_major(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) minor_to_major[i] = static_cast<int64_t>(i);
  std::shuffle(minor_to_major.begin(), minor_to_major.end(), rng);
  if (kind == 1 || shape.size() < 2) return xla::Layout(minor_to_major);
  std::vector<int64_t> tile = rng() % 2 ? std::vector<int64_t>{2, 4} : std::vector<int64_t>{4, 2};
  return xla::Layout(minor_to_major, {xla::Tile(tile)});
}

// The Format of an array stored with `sharding` and every shard in `local_layout` (none:
// row-major); the layout must be one a JAX Layout can hold.
inline sharding::Format FormatOf(sharding::Sharding sharding,
                                 const std::optional<xla::Layout>& local_layout = std::nullopt) {
  return MakeArrayFormat(std::move(sharding), local_layout).value();
}

}  // namespace axe::runtime::test_util

#endif  // AXE_TESTS_RUNTIME_DIST_TEST_UTIL_H_
