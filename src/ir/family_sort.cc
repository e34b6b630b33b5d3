// sort and top_k: their definitions and every rule (abstract evaluation with JAX's error words,
// impl on HostArray, JVP, transpose where linear, batching).
//
//   a:f32[9] b:i32[9] = sort[dimension=0 is_stable=True num_keys=1] x i
//       every operand permuted by the stable lexicographic order of the first num_keys
//       operands along `dimension` (jnp.argsort sorts (keys, iota)). Floats compare as JAX's
//       comparator does: -0.0 equals 0.0, every NaN equals every other and is above +inf.
//   v:f32[2,3] i:i32[2,3] = top_k[axis=1 k=3] x
//       the k largest along `axis`, largest first, ties by lower index; floats in XLA's total
//       order (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN).
//
// Derivatives. A tangent is permuted like its primal: the JVP sorts (primal keys, tangents)
// with the primal's num_keys, so the same stable order moves the tangents (JAX gathers with
// the permutation of an iota operand instead; the values are the same). That sort is linear in
// its non-key operands: its transpose sorts the cotangents by the permutation (the iota sorted
// along), which puts each one back where it came from. top_k's tangent is the tangent permuted
// by the full descending order (top_k with k = the axis' size), ranked with one sort, then the
// first k: only sorts and a slice, so it transposes like any sort.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/shard_map.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Avals = absl::StatusOr<std::vector<ShapedArray>>;
using Arrays = absl::StatusOr<std::vector<HostArray>>;
using Cotangents = absl::StatusOr<std::vector<OptTracer>>;

struct SortParamsRead {
  int64_t dimension = 0;
  int64_t num_keys = 1;
};

absl::StatusOr<SortParamsRead> ReadSort(const Params& params, absl::Span<const ShapedArray> avals) {
  if (avals.empty()) return TypeError("sort takes at least one operand, got 0");
  SortParamsRead s;
  AXE_ASSIGN_OR_RETURN(s.dimension, RequiredInt(params, "sort", "dimension"));
  AXE_ASSIGN_OR_RETURN(s.num_keys, RequiredInt(params, "sort", "num_keys"));
  const size_t rank = avals[0].rank();
  if (s.dimension < 0 || static_cast<size_t>(s.dimension) >= rank) {
    return TypeError(
        absl::StrCat("axis ", s.dimension, " is out of bounds for array of dimension ", rank));
  }
  if (s.num_keys < 1 || static_cast<size_t>(s.num_keys) > avals.size()) {
    return TypeError(absl::StrCat("num_keys=", s.num_keys,
                                  " must be between 1 and len(operand)=", avals.size()));
  }
  return s;
}

Avals SortRule(absl::Span<const ShapedArray> avals, const Params& params) {
  for (const ShapedArray& a : avals) {
    if (a.shape() != avals[0].shape()) {
      std::vector<std::string> shapes;
      for (const ShapedArray& b : avals) shapes.push_back(PyTuple(b.shape()));
      return TypeError(absl::StrCat("Arguments to sort must have equal shapes, got: ",
                                    absl::StrJoin(shapes, " ")));
    }
  }
  AXE_RETURN_IF_ERROR(ReadSort(params, avals).status());
  AXE_ASSIGN_OR_RETURN(const Param* stable, GetParam(params, "sort", "is_stable"));
  AXE_RETURN_IF_ERROR(stable->AsBool("is_stable").status());
  return std::vector<ShapedArray>(avals.begin(), avals.end());
}

