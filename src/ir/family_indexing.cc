// gather and the scatter family: what JAX prints for integer-array indexing (x[idx],
// jnp.take, jnp.take_along_axis, table[ids]) and for x.at[idx].set/add/mul/min/max.
//
//   gather[dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
//          start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
//          fill_value=None indices_are_sorted=False mode=GatherScatterMode.PROMISE_IN_BOUNDS
//          slice_sizes=(1, 4) unique_indices=False] operand indices
//   scatter-add[dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,),
//          inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
//          operand_batching_dims=(), scatter_indices_batching_dims=()) indices_are_sorted=False
//          mode=GatherScatterMode.FILL_OR_DROP unique_indices=False update_consts=()
//          update_jaxpr={ lambda ; a:f32[] b:f32[]. let c:f32[] = add a b in (c,) }]
//          operand indices updates
//
// scatter, scatter-add, scatter-mul, scatter-min and scatter-max differ in how an update
// combines with the operand (replace, +, *, min, max; update_jaxpr says the same and is kept
// for printing). Modes follow XLA:CPU: a gather clamps its windows into the operand (CLIP and
// PROMISE_IN_BOUNDS) or fills those out of bounds with fill_value (FILL_OR_DROP); a scatter
// clamps (CLIP) or drops a window out of bounds (FILL_OR_DROP, PROMISE_IN_BOUNDS). Repeated
// indices apply in row-major order of the updates (the last `scatter` wins).
//
// Rules: abstract eval (JAX's shape rules and words), impl, JVP (all; scatter-mul's in its
// updates for unique indices only, as JAX's), transpose (gather -> scatter-add, scatter-add ->
// gather, scatter, scatter-mul in its operand) and batching (all).
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/dims.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/linear.h"
#include "axe/ir/shard_map.h"
#include "batching_util.h"
#include "eval_util.h"
#include "indexing_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Avals = absl::StatusOr<std::vector<ShapedArray>>;
using Arrays = absl::StatusOr<std::vector<HostArray>>;
using Cotangents = absl::StatusOr<std::vector<OptTracer>>;
const Primitive* DefineOne(Primitive::Options options) {
  absl::StatusOr<const Primitive*> p = DefinePrimitive(std::move(options));
  AXE_CHECK(p.ok()) << p.status();
  return *p;
}

const Primitive* GatherPrimitive() {
  Primitive::Options o;
  o.name = "gather";
  o.params = {{"dimension_numbers", ParamType::kAny}, {"slice_sizes", ParamType::kInts}};
  return DefineOne(std::move(o));
}

const Primitive* ScatterPrimitive(std::string name) {
  Primitive::Options o;
  o.name = std::move(name);
  o.params = {{"dimension_numbers", ParamType::kAny}};
  return DefineOne(std::move(o));
}

// ---- abstract evaluation ----

absl::Status CheckIndexDType(const ShapedArray& indices) {
  if (!IsIntegral(indices.dtype())) return TypeError("indices must have an integer type");
  return absl::OkStatus();
}

Avals GatherRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("gather", avals, 2));
  AXE_RETURN_IF_ERROR(CheckIndexDType(avals[1]));
  AXE_ASSIGN_OR_RETURN(GatherParams g, ReadGatherParams(params));
  AXE_ASSIGN_OR_RETURN(Dims shape, GatherShape(avals[0], avals[1], g));
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("gather", avals));
  return One(avals[0].WithShape(std::move(shape)).WithVma(std::move(vma)));
}

AbstractEvalRule ScatterRule(std::string prim) {
  return [prim](absl::Span<const ShapedArray> avals, const Params& params) -> Avals {
    AXE_RETURN_IF_ERROR(ExpectArity(prim, avals, 3));
    AXE_RETURN_IF_ERROR(CheckIndexDType(avals[1]));
    if (avals[0].dtype() != avals[2].dtype()) {
      return TypeError(
          absl::StrCat("lax.", prim, " requires arguments to have the same dtypes, got ",
                       DTypeName(avals[0].dtype()), ", ", DTypeName(avals[2].dtype()), "."));
    }
    AXE_ASSIGN_OR_RETURN(ScatterParams s, ReadScatterParams(params));
    AXE_RETURN_IF_ERROR(CheckScatterShapes(prim, avals[0], avals[1], avals[2], s));
    AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma(prim, avals));
    return One(avals[0].WithVma(std::move(vma)));
  };
}

