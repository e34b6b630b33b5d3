// JAX's PRNG primitives over typed keys (key<fry>), and threefry2x32:
//
//   random_seed[impl=fry] seeds           integer seeds -> key<fry>[seeds.shape]
//   random_wrap[impl=fry] data            u32[..., 2] -> key<fry>[...]
//   random_unwrap keys                    key<fry>[...] -> u32[..., 2]
//   random_split[shape=S] keys            key<fry>[K] -> key<fry>[K + S]
//   random_fold_in keys msgs              broadcasting; msgs are integers (u32 in JAX's jaxprs)
//   random_bits[bit_width=B shape=S] keys key<fry>[K] -> uB[K + S]
//   threefry2x32 k1 k2 x1 x2              u32 operands, broadcasting -> two u32 results
//
// The rules: typing with JAX's errors, impl on HostArray (threefry.h with
// jax_threefry_partitionable on, JAX's default), JVP (keys and bits carry no tangent: JAX's
// defjvp_zero), batching (JAX's defvectorized: the batch dimension stays where it is;
// random_wrap moves it to the front; random_fold_in and threefry2x32 broadcast). None is
// linear, so none has a transpose rule.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "axe/ir/threefry.h"
#include "batching_util.h"
#include "eval_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using threefry::KeyData;

using OptTracer = std::optional<Tracer>;

// ---- typing ----

absl::Status CheckImpl(absl::string_view prim, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* impl, GetParam(params, prim, "impl"));
  if (impl->kind() == Param::Kind::kSymbol && impl->text() == "fry") return absl::OkStatus();
  return TypeError(absl::StrCat(prim, ": unknown PRNG implementation ", impl->ToString(),
                                " (axe implements fry, threefry2x32)"));
}

absl::Status CheckKeys(absl::string_view prim, const ShapedArray& keys) {
  if (IsKeyType(keys.dtype())) return absl::OkStatus();
  return TypeError(absl::StrCat(prim, " takes key array operand, got keys.dtype=dtype('",
                                DTypeName(keys.dtype()), "')"));
}

absl::StatusOr<ShapedArray> Typed(std::vector<int64_t> shape, DType dtype,
                                  std::vector<std::string> vma) {
  return ShapedArray::Create(std::move(shape), dtype, false, std::move(vma));
}

std::vector<int64_t> Concat(std::vector<int64_t> a, absl::Span<const int64_t> b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// lax's broadcasting shape rule: equal ranks (rank-0 operands broadcast), each dimension equal
// or 1.
absl::StatusOr<std::vector<int64_t>> BroadcastShape(absl::string_view prim,
                                                    absl::Span<const ShapedArray> avals) {
  std::vector<int64_t> shape;
  size_t rank = 0;
  for (const ShapedArray& a : avals) rank = std::max(rank, a.rank());
  shape.assign(rank, 1);
  std::vector<std::string> shapes;
  for (const ShapedArray& a : avals) shapes.push_back(PyTuple(a.shape()));
  for (const ShapedArray& a : avals) {
    if (a.rank() == 0) continue;
    if (a.rank() != rank) {
      return TypeError(absl::StrCat(prim, ": arrays must have the same number of dimensions, got ",
                                    absl::StrJoin(shapes, ", ")));
    }
    for (size_t d = 0; d < rank; ++d) {
      if (a.shape()[d] == shape[d] || a.shape()[d] == 1) continue;
      if (shape[d] != 1) {
        return TypeError(absl::StrCat(
            prim, " got incompatible shapes for broadcasting: ", absl::StrJoin(shapes, ", "), "."));
      }
      shape[d] = a.shape()[d];
    }
  }
  return shape;
}

absl::StatusOr<std::vector<ShapedArray>> SeedType(absl::Span<const ShapedArray> avals,
                                                  const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("random_seed", avals, 1));
  AXE_RETURN_IF_ERROR(CheckImpl("random_seed", params));
  if (!IsIntegral(avals[0].dtype())) {
    return TypeError(
        absl::StrCat("PRNG key seed must be an integer; got ", avals[0].ShortString()));
  }
  return One(ShapedArray(avals[0].shape(), DType::kKeyFry, false, avals[0].vma()));
}

absl::StatusOr<std::vector<ShapedArray>> WrapType(absl::Span<const ShapedArray> avals,
                                                  const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("random_wrap", avals, 1));
  AXE_RETURN_IF_ERROR(CheckImpl("random_wrap", params));
  const ShapedArray& data = avals[0];
  if (data.rank() < 1) {
    return TypeError(absl::StrCat(
        "JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; got ndim=",
        data.rank()));
  }
  if (data.shape().back() != 2) {
    return TypeError(absl::StrCat(
        "JAX encountered invalid PRNG key data: expected key_data.shape to end with (2,); got "
        "shape=",
        PyTuple(data.shape()), " for impl=PRNGImpl(threefry2x32)"));
  }
  if (data.dtype() != DType::kU32) {
    return TypeError(absl::StrCat(
        "JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype=",
        DTypeName(data.dtype())));
  }
  std::vector<int64_t> shape(data.shape().begin(), data.shape().end() - 1);
  return One(ShapedArray(std::move(shape), DType::kKeyFry, false, data.vma()));
}

