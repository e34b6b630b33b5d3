// Building a plan from a closed jaxpr (kernel choice, fusion, liveness) and running it.
#include "exec/plan.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/float_environment.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitive.h"
#include "exec/dot_reduce.h"
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

using EqnOrder = std::vector<const ir::Eqn*>;

// The avals an equation reads (vma dropped), literals included.
std::vector<ir::ShapedArray> InputAvals(const ir::Jaxpr& jaxpr, const ir::Eqn& eqn) {
  std::vector<ir::ShapedArray> avals;
  for (const ir::Atom& a : eqn.inputs) {
    avals.push_back((a.is_literal() ? a.literal->aval() : jaxpr.aval(a.var)).WithVma({}));
  }
  return avals;
}

// Whether `eqn` could start a fused group, and `reader` then join it.
bool FusesWithReader(const ir::Jaxpr& jaxpr, const ir::Eqn& eqn, const ir::Eqn& reader) {
  if (eqn.outputs.size() != 1 || reader.outputs.size() != 1) return false;
  const ir::ShapedArray out = jaxpr.aval(eqn.outputs[0]).WithVma({});
  return Fusible(eqn, InputAvals(jaxpr, eqn), out, out) &&
         Fusible(reader, InputAvals(jaxpr, reader), jaxpr.aval(reader.outputs[0]).WithVma({}), out);
}

// Whether `eqn` is a dot_general of a product large enough to run by blocks whose only
// reader, `reader`, is an elementwise equation of the product's type (a loss's chain may
// follow it: DotReduceChain).
bool DotFeedsChain(const ir::Jaxpr& jaxpr, const ir::Eqn& eqn, const ir::Eqn& reader) {
  if (eqn.primitive->name() != "dot_general" || eqn.outputs.size() != 1 ||
      reader.outputs.size() != 1) {
    return false;
  }
  const ir::ShapedArray product = jaxpr.aval(eqn.outputs[0]).WithVma({});
  return DotReduceBlockRows(product) > 0 &&
         Fusible(reader, InputAvals(jaxpr, reader), jaxpr.aval(reader.outputs[0]).WithVma({}),
                 product);
}

// The equations in the order the plan runs them: the jaxpr's, except that an elementwise
// equation whose only reader is a later elementwise equation of the same result type moves
// to just before that reader (with whatever moved before it), so that the two fuse and its
// value never reaches memory: in a layer norm, `x - mean` next to the `* rsqrt(var)` that
// reads it. A large product's dot_general moves the same way before its only elementwise
// reader (a bias's broadcast between them), so that a loss's chain may run it by blocks.
// Moving a pure equation later, before its only reader, changes no result.
EqnOrder FusionOrder(const ir::Jaxpr& jaxpr) {
  const size_t n = jaxpr.eqns.size();
  constexpr int64_t kNone = -1, kMany = -2;
  std::vector<int64_t> reader(jaxpr.vars.size(), kNone);  // the one equation reading a var
  for (size_t i = 0; i < n; ++i) {
    for (const ir::Atom& a : jaxpr.eqns[i].inputs) {
      if (a.is_literal()) continue;
      int64_t& r = reader[static_cast<size_t>(a.var)];
      r = (r == kNone || r == static_cast<int64_t>(i)) ? static_cast<int64_t>(i) : kMany;
    }
  }
  for (const ir::Atom& a : jaxpr.outvars) {
    if (!a.is_literal()) reader[static_cast<size_t>(a.var)] = kMany;
  }
  std::vector<std::vector<size_t>> moved_before(n);
  std::vector<bool> moved(n, false);
  for (size_t e = n; e-- > 0;) {
    const ir::Eqn& eqn = jaxpr.eqns[e];
    if (eqn.outputs.size() != 1 || !eqn.effects.empty()) continue;
    const int64_t r = reader[static_cast<size_t>(eqn.outputs[0])];
    if (r <= static_cast<int64_t>(e) + 1) continue;  // none, several, or already next
    const ir::Eqn& next = jaxpr.eqns[static_cast<size_t>(r)];
    if (!FusesWithReader(jaxpr, eqn, next) && !DotFeedsChain(jaxpr, eqn, next)) continue;
    moved[e] = true;
    moved_before[static_cast<size_t>(r)].insert(moved_before[static_cast<size_t>(r)].begin(), e);
  }
  EqnOrder order;
  order.reserve(n);
  auto emit = [&](auto& self, size_t e) -> void {
    for (size_t m : moved_before[e]) self(self, m);
    order.push_back(&jaxpr.eqns[e]);
  };
  for (size_t e = 0; e < n; ++e) {
    if (!moved[e]) emit(emit, e);
  }
  return order;
}