// ---- impl (the interpreter's doubles) ----

// Index values as int64: unsigned ones past 2^63 saturate (they are out of bounds either way).
Dims IndexValues(const HostArray& indices) {
  Dims out;
  out.reserve(indices.values.size());
  const bool is_unsigned = !IsSignedIntegral(indices.aval.dtype());
  for (double v : indices.values) {
    out.push_back(is_unsigned && v >= 0x1p63 ? std::numeric_limits<int64_t>::max() : AsInt64(v));
  }
  return out;
}

Arrays GatherImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().gather, args, params));
  AXE_ASSIGN_OR_RETURN(GatherParams g, ReadGatherParams(params));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  const IndexMap m = BuildIndexMap(args[0].aval.shape(), args[1].aval.shape(), aval.shape(), g.dims,
                                   IndexValues(args[1]), GatherClamps(g.mode));
  const double fill = RoundToDType(GatherFillValue(g, aval.dtype()), aval.dtype());
  for (size_t b = 0; b < m.base.size(); ++b) {
    for (size_t w = 0; w < m.window_other.size(); ++w) {
      out.values[static_cast<size_t>(m.batch_other[b] + m.window_other[w])] =
          m.base[b] < 0 ? fill
                        : args[0].values[static_cast<size_t>(m.base[b] + m.window_operand[w])];
    }
  }
  return OneArray(std::move(out));
}

// One update combined into the operand's element, as XLA computes it in the dtype: integers
// wrap, floats round, min and max propagate NaN, bool adds as `or` and multiplies as `and`.
double Combine(ScatterCombine c, double a, double u, DType t) {
  const bool integral = IsIntegral(t);
  switch (c) {
    case ScatterCombine::kReplace: return u;
    case ScatterCombine::kAdd:
      if (integral) {
        return IntegerFromBits(
            static_cast<uint64_t>(AsInt64(a)) + static_cast<uint64_t>(AsInt64(u)), t);
      }
      return RoundToDType(a + u, t);
    case ScatterCombine::kMul:
      if (integral) {
        return IntegerFromBits(
            static_cast<uint64_t>(AsInt64(a)) * static_cast<uint64_t>(AsInt64(u)), t);
      }
      return RoundToDType(a * u, t);
    case ScatterCombine::kMin:
    case ScatterCombine::kMax:
      if (std::isnan(a) || std::isnan(u)) return std::numeric_limits<double>::quiet_NaN();
      return c == ScatterCombine::kMin ? std::min(a, u) : std::max(a, u);
  }
  return u;
}

ImplRule ScatterImpl(const Primitive* prim, ScatterCombine combine) {
  return [prim, combine](absl::Span<const HostArray> args, const Params& params) -> Arrays {
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*prim, args, params));
    AXE_ASSIGN_OR_RETURN(ScatterParams s, ReadScatterParams(params));
    HostArray out{aval, args[0].values};
    const IndexMap m = BuildIndexMap(aval.shape(), args[1].aval.shape(), args[2].aval.shape(),
                                     s.dims, IndexValues(args[1]), ScatterClamps(s.mode));
    const DType t = aval.dtype();
    for (size_t b = 0; b < m.base.size(); ++b) {
      if (m.base[b] < 0) continue;
      for (size_t w = 0; w < m.window_other.size(); ++w) {
        double& e = out.values[static_cast<size_t>(m.base[b] + m.window_operand[w])];
        e = Combine(combine, e,
                    args[2].values[static_cast<size_t>(m.batch_other[b] + m.window_other[w])], t);
      }
    }
    return OneArray(std::move(out));
  };
}

// ---- building gathers and scatters (the JVP, transpose and batching rules) ----

// { lambda ; a:T[] b:T[]. let c:T[] = add a b in (c,) }: scatter-add's update_jaxpr.
absl::StatusOr<Param> AddJaxpr(DType dtype) {
  Builder b;
  Tracer x = b.Arg(ShapedArray({}, dtype));
  Tracer y = b.Arg(ShapedArray({}, dtype));
  AXE_ASSIGN_OR_RETURN(Tracer sum, Add(x, y));
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr j, b.Build({sum}));
  return Param::Jaxpr(std::make_shared<const ClosedJaxpr>(std::move(j)));
}