absl::StatusOr<std::vector<ShapedArray>> UnwrapType(absl::Span<const ShapedArray> avals,
                                                    const Params&) {
  AXE_RETURN_IF_ERROR(ExpectArity("random_unwrap", avals, 1));
  AXE_RETURN_IF_ERROR(CheckKeys("random_unwrap", avals[0]));
  AXE_ASSIGN_OR_RETURN(ShapedArray out,
                       Typed(Concat(avals[0].shape(), {2}), DType::kU32, avals[0].vma()));
  return One(std::move(out));
}

absl::StatusOr<std::vector<ShapedArray>> SplitType(absl::Span<const ShapedArray> avals,
                                                   const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("random_split", avals, 1));
  AXE_RETURN_IF_ERROR(CheckKeys("random_split", avals[0]));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, RequiredInts(params, "random_split", "shape"));
  AXE_ASSIGN_OR_RETURN(ShapedArray out,
                       Typed(Concat(avals[0].shape(), shape), DType::kKeyFry, avals[0].vma()));
  return One(std::move(out));
}

absl::StatusOr<DType> BitsDType(const Params& params) {
  AXE_ASSIGN_OR_RETURN(int64_t bit_width, RequiredInt(params, "random_bits", "bit_width"));
  switch (bit_width) {
    case 8: return DType::kU8;
    case 16: return DType::kU16;
    case 32: return DType::kU32;
    case 64: return DType::kU64;
    default: break;
  }
  return TypeError(
      absl::StrCat("random_bits: requires 8-, 16-, 32- or 64-bit field width, got ", bit_width));
}

absl::StatusOr<std::vector<ShapedArray>> BitsType(absl::Span<const ShapedArray> avals,
                                                  const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("random_bits", avals, 1));
  AXE_RETURN_IF_ERROR(CheckKeys("random_bits", avals[0]));
  AXE_ASSIGN_OR_RETURN(DType dtype, BitsDType(params));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, RequiredInts(params, "random_bits", "shape"));
  AXE_ASSIGN_OR_RETURN(ShapedArray out,
                       Typed(Concat(avals[0].shape(), shape), dtype, avals[0].vma()));
  return One(std::move(out));
}

absl::StatusOr<std::vector<ShapedArray>> FoldInType(absl::Span<const ShapedArray> avals,
                                                    const Params&) {
  AXE_RETURN_IF_ERROR(ExpectArity("random_fold_in", avals, 2));
  AXE_RETURN_IF_ERROR(CheckKeys("random_fold_in", avals[0]));
  if (!IsIntegral(avals[1].dtype())) {
    return TypeError(absl::StrCat("random_fold_in: the data folded in must be integers, got ",
                                  avals[1].ShortString()));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, BroadcastShape("random_fold_in", avals));
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("random_fold_in", avals));
  return One(ShapedArray(std::move(shape), DType::kKeyFry, false, std::move(vma)));
}

absl::StatusOr<std::vector<ShapedArray>> ThreefryType(absl::Span<const ShapedArray> avals,
                                                      const Params&) {
  AXE_RETURN_IF_ERROR(ExpectArity("threefry2x32", avals, 4));
  for (const ShapedArray& a : avals) {
    if (a.dtype() == DType::kU32) continue;
    std::vector<std::string> types;
    for (const ShapedArray& b : avals) types.push_back(b.ShortString());
    return TypeError(absl::StrCat("Arguments to threefry2x32 must have uint32 type, got (",
                                  absl::StrJoin(types, ", "), ")"));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, BroadcastShape("threefry2x32", avals));
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("threefry2x32", avals));
  ShapedArray out(std::move(shape), DType::kU32, false, std::move(vma));
  return std::vector<ShapedArray>{out, out};
}

// ---- impl (the interpreter) ----

// The 64-bit two's complement bits of an integer value.
uint64_t IntegerBits(double v, DType dtype) {
  if (IsUnsignedIntegral(dtype) && v >= 0x1p63) return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(AsInt64(v));
}

absl::StatusOr<HostArray> Result(const Primitive& prim, absl::Span<const HostArray> args,
                                 const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
  return ZeroArray(aval);
}

