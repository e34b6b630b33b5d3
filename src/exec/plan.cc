// Building a plan from a closed jaxpr (kernel choice, fusion, liveness) and running it.
#include "exec/plan.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitive.h"
#include "exec/fusion.h"

namespace axe::exec::internal {
namespace {

constexpr size_t kMaxPooledPerSize = 8;

// The slots of a jaxpr's variables (their VarIds) and of its literals (after them).
struct SlotMap {
  const ir::Jaxpr& jaxpr;
  Plan& plan;

  absl::StatusOr<int> Of(const ir::Atom& atom) {
    if (!atom.is_literal()) return atom.var;
    const ir::Literal& l = *atom.literal;
    if (l.kind() == ir::Literal::Kind::kElided) {
      return absl::InvalidArgumentError(
          "the jaxpr has an elided constant ([...]) whose value is not known");
    }
    ir::HostArray value{l.aval().WithVma({}), {l.AsDouble()}};
    AXE_ASSIGN_OR_RETURN(Value v, FromHostArray(value));
    const int slot = plan.num_slots++;
    plan.constants.emplace_back(slot, std::move(v));
    avals.push_back(l.aval().WithVma({}));
    return slot;
  }
  std::vector<ir::ShapedArray> avals;  // of the literal slots, in order
  const ir::ShapedArray& Aval(int slot) const {
    const size_t vars = jaxpr.vars.size();
    return static_cast<size_t>(slot) < vars ? jaxpr.aval(slot) : avals[slot - vars];
  }
};

struct EqnSlots {
  std::vector<int> in, out;
  std::vector<ir::ShapedArray> in_avals, out_avals;
};

absl::StatusOr<EqnSlots> Resolve(const ir::Eqn& eqn, SlotMap& slots) {
  EqnSlots e;
  for (const ir::Atom& a : eqn.inputs) {
    AXE_ASSIGN_OR_RETURN(int s, slots.Of(a));
    e.in.push_back(s);
    e.in_avals.push_back(slots.Aval(s).WithVma({}));
  }
  for (ir::VarId v : eqn.outputs) {
    e.out.push_back(v);
    e.out_avals.push_back(slots.jaxpr.aval(v).WithVma({}));
  }
  return e;
}

// Uses of every variable slot: the last equation that reads it (outputs: past the end).
std::vector<size_t> LastReads(const ir::Jaxpr& jaxpr) {
  std::vector<size_t> last(jaxpr.vars.size(), 0);
  for (size_t i = 0; i < jaxpr.eqns.size(); ++i) {
    for (const ir::Atom& a : jaxpr.eqns[i].inputs) {
      if (!a.is_literal()) last[static_cast<size_t>(a.var)] = i;
    }
  }
  for (const ir::Atom& a : jaxpr.outvars) {
    if (!a.is_literal()) last[static_cast<size_t>(a.var)] = SIZE_MAX;
  }
  return last;
}

// Fuses equations [i, end) into one step when at least one operation joins; returns end.
absl::StatusOr<size_t> TryFuse(const ir::Jaxpr& jaxpr, size_t i, SlotMap& slots,
                               const std::vector<size_t>& last_read, Plan& plan) {
  AXE_ASSIGN_OR_RETURN(EqnSlots first, Resolve(jaxpr.eqns[i], slots));
  if (first.out_avals.size() != 1 ||
      !Fusible(jaxpr.eqns[i], first.in_avals, first.out_avals[0], first.out_avals[0])) {
    return i;
  }
  FusedGroup group;
  group.aval = first.out_avals[0];
  absl::flat_hash_map<int, int> reg_of_slot;
  std::vector<int> produced;
  size_t end = i;
  for (; end < jaxpr.eqns.size(); ++end) {
    AXE_ASSIGN_OR_RETURN(EqnSlots e, Resolve(jaxpr.eqns[end], slots));
    if (e.out_avals.size() != 1 ||
        !Fusible(jaxpr.eqns[end], e.in_avals, e.out_avals[0], group.aval)) {
      break;
    }
    AddToGroup(jaxpr.eqns[end], e.in, e.in_avals, e.out[0], group, reg_of_slot);
    produced.push_back(e.out[0]);
  }
  if (group.ops.empty()) return i;  // broadcasts alone: copied by their own kernels
  Step step;
  for (int slot : produced) {
    if (last_read[static_cast<size_t>(slot)] >= end) {
      group.outputs.emplace_back(reg_of_slot.at(slot), slot);
      step.outputs.push_back(slot);
    }
  }
  for (const FusedInput& in : group.inputs) step.inputs.push_back(in.slot);
  step.name = absl::StrJoin(group.names, ",");
  plan.stats.fused_groups++;
  plan.stats.fused_equations += static_cast<int>(end - i);
  step.kernel = BuildFusedKernel(std::move(group));
  plan.steps.push_back(std::move(step));
  return end;
}

absl::Status AddEquation(const ir::Eqn& eqn, SlotMap& slots, const ExecOptions& options,
                         Plan& plan) {
  AXE_ASSIGN_OR_RETURN(EqnSlots e, Resolve(eqn, slots));
  Step step;
  step.name = eqn.primitive->name();
  step.inputs = e.in;
  step.outputs = e.out;
  std::optional<BuiltKernel> kernel;
  auto it = Kernels().find(eqn.primitive->name());
  bool held = true;
  for (const auto* avals : {&e.in_avals, &e.out_avals}) {
    for (const ir::ShapedArray& a : *avals) held = held && ElementBytes(a.dtype()).ok();
  }
  if (it != Kernels().end() && held) {
    AXE_ASSIGN_OR_RETURN(kernel, it->second(EqnView{eqn, e.in_avals, e.out_avals, options}));
  }
  if (kernel) {
    (kernel->relabel ? plan.stats.relabels : plan.stats.typed_kernels)++;
    step.kernel = std::move(*kernel);
  } else {
    plan.stats.fallbacks++;
    step.fallback = true;
    step.kernel = FallbackKernel(eqn, e.out_avals);
  }
  plan.steps.push_back(std::move(step));
  return absl::OkStatus();
}

// Marks each slot released after the last step that reads it (never the plan's outputs).
void AssignReleases(Plan& plan) {
  std::vector<int> last(static_cast<size_t>(plan.num_slots), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    for (int slot : plan.steps[s].inputs) last[static_cast<size_t>(slot)] = static_cast<int>(s);
    for (int slot : plan.steps[s].outputs) {
      int& l = last[static_cast<size_t>(slot)];
      l = std::max(l, static_cast<int>(s));
    }
  }
  for (int slot : plan.outputs) last[static_cast<size_t>(slot)] = -1;
  for (const auto& [slot, value] : plan.constants) last[static_cast<size_t>(slot)] = -1;
  for (size_t slot = 0; slot < last.size(); ++slot) {
    if (last[slot] >= 0) plan.steps[static_cast<size_t>(last[slot])].released.push_back(slot);
  }
}

// Bytes of a value of `aval` in the executor's encoding (doubles for a fallback's).
int64_t AvalBytes(const ir::ShapedArray& aval, bool as_doubles) {
  const absl::StatusOr<size_t> element = ElementBytes(aval.dtype());
  const int64_t bytes = as_doubles ? 8 : static_cast<int64_t>(element.ok() ? *element : 8);
  return CheckedMul(aval.NumElements().value_or(INT64_MAX), bytes).value_or(INT64_MAX);
}

// PlanStats::peak_bytes: RunPlan's allocations replayed with ValuePool's reuse (a released
// value's storage is kept for a later value of its size, up to kMaxPooledPerSize of them);
// relabels share their operand's storage; a step's scratch (a nested body's peak) and a
// fallback's values as doubles count while the step runs.
int64_t PeakBytes(const Plan& plan, const std::vector<ir::ShapedArray>& slot_avals) {
  auto add = [](int64_t& total, int64_t b) { total = CheckedAdd(total, b).value_or(INT64_MAX); };
  auto doubles = [&](int slot) { return AvalBytes(slot_avals[static_cast<size_t>(slot)], true); };
  std::vector<int64_t> bytes(slot_avals.size(), 0);  // storage each slot holds
  int64_t live = 0, pooled = 0, peak = 0;
  std::map<int64_t, size_t> pool;  // bytes -> storages kept
  for (const auto& [slot, value] : plan.constants)
    add(live, static_cast<int64_t>(value.num_bytes()));
  for (int slot : plan.inputs) {
    bytes[static_cast<size_t>(slot)] = AvalBytes(slot_avals[static_cast<size_t>(slot)], false);
    add(live, bytes[static_cast<size_t>(slot)]);
  }
  for (const Step& step : plan.steps) {
    int64_t transient = step.kernel.scratch_bytes;
    if (step.fallback) {
      for (int slot : step.inputs) add(transient, doubles(slot));
      for (int slot : step.outputs) add(transient, doubles(slot));
    }
    for (int slot : step.outputs) {
      const int64_t b =
          step.kernel.relabel ? 0 : AvalBytes(slot_avals[static_cast<size_t>(slot)], false);
      bytes[static_cast<size_t>(slot)] = b;
      auto it = pool.find(b);
      if (b > 0 && it != pool.end() && it->second > 0) {
        --it->second;
        pooled -= b;
      }
      add(live, b);
    }
    int64_t now = live;
    add(now, pooled);
    add(now, transient);
    peak = std::max(peak, now);
    for (int slot : step.released) {
      const int64_t b = bytes[static_cast<size_t>(slot)];
      live -= std::min(live, b);
      if (b > 0 && pool[b] < kMaxPooledPerSize) {
        ++pool[b];
        add(pooled, b);
      }
    }
  }
  return std::max(peak, CheckedAdd(live, pooled).value_or(INT64_MAX));
}

}  // namespace

absl::StatusOr<Value> ValuePool::Take(const ir::ShapedArray& aval) {
  AXE_ASSIGN_OR_RETURN(size_t element, ElementBytes(aval.dtype()));
  const std::optional<int64_t> n = aval.NumElements();
  if (n) {
    auto it = free_.find(static_cast<size_t>(*n) * element);
    if (it != free_.end() && !it->second.empty()) {
      Value v = std::move(it->second.back());
      it->second.pop_back();
      return v.Relabeled(aval);
    }
  }
  return Value::Uninitialized(aval);
}

void ValuePool::Give(Value value) {
  if (!value.sole_owner() || value.num_bytes() == 0) return;
  std::vector<Value>& same = free_[value.num_bytes()];
  if (same.size() < kMaxPooledPerSize) same.push_back(std::move(value));
}

std::unique_ptr<ValuePool> PoolCache::Take() {
  absl::MutexLock lock(&mu_);
  if (pools_.empty()) return std::make_unique<ValuePool>();
  std::unique_ptr<ValuePool> pool = std::move(pools_.back());
  pools_.pop_back();
  return pool;
}

void PoolCache::Give(std::unique_ptr<ValuePool> pool) {
  absl::MutexLock lock(&mu_);
  if (pools_.size() < 4) pools_.push_back(std::move(pool));
}

int64_t NumElements(const ir::ShapedArray& aval) { return aval.NumElements().value_or(0); }

absl::StatusOr<std::vector<int64_t>> IntsParam(const ir::Eqn& eqn, const char* name) {
  auto it = eqn.params.find(name);
  if (it == eqn.params.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(eqn.primitive->name(), " is missing its parameter ", name));
  }
  if (it->second.kind() == ir::Param::Kind::kInt) {
    return std::vector<int64_t>{it->second.int_value()};
  }
  return it->second.AsInts(name);
}

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