// Params of a scatter (update_jaxpr None unless given) with `dims`, keeping `like`'s flags.
Params ScatterParamsOf(const IndexDims& dims, IndexMode mode, const Params& like,
                       Param update_jaxpr = Param::None()) {
  Params p;
  p["dimension_numbers"] = ScatterDimensionNumbersParam(dims);
  p["indices_are_sorted"] = Param::Bool(false);
  p["unique_indices"] = Param::Bool(false);
  for (const char* flag : {"indices_are_sorted", "unique_indices"}) {
    if (auto it = like.find(flag); it != like.end()) p[flag] = it->second;
  }
  p["mode"] = ModeParam(mode);
  p["update_consts"] = Param::Tuple({});
  p["update_jaxpr"] = std::move(update_jaxpr);
  return p;
}

Params GatherParamsOf(const IndexDims& dims, const Dims& slice_sizes, IndexMode mode,
                      const Params& like, Param fill_value) {
  Params p;
  p["dimension_numbers"] = GatherDimensionNumbersParam(dims);
  p["fill_value"] = std::move(fill_value);
  p["indices_are_sorted"] = Param::Bool(false);
  p["unique_indices"] = Param::Bool(false);
  for (const char* flag : {"indices_are_sorted", "unique_indices"}) {
    if (auto it = like.find(flag); it != like.end()) p[flag] = it->second;
  }
  p["mode"] = ModeParam(mode);
  p["slice_sizes"] = Param::Ints(slice_sizes);
  return p;
}

bool InDims(const Dims& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// The gather that reads back the windows a scatter of `updates` into `operand` writes
// (JAX's inverse gather of a scatter), with fill value 0.
absl::StatusOr<Tracer> GatherOfScatter(const Tracer& operand, const Tracer& indices,
                                       const ShapedArray& updates, const ScatterParams& s,
                                       const Params& like) {
  Dims slice_sizes;
  size_t pos = 0;
  for (size_t i = 0; i < operand.aval.rank(); ++i) {
    int64_t di = static_cast<int64_t>(i);
    if (InDims(s.dims.collapsed_dims, di) || InDims(s.dims.operand_batching_dims, di)) {
      slice_sizes.push_back(1);
    } else {
      slice_sizes.push_back(updates.shape()[s.dims.window_dims[pos++]]);
    }
  }
  return Op(*Builtins().gather, {operand, indices},
            GatherParamsOf(s.dims, slice_sizes, s.mode, like, Param::Int(0)));
}

// scatter-add of `updates` into zeros of `operand`'s type (gather's transpose).
absl::StatusOr<Tracer> ScatterAddIntoZeros(Builder& b, const ShapedArray& operand,
                                           const Tracer& indices, const Tracer& updates,
                                           const IndexDims& dims, IndexMode mode,
                                           const Params& like) {
  AXE_ASSIGN_OR_RETURN(Tracer zeros, ZerosLike(b, operand.WithVma(updates.aval.vma())));
  AXE_ASSIGN_OR_RETURN(Param add, AddJaxpr(operand.dtype()));
  return Op(*Builtins().scatter_add, {zeros, indices, updates},
            ScatterParamsOf(dims, mode, like, std::move(add)));
}

// ---- JVP and transpose ----

absl::StatusOr<JvpResult> GatherJvp(Builder&, absl::Span<const Tracer> primals,
                                    absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*Builtins().gather, primals, params));
  JvpResult r{{out}, {std::nullopt}};
  if (!tangents[0]) return r;
  Params p = params;
  p["fill_value"] = Param::Int(0);
  AXE_ASSIGN_OR_RETURN(r.tangents_out[0], Op(*Builtins().gather, {*tangents[0], primals[1]}, p));
  return r;
}

Cotangents GatherTranspose(Builder& b, absl::Span<const OptTracer> cts,
                           absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0] || !args[0].is_undefined_primal()) return out;
  if (args[1].is_undefined_primal()) return TypeError("gather is not linear in its indices");
  AXE_ASSIGN_OR_RETURN(GatherParams g, ReadGatherParams(params));
  AXE_ASSIGN_OR_RETURN(out[0], ScatterAddIntoZeros(b, args[0].aval, *args[1].value, *cts[0], g.dims,
                                                   g.mode, params));
  return out;
}