// Uses of every variable slot: the position (in `order`) of the last equation that reads it
// (outputs: past the end).
std::vector<size_t> LastReads(const ir::Jaxpr& jaxpr, const EqnOrder& order) {
  std::vector<size_t> last(jaxpr.vars.size(), 0);
  for (size_t i = 0; i < order.size(); ++i) {
    for (const ir::Atom& a : order[i]->inputs) {
      if (!a.is_literal()) last[static_cast<size_t>(a.var)] = i;
    }
  }
  for (const ir::Atom& a : jaxpr.outvars) {
    if (!a.is_literal()) last[static_cast<size_t>(a.var)] = SIZE_MAX;
  }
  return last;
}

// Whether each variable slot is read at all (by an equation or as an output).
std::vector<bool> ReadSlots(const ir::Jaxpr& jaxpr) {
  std::vector<bool> read(jaxpr.vars.size(), false);
  for (const ir::Eqn& eqn : jaxpr.eqns) {
    for (const ir::Atom& a : eqn.inputs) {
      if (!a.is_literal()) read[static_cast<size_t>(a.var)] = true;
    }
  }
  for (const ir::Atom& a : jaxpr.outvars) {
    if (!a.is_literal()) read[static_cast<size_t>(a.var)] = true;
  }
  return read;
}

// Fuses equations [i, end) into one step when at least one operation joins; returns end.
absl::StatusOr<size_t> TryFuse(const EqnOrder& eqns, size_t i, SlotMap& slots,
                               const std::vector<size_t>& last_read, Plan& plan) {
  AXE_ASSIGN_OR_RETURN(EqnSlots first, Resolve(*eqns[i], slots));
  if (first.out_avals.size() != 1 ||
      !Fusible(*eqns[i], first.in_avals, first.out_avals[0], first.out_avals[0])) {
    return i;
  }
  FusedGroup group;
  group.aval = first.out_avals[0];
  absl::flat_hash_map<int, int> reg_of_slot;
  std::vector<int> produced;
  size_t end = i;
  for (; end < eqns.size(); ++end) {
    AXE_ASSIGN_OR_RETURN(EqnSlots e, Resolve(*eqns[end], slots));
    if (e.out_avals.size() != 1 || !Fusible(*eqns[end], e.in_avals, e.out_avals[0], group.aval)) {
      break;
    }
    AddToGroup(*eqns[end], e.in, e.in_avals, e.out[0], group, reg_of_slot);
    produced.push_back(e.out[0]);
  }
  if (group.ops.empty()) return i;  // broadcasts alone: copied by their own kernels
  Step step;
  int folded_slot = -1;  // a reduction's operand that only the reduction reads after the group
  if (end < eqns.size()) {
    AXE_ASSIGN_OR_RETURN(EqnSlots r, Resolve(*eqns[end], slots));
    // A literal operand's slot is new (past last_read): a constant, never folded.
    if (r.in.size() == 1 && r.out.size() == 1 && static_cast<size_t>(r.in[0]) < last_read.size() &&
        last_read[static_cast<size_t>(r.in[0])] == end &&
        AddRowFold(*eqns[end], r.in_avals[0], r.in[0], r.out_avals[0], group, reg_of_slot)) {
      folded_slot = r.in[0];
      ++end;
    }
  }
  for (int slot : produced) {
    if (slot != folded_slot && last_read[static_cast<size_t>(slot)] >= end) {
      group.outputs.emplace_back(reg_of_slot.at(slot), slot);
      step.outputs.push_back(slot);
    }
  }
  if (group.row_fold) step.outputs.push_back(static_cast<int>(*eqns[end - 1]->outputs.begin()));
  for (const FusedInput& in : group.inputs) step.inputs.push_back(in.slot);
  step.name = absl::StrJoin(group.names, ",");
  plan.stats.fused_groups++;
  plan.stats.fused_equations += static_cast<int>(end - i);
  step.kernel = BuildFusedKernel(std::move(group));
  plan.steps.push_back(std::move(step));
  return end;
}