ImplRule SeedImpl(const Primitive* prim) {
  return [prim](absl::Span<const HostArray> args,
                const Params& params) -> absl::StatusOr<std::vector<HostArray>> {
    AXE_ASSIGN_OR_RETURN(HostArray out, Result(*prim, args, params));
    const DType seed_type = args[0].aval.dtype();
    for (size_t i = 0; i < out.values.size(); ++i) {
      KeyData key = threefry::SeedKey(IntegerBits(args[0].values[i], seed_type), seed_type);
      out.values[i] = threefry::KeyToDouble(key);
    }
    return OneArray(std::move(out));
  };
}

ImplRule WrapImpl(const Primitive* prim) {
  return [prim](absl::Span<const HostArray> args,
                const Params& params) -> absl::StatusOr<std::vector<HostArray>> {
    AXE_ASSIGN_OR_RETURN(HostArray out, Result(*prim, args, params));
    const std::vector<double>& data = args[0].values;
    for (size_t i = 0; i < out.values.size(); ++i) {
      KeyData key = {static_cast<uint32_t>(data[2 * i]), static_cast<uint32_t>(data[2 * i + 1])};
      out.values[i] = threefry::KeyToDouble(key);
    }
    return OneArray(std::move(out));
  };
}

ImplRule UnwrapImpl(const Primitive* prim) {
  return [prim](absl::Span<const HostArray> args,
                const Params& params) -> absl::StatusOr<std::vector<HostArray>> {
    AXE_ASSIGN_OR_RETURN(HostArray out, Result(*prim, args, params));
    for (size_t i = 0; i < args[0].values.size(); ++i) {
      KeyData key = threefry::KeyFromDouble(args[0].values[i]);
      out.values[2 * i] = key[0];
      out.values[2 * i + 1] = key[1];
    }
    return OneArray(std::move(out));
  };
}

// random_split and random_bits: `per_key` results for each key, in row-major order.
ImplRule PerKeyImpl(const Primitive* prim) {
  return [prim](absl::Span<const HostArray> args,
                const Params& params) -> absl::StatusOr<std::vector<HostArray>> {
    AXE_ASSIGN_OR_RETURN(HostArray out, Result(*prim, args, params));
    const size_t keys = args[0].values.size();
    if (keys == 0) return OneArray(std::move(out));
    const int64_t per_key = static_cast<int64_t>(out.values.size() / keys);
    const bool split = prim->name() == "random_split";
    int bit_width = 0;
    if (!split) {
      AXE_ASSIGN_OR_RETURN(int64_t width, RequiredInt(params, "random_bits", "bit_width"));
      bit_width = static_cast<int>(width);
    }
    for (size_t k = 0; k < keys; ++k) {
      const KeyData key = threefry::KeyFromDouble(args[0].values[k]);
      double* row = out.values.data() + k * static_cast<size_t>(per_key);
      if (split) {
        std::vector<KeyData> new_keys = threefry::SplitKey(key, per_key);
        for (size_t j = 0; j < new_keys.size(); ++j) row[j] = threefry::KeyToDouble(new_keys[j]);
      } else {
        std::vector<uint64_t> bits = threefry::RandomBits(key, bit_width, per_key);
        for (size_t j = 0; j < bits.size(); ++j) row[j] = static_cast<double>(bits[j]);
      }
    }
    return OneArray(std::move(out));
  };
}

ImplRule FoldInImpl(const Primitive* prim) {
  return [prim](absl::Span<const HostArray> args,
                const Params& params) -> absl::StatusOr<std::vector<HostArray>> {
    AXE_ASSIGN_OR_RETURN(HostArray out, Result(*prim, args, params));
    std::vector<int64_t> index(out.aval.rank(), 0);
    const DType msg_type = args[1].aval.dtype();
    for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, out.aval.shape())) {
      KeyData key = threefry::KeyFromDouble(BroadcastElementAt(args[0], index));
      uint64_t msg = IntegerBits(BroadcastElementAt(args[1], index), msg_type);
      out.values[i] = threefry::KeyToDouble(threefry::FoldIn(key, static_cast<uint32_t>(msg)));
    }
    return OneArray(std::move(out));
  };
}

absl::StatusOr<std::vector<HostArray>> ThreefryImpl(absl::Span<const HostArray> args,
                                                    const Params& params) {
  for (const HostArray& a : args) AXE_RETURN_IF_ERROR(CheckEvalDType(a.aval.dtype()));
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals,
                       AbstractEval(*Builtins().threefry2x32, PlainAvals(args), params));
  AXE_ASSIGN_OR_RETURN(HostArray y0, ZeroArray(avals[0].WithVma({})));
  HostArray y1 = y0;
  std::vector<int64_t> index(y0.aval.rank(), 0);
  for (size_t i = 0; i < y0.values.size(); ++i, NextIndex(index, y0.aval.shape())) {
    uint32_t w[4];
    for (size_t a = 0; a < 4; ++a) w[a] = static_cast<uint32_t>(BroadcastElementAt(args[a], index));
    std::array<uint32_t, 2> y = threefry::Hash(w[0], w[1], w[2], w[3]);
    y0.values[i] = y[0];
    y1.values[i] = y[1];
  }
  return std::vector<HostArray>{std::move(y0), std::move(y1)};
}