// scatter, scatter-add and scatter-mul: the tangent is the same scatter of the tangents
// (scatter and scatter-add are linear in operand and updates jointly; scatter-mul in its
// operand, plus x * scatter-add(0, i, dy) for unique indices, as JAX's rule).
JvpRule ScatterJvp(const Primitive* prim) {
  return [prim](Builder& b, absl::Span<const Tracer> primals, absl::Span<const OptTracer> tangents,
                const Params& params) -> absl::StatusOr<JvpResult> {
    AXE_ASSIGN_OR_RETURN(Tracer out, Op(*prim, primals, params));
    JvpResult r{{out}, {std::nullopt}};
    if (!tangents[0] && !tangents[2]) return r;
    const ShapedArray &x = primals[0].aval, &u = primals[2].aval;
    if (prim != Builtins().scatter_mul) {
      AXE_ASSIGN_OR_RETURN(Tracer tx, Instantiate(b, tangents[0], x));
      AXE_ASSIGN_OR_RETURN(Tracer tu, Instantiate(b, tangents[2], u));
      AXE_ASSIGN_OR_RETURN(r.tangents_out[0], Op(*prim, {tx, primals[1], tu}, params));
      return r;
    }
    OptTracer t;
    if (tangents[0]) {
      AXE_ASSIGN_OR_RETURN(t, Op(*prim, {*tangents[0], primals[1], primals[2]}, params));
    }
    if (tangents[2]) {
      auto unique = params.find("unique_indices");
      if (unique == params.end() || !unique->second.bool_value()) {
        return absl::UnimplementedError(
            "scatter_mul gradients are only implemented if `unique_indices=True`");
      }
      AXE_ASSIGN_OR_RETURN(ScatterParams s, ReadScatterParams(params));
      AXE_ASSIGN_OR_RETURN(Tracer added, ScatterAddIntoZeros(b, x, primals[1], *tangents[2], s.dims,
                                                             s.mode, params));
      AXE_ASSIGN_OR_RETURN(Tracer dy, Op(*Builtins().mul, {primals[0], added}));
      AXE_ASSIGN_OR_RETURN(t, AddTangents(t, dy, x));
    }
    r.tangents_out[0] = t;
    return r;
  };
}

// A constant array of `aval`'s type.
absl::StatusOr<Tracer> Full(Builder& b, const ShapedArray& aval, double value) {
  return BroadcastInDim(b.Scalar(value, aval.dtype()), aval.shape(), {});
}

