// Abstract evaluation of the elementwise primitives: n-ary arithmetic, unary math,
// comparisons.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

// NumPy-style broadcasting as lax does it: rank-0 operands (literals such as 2.0:f32[])
// broadcast to any shape; the others have equal ranks and each dimension is equal or 1. Dtypes
// are equal. The result is weak only when every operand is.
absl::StatusOr<ShapedArray> Broadcasting(absl::string_view name,
                                         absl::Span<const ShapedArray> avals,
                                         absl::string_view tip) {
  if (avals.empty()) return TypeError(absl::StrCat(name, " takes at least one operand"));
  std::vector<size_t> ranks;
  for (const ShapedArray& a : avals) {
    if (a.rank() > 0 && std::find(ranks.begin(), ranks.end(), a.rank()) == ranks.end()) {
      ranks.push_back(a.rank());
    }
  }
  std::sort(ranks.begin(), ranks.end());
  if (ranks.size() > 1) {
    std::vector<size_t> all;
    for (const ShapedArray& a : avals) {
      if (std::find(all.begin(), all.end(), a.rank()) == all.end()) all.push_back(a.rank());
    }
    std::sort(all.begin(), all.end());
    return TypeError(absl::StrCat(name, ": arrays must have the same number of dimensions, got {",
                                  absl::StrJoin(all, ", "), "}"));
  }
  std::vector<int64_t> shape(ranks.empty() ? 0 : ranks[0], 1);
  for (const ShapedArray& a : avals) {
    if (a.rank() == 0) continue;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t s = a.shape()[d];
      if (s == shape[d] || s == 1) continue;
      if (shape[d] != 1) {
        std::vector<std::string> shapes;
        for (const ShapedArray& b : avals) shapes.push_back(PyTuple(b.shape()));
        return TypeError(absl::StrCat(
            name, " got incompatible shapes for broadcasting: ", absl::StrJoin(shapes, ", "), "."));
      }
      shape[d] = s;
    }
  }
  for (const ShapedArray& a : avals) {
    if (a.dtype() != avals[0].dtype()) {
      std::vector<std::string> names;
      for (const ShapedArray& b : avals) names.push_back(DTypeName(b.dtype()));
      return TypeError(absl::StrCat("lax.", name,
                                    " requires arguments to have the same dtypes, got ",
                                    absl::StrJoin(names, ", "), ".", tip));
    }
  }
  bool weak = true;
  for (const ShapedArray& a : avals) weak = weak && a.weak_type();
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma(name, avals));
  return ShapedArray(std::move(shape), avals[0].dtype(), weak, std::move(vma));
}

Rule Arithmetic(std::string name, std::string jnp_name) {
  std::string tip = jnp_name.empty()
                        ? ""
                        : absl::StrCat(" (Tip: jnp.", jnp_name,
                                       " is a similar function that does automatic type "
                                       "promotion on inputs).");
  return [name, tip](absl::Span<const ShapedArray> avals,
                     const Params&) -> absl::StatusOr<std::vector<ShapedArray>> {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 2));
    AXE_ASSIGN_OR_RETURN(ShapedArray out, Broadcasting(name, avals, tip));
    return One(std::move(out));
  };
}

Rule Comparison(std::string name) {
  return [name](absl::Span<const ShapedArray> avals,
                const Params&) -> absl::StatusOr<std::vector<ShapedArray>> {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 2));
    AXE_ASSIGN_OR_RETURN(ShapedArray out, Broadcasting(name, avals, ""));
    return One(out.WithDType(DType::kPred).WithWeakType(false));
  };
}

// Unary math on floating-point (and, for neg/abs/sign, integer) operands.
Rule UnaryRule(std::string name, bool integers_allowed) {
  return [name, integers_allowed](absl::Span<const ShapedArray> avals,
                                  const Params&) -> absl::StatusOr<std::vector<ShapedArray>> {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 1));
    DType t = avals[0].dtype();
    bool ok = IsFloatingPoint(t) || IsComplex(t) || (integers_allowed && IsIntegral(t));
    if (!ok) {
      return TypeError(absl::StrCat(
          name, " does not accept dtype ", DTypeName(t), ". Accepted dtypes are subtypes of ",
          integers_allowed ? "integer, " : "", "floating, complexfloating."));
    }
    AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma(name, avals));
    return One(avals[0].WithVma(std::move(vma)));
  };
}

}  // namespace

void RegisterElementwiseRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.add, Arithmetic("add", "add"));
  RegisterAbstractEval(*p.sub, Arithmetic("sub", "subtract"));
  RegisterAbstractEval(*p.mul, Arithmetic("mul", "multiply"));
  RegisterAbstractEval(*p.div, Arithmetic("div", "divide"));
  RegisterAbstractEval(*p.max, Arithmetic("max", "maximum"));
  RegisterAbstractEval(*p.min, Arithmetic("min", "minimum"));
  RegisterAbstractEval(*p.pow, Arithmetic("pow", "power"));
  for (auto [prim, ints] : {std::pair{p.neg, true},
                            {p.abs, true},
                            {p.sign, true},
                            {p.sin, false},
                            {p.cos, false},
                            {p.exp, false},
                            {p.log, false},
                            {p.tanh, false},
                            {p.sqrt, false}}) {
    RegisterAbstractEval(*prim, UnaryRule(prim->name(), ints));
  }
  for (const Primitive* prim : {p.eq, p.ne, p.lt, p.le, p.gt, p.ge}) {
    RegisterAbstractEval(*prim, Comparison(prim->name()));
  }
}

}  // namespace axe::ir::internal
