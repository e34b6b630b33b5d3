// The executor: a closed jaxpr compiled once into a plan of typed kernels, then run on typed
// values (value.h) as many times as needed.
//
//   absl::StatusOr<exec::Executable> e = exec::Executable::Compile(closed);
//   absl::StatusOr<std::vector<exec::Value>> out = e->Run({x, w});
//   std::cout << e->Describe();   // the plan: fused groups, kernels, fallbacks
//
// Compiling walks the equations once and picks, for each, a kernel on the values' own
// encodings:
//  - chains of elementwise operations on one float type (f32, f64), with the broadcasts that
//    feed them, are fused into one group that runs over cache-sized tiles with SIMD (Highway,
//    dispatched at run time to AVX-512, AVX2 or SSE4); intermediates never reach memory;
//  - other elementwise operations, comparisons, select_n and convert_element_type run typed
//    kernels for every integer, bool and float type (integers wrap in their own width);
//  - dot_general on f32/f64 goes to BLAS (OpenBLAS's GEMM, its operands read in place when a
//    transpose flag and a leading dimension describe them, otherwise packed first);
//  - reduce_sum/max/min over trailing or leading blocks of axes are vectorized (float sums
//    pairwise, as numerics.h describes);
//  - reshape, squeeze and expand_dims relabel the same storage; transpose runs the relayout
//    engine; broadcast_in_dim, iota, slice and concatenate copy;
//  - jit, closed_call and the custom calls run their compiled bodies; scan compiles its body
//    once and loops without re-planning; cond compiles every branch;
//  - anything else (shard_map bodies and collectives, the rarer primitives, types the typed
//    kernels do not cover) runs the primitive's impl rule through the reference interpreter
//    and is marked "fallback" in Describe().
// A value is freed after its last use, and its storage is reused by a later value of the same
// size, in the same run or the next one (an Executable keeps the storage of its runs' dead
// values; Run may be called from several threads at once).
//
// Work is bounded: Compile estimates what one Run touches (bytes read and written plus
// multiply-adds) and refuses a program over ExecOptions::max_work (ResourceExhausted naming the
// estimate and the limit), and the bytes its values hold at their peak, refused past
// ExecOptions::memory; Run checks `cancel` between equations and scan steps (Cancelled).
#ifndef AXE_EXEC_EXECUTABLE_H_
#define AXE_EXEC_EXECUTABLE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/base/memory_budget.h"
#include "axe/exec/value.h"
#include "axe/ir/jaxpr.h"

namespace axe::runtime {
class Client;
}  // namespace axe::runtime

namespace axe::exec {

struct ExecOptions {
  // Threads for large kernels (GEMM, fused groups, reductions): <= 0 uses every CPU the
  // process may run on.
  int num_threads = 0;
  // The most work one Run may do, in bytes touched plus multiply-adds.
  int64_t max_work = int64_t{1} << 42;
  // When set and true, Run stops between equations with Cancelled.
  const std::atomic<bool>* cancel = nullptr;
  // Compile refuses a program whose values at their peak (PlanStats::peak_bytes) exceed this
  // budget (ResourceExhausted); nullopt: the budget when Compile runs (ResolveMemoryBudget).
  std::optional<MemoryBudget> memory;
  // The runtime client a shard_map runs on. Null, or a client whose process holds every
  // device: the positions run on threads of this process. A client whose process holds one
  // device (an MPI rank; every rank runs the same program on the same arguments): this
  // process runs that device's mesh position, the collectives go through the client's
  // backend, and each output's blocks are all-gathered so every rank returns the whole
  // result. The client outlives the executable.
  runtime::Client* client = nullptr;
};

// What Compile chose, for tests, Describe() and benchmarks.
struct PlanStats {
  int equations = 0;  // top-level equations of the jaxpr
  int fused_groups = 0;
  int fused_equations = 0;
  int typed_kernels = 0;  // equations run by a typed kernel outside fusion
  int relabels = 0;       // reshapes and broadcasts that copy nothing
  int fallbacks = 0;      // equations run through the reference interpreter
  // Equations of nested bodies (calls, loops, conds, shard_map) run through the interpreter.
  int nested_fallbacks = 0;
  int64_t work = 0;  // the estimated work of one Run
  // The most bytes one Run's values hold at once (inputs, constants, each step's results next
  // to the values still read later and the storage kept for reuse, a step's scratch while it
  // runs: a nested body's values beyond its arguments, a convolution's patches, a fallback's
  // values as doubles): what a run from an empty value pool allocates (docs/exec.md, Memory).
  int64_t peak_bytes = 0;
  // For a program with a shard_map: the most bytes one mesh position (one device) holds
  // while its body runs: its blocks of the operands (read in place or copied), the body's
  // values, its result blocks; comparable to XLA's memory_analysis() of an SPMD program, which
  // counts one device. 0 without a shard_map; `devices` is the mesh's device count.
  int64_t device_peak_bytes = 0;
  int64_t devices = 0;
};

namespace internal {
struct Plan;
class PoolCache;
}  // namespace internal

class Executable {
 public:
  // Errors: a constvar count that differs from the consts; a program over max_work or over the
  // memory budget (ResourceExhausted); a const of a type the executor cannot hold.
  static absl::StatusOr<Executable> Compile(const ir::ClosedJaxpr& jaxpr, ExecOptions options = {});

  // Errors: an argument count or type that differs from the jaxpr's inputs (InvalidArgument
  // naming the position and both types); a kernel's or a fallback rule's error; Cancelled.
  absl::StatusOr<std::vector<Value>> Run(absl::Span<const Value> args) const;

  const PlanStats& stats() const;
  const std::vector<ir::ShapedArray>& input_avals() const;
  const std::vector<ir::ShapedArray>& output_avals() const;
  // One line per step: "fused[exp,sub,div] f32[4096,4096]", "dot_general gemm f32[...]",
  // "reduce_sum rows", "fallback cumsum".
  std::string Describe() const;

 private:
  std::shared_ptr<const internal::Plan> plan_;
  // Storage of a run's dead values, kept for the next run (one pool per concurrent run).
  std::shared_ptr<internal::PoolCache> pools_;
};

// Compiles and runs `jaxpr` on the interpreter's values (what `axe ir run` and the Python
// binding pass around), converting at the edges.
absl::StatusOr<std::vector<ir::HostArray>> ExecuteJaxpr(const ir::ClosedJaxpr& jaxpr,
                                                        absl::Span<const ir::HostArray> args,
                                                        ExecOptions options = {});

}  // namespace axe::exec

#endif  // AXE_EXEC_EXECUTABLE_H_