// scatter-min and scatter-max (JAX's _scatter_extremal_jvp): an update that wins passes its
// tangent, an operand element that keeps its value passes its own; ties share equally.
JvpRule ScatterExtremalJvp(const Primitive* prim) {
  return [prim](Builder& b, absl::Span<const Tracer> primals, absl::Span<const OptTracer> tangents,
                const Params& params) -> absl::StatusOr<JvpResult> {
    AXE_ASSIGN_OR_RETURN(Tracer out, Op(*prim, primals, params));
    JvpResult r{{out}, {std::nullopt}};
    if (!tangents[0] && !tangents[2]) return r;
    const Tracer &x = primals[0], &indices = primals[1], &u = primals[2];
    AXE_ASSIGN_OR_RETURN(Tracer tx, Instantiate(b, tangents[0], x.aval));
    AXE_ASSIGN_OR_RETURN(Tracer tu, Instantiate(b, tangents[2], u.aval));
    AXE_ASSIGN_OR_RETURN(ScatterParams s, ReadScatterParams(params));
    auto read = [&](const Tracer& from) {
      return GatherOfScatter(from, indices, u.aval, s, params);
    };
    const Primitive &add = *Builtins().add, &div = *Builtins().div, &mul = *Builtins().mul;
    const Primitive &eq = *Builtins().eq, &select = *Builtins().select_n;
    AXE_ASSIGN_OR_RETURN(Tracer initial, read(x));
    AXE_ASSIGN_OR_RETURN(Tracer target, read(out));
    AXE_ASSIGN_OR_RETURN(Tracer successful, Op(eq, {u, target}));
    AXE_ASSIGN_OR_RETURN(Tracer retained, Op(eq, {initial, target}));
    AXE_ASSIGN_OR_RETURN(Tracer ones, Full(b, u.aval, 1));
    AXE_ASSIGN_OR_RETURN(Tracer zeros, Full(b, u.aval, 0));
    AXE_ASSIGN_OR_RETURN(Tracer counted, Op(select, {successful, zeros, ones}));
    AXE_ASSIGN_OR_RETURN(Tracer added,
                         ScatterAddIntoZeros(b, x.aval, indices, counted, s.dims, s.mode, params));
    AXE_ASSIGN_OR_RETURN(Tracer num_updates, read(added));
    AXE_ASSIGN_OR_RETURN(Tracer refs,
                         ScatterAddIntoZeros(b, x.aval, indices, ones, s.dims, s.mode, params));
    AXE_ASSIGN_OR_RETURN(Tracer num_refs, read(refs));
    AXE_ASSIGN_OR_RETURN(Tracer plus_one, Op(add, {num_updates, ones}));
    AXE_ASSIGN_OR_RETURN(Tracer inv_plus_one, Op(div, {ones, plus_one}));
    AXE_ASSIGN_OR_RETURN(Tracer inv, Op(div, {ones, num_updates}));
    AXE_ASSIGN_OR_RETURN(Tracer update_norm, Op(select, {retained, inv, inv_plus_one}));
    AXE_ASSIGN_OR_RETURN(Tracer update_coef, Op(select, {successful, zeros, update_norm}));
    AXE_ASSIGN_OR_RETURN(Tracer operand_norm, Op(select, {retained, zeros, inv_plus_one}));
    AXE_ASSIGN_OR_RETURN(Tracer shifted, Op(*Builtins().sub, {operand_norm, ones}));
    AXE_ASSIGN_OR_RETURN(Tracer operand_coef, Op(div, {shifted, num_refs}));
    AXE_ASSIGN_OR_RETURN(Tracer target_t, read(tx));
    AXE_ASSIGN_OR_RETURN(Tracer from_operand, Op(mul, {target_t, operand_coef}));
    AXE_ASSIGN_OR_RETURN(Tracer from_updates, Op(mul, {tu, update_coef}));
    AXE_ASSIGN_OR_RETURN(Tracer tangent_updates, Op(add, {from_operand, from_updates}));
    AXE_ASSIGN_OR_RETURN(Param add_jaxpr, AddJaxpr(x.aval.dtype()));
    AXE_ASSIGN_OR_RETURN(r.tangents_out[0],
                         Op(*Builtins().scatter_add, {tx, indices, tangent_updates},
                            ScatterParamsOf(s.dims, s.mode, params, std::move(add_jaxpr))));
    return r;
  };
}

Cotangents ScatterAddTranspose(Builder&, absl::Span<const OptTracer> cts,
                               absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  if (args[1].is_undefined_primal()) return TypeError("scatter-add is not linear in its indices");
  if (args[0].is_undefined_primal()) out[0] = *cts[0];
  if (args[2].is_undefined_primal()) {
    AXE_ASSIGN_OR_RETURN(ScatterParams s, ReadScatterParams(params));
    AXE_ASSIGN_OR_RETURN(out[2], GatherOfScatter(*cts[0], *args[1].value, args[2].aval, s, params));
  }
  return out;
}

// Ids 1..n of the updates' elements, in their shape.
absl::StatusOr<Tracer> UpdateIds(Builder& b, const ShapedArray& updates, DType dtype) {
  int64_t n = 1;
  for (int64_t d : updates.shape()) n *= d;
  AXE_ASSIGN_OR_RETURN(Tracer flat, Iota(b, dtype, {n}, 0));
  AXE_ASSIGN_OR_RETURN(Tracer shaped, Reshape(flat, updates.shape()));
  return Op(*Builtins().add, {shaped, b.Scalar(1, dtype)});
}

