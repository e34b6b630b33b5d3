// Helpers shared by the sharding tests. Each builds a value from text or parts; when that
// fails it records a test failure naming the input and the error (ADD_FAILURE) and returns
// a valid fallback, so a bad fixture fails its test instead of aborting the binary.
#ifndef AXE_TESTS_SHARDING_TEST_UTIL_H_
#define AXE_TESTS_SHARDING_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/named_sharding.h"
#include "axe/sharding/partition_spec.h"
#include "axe/xla/layout.h"
#include "axe/xla/text.h"
#include "gtest/gtest.h"

namespace axe::sharding::test_util {

// The value of `result`, or (after a test failure naming `what`) `fallback`.
template <typename T>
T ValueOrFail(absl::StatusOr<T> result, absl::string_view what, T fallback) {
  if (result.ok()) return *std::move(result);
  ADD_FAILURE() << what << ": " << result.status();
  return fallback;
}

// Fallback: the mesh with no axes.
inline Mesh ParseMesh(absl::string_view text) {
  return ValueOrFail(Mesh::Parse(text), std::string("Mesh::Parse(\"") + std::string(text) + "\")",
                     Mesh());
}
inline Mesh MakeMesh(std::vector<MeshAxis> axes, std::vector<int64_t> devices = {}) {
  return ValueOrFail(Mesh::Create(std::move(axes), std::move(devices)), "Mesh::Create", Mesh());
}

// Fallback: P().
inline PartitionSpec ParseSpec(absl::string_view text) {
  return ValueOrFail(PartitionSpec::Parse(text),
                     std::string("PartitionSpec::Parse(\"") + std::string(text) + "\")",
                     PartitionSpec());
}
inline PartitionSpec Spec(std::vector<PartitionSpec::Entry> entries) {
  return ValueOrFail(PartitionSpec::Create(std::move(entries)), "PartitionSpec::Create",
                     PartitionSpec());
}

// Fallback: P() on the mesh with no axes (replicated on device 0).
inline NamedSharding MakeNamed(Mesh mesh, PartitionSpec spec) {
  absl::StatusOr<NamedSharding> named = NamedSharding::Create(std::move(mesh), std::move(spec));
  if (named.ok()) return *std::move(named);
  ADD_FAILURE() << "NamedSharding::Create: " << named.status();
  return NamedSharding::Create(Mesh(), PartitionSpec()).value();  // always valid
}
inline NamedSharding Named(absl::string_view mesh, absl::string_view spec) {
  return MakeNamed(ParseMesh(mesh), ParseSpec(spec));
}

// Fallback: {replicated}.
inline HloSharding ParseHlo(absl::string_view text) {
  return ValueOrFail(HloSharding::Parse(text),
                     std::string("HloSharding::Parse(\"") + std::string(text) + "\")",
                     HloSharding::Replicated());
}

// Fallback: the empty layout {}.
inline xla::Layout XlaLayout(absl::string_view text) {
  return ValueOrFail(xla::ParseLayout(text),
                     std::string("xla::ParseLayout(\"") + std::string(text) + "\")", xla::Layout());
}

// The axes and device order of a random mesh: up to 3 axes named a, b, c of sizes 1 to
// `max_size`, and half the time a shuffled device order (empty: the default order).
struct RandomMeshParts {
  std::vector<MeshAxis> axes;
  std::vector<int64_t> devices;
};
inline RandomMeshParts RandomMesh(std::mt19937_64& rng, int64_t max_size) {
  RandomMeshParts out;
  int64_t n = 1;
  const size_t mesh_rank = rng() % 4;
  for (size_t j = 0; j < mesh_rank; ++j) {
    out.axes.push_back({std::string(1, static_cast<char>('a' + j)),
                        1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_size))});
    n *= out.axes.back().size;
  }
  if (rng() % 2) {
    for (int64_t d = 0; d < n; ++d) out.devices.push_back(d);
    std::shuffle(out.devices.begin(), out.devices.end(), rng);
  }
  return out;
}

// Random PartitionSpec entries for `rank` dimensions: each mesh axis, in random order, goes
// to a random dimension or to none (replicated).
inline std::vector<PartitionSpec::Entry> RandomSpecEntries(std::mt19937_64& rng,
                                                           const std::vector<MeshAxis>& axes,
                                                           size_t rank) {
  std::vector<PartitionSpec::Entry> entries(rank);
  std::vector<size_t> order(axes.size());
  for (size_t j = 0; j < axes.size(); ++j) order[j] = j;
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t j : order) {
    const size_t dim = rng() % (rank + 1);  // rank: not used (replicated)
    if (dim < rank) entries[dim].push_back(axes[j].name);
  }
  return entries;
}

}  // namespace axe::sharding::test_util

#endif  // AXE_TESTS_SHARDING_TEST_UTIL_H_