const KernelTable& Kernels() {
  static const KernelTable* table = [] {
    auto* t = new KernelTable;
    AddElementwiseKernels(*t);
    AddShapeKernels(*t);
    AddReductionKernels(*t);
    AddDotKernels(*t);
    AddCallKernels(*t);
    AddCompareSelectKernels(*t);
    AddIndexingKernels(*t);
    AddConvKernels(*t);
    AddSortKernels(*t);
    AddWhileKernels(*t);
    AddMathKernels(*t);
    AddPrngKernels(*t);
    AddBitcastKernels(*t);
    return t;
  }();
  return *table;
}

absl::StatusOr<std::shared_ptr<const Plan>> BuildPlan(const ir::ClosedJaxpr& closed,
                                                      const ExecOptions& options) {
  const ir::Jaxpr& jaxpr = closed.jaxpr;
  if (closed.consts.size() != jaxpr.constvars.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the closed jaxpr has ", closed.consts.size(),
                                                   " consts for ", jaxpr.constvars.size(),
                                                   " constvars"));
  }
  auto plan = std::make_shared<Plan>();
  plan->options = options;
  plan->num_slots = static_cast<int>(jaxpr.vars.size());
  plan->stats.equations = static_cast<int>(jaxpr.eqns.size());
  for (size_t i = 0; i < jaxpr.constvars.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(Value v, FromHostArray(closed.consts[i]));
    plan->constants.emplace_back(jaxpr.constvars[i], std::move(v));
  }
  for (ir::VarId v : jaxpr.invars) {
    plan->inputs.push_back(v);
    plan->input_avals.push_back(jaxpr.aval(v).WithVma({}));
  }
  SlotMap slots{jaxpr, *plan, {}};
  const std::vector<size_t> last_read = LastReads(jaxpr);
  for (size_t i = 0; i < jaxpr.eqns.size();) {
    AXE_ASSIGN_OR_RETURN(size_t end, TryFuse(jaxpr, i, slots, last_read, *plan));
    if (end == i) {
      AXE_RETURN_IF_ERROR(AddEquation(jaxpr.eqns[i], slots, options, *plan));
      end = i + 1;
    }
    i = end;
  }
  for (const ir::Atom& a : jaxpr.outvars) {
    AXE_ASSIGN_OR_RETURN(int s, slots.Of(a));
    plan->outputs.push_back(s);
    plan->output_avals.push_back(slots.Aval(s).WithVma({}));
  }
  int64_t work = 0;
  for (const Step& s : plan->steps) {
    work = CheckedAdd(work, std::max<int64_t>(1, s.kernel.work)).value_or(INT64_MAX);
  }
  plan->stats.work = work;
  AssignReleases(*plan);
  std::vector<ir::ShapedArray> slot_avals;
  slot_avals.reserve(jaxpr.vars.size() + slots.avals.size());
  for (size_t v = 0; v < jaxpr.vars.size(); ++v) {
    slot_avals.push_back(jaxpr.aval(static_cast<ir::VarId>(v)));
  }
  slot_avals.insert(slot_avals.end(), slots.avals.begin(), slots.avals.end());
  plan->stats.peak_bytes = PeakBytes(*plan, slot_avals);
  return std::shared_ptr<const Plan>(std::move(plan));
}