// The updates that win under a scatter (the last of repeated indices, none dropped), as a
// bool mask over the updates: their ids scattered, then read back.
absl::StatusOr<Tracer> WinningUpdates(Builder& b, const ShapedArray& operand, const Tracer& indices,
                                      const ShapedArray& updates, const ScatterParams& s,
                                      const Params& params) {
  int64_t n = 1;
  for (int64_t d : updates.shape()) n *= d;
  const DType id = n < (int64_t{1} << 31) - 1 ? DType::kS32 : DType::kS64;
  AXE_ASSIGN_OR_RETURN(Tracer ids, UpdateIds(b, updates, id));
  AXE_ASSIGN_OR_RETURN(Tracer zeros, ZerosLike(b, ShapedArray(operand.shape(), id)));
  AXE_ASSIGN_OR_RETURN(Tracer scattered, Op(*Builtins().scatter, {zeros, indices, ids},
                                            ScatterParamsOf(s.dims, s.mode, params)));
  AXE_ASSIGN_OR_RETURN(Tracer back, GatherOfScatter(scattered, indices, updates, s, params));
  return Op(*Builtins().eq, {ids, back});
}

// operand: the cotangent where no update lands; updates: the cotangent where each update
// wins.
Cotangents ScatterTranspose(Builder& b, absl::Span<const OptTracer> cts,
                            absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  if (args[1].is_undefined_primal()) return TypeError("scatter is not linear in its indices");
  AXE_ASSIGN_OR_RETURN(ScatterParams s, ReadScatterParams(params));
  const Tracer& indices = *args[1].value;
  const ShapedArray& u = args[2].aval;
  if (args[0].is_undefined_primal()) {
    AXE_ASSIGN_OR_RETURN(Tracer z, ZerosLike(b, u.WithVma(cts[0]->aval.vma())));
    AXE_ASSIGN_OR_RETURN(out[0], Op(*Builtins().scatter, {*cts[0], indices, z}, params));
  }
  if (args[2].is_undefined_primal()) {
    AXE_ASSIGN_OR_RETURN(Tracer read, GatherOfScatter(*cts[0], indices, u, s, params));
    auto unique = params.find("unique_indices");
    if (unique != params.end() && unique->second.bool_value()) {
      out[2] = read;
      return out;
    }
    AXE_ASSIGN_OR_RETURN(Tracer wins, WinningUpdates(b, args[0].aval, indices, u, s, params));
    AXE_ASSIGN_OR_RETURN(Tracer z, ZerosLike(b, read.aval));
    AXE_ASSIGN_OR_RETURN(out[2], SelectN(wins, {z, read}));
  }
  return out;
}

// scatter-mul in its operand (the updates fixed): the same scatter-mul of the cotangent.
Cotangents ScatterMulTranspose(Builder&, absl::Span<const OptTracer> cts,
                               absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  if (args[1].is_undefined_primal() || args[2].is_undefined_primal()) {
    return TypeError("scatter-mul is linear only in its operand");
  }
  AXE_ASSIGN_OR_RETURN(
      out[0], Op(*Builtins().scatter_mul, {*cts[0], *args[1].value, *args[2].value}, params));
  return out;
}

// ---- batching (JAX's _gather_batching_rule and _scatter_batching_rule) ----

Dims Shifted(const Dims& dims) {
  Dims out;
  for (int64_t d : dims) out.push_back(d + 1);
  return out;
}
Dims WithFront(int64_t front, const Dims& rest) {
  Dims out = {front};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

absl::StatusOr<BatchResult> GatherBatch(Builder&, absl::Span<const Tracer> args,
                                        absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(GatherParams g, ReadGatherParams(params));
  IndexDims d = g.dims;
  Dims sizes = g.slice_sizes;
  Tracer operand = args[0], indices = args[1];
  Params p = params;
  if (dims[0]) {
    AXE_ASSIGN_OR_RETURN(operand, MoveBatchDim(args[0], *dims[0], 0));
    d.collapsed_dims = Shifted(d.collapsed_dims);
    d.start_index_map = Shifted(d.start_index_map);
    d.operand_batching_dims = Shifted(d.operand_batching_dims);
  }
  if (dims[1]) {
    AXE_ASSIGN_OR_RETURN(indices, MoveBatchDim(args[1], *dims[1], 0));
  }
  if (dims[0] && !dims[1]) {
    sizes = WithFront(operand.aval.shape()[0], sizes);
    d.window_dims = WithFront(0, Shifted(d.window_dims));
  } else if (!dims[0] && dims[1]) {
    d.window_dims = Shifted(d.window_dims);
    d.indices_batching_dims = Shifted(d.indices_batching_dims);
    p["unique_indices"] = Param::Bool(false);
    p["indices_are_sorted"] = Param::Bool(false);
  } else {
    sizes = WithFront(operand.aval.shape()[0] == 0 ? 0 : 1, sizes);
    d.window_dims = Shifted(d.window_dims);
    d.operand_batching_dims = WithFront(0, d.operand_batching_dims);
    d.indices_batching_dims = WithFront(0, Shifted(d.indices_batching_dims));
  }
  p["dimension_numbers"] = GatherDimensionNumbersParam(d);
  p["slice_sizes"] = Param::Ints(sizes);
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*Builtins().gather, {operand, indices}, p));
  return BatchResult{{out}, {0}};
}