// The chain after a dot_general at eqns[i]: the fused elementwise equations of the product's
// type that follow it and the reduction ending them, when they alone read the product and
// every value between, and the reduction folds dimension 1 or both (a loss); `slot_of` gives
// the slots of their operands. Returns the end of the chain, or i.
template <typename SlotOf>
absl::StatusOr<size_t> DotReduceChain(const EqnOrder& eqns, size_t i,
                                      const ir::ShapedArray& product, int product_slot,
                                      const std::vector<size_t>& last_read, SlotOf slot_of,
                                      DotReduce& plan) {
  const ir::Jaxpr& jaxpr = slot_of.jaxpr;
  plan.group.aval = product;
  absl::flat_hash_map<int, int> reg_of_slot;
  std::vector<int> produced = {product_slot};
  size_t end = i + 1;
  for (; end < eqns.size(); ++end) {
    const ir::Eqn& e = *eqns[end];
    const std::vector<ir::ShapedArray> in = InputAvals(jaxpr, e);
    if (e.outputs.size() != 1 ||
        !Fusible(e, in, jaxpr.aval(e.outputs[0]).WithVma({}), plan.group.aval)) {
      break;
    }
    std::vector<int> in_slots;
    for (const ir::Atom& a : e.inputs) {
      AXE_ASSIGN_OR_RETURN(int s, slot_of(a));
      in_slots.push_back(s);
    }
    AddToGroup(e, in_slots, in, static_cast<int>(e.outputs[0]), plan.group, reg_of_slot);
    produced.push_back(static_cast<int>(e.outputs[0]));
  }
  if (plan.group.ops.empty() || end >= eqns.size()) return i;
  const ir::Eqn& r = *eqns[end];
  const std::optional<Fold> fold = FoldOf(r.primitive->name());
  absl::StatusOr<std::vector<int64_t>> axes = IntsParam(r, "axes");
  if (!fold || !axes.ok() || r.inputs.size() != 1 || r.inputs[0].is_literal() ||
      r.outputs.size() != 1) {
    return i;
  }
  auto reg = reg_of_slot.find(static_cast<int>(r.inputs[0].var));
  std::vector<int64_t> sorted = *axes;
  std::sort(sorted.begin(), sorted.end());
  plan.total = sorted == std::vector<int64_t>{0, 1};
  if (reg == reg_of_slot.end() || reg->second < 0 ||
      (!plan.total && sorted != std::vector<int64_t>{1})) {
    return i;
  }
  for (int slot : produced) {  // nothing after the reduction reads the product or the chain
    if (last_read[static_cast<size_t>(slot)] > end) return i;
  }
  plan.sources.clear();
  int others = 0;
  for (const FusedInput& input : plan.group.inputs) {
    if (input.slot == product_slot) {
      plan.sources.push_back(-1);
      continue;
    }
    if (input.strides[0] != 0) return i;  // varies along the rows: not one block's
    plan.sources.push_back(others++);
  }
  plan.result = jaxpr.aval(r.outputs[0]).WithVma({});
  plan.group.row_fold =
      FusedGroup::RowFold{*fold, reg->second, product.WithShape({product.shape()[0]})};
  plan.group.names.push_back(r.primitive->name());
  return end + 1;
}