// ---- JVP and batching ----

JvpRule NoTangent(const Primitive* prim) {
  return [prim](Builder& b, absl::Span<const Tracer> primals, absl::Span<const OptTracer>,
                const Params& params) -> absl::StatusOr<JvpResult> {
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*prim, primals, params));
    return JvpResult{outs, std::vector<OptTracer>(outs.size())};
  };
}

// JAX's defvectorized: the operand's batch dimension is the result's.
BatchingRule Vectorized(const Primitive* prim) {
  return [prim](Builder& b, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                const Params& params) -> absl::StatusOr<BatchResult> {
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*prim, args, params));
    return BatchResult{outs, {dims[0]}};
  };
}

// random_wrap: the batch dimension moved to the front first (it may be the key data's).
BatchingRule WrapBatching(const Primitive* prim) {
  return [prim](Builder& b, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                const Params& params) -> absl::StatusOr<BatchResult> {
    Tracer x = args[0];
    if (dims[0]) {
      AXE_ASSIGN_OR_RETURN(x, MoveBatchDim(x, *dims[0], 0));
    }
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*prim, {x}, params));
    return BatchResult{outs, {dims[0] ? BDim(0) : BDim()}};
  };
}

const Primitive* DefineSimple(std::string name, std::vector<ParamSpec> params) {
  Primitive::Options o;
  o.name = std::move(name);
  o.params = std::move(params);
  absl::StatusOr<const Primitive*> p = DefinePrimitive(std::move(o));
  AXE_CHECK(p.ok()) << p.status();
  return *p;
}

}  // namespace

void DefinePrng(BuiltinPrimitives& p) {
  p.random_seed = DefineSimple("random_seed", {{"impl", ParamType::kAny}});
  p.random_wrap = DefineSimple("random_wrap", {{"impl", ParamType::kAny}});
  p.random_unwrap = DefineSimple("random_unwrap", {});
  p.random_split = DefineSimple("random_split", {{"shape", ParamType::kInts}});
  p.random_fold_in = DefineSimple("random_fold_in", {});
  p.random_bits =
      DefineSimple("random_bits", {{"bit_width", ParamType::kInt}, {"shape", ParamType::kInts}});
  Primitive::Options threefry;
  threefry.name = "threefry2x32";
  threefry.multiple_results = true;
  absl::StatusOr<const Primitive*> t = DefinePrimitive(std::move(threefry));
  AXE_CHECK(t.ok()) << t.status();
  p.threefry2x32 = *t;
}

void RegisterPrngRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.random_seed, SeedType);
  RegisterAbstractEval(*p.random_wrap, WrapType);
  RegisterAbstractEval(*p.random_unwrap, UnwrapType);
  RegisterAbstractEval(*p.random_split, SplitType);
  RegisterAbstractEval(*p.random_fold_in, FoldInType);
  RegisterAbstractEval(*p.random_bits, BitsType);
  RegisterAbstractEval(*p.threefry2x32, ThreefryType);
  RegisterImpl(*p.random_seed, SeedImpl(p.random_seed));
  RegisterImpl(*p.random_wrap, WrapImpl(p.random_wrap));
  RegisterImpl(*p.random_unwrap, UnwrapImpl(p.random_unwrap));
  RegisterImpl(*p.random_split, PerKeyImpl(p.random_split));
  RegisterImpl(*p.random_bits, PerKeyImpl(p.random_bits));
  RegisterImpl(*p.random_fold_in, FoldInImpl(p.random_fold_in));
  RegisterImpl(*p.threefry2x32, ThreefryImpl);
  for (const Primitive* prim : {p.random_seed, p.random_wrap, p.random_unwrap, p.random_split,
                                p.random_fold_in, p.random_bits, p.threefry2x32}) {
    RegisterJvp(*prim, NoTangent(prim));
  }
  for (const Primitive* prim : {p.random_seed, p.random_unwrap, p.random_split, p.random_bits}) {
    RegisterBatching(*prim, Vectorized(prim));
  }
  RegisterBatching(*p.random_wrap, WrapBatching(p.random_wrap));
  RegisterBatching(*p.random_fold_in, ElementwiseBatching(p.random_fold_in));
  RegisterBatching(*p.threefry2x32, ElementwiseBatching(p.threefry2x32));
}

}  // namespace axe::ir::internal
