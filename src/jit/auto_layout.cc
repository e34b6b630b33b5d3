#include "axe/jit/auto_layout.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/ir/layout_constraint.h"
#include "axe/ir/primitive.h"
#include "axe/ir/printer.h"

namespace axe::jit {
namespace {

constexpr int64_t kLineBytes = 64;
constexpr size_t kMaxPermutedRank = 4;

const std::set<std::string, std::less<>>& ElementwisePrimitives() {
  static const auto* names = new std::set<std::string, std::less<>>{
      "abs",      "add",   "and",         "ceil", "convert_element_type",
      "cos",      "div",   "eq",          "exp",  "floor",
      "ge",       "gt",    "integer_pow", "le",   "log",
      "logistic", "lt",    "max",         "min",  "mul",
      "ne",       "neg",   "not",         "or",   "pow",
      "round",    "rsqrt", "select_n",    "sign", "sin",
      "sqrt",     "sub",   "tanh",        "xor"};
  return *names;
}

LocalLayout Make(std::vector<int64_t> major_to_minor) {
  absl::StatusOr<LocalLayout> layout = LocalLayout::Create(std::move(major_to_minor));
  return *std::move(layout);
}

std::vector<LocalLayout> Candidates(size_t rank) {
  std::vector<int64_t> order(rank);
  for (size_t i = 0; i < rank; ++i) order[i] = static_cast<int64_t>(i);
  std::vector<LocalLayout> out;
  if (rank <= kMaxPermutedRank) {
    do {
      out.push_back(Make(order));
    } while (std::next_permutation(order.begin(), order.end()));
    return out;
  }
  out.push_back(Make(order));
  for (size_t k = 0; k + 1 < rank; ++k) {
    std::vector<int64_t> rotated;
    for (size_t i = 0; i < rank; ++i) {
      if (i != k) rotated.push_back(static_cast<int64_t>(i));
    }
    rotated.push_back(static_cast<int64_t>(k));
    out.push_back(Make(rotated));
  }
  return out;
}

// The layout of a value whose dims are those of `operand` with `removed` dims dropped.
LocalLayout DropDims(const LocalLayout& operand, const std::vector<int64_t>& removed) {
  std::vector<int64_t> kept;
  for (int64_t d : operand.major_to_minor()) {
    if (std::find(removed.begin(), removed.end(), d) != removed.end()) continue;
    int64_t shift = 0;
    for (int64_t r : removed) shift += r < d ? 1 : 0;
    kept.push_back(d - shift);
  }
  return Make(kept);
}

// The layout that makes `out = transpose(in, perm)` a relabel of `in` stored in `in_layout`.
LocalLayout TransposedLayout(const LocalLayout& in_layout, const std::vector<int64_t>& perm) {
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  std::vector<int64_t> out;
  for (int64_t d : in_layout.major_to_minor()) out.push_back(inverse[static_cast<size_t>(d)]);
  return Make(out);
}

// The integer-list parameter `name` of `eqn`; nullopt when it is absent or malformed (the
// checker reports those, in JAX's words).
std::optional<std::vector<int64_t>> IntsParam(const ir::Eqn& eqn, absl::string_view name) {
  auto it = eqn.params.find(name);
  if (it == eqn.params.end()) return std::nullopt;
  absl::StatusOr<std::vector<int64_t>> values = it->second.AsInts(name);
  if (!values.ok()) return std::nullopt;
  return *std::move(values);
}

// The same arrangement in memory (an absent tiling is the untiled one).
bool SameArrangement(const LocalLayout& a, const LocalLayout& b) {
  const LocalLayout::Tiling none;
  return a.major_to_minor() == b.major_to_minor() &&
         a.tiling().value_or(none) == b.tiling().value_or(none);
}

// The layout a layout_constraint equation pins its result to (nullopt: unreadable).
std::optional<LocalLayout> ConstraintOf(const ir::Eqn& eqn) {
  absl::StatusOr<LocalLayout> layout = ir::LayoutOfConstraint(eqn.params);
  if (!layout.ok()) return std::nullopt;
  return *std::move(layout);
}

// Evaluates the use cost of values under candidate layouts.
class CostModel {
 public:
  CostModel(const ir::Jaxpr& jaxpr, std::vector<std::optional<LocalLayout>> fixed_outputs,
            std::vector<bool> auto_outputs)
      : jaxpr_(jaxpr),
        fixed_outputs_(std::move(fixed_outputs)),
        auto_outputs_(std::move(auto_outputs)) {}