BatchingRule ScatterBatch(const Primitive* prim) {
  return [prim](Builder&, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                const Params& params) -> absl::StatusOr<BatchResult> {
    AXE_ASSIGN_OR_RETURN(ScatterParams s, ReadScatterParams(params));
    const int64_t size = BatchSize(args, dims);
    AXE_ASSIGN_OR_RETURN(Tracer operand, Materialize(args[0], dims[0], size));
    AXE_ASSIGN_OR_RETURN(Tracer updates, Materialize(args[2], dims[2], size));
    Tracer indices = args[1];
    IndexDims d = s.dims;
    d.collapsed_dims = Shifted(d.collapsed_dims);
    d.start_index_map = Shifted(d.start_index_map);
    if (!dims[1]) {
      d.window_dims = WithFront(0, Shifted(d.window_dims));
      d.operand_batching_dims = Shifted(d.operand_batching_dims);
    } else {
      AXE_ASSIGN_OR_RETURN(indices, MoveBatchDim(args[1], *dims[1], 0));
      d.window_dims = Shifted(d.window_dims);
      d.operand_batching_dims = WithFront(0, Shifted(d.operand_batching_dims));
      d.indices_batching_dims = WithFront(0, Shifted(d.indices_batching_dims));
    }
    Params p = params;
    p["dimension_numbers"] = ScatterDimensionNumbersParam(d);
    AXE_ASSIGN_OR_RETURN(Tracer out, Op(*prim, {operand, indices, updates}, p));
    return BatchResult{{out}, {0}};
  };
}

}  // namespace

void DefineIndexing(BuiltinPrimitives& p) {
  p.gather = GatherPrimitive();
  p.scatter = ScatterPrimitive("scatter");
  p.scatter_add = ScatterPrimitive("scatter-add");
  p.scatter_mul = ScatterPrimitive("scatter-mul");
  p.scatter_min = ScatterPrimitive("scatter-min");
  p.scatter_max = ScatterPrimitive("scatter-max");
}

void RegisterIndexingRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.gather, GatherRule);
  RegisterImpl(*p.gather, GatherImpl);
  RegisterJvp(*p.gather, GatherJvp);
  RegisterTranspose(*p.gather, GatherTranspose);
  RegisterBatching(*p.gather, GatherBatch);
  for (const Primitive* s :
       {p.scatter, p.scatter_add, p.scatter_mul, p.scatter_min, p.scatter_max}) {
    RegisterAbstractEval(*s, ScatterRule(s->name()));
    RegisterImpl(*s, ScatterImpl(s, *ScatterCombineOf(s->name())));
    RegisterBatching(*s, ScatterBatch(s));
  }
  for (const Primitive* s : {p.scatter, p.scatter_add, p.scatter_mul}) {
    RegisterJvp(*s, ScatterJvp(s));
  }
  RegisterJvp(*p.scatter_min, ScatterExtremalJvp(p.scatter_min));
  RegisterJvp(*p.scatter_max, ScatterExtremalJvp(p.scatter_max));
  RegisterTranspose(*p.scatter, ScatterTranspose);
  RegisterTranspose(*p.scatter_add, ScatterAddTranspose);
  RegisterTranspose(*p.scatter_mul, ScatterMulTranspose);
}

}  // namespace axe::ir::internal
