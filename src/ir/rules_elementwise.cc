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

// pow: operands of one dtype (integers too: they wrap), or a floating-point or complex base
// with an integer exponent (the result has the base's dtype), as JAX's _pow_dtype_rule.
Rule PowRule() {
  Rule same = Arithmetic("pow", "power");
  return [same](absl::Span<const ShapedArray> avals,
                const Params& params) -> absl::StatusOr<std::vector<ShapedArray>> {
    AXE_RETURN_IF_ERROR(ExpectArity("pow", avals, 2));
    DType x = avals[0].dtype(), y = avals[1].dtype();
    if (x == y) return same(avals, params);
    if (!IsFloatingPoint(x) && !IsComplex(x)) {
      return TypeError(absl::StrCat("pow does not accept dtype ", DTypeName(x),
                                    " at position 0. Accepted dtypes at position 0 are subtypes "
                                    "of floating, complexfloating."));
    }
    if (!IsIntegral(y)) {
      return TypeError(absl::StrCat(
          "the first argument to pow must have an inexact dtype (float or complex), and the "
          "second argument must have an inexact or integer dtype, and two inexact dtypes must "
          "match, but got ",
          DTypeName(x), " and ", DTypeName(y), " respectively."));
    }
    std::vector<ShapedArray> as_base = {avals[0], avals[1].WithDType(x)};
    AXE_ASSIGN_OR_RETURN(ShapedArray out, Broadcasting("pow", as_base, ""));
    return One(out.WithWeakType(avals[0].weak_type()));
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

// and / or / not: booleans or integers.
Rule Bitwise(std::string name, size_t arity) {
  return [name, arity](absl::Span<const ShapedArray> avals,
                       const Params&) -> absl::StatusOr<std::vector<ShapedArray>> {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, arity));
    DType t = avals[0].dtype();
    if (t != DType::kPred && !IsIntegral(t)) {
      return TypeError(absl::StrCat(name, " does not accept dtype ", DTypeName(t),
                                    ". Accepted dtypes are subtypes of integer, bool."));
    }
    AXE_ASSIGN_OR_RETURN(ShapedArray out, Broadcasting(name, avals, ""));
    return One(std::move(out));
  };
}

// is_finite: floating-point operand, boolean result.
absl::StatusOr<std::vector<ShapedArray>> IsFiniteRule(absl::Span<const ShapedArray> avals,
                                                      const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> out, UnaryRule("is_finite", false)(avals, params));
  return One(out[0].WithDType(DType::kPred).WithWeakType(false));
}

// stop_gradient: any operand, unchanged type.
absl::StatusOr<std::vector<ShapedArray>> IdentityRule(absl::Span<const ShapedArray> avals,
                                                      const Params&) {
  AXE_RETURN_IF_ERROR(ExpectArity("stop_gradient", avals, 1));
  return One(avals[0]);
}

// clamp(min, x, max): min and max are scalars or shaped like x, all of x's dtype.
absl::StatusOr<std::vector<ShapedArray>> ClampRule(absl::Span<const ShapedArray> avals,
                                                   const Params&) {
  AXE_RETURN_IF_ERROR(ExpectArity("clamp", avals, 3));
  const ShapedArray& x = avals[1];
  for (size_t i : {0, 2}) {
    const char* which = i == 0 ? "min" : "max";
    if (avals[i].rank() > 0 && avals[i].shape() != x.shape()) {
      return TypeError(absl::StrCat("clamp requires ", which, ".shape == operand.shape or ", which,
                                    ".shape == (), got ", PyTuple(avals[i].shape()), "."));
    }
    if (avals[i].dtype() != x.dtype()) {
      return TypeError(absl::StrCat("lax.clamp requires arguments to have the same dtypes, got ",
                                    DTypeName(avals[0].dtype()), ", ", DTypeName(x.dtype()), ", ",
                                    DTypeName(avals[2].dtype()), "."));
    }
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("clamp", avals));
  return One(x.WithVma(std::move(vma)));
}

void RegisterMoreElementwiseRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.rem, Arithmetic("rem", "remainder"));
  RegisterAbstractEval(*p.add_any, Arithmetic("add_any", ""));
  RegisterAbstractEval(*p.and_, Bitwise("and", 2));
  RegisterAbstractEval(*p.or_, Bitwise("or", 2));
  RegisterAbstractEval(*p.not_, Bitwise("not", 1));
  for (auto [prim, ints] : {std::pair{p.integer_pow, true},
                            {p.square, true},
                            {p.rsqrt, false},
                            {p.log1p, false},
                            {p.logistic, false},
                            {p.round, false},
                            {p.floor, false},
                            {p.ceil, false}}) {
    RegisterAbstractEval(*prim, UnaryRule(prim->name(), ints));
  }
  RegisterAbstractEval(*p.is_finite, IsFiniteRule);
  RegisterAbstractEval(*p.stop_gradient, IdentityRule);
  RegisterAbstractEval(*p.clamp, ClampRule);
}

}  // namespace

void RegisterElementwiseRules(const BuiltinPrimitives& p) {
  RegisterMoreElementwiseRules(p);
  RegisterAbstractEval(*p.add, Arithmetic("add", "add"));
  RegisterAbstractEval(*p.sub, Arithmetic("sub", "subtract"));
  RegisterAbstractEval(*p.mul, Arithmetic("mul", "multiply"));
  RegisterAbstractEval(*p.div, Arithmetic("div", "divide"));
  RegisterAbstractEval(*p.max, Arithmetic("max", "maximum"));
  RegisterAbstractEval(*p.min, Arithmetic("min", "minimum"));
  RegisterAbstractEval(*p.pow, PowRule());
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

Rule UnaryMathRule(std::string name, bool integers_allowed) {
  return UnaryRule(std::move(name), integers_allowed);
}

absl::StatusOr<ShapedArray> BroadcastOperands(absl::string_view name,
                                              absl::Span<const ShapedArray> avals) {
  return Broadcasting(name, avals, "");
}

}  // namespace axe::ir::internal
