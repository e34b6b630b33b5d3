// The executor's plan and kernel interface (internal to src/exec).
#ifndef AXE_SRC_EXEC_PLAN_H_
#define AXE_SRC_EXEC_PLAN_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "axe/base/thread_pool.h"
#include "axe/exec/executable.h"
#include "axe/exec/value.h"
#include "axe/ir/jaxpr.h"
#include "axe/ir/primitive.h"

namespace axe::exec::internal {

// Storage of values that died, handed to later values of the same byte size.
class ValuePool {
 public:
  absl::StatusOr<Value> Take(const ir::ShapedArray& aval);
  // Keeps `value`'s storage for reuse when nothing else holds it.
  void Give(Value value);

 private:
  std::map<size_t, std::vector<Value>> free_;
};

// Pools of past runs, handed to the next runs.
class PoolCache {
 public:
  std::unique_ptr<ValuePool> Take();
  void Give(std::unique_ptr<ValuePool> pool);

 private:
  absl::Mutex mu_;
  std::vector<std::unique_ptr<ValuePool>> pools_ ABSL_GUARDED_BY(mu_);
};

struct SpmdPosition;  // spmd.h

struct RunContext {
  ThreadPool* pool = nullptr;
  int threads = 1;
  const std::atomic<bool>* cancel = nullptr;
  ValuePool* values = nullptr;
  // Inside a shard_map body: the mesh position this thread runs and its communicator.
  const SpmdPosition* spmd = nullptr;

