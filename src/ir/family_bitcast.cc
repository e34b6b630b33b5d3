// bitcast_convert_type[new_dtype=T] x: the same bits read as another type (what
// jax.random.uniform does to turn random bits into floats in [1, 2)). Same width: the same
// shape; a narrower T adds a trailing dimension of old width / new width; a wider T removes
// the last dimension, which must be new width / old width. bool and complex only to
// themselves. Rules: typing with JAX's errors, impl on HostArray (integers, f32, f64; the
// 16-bit floats are not evaluated), JVP (no tangent, JAX's defjvp_zero), batching (the batch
// dimension moved to the front, away from the dimension the bits are grouped along). Not
// linear: no transpose rule.
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "batching_util.h"
#include "eval_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using OptTracer = std::optional<Tracer>;

absl::StatusOr<std::vector<ShapedArray>> BitcastType(absl::Span<const ShapedArray> avals,
                                                     const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("bitcast_convert_type", avals, 1));
  AXE_ASSIGN_OR_RETURN(const Param* t, GetParam(params, "bitcast_convert_type", "new_dtype"));
  AXE_ASSIGN_OR_RETURN(DType to, t->AsDType("new_dtype"));
  const ShapedArray& x = avals[0];
  const DType from = x.dtype();
  const bool special = from == DType::kPred || IsComplex(from) || IsKeyType(from) ||
                       to == DType::kPred || IsComplex(to) || IsKeyType(to);
  if (special && from != to) {
    return TypeError(absl::StrCat(
        "lax.bitcast_convert_type does not support bool or complex values unless the operand "
        "and destination types match. Got operand dtype=",
        DTypeName(from), ", new_dtype=dtype('", DTypeName(to),
        "'). Consider using the arr.view() method instead."));
  }
  const int old_bits = BitWidth(from), new_bits = BitWidth(to);
  std::vector<int64_t> shape = x.shape();
  if (old_bits > new_bits) {
    shape.push_back(old_bits / new_bits);
  } else if (old_bits < new_bits) {
    const int64_t last = shape.empty() ? 1 : shape.back();
    if (last * old_bits != new_bits) {
      return TypeError(absl::StrCat("Attempting to convert array of shape ", PyTuple(x.shape()),
                                    " from ", DTypeName(from), " of size ", old_bits, " bits to ",
                                    DTypeName(to), " of size ", new_bits, ", bits but ", last,
                                    " * ", old_bits, " != ", new_bits));
    }
    if (!shape.empty()) shape.pop_back();
  }
  AXE_ASSIGN_OR_RETURN(ShapedArray out, ShapedArray::Create(std::move(shape), to, false, x.vma()));
  return One(std::move(out));
}

bool Evaluated(DType t) {
  return IsIntegral(t) || t == DType::kF32 || t == DType::kF64 || t == DType::kPred;
}

// The value's bits (the low BitWidth(t) of the result).
uint64_t BitsOf(double v, DType t) {
  if (t == DType::kF32) return std::bit_cast<uint32_t>(static_cast<float>(v));
  if (t == DType::kF64) return std::bit_cast<uint64_t>(v);
  if (t == DType::kPred) return v != 0 ? 1 : 0;
  const uint64_t bits = IsUnsignedIntegral(t) && v >= 0x1p63 ? static_cast<uint64_t>(v)
                                                             : static_cast<uint64_t>(AsInt64(v));
  return bits & UnsignedMask(t);
}

double ValueOf(uint64_t bits, DType t) {
  if (t == DType::kF32) return std::bit_cast<float>(static_cast<uint32_t>(bits));
  if (t == DType::kF64) return std::bit_cast<double>(bits);
  if (t == DType::kPred) return bits != 0 ? 1.0 : 0.0;
  return IntegerFromBits(bits, t);
}

absl::StatusOr<std::vector<HostArray>> BitcastImpl(absl::Span<const HostArray> args,
                                                   const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval,
                       ResultAval(*Builtins().bitcast_convert_type, args, params));
  const DType from = args[0].aval.dtype(), to = aval.dtype();
  if (!Evaluated(from) || !Evaluated(to)) {
    return absl::UnimplementedError(
        absl::StrCat("the interpreter does not evaluate "
                     "bitcast_convert_type from ",
                     JaxprName(from), " to ", JaxprName(to)));
  }
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  const size_t old_bytes = static_cast<size_t>(ByteWidth(from));
  const size_t new_bytes = static_cast<size_t>(ByteWidth(to));
  std::vector<uint8_t> bytes(args[0].values.size() * old_bytes);
  for (size_t i = 0; i < args[0].values.size(); ++i) {  // little-endian, as XLA:CPU holds them
    const uint64_t b = BitsOf(args[0].values[i], from);
    for (size_t k = 0; k < old_bytes; ++k)
      bytes[i * old_bytes + k] = static_cast<uint8_t>(b >> (8 * k));
  }
  for (size_t i = 0; i < out.values.size(); ++i) {
    uint64_t b = 0;
    for (size_t k = 0; k < new_bytes; ++k) b |= uint64_t{bytes[i * new_bytes + k]} << (8 * k);
    out.values[i] = ValueOf(b, to);
  }
  return OneArray(std::move(out));
}

absl::StatusOr<JvpResult> BitcastJvp(Builder& b, absl::Span<const Tracer> primals,
                                     absl::Span<const OptTracer>, const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       b.Bind(*Builtins().bitcast_convert_type, primals, params));
  return JvpResult{outs, std::vector<OptTracer>(outs.size())};
}

absl::StatusOr<BatchResult> BitcastBatching(Builder& b, absl::Span<const Tracer> args,
                                            absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       b.Bind(*Builtins().bitcast_convert_type, {x}, params));
  return BatchResult{outs, {BDim(0)}};
}

}  // namespace

void DefineBitcast(BuiltinPrimitives& p) {
  Primitive::Options o;
  o.name = "bitcast_convert_type";
  o.params = {{"new_dtype", ParamType::kDType}};
  absl::StatusOr<const Primitive*> prim = DefinePrimitive(std::move(o));
  AXE_CHECK(prim.ok()) << prim.status();
  p.bitcast_convert_type = *prim;
}

void RegisterBitcastRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.bitcast_convert_type, BitcastType);
  RegisterImpl(*p.bitcast_convert_type, BitcastImpl);
  RegisterJvp(*p.bitcast_convert_type, BitcastJvp);
  RegisterBatching(*p.bitcast_convert_type, BitcastBatching);
}

}  // namespace axe::ir::internal
