// Seeded random linear shard_map programs for the transpose-law tests (test support): a
// chain of 1-5 linear steps (psum, pcast, neg, add, scale, all_gather, all_gather_invariant,
// psum_scatter, ppermute, all_to_all) on an f32[16,4] input split along dimension 0.
#ifndef AXE_TESTS_IR_RANDOM_LINEAR_PROGRAM_H_
#define AXE_TESTS_IR_RANDOM_LINEAR_PROGRAM_H_

#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/ir/host_array.h"
#include "axe/ir/jaxpr.h"
#include "axe/sharding/mesh.h"

namespace axe::ir::testing_random {

struct MeshInfo {
  sharding::Mesh mesh;
  std::vector<std::vector<std::string>> axis_sets;  // non-empty subsets, mesh order
};

absl::StatusOr<ClosedJaxpr> RandomProgram(std::mt19937_64& rng, const MeshInfo& m);
// Integers in [-4, 4] (exact in every float type's arithmetic here).
HostArray RandomInts(const ShapedArray& aval, std::mt19937_64& rng);
// The inner product of two arrays' values.
double Dot(const HostArray& a, const HostArray& b);

}  // namespace axe::ir::testing_random

#endif  // AXE_TESTS_IR_RANDOM_LINEAR_PROGRAM_H_
