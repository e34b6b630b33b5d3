#include "axe/ir/control_flow.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/primitives.h"

namespace axe::ir {
namespace {

constexpr absl::string_view kScanVmaLink =
    "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more "
    "information.\n\n";

// Python's str_short (long dtype name, no weak marker).
std::string Long(const ShapedArray& a) { return a.WithWeakType(false).Str(); }

std::string Capitalize(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

// JAX's aval_mismatch_extra.
std::string MismatchExtra(const ShapedArray& a, const ShapedArray& b) {
  std::vector<std::string> m;
  if (a.dtype() != b.dtype()) m.push_back("the dtypes do not match");
  if (a.shape() != b.shape()) m.push_back("the shapes do not match");
  if (InMeshOrder(a.vma()) != InMeshOrder(b.vma()))
    m.push_back("the manual axis types do not match");
  if (m.empty()) return "";
  if (m.size() == 1) return ", so " + m[0];
  std::string last = m.back();
  m.pop_back();
  return absl::StrCat(", so ", absl::StrJoin(m, ", "), ", and ", last);
}

struct Traced {
  std::shared_ptr<const ClosedJaxpr> jaxpr;
  std::vector<ShapedArray> outs;
};

absl::StatusOr<Traced> TraceFunction(const TracedFunction& fn,
                                     const std::vector<ShapedArray>& in_avals) {
  Builder b;
  std::vector<Tracer> args;
  for (const ShapedArray& a : in_avals) args.push_back(b.Arg(a));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, fn(b, args));
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr j, b.Build(outs));
  Traced t{std::make_shared<const ClosedJaxpr>(std::move(j)), {}};
  t.outs = t.jaxpr->jaxpr.out_avals();
  return t;
}

bool TypeMatch(const ShapedArray& a, const ShapedArray& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         InMeshOrder(a.vma()) == InMeshOrder(b.vma());
}

absl::Status BranchError(const NamedFunction& t, const NamedFunction& f,
                         const std::vector<ShapedArray>& a1, const std::vector<ShapedArray>& a2) {
  std::vector<std::string> diffs, hints;
  for (size_t i = 0; i < a1.size(); ++i) {
    if (TypeMatch(a1[i], a2[i])) continue;
    std::string path = a1.size() == 1 ? "" : absl::StrCat(" at path [", i, "]");
    diffs.push_back(absl::StrCat("the output of true_fun", path, " has type ", Long(a1[i]),
                                 " but the corresponding output of false_fun has type ",
                                 Long(a2[i]), MismatchExtra(a1[i], a2[i])));
    std::vector<std::string> true_lacks = VmaMinus(a2[i].vma(), a1[i].vma());
    std::vector<std::string> false_lacks = VmaMinus(a1[i].vma(), a2[i].vma());
    if (!true_lacks.empty()) {
      hints.push_back(absl::StrCat("applying `jax.lax.pcast(..., ", NamesTupleRepr(true_lacks),
                                   ", to='varying')` to the output of true_fun", path));
    }
    if (!false_lacks.empty()) {
      hints.push_back(absl::StrCat("applying `jax.lax.pcast(..., ", NamesTupleRepr(false_lacks),
                                   ", to='varying')` to the output of false_fun", path));
    }
  }
  std::string differences;
  if (diffs.size() == 1) {
    differences = absl::StrCat(Capitalize(diffs[0]), ".\n");
  } else {
    for (size_t i = 0; i + 1 < diffs.size(); ++i) {
      absl::StrAppend(&differences, i > 0 ? "\n" : "", "  * ", diffs[i], ";");
    }
    absl::StrAppend(&differences, "\n  * ", diffs.back(), ".\n");
  }
  std::string pvary;
  if (hints.size() == 1) {
    pvary = absl::StrCat("This might be fixed by ", hints[0], ".\n");
  } else if (!hints.empty()) {
    pvary = "This might be fixed by:\n";
    for (size_t i = 0; i + 1 < hints.size(); ++i) {
      absl::StrAppend(&pvary, i > 0 ? "\n" : "", "  * ", hints[i], ";");
    }
    absl::StrAppend(&pvary, "\n  * ", hints.back(), ".\n");
  }
  if (!pvary.empty()) absl::StrAppend(&pvary, kScanVmaLink);
  return absl::InvalidArgumentError(
      absl::StrCat("cond branches must have equal output types but they differ.\n\ntrue_fun is ",
                   t.info, "\nfalse_fun is ", f.info, "\n\n", differences, "\n", pvary,
                   "Revise true_fun and/or false_fun so that all output types match."));
}

absl::Status CarryError(const std::string& carry_name, const std::vector<ShapedArray>& in,
                        const std::vector<ShapedArray>& out) {
  std::vector<std::string> diffs, hints;
  for (size_t i = 0; i < in.size(); ++i) {
    if (TypeMatch(in[i], out[i])) continue;
    std::string component =
        in.size() == 1 ? absl::StrCat("the input carry ", carry_name)
                       : absl::StrCat("the input carry component ", carry_name, "[", i, "]");
    diffs.push_back(absl::StrCat(component, " has type ", Long(in[i]),
                                 " but the corresponding output carry component has type ",
                                 Long(out[i]), MismatchExtra(in[i], out[i])));
    std::vector<std::string> extra = VmaMinus(out[i].vma(), in[i].vma());
    bool superset = VmaMinus(in[i].vma(), out[i].vma()).empty();
    if (!extra.empty() && superset) {
      hints.push_back(absl::StrCat("applying `jax.lax.pcast(..., ", NamesTupleRepr(extra),
                                   ", to='varying')`, to the initial carry value corresponding "
                                   "to ",
                                   component));
    }
  }
  std::string differences;
  if (diffs.size() == 1) {
    differences = absl::StrCat(Capitalize(diffs[0]), ".\n");
  } else {
    for (size_t i = 0; i + 1 < diffs.size(); ++i) {
      absl::StrAppend(&differences, i > 0 ? "\n" : "", "  * ", diffs[i], ";\n");
    }
    absl::StrAppend(&differences, "  * ", diffs.back(), ".\n");
  }
  std::string pvary;
  if (hints.size() == 1) {
    pvary = absl::StrCat("This might be fixed by ", hints[0], ".\n");
  } else if (!hints.empty()) {
    pvary = "This might be fixed by:\n";
    for (size_t i = 0; i + 1 < hints.size(); ++i) {
      absl::StrAppend(&pvary, i > 0 ? "\n" : "", "  * ", hints[i], ";\n");
    }
    absl::StrAppend(&pvary, "  * ", hints.back(), ".\n");
  }
  if (!pvary.empty()) absl::StrAppend(&pvary, kScanVmaLink);
  return absl::InvalidArgumentError(absl::StrCat(
      "scan body function carry input and carry output must have equal types, but they "
      "differ:\n\n",
      differences, "\n", pvary,
      "Revise the function so that all output types match the corresponding input types."));
}

}  // namespace