// A dot_general whose product only a loss's chain reads (DotReduceChain), planned as one step
// that runs the product block by block of rows (dot_reduce.h). Returns the end of the chain,
// or i when the pattern does not apply.
absl::StatusOr<size_t> TryDotReduce(const EqnOrder& eqns, size_t i, SlotMap& slots,
                                    const std::vector<size_t>& last_read,
                                    const ExecOptions& options, Plan& plan) {
  const ir::Eqn& dot = *eqns[i];
  const ir::Jaxpr& jaxpr = slots.jaxpr;
  if (dot.primitive->name() != "dot_general" || dot.outputs.size() != 1) return i;
  const ir::ShapedArray product = jaxpr.aval(dot.outputs[0]).WithVma({});
  if (product.rank() != 2 || DotReduceBlockRows(product) == 0) return i;
  // A first pass on the avals alone (literals as placeholders, no constant made).
  struct Placeholder {
    const ir::Jaxpr& jaxpr;
    absl::StatusOr<int> operator()(const ir::Atom& a) const {
      return a.is_literal() ? -2 : static_cast<int>(a.var);
    }
  };
  DotReduce check;
  const int product_slot = static_cast<int>(dot.outputs[0]);
  AXE_ASSIGN_OR_RETURN(size_t end, DotReduceChain(eqns, i, product, product_slot, last_read,
                                                  Placeholder{jaxpr}, check));
  if (end == i) return i;
  const std::vector<ir::ShapedArray> out = {product};
  AXE_ASSIGN_OR_RETURN(std::optional<BuiltKernel> checked,
                       BuildDotReduce(EqnView{dot, InputAvals(jaxpr, dot), out, options}, check));
  if (!checked) return i;
  AXE_ASSIGN_OR_RETURN(EqnSlots d, Resolve(dot, slots));
  struct Resolved {
    const ir::Jaxpr& jaxpr;
    SlotMap& slots;
    absl::StatusOr<int> operator()(const ir::Atom& a) const { return slots.Of(a); }
  };
  DotReduce chain;
  AXE_ASSIGN_OR_RETURN(end, DotReduceChain(eqns, i, product, product_slot, last_read,
                                           Resolved{jaxpr, slots}, chain));
  Step step;
  step.inputs = d.in;
  for (const FusedInput& in : chain.group.inputs) {
    if (in.slot != product_slot) step.inputs.push_back(in.slot);
  }
  step.outputs = {static_cast<int>(eqns[end - 1]->outputs[0])};
  step.name = absl::StrCat("dot_general,", absl::StrJoin(chain.group.names, ","));
  AXE_ASSIGN_OR_RETURN(std::optional<BuiltKernel> kernel,
                       BuildDotReduce(EqnView{dot, d.in_avals, out, options}, std::move(chain)));
  if (!kernel) return absl::InternalError("a dot_general planned by blocks has no block kernel");
  step.kernel = std::move(*kernel);
  plan.stats.typed_kernels++;
  plan.stats.fused_groups++;
  plan.stats.fused_equations += static_cast<int>(end - i - 1);
  plan.steps.push_back(std::move(step));
  return end;
}

absl::Status AddEquation(const ir::Eqn& eqn, SlotMap& slots, const ExecOptions& options,
                         const std::vector<bool>& read, Plan& plan) {
  AXE_ASSIGN_OR_RETURN(EqnSlots e, Resolve(eqn, slots));
  std::vector<bool> unread;
  for (ir::VarId v : eqn.outputs) unread.push_back(!read[static_cast<size_t>(v)]);
  if (std::none_of(unread.begin(), unread.end(), [](bool u) { return u; })) unread.clear();
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
    const EqnView view{eqn, e.in_avals, e.out_avals, options, unread};
    AXE_ASSIGN_OR_RETURN(kernel, it->second(view));
    if (!kernel) {
      AXE_ASSIGN_OR_RETURN(kernel, BuildWithBroadcastOperands(view, it->second));
    }
  }
  if (kernel) {
    (kernel->relabel ? plan.stats.relabels : plan.stats.typed_kernels)++;
    plan.stats.nested_fallbacks += kernel->nested_fallbacks;
    if (kernel->device_peak_bytes > plan.stats.device_peak_bytes) {
      plan.stats.device_peak_bytes = kernel->device_peak_bytes;
      plan.stats.devices = kernel->devices;
    }
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
  for (Step& step : plan.steps) {
    step.moved.assign(step.inputs.size(), false);
    for (size_t k = 0; k < step.inputs.size(); ++k) {
      const int slot = step.inputs[k];
      const bool read_again =
          std::find(step.inputs.begin() + k + 1, step.inputs.end(), slot) != step.inputs.end();
      step.moved[k] = !read_again && std::find(step.released.begin(), step.released.end(), slot) !=
                                         step.released.end();
    }
  }
}