absl::StatusOr<std::vector<Value>> RunPlan(const Plan& plan, const RunContext& ctx,
                                           absl::Span<const Value> args) {
  std::vector<Value> env(static_cast<size_t>(plan.num_slots));
  for (const auto& [slot, value] : plan.constants) env[static_cast<size_t>(slot)] = value;
  for (size_t k = 0; k < plan.inputs.size() && k < args.size(); ++k) {
    env[static_cast<size_t>(plan.inputs[k])] = args[k];
  }
  std::vector<Value> in, out;
  for (const Step& step : plan.steps) {
    if (ctx.cancelled()) return absl::CancelledError("the program was cancelled");
    in.clear();
    for (int slot : step.inputs) in.push_back(env[static_cast<size_t>(slot)]);
    out.assign(step.outputs.size(), Value());
    absl::Status s = step.kernel.kernel(ctx, in, out);
    if (!s.ok()) return s;
    if (out.size() != step.outputs.size()) {
      return absl::InternalError(absl::StrCat(step.name, " returned ", out.size(), " values for ",
                                              step.outputs.size(), " results"));
    }
    in.clear();
    for (size_t k = 0; k < out.size(); ++k) {
      env[static_cast<size_t>(step.outputs[k])] = std::move(out[k]);
    }
    for (int slot : step.released) {
      Value& v = env[static_cast<size_t>(slot)];
      if (ctx.values != nullptr) ctx.values->Give(std::move(v));
      v = Value();
    }
  }
  std::vector<Value> result;
  for (int slot : plan.outputs) result.push_back(env[static_cast<size_t>(slot)]);
  return result;
}

RunContext MakeRunContext(const ExecOptions& options, ValuePool* values) {
  RunContext ctx;
  ctx.pool = &ThreadPool::Default();
  ctx.threads =
      options.num_threads <= 0 ? ctx.pool->size() : std::min(options.num_threads, ctx.pool->size());
  ctx.cancel = options.cancel;
  ctx.values = values;
  return ctx;
}

}  // namespace axe::exec::internal