// JAX's sort comparator on one key: NaNs above everything and equal, -0.0 == 0.0.
bool SortLess(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

// XLA's total order, descending: true when a comes before b in top_k.
bool TotalGreater(double a, double b) {
  auto cls = [](double v) { return std::isnan(v) ? (std::signbit(v) ? 0 : 2) : 1; };
  const int ca = cls(a), cb = cls(b);
  if (ca != cb) return ca > cb;
  if (ca != 1) return false;
  if (a != b) return a > b;
  return !std::signbit(a) && std::signbit(b);
}

// The operand viewed as rows along `axis`: element i of row (o, j) is at
// (o * n + i) * inner + j.
struct SortRows {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t At(int64_t row, int64_t i) const { return ((row / inner) * n + i) * inner + row % inner; }
  int64_t count() const { return outer * inner; }
};

SortRows SortRowsAlong(const ShapedArray& a, int64_t axis) {
  SortRows r;
  for (size_t d = 0; d < a.rank(); ++d) {
    const int64_t s = a.shape()[d];
    if (static_cast<int64_t>(d) < axis) r.outer *= s;
    if (static_cast<int64_t>(d) == axis) r.n = s;
    if (static_cast<int64_t>(d) > axis) r.inner *= s;
  }
  return r;
}

Arrays SortImpl(absl::Span<const HostArray> args, const Params& params) {
  std::vector<ShapedArray> avals = PlainAvals(args);
  AXE_RETURN_IF_ERROR(SortRule(avals, params).status());
  AXE_ASSIGN_OR_RETURN(SortParamsRead s, ReadSort(params, avals));
  for (const ShapedArray& a : avals) AXE_RETURN_IF_ERROR(CheckEvalDType(a.dtype()));
  const SortRows rows = SortRowsAlong(avals[0], s.dimension);
  std::vector<HostArray> outs(args.begin(), args.end());
  for (HostArray& o : outs) o.aval = o.aval.WithVma({});
  std::vector<int64_t> perm(static_cast<size_t>(rows.n));
  for (int64_t row = 0; row < rows.count(); ++row) {
    std::iota(perm.begin(), perm.end(), 0);
    auto less = [&](int64_t x, int64_t y) {
      for (int64_t k = 0; k < s.num_keys; ++k) {
        const std::vector<double>& v = args[static_cast<size_t>(k)].values;
        const double a = v[static_cast<size_t>(rows.At(row, x))];
        const double b = v[static_cast<size_t>(rows.At(row, y))];
        if (SortLess(a, b)) return true;
        if (SortLess(b, a)) return false;
      }
      return false;
    };
    std::stable_sort(perm.begin(), perm.end(), less);
    for (size_t k = 0; k < args.size(); ++k) {
      for (int64_t i = 0; i < rows.n; ++i) {
        outs[k].values[static_cast<size_t>(rows.At(row, i))] =
            args[k].values[static_cast<size_t>(rows.At(row, perm[static_cast<size_t>(i)]))];
      }
    }
  }
  return outs;
}

struct TopKParamsRead {
  int64_t k = 0;
  int64_t axis = 0;
};

absl::StatusOr<TopKParamsRead> ReadTopK(const Params& params, const ShapedArray& x) {
  TopKParamsRead s;
  AXE_ASSIGN_OR_RETURN(s.k, RequiredInt(params, "top_k", "k"));
  s.axis = static_cast<int64_t>(x.rank()) - 1;  // older JAX: always the last axis
  if (Given(params, "axis")) {
    AXE_ASSIGN_OR_RETURN(s.axis, RequiredInt(params, "top_k", "axis"));
  }
  if (s.k < 0) return TypeError(absl::StrCat("k argument to top_k must be nonnegative, got ", s.k));
  if (x.rank() == 0) {
    return TypeError(absl::StrCat("top_k operand must have >= 1 dimension, got ", PyTuple({})));
  }
  if (s.axis < 0 || static_cast<size_t>(s.axis) >= x.rank()) {
    return TypeError(absl::StrCat("axis argument out of range: axis=", s.axis,
                                  " for operand.shape=", PyTuple(x.shape())));
  }
  const int64_t size = x.shape()[static_cast<size_t>(s.axis)];
  if (size < s.k) {
    return TypeError(
        absl::StrCat("k argument to top_k must be no larger than size along axis; got k=", s.k,
                     " with shape=[", absl::StrJoin(x.shape(), ", "), "] and axis=", s.axis));
  }
  if (size > int64_t{std::numeric_limits<int32_t>::max()} + 1) {
    return TypeError(absl::StrCat(
        "top_k returns int32 indices, which will overflow for array dimensions larger than the "
        "maximum int32 (2147483647). Got operand.shape=",
        PyTuple(x.shape())));
  }
  return s;
}

Avals TopKRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("top_k", avals, 1));
  const ShapedArray& x = avals[0];
  AXE_ASSIGN_OR_RETURN(TopKParamsRead s, ReadTopK(params, x));
  std::vector<int64_t> shape = x.shape();
  shape[static_cast<size_t>(s.axis)] = s.k;
  ShapedArray values = x.WithShape(std::move(shape));
  return std::vector<ShapedArray>{values, values.WithDType(DType::kS32)};
}