// Step::donor: an output a kernel may write into a moved input (BuiltKernel::overwrites) takes
// that input's storage when no other slot can share it: the input was computed by a kernel
// that allocates its outputs (no relabel, no nested body passing values through) and no
// relabel reads it. Inputs and constants are the caller's and never overwritten.
void AssignDonors(Plan& plan) {
  std::vector<bool> owned(static_cast<size_t>(plan.num_slots), false);
  for (const Step& step : plan.steps) {
    const bool fresh = !step.kernel.relabel && !step.kernel.passes_through && !step.fallback;
    for (int slot : step.outputs) owned[static_cast<size_t>(slot)] = fresh;
  }
  for (const Step& step : plan.steps) {
    if (!step.kernel.relabel) continue;
    for (int slot : step.inputs) owned[static_cast<size_t>(slot)] = false;
  }
  for (int slot : plan.inputs) owned[static_cast<size_t>(slot)] = false;
  for (Step& step : plan.steps) {
    step.donor.assign(step.outputs.size(), -1);
    const std::vector<int>& over = step.kernel.overwrites;
    std::vector<bool> taken(step.inputs.size(), false);
    for (size_t o = 0; o < over.size() && o < step.outputs.size(); ++o) {
      const int k = over[o];
      if (k < 0 || static_cast<size_t>(k) >= step.inputs.size() || taken[k]) continue;
      if (!step.moved[k] || !owned[static_cast<size_t>(step.inputs[k])]) continue;
      taken[k] = true;
      step.donor[o] = k;
    }
  }
}

// Bytes of a value of `aval` in the executor's encoding (doubles for a fallback's).
int64_t AvalBytes(const ir::ShapedArray& aval, bool as_doubles) {
  const absl::StatusOr<size_t> element = ElementBytes(aval.dtype());
  const int64_t bytes = as_doubles ? 8 : static_cast<int64_t>(element.ok() ? *element : 8);
  return CheckedMul(aval.NumElements().value_or(INT64_MAX), bytes).value_or(INT64_MAX);
}

// PlanStats::peak_bytes: RunPlan's allocations replayed with ValuePool's reuse (a released
// value's storage is kept for a later value of its size, up to kMaxPooledPerSize of them).
// The arguments and constants are the caller's: they stay for the whole run and never reach
// the pool. Relabels share their operand's storage, an output written into its donor input
// (Step::donor) takes that input's, an output nothing reads and its kernel leaves empty has
// none; a step's scratch (a nested body's, a kernel's buffers, its pooled scratch taken from
// and given back to the pool) and a fallback's values as doubles count while the step runs.
int64_t PeakBytes(const Plan& plan, const std::vector<ir::ShapedArray>& slot_avals) {
  auto add = [](int64_t& total, int64_t b) { total = CheckedAdd(total, b).value_or(INT64_MAX); };
  auto doubles = [&](int slot) { return AvalBytes(slot_avals[static_cast<size_t>(slot)], true); };
  std::vector<int64_t> bytes(slot_avals.size(), 0);  // pool-managed storage each slot holds
  int64_t live = 0, pooled = 0, peak = 0;
  std::map<int64_t, size_t> pool;  // bytes -> storages kept
  auto take = [&](int64_t b) {     // a new value of b bytes, from the pool when it has one
    auto it = pool.find(b);
    if (b > 0 && it != pool.end() && it->second > 0) {
      --it->second;
      pooled -= b;
    }
    add(live, b);
  };
  auto give = [&](int64_t b) {  // a value of b bytes released
    live -= std::min(live, b);
    if (b > 0 && pool[b] < kMaxPooledPerSize) {
      ++pool[b];
      add(pooled, b);
    }
  };
  add(live, plan.constant_bytes);
  add(live, plan.argument_bytes);
  for (const Step& step : plan.steps) {
    int64_t transient = step.kernel.scratch_bytes;
    if (step.fallback) {
      for (int slot : step.inputs) add(transient, doubles(slot));
      for (int slot : step.outputs) add(transient, doubles(slot));
    }
    for (size_t o = 0; o < step.outputs.size(); ++o) {
      const size_t slot = static_cast<size_t>(step.outputs[o]);
      const bool unwritten = o < step.kernel.unwritten.size() && step.kernel.unwritten[o];
      const int donor = o < step.donor.size() ? step.donor[o] : -1;
      if (donor >= 0) {
        int64_t& from = bytes[static_cast<size_t>(step.inputs[static_cast<size_t>(donor)])];
        bytes[slot] = from;
        from = 0;
        continue;
      }
      bytes[slot] = step.kernel.relabel || unwritten ? 0 : AvalBytes(slot_avals[slot], false);
      take(bytes[slot]);
    }
    for (int64_t b : step.kernel.pooled_scratch) take(b);
    int64_t now = live;
    add(now, pooled);
    add(now, transient);
    peak = std::max(peak, now);
    for (int64_t b : step.kernel.pooled_scratch) give(b);
    for (int slot : step.released) give(bytes[static_cast<size_t>(slot)]);
  }
  return std::max(peak, CheckedAdd(live, pooled).value_or(INT64_MAX));
}