  absl::StatusOr<Value> Allocate(const ir::ShapedArray& aval) const {
    return values != nullptr ? values->Take(aval) : Value::Uninitialized(aval);
  }
  bool cancelled() const { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }
};

// Computes an equation's outputs from its inputs (in equation order).
using Kernel = std::function<absl::Status(const RunContext& ctx, absl::Span<const Value> in,
                                          std::vector<Value>& out)>;

// What a kernel builder sees of an equation: its params and types.
struct EqnView {
  const ir::Eqn& eqn;
  std::vector<ir::ShapedArray> in;   // vma dropped
  std::vector<ir::ShapedArray> out;  // vma dropped
  const ExecOptions& options;
  // Per output: nothing reads it (a kernel may leave it empty and say so in
  // BuiltKernel::unwritten); empty: every output is read.
  std::vector<bool> unread = {};
};

struct BuiltKernel {
  Kernel kernel;
  std::string description;    // e.g. "gemm" or "rows"
  bool relabel = false;       // copies nothing
  int64_t work = 0;           // bytes touched plus multiply-adds, per call
  int64_t scratch_bytes = 0;  // memory the kernel needs beyond its outputs (nested plans)
  // Sizes of the scratch values the kernel takes from the value pool after its outputs and
  // gives back when it ends (a dot's packed operands).
  std::vector<int64_t> pooled_scratch;
  int nested_fallbacks = 0;  // equations of its nested plans run through the interpreter
  // Per output: the input (an index into the step's inputs) whose storage the kernel writes
  // that output into when the plan hands it over (Step::donor): the output reads that input
  // at its own index and after every other read of it. -1 or empty: none.
  std::vector<int> overwrites;
  // Per output: left empty (Value()) because nothing reads it (EqnView::unread).
  std::vector<bool> unwritten;
  // An output may share storage with an input (a nested body passing its argument through).
  bool passes_through = false;
  // A shard_map's (or a call of one's): PlanStats::device_peak_bytes and devices.
  int64_t device_peak_bytes = 0;
  int64_t devices = 0;
  int64_t constant_bytes = 0;  // held by its nested plans (their constants) while it exists
};

// A kernel for the equation, or nullopt when no typed kernel applies (then the equation falls
// back to the interpreter). An error is a program the executor refuses (e.g. a nested jaxpr
// over the work budget).
using KernelBuilder = std::function<absl::StatusOr<std::optional<BuiltKernel>>(const EqnView&)>;
using KernelTable = absl::flat_hash_map<std::string, KernelBuilder>;

// Every primitive's typed kernel builder, by name; filled once, complete when it returns.
const KernelTable& Kernels();

// Per family (one file each).
void AddElementwiseKernels(KernelTable& table);      // elementwise.cc
void AddShapeKernels(KernelTable& table);            // shape_ops.cc
void AddReductionKernels(KernelTable& table);        // reduce.cc
void AddDotKernels(KernelTable& table);              // dot.cc
void AddCallKernels(KernelTable& table);             // control_flow.cc
void AddCompareSelectKernels(KernelTable& table);    // compare_select.cc
void AddIndexingKernels(KernelTable& table);         // indexing.cc (gather, scatter family)
void AddConvKernels(KernelTable& table);             // conv.cc
void AddSortKernels(KernelTable& table);             // sort.cc
void AddWhileKernels(KernelTable& table);            // while_loop.cc
void AddMathKernels(KernelTable& table);             // math.cc
void AddPrngKernels(KernelTable& table);             // prng.cc
void AddBitcastKernels(KernelTable& table);          // bitcast.cc
void AddShardMapKernels(KernelTable& table);         // shard_map.cc
void AddCollectiveKernels(KernelTable& table);       // collectives.cc (inside shard_map bodies)
void AddWindowKernels(KernelTable& table);           // window.cc (reduce_window_sum/max/min)
void AddCumulativeKernels(KernelTable& table);       // cumulative.cc (cumsum ... cumlogsumexp)
void AddPadRevKernels(KernelTable& table);           // pad_rev.cc (pad, rev)
void AddArgMinMaxKernels(KernelTable& table);        // argminmax.cc (argmax, argmin, clamp)
void AddDynamicSliceKernels(KernelTable& table);     // dynamic_slice.cc (+ update, split)
void AddReducePrecisionKernels(KernelTable& table);  // reduce_precision.cc
void AddLinalgKernels(KernelTable& table);           // linalg.cc (cholesky, triangular_solve, lu)

// An elementwise equation whose operands broadcast against each other through size-1
// dimensions: `builder`'s kernel on operands expanded to the result's shape first; nullopt when
// the equation is no such one or `builder` takes no expanded form either.
absl::StatusOr<std::optional<BuiltKernel>> BuildWithBroadcastOperands(const EqnView& v,
                                                                      const KernelBuilder& builder);

// The reference interpreter's impl rule for the equation, on converted values.
BuiltKernel FallbackKernel(const ir::Eqn& eqn, const std::vector<ir::ShapedArray>& out);

// One step of a plan: a kernel over slots of the value table.
struct Step {
  BuiltKernel kernel;
  std::string name;           // the primitive(s)
  std::vector<int> inputs;    // slots
  std::vector<int> outputs;   // slots
  std::vector<int> released;  // slots whose last use is this step
  std::vector<bool> moved;    // per input: its slot's last read, handed over instead of copied
  // Per output: the input (index) whose storage it takes when the step holds that input's
  // only reference (BuiltKernel::overwrites of a moved input no other slot shares); -1: none.
  std::vector<int> donor;
  bool fallback = false;
};

struct Plan {
  int num_slots = 0;
  std::vector<std::pair<int, Value>> constants;  // consts and literals, placed before a run
  std::vector<int> inputs;
  std::vector<ir::ShapedArray> input_avals;
  std::vector<int> outputs;
  std::vector<ir::ShapedArray> output_avals;
  std::vector<Step> steps;
  PlanStats stats;
  ExecOptions options;
  int64_t argument_bytes = 0;  // of the inputs (the caller's values)
  int64_t result_bytes = 0;    // of the outputs that are not inputs or constants
  int64_t constant_bytes = 0;  // of its constants and its steps' nested plans' (made once)
};

// The bytes a nested plan (a call's or a loop's body) adds to its caller's while it runs: its
// peak less its arguments (values the caller holds) and its constants (the caller counts them
// through BuiltKernel::constant_bytes) and, when the caller counts them as its own step's
// outputs, less its results.
int64_t NestedScratchBytes(const Plan& plan, bool results_counted);

absl::StatusOr<std::shared_ptr<const Plan>> BuildPlan(const ir::ClosedJaxpr& jaxpr,
                                                      const ExecOptions& options);
// The equations of `plan` and of the plans nested in it that run through the interpreter.
inline int AllFallbacks(const Plan& plan) {
  return plan.stats.fallbacks + plan.stats.nested_fallbacks;
}
// Runs a plan on its arguments (checked by the caller).
absl::StatusOr<std::vector<Value>> RunPlan(const Plan& plan, const RunContext& ctx,
                                           absl::Span<const Value> args);

// The vectors one run of a plan works in, kept by a caller that runs the same plan many times
// (a loop's body) so that a run allocates none of them. Empty of values between runs.
struct PlanFrame {
  std::vector<Value> env;  // by slot
  std::vector<Value> in, out;
};
// RunPlan writing the plan's outputs into `results` and working in `frame`. Inputs past
// `args` may be placed in frame.env's input slots beforehand: the run then holds their only
// reference and frees each at its last use.
absl::Status RunPlanInFrame(const Plan& plan, const RunContext& ctx, absl::Span<const Value> args,
                            PlanFrame& frame, std::vector<Value>& results);

// The RunContext of a top-level Run.
RunContext MakeRunContext(const ExecOptions& options, ValuePool* values);

// Helpers shared by the kernel families.
int64_t NumElements(const ir::ShapedArray& aval);
absl::StatusOr<std::vector<int64_t>> IntsParam(const ir::Eqn& eqn, const char* name);
// Row-major strides of `shape`, in elements.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> shape);
// The stride (1 or 0) of each of `v`'s operands against its first result: an operand has the
// result's element count or one element; nullopt when one has neither.
std::optional<std::vector<int64_t>> UnitStrides(const EqnView& v);

}  // namespace axe::exec::internal

#endif  // AXE_SRC_EXEC_PLAN_H_