Arrays TopKImpl(absl::Span<const HostArray> args, const Params& params) {
  const ShapedArray x = args[0].aval.WithVma({});
  AXE_RETURN_IF_ERROR(CheckEvalDType(x.dtype()));
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals, TopKRule({x}, params));
  AXE_ASSIGN_OR_RETURN(TopKParamsRead s, ReadTopK(params, x));
  AXE_ASSIGN_OR_RETURN(HostArray values, ZeroArray(avals[0]));
  AXE_ASSIGN_OR_RETURN(HostArray indices, ZeroArray(avals[1]));
  const SortRows in = SortRowsAlong(x, s.axis), out = SortRowsAlong(avals[0], s.axis);
  std::vector<int64_t> perm(static_cast<size_t>(in.n));
  const std::vector<double>& v = args[0].values;
  for (int64_t row = 0; row < in.count(); ++row) {
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      return TotalGreater(v[static_cast<size_t>(in.At(row, a))],
                          v[static_cast<size_t>(in.At(row, b))]);
    });
    for (int64_t i = 0; i < s.k; ++i) {
      const int64_t from = perm[static_cast<size_t>(i)];
      values.values[static_cast<size_t>(out.At(row, i))] = v[static_cast<size_t>(in.At(row, from))];
      indices.values[static_cast<size_t>(out.At(row, i))] = static_cast<double>(from);
    }
  }
  return std::vector<HostArray>{std::move(values), std::move(indices)};
}

Params SortParams(int64_t dimension, int64_t num_keys, bool is_stable) {
  return {{"dimension", Param::Int(dimension)},
          {"is_stable", Param::Bool(is_stable)},
          {"num_keys", Param::Int(num_keys)}};
}

// An index iota shaped like `aval`, counting along `dimension`.
absl::StatusOr<Tracer> IndexIota(Builder& b, const ShapedArray& aval, int64_t dimension) {
  const int64_t n = aval.shape()[static_cast<size_t>(dimension)];
  const DType t = n > std::numeric_limits<int32_t>::max() ? DType::kS64 : DType::kS32;
  return Iota(b, t, aval.shape(), dimension);
}

absl::StatusOr<JvpResult> SortJvp(Builder&, absl::Span<const Tracer> primals,
                                  absl::Span<const OptTracer> tangents, const Params& params) {
  const Primitive& sort = *Builtins().sort;
  std::vector<ShapedArray> avals;
  for (const Tracer& t : primals) avals.push_back(t.aval);
  AXE_ASSIGN_OR_RETURN(SortParamsRead s, ReadSort(params, avals));
  JvpResult r;
  AXE_ASSIGN_OR_RETURN(r.primals_out, BindWithAutoPvary(sort, primals, params));
  r.tangents_out.resize(primals.size());
  std::vector<Tracer> operands(primals.begin(), primals.begin() + s.num_keys);
  std::vector<size_t> moved;
  for (size_t i = 0; i < tangents.size(); ++i) {
    if (!tangents[i]) continue;
    operands.push_back(*tangents[i]);
    moved.push_back(i);
  }
  if (moved.empty()) return r;
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> sorted, BindWithAutoPvary(sort, operands, params));
  for (size_t j = 0; j < moved.size(); ++j) {
    r.tangents_out[moved[j]] = sorted[static_cast<size_t>(s.num_keys) + j];
  }
  return r;
}

// Linear in the operands after the keys: each cotangent goes back to where its element came
// from, by sorting the cotangents by the permutation.
Cotangents SortTranspose(Builder& b, absl::Span<const OptTracer> cts,
                         absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<ShapedArray> avals;
  for (const TransposeArg& a : args) avals.push_back(a.aval);
  AXE_ASSIGN_OR_RETURN(SortParamsRead s, ReadSort(params, avals));
  std::vector<Tracer> keys;
  for (int64_t k = 0; k < s.num_keys; ++k) {
    if (args[static_cast<size_t>(k)].is_undefined_primal()) {
      return absl::InvalidArgumentError("sort is not linear in its keys (operand " +
                                        std::to_string(k) + ")");
    }
    keys.push_back(*args[static_cast<size_t>(k)].value);
  }
  std::vector<OptTracer> out(args.size());
  std::vector<Tracer> back;
  std::vector<size_t> linear;
  for (size_t i = static_cast<size_t>(s.num_keys); i < args.size(); ++i) {
    if (!args[i].is_undefined_primal() || !cts[i]) continue;
    back.push_back(*cts[i]);
    linear.push_back(i);
  }
  if (linear.empty()) return out;
  AXE_ASSIGN_OR_RETURN(Tracer iota, IndexIota(b, avals[0], s.dimension));
  keys.push_back(iota);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> sorted,
                       BindWithAutoPvary(*Builtins().sort, keys, params));
  back.insert(back.begin(), sorted.back());
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> restored,
                       BindWithAutoPvary(*Builtins().sort, back, SortParams(s.dimension, 1, true)));
  for (size_t j = 0; j < linear.size(); ++j) out[linear[j]] = restored[j + 1];
  return out;
}