// Plan::argument_bytes, Plan::result_bytes and Plan::constant_bytes.
void CountEdgeBytes(Plan& plan) {
  auto add = [](int64_t& total, int64_t b) { total = CheckedAdd(total, b).value_or(INT64_MAX); };
  for (const auto& [slot, value] : plan.constants) {
    add(plan.constant_bytes, static_cast<int64_t>(value.num_bytes()));
  }
  for (const Step& step : plan.steps) add(plan.constant_bytes, step.kernel.constant_bytes);
  std::vector<bool> edge(static_cast<size_t>(plan.num_slots), false);
  for (size_t k = 0; k < plan.inputs.size(); ++k) {
    plan.argument_bytes =
        CheckedAdd(plan.argument_bytes, AvalBytes(plan.input_avals[k], false)).value_or(INT64_MAX);
    edge[static_cast<size_t>(plan.inputs[k])] = true;
  }
  for (const auto& [slot, value] : plan.constants) edge[static_cast<size_t>(slot)] = true;
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    if (edge[static_cast<size_t>(plan.outputs[k])]) continue;
    edge[static_cast<size_t>(plan.outputs[k])] = true;
    plan.result_bytes =
        CheckedAdd(plan.result_bytes, AvalBytes(plan.output_avals[k], false)).value_or(INT64_MAX);
  }
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
      if (v.aval() == aval) return v;  // a loop's body asks for the same types every step
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

