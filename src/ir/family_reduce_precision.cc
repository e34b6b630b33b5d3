// reduce_precision: its definition and every rule. What JAX's gradients of checkpointed
// functions print (a saved residual goes through it), e.g.
//
//   d:f32[2,2] = reduce_precision[exponent_bits=8 mantissa_bits=23] c
//
// Each float rounded (to nearest even) to `mantissa_bits` and its exponent range cut to
// `exponent_bits`, as XLA's ReducePrecision does: overflow gives a signed infinity, anything at
// or below the smallest normal exponent a signed zero, and NaN stays NaN. PrecisionBits at least
// the operand's own change nothing. It is linear (JAX's deflinear: the transpose and the tangent
// are reduce_precision too) and elementwise.
#include <bit>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/numerics.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/linear.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

struct PrecisionBits {
  int64_t exponent = 0, mantissa = 0;
};

absl::StatusOr<PrecisionBits> ReadPrecisionBits(const Params& params) {
  PrecisionBits b;
  AXE_ASSIGN_OR_RETURN(b.exponent, RequiredInt(params, "reduce_precision", "exponent_bits"));
  AXE_ASSIGN_OR_RETURN(b.mantissa, RequiredInt(params, "reduce_precision", "mantissa_bits"));
  if (b.exponent < 1) {
    return TypeError(
        absl::StrCat("reduce_precision: exponent_bits must be positive; got ", b.exponent));
  }
  if (b.mantissa < 0) {
    return TypeError(
        absl::StrCat("reduce_precision: mantissa_bits must be non-negative; got ", b.mantissa));
  }
  return b;
}

absl::StatusOr<std::vector<ShapedArray>> ReducePrecisionRule(absl::Span<const ShapedArray> avals,
                                                             const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("reduce_precision", avals, 1));
  AXE_RETURN_IF_ERROR(ReadPrecisionBits(params).status());
  if (!IsFloatingPoint(avals[0].dtype())) {
    return TypeError(absl::StrCat("reduce_precision does not accept dtype ",
                                  DTypeName(avals[0].dtype()),
                                  ". Accepted dtypes are subtypes of floating."));
  }
  return One(avals[0]);
}

// XLA's ReducePrecision on the bits of a double (11 exponent and 52 mantissa bits).
double ReduceDouble(double x, PrecisionBits b) {
  if (std::isnan(x)) return x;
  return std::bit_cast<double>(
      ReducePrecisionBits(std::bit_cast<uint64_t>(x), 11, 52, b.exponent, b.mantissa));
}

// The operand's own exponent and mantissa bits.
PrecisionBits OwnPrecisionBits(DType t) {
  switch (t) {
    case DType::kF16: return {5, 10};
    case DType::kBF16: return {8, 7};
    case DType::kF32: return {8, 23};
    default: return {11, 52};
  }
}

absl::StatusOr<std::vector<HostArray>> ReducePrecisionImpl(absl::Span<const HostArray> args,
                                                           const Params& params) {
  AXE_ASSIGN_OR_RETURN(PrecisionBits b, ReadPrecisionBits(params));
  AXE_RETURN_IF_ERROR(ReducePrecisionRule(PlainAvals(args), params).status());
  HostArray out = args[0];
  out.aval = out.aval.WithVma({});
  const PrecisionBits own = OwnPrecisionBits(out.aval.dtype());
  if (b.exponent >= own.exponent && b.mantissa >= own.mantissa) return OneArray(std::move(out));
  for (double& v : out.values) v = RoundToDType(ReduceDouble(v, b), out.aval.dtype());
  return OneArray(std::move(out));
}

absl::StatusOr<std::vector<OptTracer>> ReducePrecisionTranspose(Builder&,
                                                                absl::Span<const OptTracer> cts,
                                                                absl::Span<const TransposeArg> args,
                                                                const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (cts[0]) {
    AXE_ASSIGN_OR_RETURN(out[0], Op(*Builtins().reduce_precision, {*cts[0]}, params));
  }
  return out;
}

absl::StatusOr<BatchResult> ReducePrecisionBatch(Builder&, absl::Span<const Tracer> args,
                                                 absl::Span<const BDim> dims,
                                                 const Params& params) {
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*Builtins().reduce_precision, {args[0]}, params));
  return BatchResult{{out}, {dims[0]}};
}

}  // namespace

void DefineReducePrecision(BuiltinPrimitives& p) {
  Primitive::Options o;
  o.name = "reduce_precision";
  o.params = {{"exponent_bits", ParamType::kInt}, {"mantissa_bits", ParamType::kInt}};
  absl::StatusOr<const Primitive*> prim = DefinePrimitive(std::move(o));
  AXE_CHECK(prim.ok()) << prim.status();  // a fixed identifier, defined once
  p.reduce_precision = *prim;
}

void RegisterReducePrecisionRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.reduce_precision, ReducePrecisionRule);
  RegisterImpl(*p.reduce_precision, ReducePrecisionImpl);
  DefLinear2(*p.reduce_precision, ReducePrecisionTranspose);
  RegisterBatching(*p.reduce_precision, ReducePrecisionBatch);
}

}  // namespace axe::ir::internal