absl::StatusOr<std::vector<Tracer>> Cond(const Tracer& pred, const NamedFunction& true_fun,
                                         const NamedFunction& false_fun,
                                         absl::Span<const Tracer> operands) {
  std::vector<ShapedArray> in_avals;
  for (const Tracer& t : operands) in_avals.push_back(t.aval);
  AXE_ASSIGN_OR_RETURN(Traced t, TraceFunction(true_fun.fn, in_avals));
  AXE_ASSIGN_OR_RETURN(Traced f, TraceFunction(false_fun.fn, in_avals));
  if (t.outs.size() != f.outs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cond branch outputs must have the same pytree structure, but they differ:\n\ntrue_fun "
        "is ",
        true_fun.info, "\nfalse_fun is ", false_fun.info, "\n\ntrue_fun returns ", t.outs.size(),
        " values but false_fun returns ", f.outs.size(),
        ".\n\nRevise true_fun and/or false_fun so that they have the same pytree structure."));
  }
  for (size_t i = 0; i < t.outs.size(); ++i) {
    if (!TypeMatch(t.outs[i], f.outs[i])) return BranchError(true_fun, false_fun, t.outs, f.outs);
  }
  Tracer index = pred;
  if (pred.aval.dtype() == DType::kPred) {
    AXE_ASSIGN_OR_RETURN(index, ConvertElementType(pred, DType::kS32));
  }
  return ::axe::ir::Cond(index, {f.jaxpr, t.jaxpr}, operands);
}

absl::StatusOr<std::vector<Tracer>> Scan(const TracedFunction& body, absl::Span<const Tracer> init,
                                         absl::Span<const Tracer> xs, int64_t length,
                                         std::string carry_name) {
  std::vector<ShapedArray> in_avals;
  for (const Tracer& c : init) in_avals.push_back(c.aval);
  for (const Tracer& x : xs) {
    if (x.aval.rank() == 0 || x.aval.shape()[0] != length) {
      return absl::InvalidArgumentError(absl::StrCat("scan got an xs value of type ", Long(x.aval),
                                                     " whose leading axis is not ", length));
    }
    in_avals.push_back(x.aval.WithShape({x.aval.shape().begin() + 1, x.aval.shape().end()}));
  }
  AXE_ASSIGN_OR_RETURN(Traced t, TraceFunction(body, in_avals));
  if (t.outs.size() < init.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("scan body returned ", t.outs.size(), " values for a carry of ", init.size()));
  }
  std::vector<ShapedArray> carry_in(in_avals.begin(), in_avals.begin() + init.size());
  std::vector<ShapedArray> carry_out(t.outs.begin(), t.outs.begin() + init.size());
  for (size_t i = 0; i < init.size(); ++i) {
    if (!TypeMatch(carry_in[i], carry_out[i])) return CarryError(carry_name, carry_in, carry_out);
  }
  std::vector<Tracer> args(init.begin(), init.end());
  args.insert(args.end(), xs.begin(), xs.end());
  Builder* b = args.empty() ? nullptr : args[0].builder;
  if (b == nullptr) return absl::InvalidArgumentError("scan: no traced operand");
  return b->Bind(*Builtins().scan, args,
                 {{"jaxpr", Param::Jaxpr(t.jaxpr)},
                  {"length", Param::Int(length)},
                  {"num_carry", Param::Int(static_cast<int64_t>(init.size()))},
                  {"num_consts", Param::Int(0)},
                  {"reverse", Param::Bool(false)},
                  {"unroll", Param::Int(1)}});
}

}  // namespace axe::ir