int64_t NestedScratchBytes(const Plan& plan, bool results_counted) {
  int64_t extra = plan.stats.peak_bytes - plan.argument_bytes - plan.constant_bytes;
  if (results_counted) extra -= plan.result_bytes;
  return std::max<int64_t>(0, extra);
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

std::optional<std::vector<int64_t>> UnitStrides(const EqnView& v) {
  std::vector<int64_t> strides;
  const int64_t n = NumElements(v.out[0]);
  for (const ir::ShapedArray& a : v.in) {
    const int64_t m = NumElements(a);
    if (m != n && m != 1) return std::nullopt;
    strides.push_back(m == n ? 1 : 0);
  }
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
    AddShardMapKernels(*t);
    AddCollectiveKernels(*t);
    AddWindowKernels(*t);
    AddCumulativeKernels(*t);
    AddPadRevKernels(*t);
    AddArgMinMaxKernels(*t);
    AddDynamicSliceKernels(*t);
    AddLinalgKernels(*t);
    AddReducePrecisionKernels(*t);
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
  const EqnOrder order = FusionOrder(jaxpr);
  const std::vector<size_t> last_read = LastReads(jaxpr, order);
  const std::vector<bool> read = ReadSlots(jaxpr);
  for (size_t i = 0; i < order.size();) {
    AXE_ASSIGN_OR_RETURN(size_t end, TryDotReduce(order, i, slots, last_read, options, *plan));
    if (end == i) {
      AXE_ASSIGN_OR_RETURN(end, TryFuse(order, i, slots, last_read, *plan));
    }
    if (end == i) {
      AXE_RETURN_IF_ERROR(AddEquation(*order[i], slots, options, read, *plan));
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
  AssignDonors(*plan);
  CountEdgeBytes(*plan);
  std::vector<ir::ShapedArray> slot_avals;
  slot_avals.reserve(jaxpr.vars.size() + slots.avals.size());
  for (size_t v = 0; v < jaxpr.vars.size(); ++v) {
    slot_avals.push_back(jaxpr.aval(static_cast<ir::VarId>(v)));
  }
  slot_avals.insert(slot_avals.end(), slots.avals.begin(), slots.avals.end());
  plan->stats.peak_bytes = PeakBytes(*plan, slot_avals);
  return std::shared_ptr<const Plan>(std::move(plan));
}

absl::Status RunPlanInFrame(const Plan& plan, const RunContext& ctx, absl::Span<const Value> args,
                            PlanFrame& frame, std::vector<Value>& results) {
  const ScopedFlushDenormals flush;  // XLA:CPU's mode: denormals read and written as zero
  std::vector<Value>& env = frame.env;
  env.resize(static_cast<size_t>(plan.num_slots));
  // Whatever way the run ends, the frame holds no value after it (a held value would keep its
  // storage from the pool).
  struct Clear {
    PlanFrame& frame;
    ~Clear() {
      for (Value& v : frame.env) v = Value();
      frame.in.clear();
      frame.out.clear();
    }
  } clear{frame};
  for (const auto& [slot, value] : plan.constants) env[static_cast<size_t>(slot)] = value;
  for (size_t k = 0; k < plan.inputs.size() && k < args.size(); ++k) {
    env[static_cast<size_t>(plan.inputs[k])] = args[k];
  }
  std::vector<Value>& in = frame.in;
  std::vector<Value>& out = frame.out;
  for (const Step& step : plan.steps) {
    if (ctx.cancelled()) return absl::CancelledError("the program was cancelled");
    in.clear();
    for (size_t k = 0; k < step.inputs.size(); ++k) {
      Value& v = env[static_cast<size_t>(step.inputs[k])];
      if (step.moved[k]) {
        in.push_back(std::move(v));
      } else {
        in.push_back(v);
      }
    }
    out.assign(step.outputs.size(), Value());
    for (size_t o = 0; o < step.donor.size(); ++o) {  // written in place of a dead input
      const int k = step.donor[o];
      if (k >= 0 && in[static_cast<size_t>(k)].sole_owner()) out[o] = in[static_cast<size_t>(k)];
    }
    absl::Status s = step.kernel.kernel(ctx, in, out);
    for (size_t k = 0; k < in.size(); ++k) {  // last reads: their storage goes to the pool
      if (step.moved[k] && ctx.values != nullptr) ctx.values->Give(std::move(in[k]));
    }
    in.clear();
    if (!s.ok()) return s;
    if (out.size() != step.outputs.size()) {
      return absl::InternalError(absl::StrCat(step.name, " returned ", out.size(), " values for ",
                                              step.outputs.size(), " results"));
    }
    for (size_t k = 0; k < out.size(); ++k) {
      env[static_cast<size_t>(step.outputs[k])] = std::move(out[k]);
    }
    for (int slot : step.released) {
      Value& v = env[static_cast<size_t>(slot)];
      if (ctx.values != nullptr) ctx.values->Give(std::move(v));
      v = Value();
    }
  }
  results.resize(plan.outputs.size());
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    results[k] = env[static_cast<size_t>(plan.outputs[k])];
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Value>> RunPlan(const Plan& plan, const RunContext& ctx,
                                           absl::Span<const Value> args) {
  PlanFrame frame;
  std::vector<Value> results;
  AXE_RETURN_IF_ERROR(RunPlanInFrame(plan, ctx, args, frame, results));
  return results;
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