absl::StatusOr<BatchResult> SortBatch(Builder&, absl::Span<const Tracer> args,
                                      absl::Span<const BDim> dims, const Params& params) {
  const int64_t size = BatchSize(args, dims);
  std::vector<Tracer> moved;
  for (size_t i = 0; i < args.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(Tracer x, Materialize(args[i], dims[i], size));
    moved.push_back(x);
  }
  AXE_ASSIGN_OR_RETURN(int64_t dimension, RequiredInt(params, "sort", "dimension"));
  Params p = params;
  p["dimension"] = Param::Int(dimension + 1);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*Builtins().sort, moved, p));
  return BatchResult{outs, std::vector<BDim>(outs.size(), 0)};
}

// The tangent in top_k's order: P = top_k's full descending permutation, rank[j] = the
// position of j in P (sorting P with an iota), then the tangent sorted by rank (t[P[i]] at i),
// cut to the first k.
absl::StatusOr<Tracer> TopKTangent(Builder& b, const Tracer& x, const Tracer& t,
                                   const TopKParamsRead& s) {
  const Primitive& sort = *Builtins().sort;
  const int64_t n = x.aval.shape()[static_cast<size_t>(s.axis)];
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> full,
                       BindWithAutoPvary(*Builtins().top_k, {x},
                                         {{"k", Param::Int(n)}, {"axis", Param::Int(s.axis)}}));
  AXE_ASSIGN_OR_RETURN(Tracer iota, IndexIota(b, x.aval, s.axis));
  const Params by_first = SortParams(s.axis, 1, true);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> ranked,
                       BindWithAutoPvary(sort, {full[1], iota}, by_first));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> moved,
                       BindWithAutoPvary(sort, {ranked[1], t}, by_first));
  std::vector<int64_t> start(x.aval.rank(), 0), limit = x.aval.shape();
  limit[static_cast<size_t>(s.axis)] = s.k;
  return Slice(moved[1], std::move(start), std::move(limit));
}

absl::StatusOr<JvpResult> TopKJvp(Builder& b, absl::Span<const Tracer> primals,
                                  absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(TopKParamsRead s, ReadTopK(params, primals[0].aval));
  JvpResult r;
  AXE_ASSIGN_OR_RETURN(r.primals_out, BindWithAutoPvary(*Builtins().top_k, primals, params));
  r.tangents_out.resize(2);
  if (tangents[0]) {
    AXE_ASSIGN_OR_RETURN(r.tangents_out[0], TopKTangent(b, primals[0], *tangents[0], s));
  }
  return r;
}

absl::StatusOr<BatchResult> TopKBatch(Builder&, absl::Span<const Tracer> args,
                                      absl::Span<const BDim> dims, const Params& params) {
  std::vector<int64_t> unbatched = args[0].aval.shape();
  unbatched.erase(unbatched.begin() + *dims[0]);
  AXE_ASSIGN_OR_RETURN(TopKParamsRead s, ReadTopK(params, args[0].aval.WithShape(unbatched)));
  AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
  Params p = params;
  p["axis"] = Param::Int(s.axis + 1);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*Builtins().top_k, {x}, p));
  return BatchResult{outs, {0, 0}};
}

Primitive::Options SortFamilyOptions(std::string name, std::vector<ParamSpec> params) {
  Primitive::Options o;
  o.name = std::move(name);
  o.multiple_results = true;
  o.params = std::move(params);
  return o;
}

const Primitive* DefineSortFamilyPrimitive(Primitive::Options o) {
  absl::StatusOr<const Primitive*> p = DefinePrimitive(std::move(o));
  AXE_CHECK(p.ok()) << p.status();  // fixed identifiers, defined once
  return *p;
}

}  // namespace

void DefineSort(BuiltinPrimitives& p) {
  p.sort = DefineSortFamilyPrimitive(SortFamilyOptions("sort", {{"dimension", ParamType::kInt},
                                                                {"is_stable", ParamType::kBool},
                                                                {"num_keys", ParamType::kInt}}));
  p.top_k = DefineSortFamilyPrimitive(
      SortFamilyOptions("top_k", {{"k", ParamType::kInt}, {"axis", ParamType::kInt, false}}));
}

void RegisterSortRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.sort, SortRule);
  RegisterImpl(*p.sort, SortImpl);
  RegisterJvp(*p.sort, SortJvp);
  RegisterTranspose(*p.sort, SortTranspose);
  RegisterBatching(*p.sort, SortBatch);
  RegisterAbstractEval(*p.top_k, TopKRule);
  RegisterImpl(*p.top_k, TopKImpl);
  RegisterJvp(*p.top_k, TopKJvp);
  RegisterBatching(*p.top_k, TopKBatch);
}

}  // namespace axe::ir::internal