  // Layouts already decided (inputs), used for conflicts with other operands.
  void SetKnown(ir::VarId var, LocalLayout layout) {
    known_.insert_or_assign(var, std::move(layout));
  }

  int64_t Bytes(ir::VarId var) const {
    const ir::ShapedArray& a = jaxpr_.aval(var);
    int64_t n = ByteWidth(a.dtype());
    for (int64_t d : a.shape()) n = SaturatingMul(n, d);
    return n;
  }

  // The bytes moved through `var` stored in `layout`, and the largest contribution's reason.
  std::pair<int64_t, std::string> Cost(ir::VarId var, const LocalLayout& layout, int depth = 0) {
    int64_t total = 0;
    std::string reason = "read once";
    int64_t largest = -1;
    auto add = [&](int64_t bytes, std::string why) {
      total = SaturatingAdd(total, bytes);
      if (bytes > largest) {
        largest = bytes;
        reason = std::move(why);
      }
    };
    for (size_t o = 0; o < jaxpr_.outvars.size(); ++o) {
      if (jaxpr_.outvars[o].is_literal() || jaxpr_.outvars[o].var != var) continue;
      if (fixed_outputs_[o] && !(*fixed_outputs_[o] == layout)) {
        add(2 * Bytes(var), absl::StrCat("output ", o, " must be relaid out"));
      }
    }
    for (const ir::Eqn& eqn : jaxpr_.eqns) {
      for (size_t p = 0; p < eqn.inputs.size(); ++p) {
        if (eqn.inputs[p].is_literal() || eqn.inputs[p].var != var) continue;
        auto [bytes, why] = UseCost(eqn, p, layout, depth);
        add(bytes, std::move(why));
      }
    }
    return {total, reason};
  }

 private:
  static constexpr int kMaxDepth = 64;

  static int64_t SaturatingMul(int64_t a, int64_t b) {
    std::optional<int64_t> r = CheckedMul(a, b);
    return r ? *r : std::numeric_limits<int64_t>::max();
  }
  static int64_t SaturatingAdd(int64_t a, int64_t b) {
    return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max()
                                                       : a + b;
  }

  // The cost of consumers of `out` when it is stored in `induced` (free relabel), or default
  // plus a copy, whichever is cheaper.
  std::pair<int64_t, std::string> Forward(ir::VarId out, const LocalLayout& induced, int depth,
                                          absl::string_view what) {
    if (depth >= kMaxDepth) return {Bytes(out), "read once"};
    auto [kept, kept_why] = Cost(out, induced, depth + 1);
    const LocalLayout standard = DefaultLayout(jaxpr_.aval(out).shape().size());
    if (induced == standard || IsAutoOutput(out)) {
      return {kept, absl::StrCat(what, " is a relabel; then ", kept_why)};
    }
    auto [copied, copied_why] = Cost(out, standard, depth + 1);
    copied = SaturatingAdd(copied, 2 * Bytes(out));
    if (kept <= copied) return {kept, absl::StrCat(what, " is a relabel; then ", kept_why)};
    return {copied, absl::StrCat(what, " needs a copy to row-major")};
  }

  bool IsAutoOutput(ir::VarId var) const {
    for (size_t o = 0; o < jaxpr_.outvars.size(); ++o) {
      if (!jaxpr_.outvars[o].is_literal() && jaxpr_.outvars[o].var == var && auto_outputs_[o]) {
        return true;
      }
    }
    return false;
  }

  std::pair<int64_t, std::string> SliceCost(const ir::Eqn& eqn, ir::VarId var,
                                            const LocalLayout& layout) {
    const ir::ShapedArray& in = jaxpr_.aval(var);
    std::vector<int64_t> box = jaxpr_.aval(eqn.outputs[0]).shape();
    std::vector<int64_t> strides(box.size(), 1);
    if (eqn.primitive->name() == "slice") {
      std::optional<std::vector<int64_t>> s = IntsParam(eqn, "strides");
      if (s && s->size() == box.size()) strides = *s;
    }
    const int64_t lines = LinesTouched(in.shape(), box, layout, ByteWidth(in.dtype()), strides);
    return {SaturatingMul(lines, kLineBytes),
            absl::StrCat(eqn.primitive->name(), " reads ", lines, " lines of ", kLineBytes, " B")};
  }

