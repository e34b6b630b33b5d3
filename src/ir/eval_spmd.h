// The interpreter behind EvalJaxpr and EvalJaxprOnDevices (internal to src/ir): a jaxpr is
// evaluated SPMD over the positions of a mesh in lockstep. Every value holds one HostArray
// per position (one outside shard_map); an ordinary equation runs its impl rule at every
// position, a collective exchanges the positions' values through an SpmdExecutor (the host
// simulation or a runtime client's devices).
#ifndef AXE_SRC_IR_EVAL_SPMD_H_
#define AXE_SRC_IR_EVAL_SPMD_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/base/memory_budget.h"
#include "axe/ir/host_array.h"
#include "axe/ir/jaxpr.h"
#include "axe/sharding/mesh.h"

namespace axe::ir::internal {

// One value per mesh position (row-major over the mesh's axes); one outside shard_map.
using Replicas = std::vector<HostArray>;

struct SpmdScope;

class SpmdExecutor {
 public:
  virtual ~SpmdExecutor() = default;
  // Runs fn(i) for i in [0, scope.count), the positions first_position + i of scope.mesh
  // (none outside shard_map); the host runs them in order on this thread.
  virtual absl::Status ForEachPosition(const SpmdScope& scope,
                                       const std::function<absl::Status(int64_t)>& fn);
  // Runs the communicating collective `eqn` (psum, psum_invariant, pmax, pmin, all_gather,
  // all_gather_invariant, reduce_scatter, all_to_all, ppermute) over `mesh`: x holds every
  // position's operand, the result every position's value of type `out_aval`.
  virtual absl::StatusOr<Replicas> Collective(const sharding::Mesh& mesh, const Eqn& eqn,
                                              const Replicas& x, const ShapedArray& out_aval);
  // Whether this process computes mesh position p (every one on the host and on an
  // in-process client; only its own rank's on MPI). The others hold copies of a live
  // position's values, so that every position has a value of the right type.
  virtual bool IsLive(const sharding::Mesh& mesh, int64_t position) const;
  // Makes every position's block of a shard_map output available here before the output is
  // assembled (MPI: an all-gather of the blocks).
  virtual absl::StatusOr<Replicas> ShareBlocks(const sharding::Mesh& mesh, Replicas blocks);
};

// The host simulation of the mesh (collectives computed from the positions' values).
SpmdExecutor& HostExecutor();

struct SpmdScope {
  const sharding::Mesh* mesh = nullptr;  // the enclosing shard_map's mesh; null outside
  int64_t first_position = 0;            // values hold positions [first, first + count)
  int64_t count = 1;
  SpmdExecutor* executor = nullptr;
  // What is left of the evaluation's budget of element operations (every equation costs the
  // elements of its results times the positions); past it, ResourceExhausted, so that a
  // program like a scan of length 10^12 ends instead of running for days.
  int64_t* budget = nullptr;
  // The bytes of the values the evaluation holds, against its memory budget; null: not
  // metered.
  struct MemoryMeter* memory = nullptr;
};

// The values an evaluation holds at once (every element a double, kValueOverheadBytes more
// per array), against its memory budget: each environment charges the values bound in it
// while it lives, and each equation reserves its operands' copies and its results before it
// runs, so that many values each under the per-value cap cannot exhaust memory together.
struct MemoryMeter {
  MemoryBudget budget;
  int64_t live = 0;  // bytes of the values bound in the environments in use
  // OK when `more` bytes (nullopt: past int64) fit next to the live ones; else
  // ResourceExhausted naming `what` (MemoryBudget::Check's message).
  absl::Status Reserve(std::optional<int64_t> more, absl::string_view what) const;
};
inline constexpr int64_t kValueOverheadBytes = 64;
// The bytes of `count` arrays of type `aval` (nullopt past int64).
std::optional<int64_t> ValueBytes(const ShapedArray& aval, int64_t count);
// The bytes `values` take.
int64_t ValueBytes(const Replicas& values);

// The budget of one EvalJaxpr / EvalJaxprOnDevices call.
inline constexpr int64_t kEvalBudget = int64_t{1} << 31;
// The least an equation costs: about 8 M equations of small values fit in the budget.
inline constexpr int64_t kEvalEqnCost = 256;

// ResourceExhausted when running `body` `times` times cannot fit in what is left of the
// budget, by a static estimate that counts nested scans, shard_maps and the costliest cond
// branch (checked before the program and before each scan).
absl::Status CheckAffordable(int64_t times, const Jaxpr& body, const SpmdScope& scope);
// The same for a whole program before it runs; the message names its longest scan.
absl::Status CheckProgramAffordable(const Jaxpr& program, const SpmdScope& scope);

absl::StatusOr<std::vector<Replicas>> EvalSpmd(const ClosedJaxpr& jaxpr, std::vector<Replicas> args,
                                               const SpmdScope& scope);

// A shard_map equation on global operands: split by in_specs, the body over the mesh's
// positions, the outputs assembled by out_specs.
absl::StatusOr<std::vector<HostArray>> RunShardMap(const Eqn& eqn, absl::Span<const HostArray> args,
                                                   SpmdExecutor& executor, int64_t* budget,
                                                   MemoryMeter* memory = nullptr);

// The host collectives (HostExecutor's), usable by other executors as a fallback.
absl::StatusOr<Replicas> HostCollective(const sharding::Mesh& mesh, const Eqn& eqn,
                                        const Replicas& x, const ShapedArray& out_aval);

// EvalJaxpr's body with `executor` running the shard_map bodies, its values metered against
// `memory` (null: the budget resolved now, ResolveMemoryBudget).
absl::StatusOr<std::vector<HostArray>> EvalTopLevel(const ClosedJaxpr& jaxpr,
                                                    absl::Span<const HostArray> args,
                                                    SpmdExecutor& executor,
                                                    const MemoryBudget* memory = nullptr);

// Checks args against the jaxpr's invars (count, shape, dtype) with the messages of eval.h.
absl::Status CheckArgs(const Jaxpr& jaxpr, absl::Span<const HostArray> args);

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_EVAL_SPMD_H_