  std::pair<int64_t, std::string> UseCost(const ir::Eqn& eqn, size_t operand,
                                          const LocalLayout& layout, int depth) {
    const std::string& name = eqn.primitive->name();
    const ir::VarId var = eqn.inputs[operand].var;
    if (name == "slice" || name == "dynamic_slice") return SliceCost(eqn, var, layout);
    if (name == "layout_constraint") {
      if (std::optional<LocalLayout> pinned = ConstraintOf(eqn)) {
        auto [rest, why] = Cost(eqn.outputs[0], *pinned, depth + 1);
        if (SameArrangement(layout, *pinned)) {
          return {rest, absl::StrCat("layout_constraint is satisfied; then ", why)};
        }
        return {SaturatingAdd(2 * Bytes(var), rest),
                "layout_constraint needs a relayout to its pinned layout"};
      }
    }
    if (name == "squeeze") {
      if (std::optional<std::vector<int64_t>> dims = IntsParam(eqn, "dimensions")) {
        return Forward(eqn.outputs[0], DropDims(layout, *dims), depth, "squeeze");
      }
    }
    if (name == "transpose") {
      if (std::optional<std::vector<int64_t>> perm = IntsParam(eqn, "permutation")) {
        return Forward(eqn.outputs[0], TransposedLayout(layout, *perm), depth, "transpose");
      }
    }
    if (ElementwisePrimitives().count(name) > 0 && eqn.outputs.size() == 1 &&
        jaxpr_.aval(eqn.outputs[0]).shape() == jaxpr_.aval(var).shape()) {
      for (size_t q = 0; q < eqn.inputs.size(); ++q) {
        if (q == operand || eqn.inputs[q].is_literal()) continue;
        auto it = known_.find(eqn.inputs[q].var);
        const LocalLayout other =
            it != known_.end() ? it->second
                               : DefaultLayout(jaxpr_.aval(eqn.inputs[q].var).shape().size());
        if (jaxpr_.aval(eqn.inputs[q].var).shape() == jaxpr_.aval(var).shape() &&
            !(other == layout)) {
          return {2 * Bytes(var), absl::StrCat(name, " needs a relayout to match its operand")};
        }
      }
      auto [rest, why] = Forward(eqn.outputs[0], layout, depth, name);
      return {SaturatingAdd(Bytes(var), rest), why};
    }
    return {Bytes(var), absl::StrCat(name, " reads it once")};
  }

  const ir::Jaxpr& jaxpr_;
  std::vector<std::optional<LocalLayout>> fixed_outputs_;
  std::vector<bool> auto_outputs_;
  std::map<ir::VarId, LocalLayout> known_;
};

// The layout each value gets for free from its producer (forward over the equations).
std::map<ir::VarId, LocalLayout> NaturalLayouts(const ir::Jaxpr& jaxpr,
                                                absl::Span<const LocalLayout> inputs) {
  std::map<ir::VarId, LocalLayout> layout;
  for (size_t i = 0; i < jaxpr.invars.size(); ++i)
    layout.insert_or_assign(jaxpr.invars[i], inputs[i]);
  for (const ir::Eqn& eqn : jaxpr.eqns) {
    if (eqn.outputs.size() != 1 || eqn.inputs.empty() || eqn.inputs[0].is_literal()) continue;
    auto in = layout.find(eqn.inputs[0].var);
    if (in == layout.end()) continue;
    const std::string& name = eqn.primitive->name();
    std::optional<LocalLayout> out;
    if (name == "layout_constraint") {
      out = ConstraintOf(eqn);
    } else if (name == "transpose") {
      std::optional<std::vector<int64_t>> perm = IntsParam(eqn, "permutation");
      if (perm) out = TransposedLayout(in->second, *perm);
    } else if (name == "squeeze") {
      std::optional<std::vector<int64_t>> dims = IntsParam(eqn, "dimensions");
      if (dims) out = DropDims(in->second, *dims);
    } else if (name == "slice" || ElementwisePrimitives().count(name) > 0) {
      if (jaxpr.aval(eqn.outputs[0]).shape().size() == in->second.major_to_minor().size()) {
        out = in->second;
      }
    }
    if (out) layout.insert_or_assign(eqn.outputs[0], *out);
  }
  return layout;
}

// (0, 1) or (0,), as Python prints the tuple.
std::string MajorToMinor(const LocalLayout& layout) {
  return FormatTuple(layout.major_to_minor(), true);
}

std::string ValueName(absl::string_view what, size_t index, const ir::ShapedArray& aval) {
  return absl::StrCat(what, " ", index, " (", aval.ShortString(), ")");
}

absl::Status CheckCounts(const ir::Jaxpr& jaxpr, absl::Span<const JitLayout> in_layouts,
                         absl::Span<const JitLayout> out_layouts) {
  if (in_layouts.size() != jaxpr.invars.size() || out_layouts.size() != jaxpr.outvars.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the program has ", jaxpr.invars.size(), " inputs and ", jaxpr.outvars.size(),
                     " outputs, but ", in_layouts.size(), " input and ", out_layouts.size(),
                     " output layouts were given"));
  }
  for (size_t i = 0; i < in_layouts.size(); ++i) {
    if (const LocalLayout* l = std::get_if<LocalLayout>(&in_layouts[i])) {
      AXE_RETURN_IF_ERROR(l->CheckCompatibleAval(jaxpr.aval(jaxpr.invars[i]).shape()));
    }
  }
  for (size_t o = 0; o < out_layouts.size(); ++o) {
    if (const LocalLayout* l = std::get_if<LocalLayout>(&out_layouts[o])) {
      AXE_RETURN_IF_ERROR(l->CheckCompatibleAval(jaxpr.aval(jaxpr.outvars[o]).shape()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

int64_t LinesTouched(absl::Span<const int64_t> shape, absl::Span<const int64_t> box,
                     const LocalLayout& layout, int64_t element_bytes,
                     absl::Span<const int64_t> strides) {
  const std::vector<int64_t>& m2m = layout.major_to_minor();
  const auto stride = [&](size_t d) { return d < strides.size() ? strides[d] : int64_t{1}; };
  int64_t elements = 1;
  for (int64_t b : box) elements *= b;
  if (elements == 0) return 0;
  if (!m2m.empty() && stride(static_cast<size_t>(m2m.back())) > 1) {
    // Every stride-th element along the minor dim: a line each when they are a line apart,
    // else the lines of the span they cover.
    const size_t d = static_cast<size_t>(m2m.back());
    const int64_t s = stride(d);
    const int64_t per_run = s * element_bytes >= kLineBytes
                                ? box[d]
                                : CeilDiv(((box[d] - 1) * s + 1) * element_bytes, kLineBytes);
    return (elements / box[d]) * per_run;
  }
  int64_t run = 1;
  for (size_t k = m2m.size(); k-- > 0;) {
    const size_t d = static_cast<size_t>(m2m[k]);
    if (stride(d) != 1) break;  // the runs so far repeat, apart
    run *= box[d];
    if (box[d] != shape[d]) break;
  }
  const int64_t runs = elements / run;
  return runs * CeilDiv(run * element_bytes, kLineBytes);
}

// Where the chosen layouts make the program copy: a layout_constraint whose operand is
// stored otherwise, an output fixed to another layout than its producer writes.
std::vector<std::string> InsertedRelayouts(const ir::Jaxpr& jaxpr,
                                           const std::map<ir::VarId, LocalLayout>& natural,
                                           absl::Span<const LocalLayout> outputs) {
  std::vector<std::string> out;
  const std::vector<std::string> names = ir::PrintedVarNames(jaxpr);
  auto layout_of = [&](ir::VarId var) {
    auto it = natural.find(var);
    return it != natural.end() ? it->second : DefaultLayout(jaxpr.aval(var).shape().size());
  };
  for (size_t e = 0; e < jaxpr.eqns.size(); ++e) {
    const ir::Eqn& eqn = jaxpr.eqns[e];
    if (eqn.primitive->name() != "layout_constraint" || eqn.inputs[0].is_literal()) continue;
    std::optional<LocalLayout> pinned = ConstraintOf(eqn);
    const LocalLayout from = layout_of(eqn.inputs[0].var);
    if (!pinned || SameArrangement(from, *pinned)) continue;
    out.push_back(absl::StrCat(
        "equation ", e, " (layout_constraint): ", names[static_cast<size_t>(eqn.inputs[0].var)],
        " major_to_minor=", MajorToMinor(from), " -> ", MajorToMinor(*pinned)));
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    const ir::Atom& atom = jaxpr.outvars[o];
    if (atom.is_literal()) continue;
    const LocalLayout from = layout_of(atom.var);
    if (SameArrangement(from, outputs[o])) continue;
    out.push_back(absl::StrCat("output ", o, ": ", names[static_cast<size_t>(atom.var)],
                               " major_to_minor=", MajorToMinor(from), " -> ",
                               MajorToMinor(outputs[o])));
  }
  return out;
}

absl::StatusOr<LayoutPlan> ChooseLayouts(const ir::Jaxpr& jaxpr,
                                         absl::Span<const JitLayout> in_layouts,
                                         absl::Span<const JitLayout> out_layouts) {
  AXE_RETURN_IF_ERROR(CheckCounts(jaxpr, in_layouts, out_layouts));
  std::vector<std::optional<LocalLayout>> fixed_outputs(out_layouts.size());
  std::vector<bool> auto_outputs(out_layouts.size(), false);
  for (size_t o = 0; o < out_layouts.size(); ++o) {
    const size_t rank = jaxpr.aval(jaxpr.outvars[o]).shape().size();
    auto_outputs[o] = std::holds_alternative<AutoLayout>(out_layouts[o]);
    if (const LocalLayout* l = std::get_if<LocalLayout>(&out_layouts[o])) {
      fixed_outputs[o] = *l;
    } else if (!auto_outputs[o]) {
      fixed_outputs[o] = DefaultLayout(rank);
    }
  }
  CostModel model(jaxpr, fixed_outputs, auto_outputs);
  LayoutPlan plan;
  for (size_t i = 0; i < in_layouts.size(); ++i) {
    const ir::VarId var = jaxpr.invars[i];
    const size_t rank = jaxpr.aval(var).shape().size();
    if (const LocalLayout* l = std::get_if<LocalLayout>(&in_layouts[i])) {
      plan.inputs.push_back(*l);
    } else {
      plan.inputs.push_back(DefaultLayout(rank));
    }
    if (!std::holds_alternative<AutoLayout>(in_layouts[i])) {
      model.SetKnown(var, plan.inputs.back());
      continue;
    }
    AutoChoice choice{ValueName("input", i, jaxpr.aval(var)), {}, plan.inputs.back()};
    int64_t best = std::numeric_limits<int64_t>::max();
    for (LocalLayout& candidate : Candidates(rank)) {
      auto [bytes, reason] = model.Cost(var, candidate);
      if (bytes < best) {
        best = bytes;
        choice.chosen = candidate;
      }
      choice.candidates.push_back({std::move(candidate), bytes, std::move(reason)});
    }
    plan.inputs.back() = choice.chosen;
    model.SetKnown(var, choice.chosen);
    plan.explain.push_back(std::move(choice));
  }
  const std::map<ir::VarId, LocalLayout> natural = NaturalLayouts(jaxpr, plan.inputs);
  for (size_t o = 0; o < out_layouts.size(); ++o) {
    if (fixed_outputs[o]) {
      plan.outputs.push_back(*fixed_outputs[o]);
      continue;
    }
    const ir::Atom& atom = jaxpr.outvars[o];
    const ir::ShapedArray& aval = jaxpr.aval(atom);
    const LocalLayout standard = DefaultLayout(aval.shape().size());
    auto it = atom.is_literal() ? natural.end() : natural.find(atom.var);
    const LocalLayout free = it != natural.end() ? it->second : standard;
    AutoChoice choice{ValueName("output", o, aval), {}, free};
    const int64_t copy = atom.is_literal() ? 0 : 2 * model.Bytes(atom.var);
    choice.candidates.push_back({free, 0, "what its producer writes (no copy)"});
    if (!(free == standard)) {
      choice.candidates.push_back({standard, copy, "a copy to row-major"});
    }
    plan.outputs.push_back(free);
    plan.explain.push_back(std::move(choice));
  }
  plan.relayouts = InsertedRelayouts(jaxpr, natural, plan.outputs);
  return plan;
}

std::string ExplainText(const LayoutPlan& plan) {
  std::string out;
  for (const AutoChoice& choice : plan.explain) {
    absl::StrAppend(&out, choice.value, ": AUTO\n");
    for (const LayoutCandidate& c : choice.candidates) {
      absl::StrAppend(&out, absl::StrFormat("  %s major_to_minor=%-14s %12d B  %s\n",
                                            c.layout == choice.chosen ? "*" : " ",
                                            MajorToMinor(c.layout), c.bytes, c.reason));
    }
  }
  for (const std::string& relayout : plan.relayouts) {
    absl::StrAppend(&out, "relayout inserted: ", relayout, "\n");
  }
  return out;
}

}  // namespace axe::jit
