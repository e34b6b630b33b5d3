// dot_general, with every rule: typing with JAX's dimension_numbers words, the impl (each
// output element a dot product over the contracting dimensions, batch dimensions first), the
// bilinear JVP, the transposes to either operand (JAX's _dot_general_transpose_lhs/rhs) and
// batching (the batch dimension becomes a batch dimension of the contraction, or a free one).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/dims.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"

#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Result = absl::StatusOr<std::vector<ShapedArray>>;

// ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)).
absl::StatusOr<std::vector<std::vector<int64_t>>> DimensionNumbers(const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, "dot_general", "dimension_numbers"));
  std::vector<std::vector<int64_t>> out;
  bool ok = p->kind() == Param::Kind::kTuple && p->items().size() == 2;
  for (size_t i = 0; ok && i < 2; ++i) {
    const Param& pair = p->items()[i];
    ok = pair.kind() == Param::Kind::kTuple && pair.items().size() == 2;
    for (size_t j = 0; ok && j < 2; ++j) {
      absl::StatusOr<std::vector<int64_t>> dims = pair.items()[j].AsInts("dimension_numbers");
      ok = dims.ok();
      if (ok) out.push_back(*dims);
    }
  }
  if (!ok) {
    return TypeError(absl::StrCat(
        "parameter dimension_numbers must be ((lhs_contract, rhs_contract), (lhs_batch, "
        "rhs_batch)), got ",
        p->ToString()));
  }
  return out;
}

absl::Status CheckDims(absl::string_view what, const std::vector<int64_t>& dims, int64_t rank) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return TypeError(absl::StrCat("dot_general requires ", what,
                                    " dimensions to be in range [0, ", rank, "), got ",
                                    PyTuple(dims), "."));
    }
  }
  return absl::OkStatus();
}

std::vector<int64_t> Pick(const ShapedArray& a, const std::vector<int64_t>& dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(a.shape()[d]);
  return out;
}

Result DotGeneral(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("dot_general", avals, 2));
  AXE_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> dn, DimensionNumbers(params));
  const ShapedArray& l = avals[0];
  const ShapedArray& r = avals[1];
  AXE_RETURN_IF_ERROR(CheckDims("lhs contracting", dn[0], Rank(l)));
  AXE_RETURN_IF_ERROR(CheckDims("rhs contracting", dn[1], Rank(r)));
  AXE_RETURN_IF_ERROR(CheckDims("lhs batch", dn[2], Rank(l)));
  AXE_RETURN_IF_ERROR(CheckDims("rhs batch", dn[3], Rank(r)));
  if (Pick(l, dn[2]) != Pick(r, dn[3])) {
    return TypeError(absl::StrCat(
        "dot_general requires lhs batch dimensions and rhs batch dimensions to have the same "
        "shape, got ",
        PyTuple(Pick(l, dn[2])), " and ", PyTuple(Pick(r, dn[3])), "."));
  }
  if (Pick(l, dn[0]) != Pick(r, dn[1])) {
    return TypeError(
        absl::StrCat("dot_general requires contracting dimensions to have the same shape, got ",
                     PyTuple(Pick(l, dn[0])), " and ", PyTuple(Pick(r, dn[1])), "."));
  }
  DType dtype = l.dtype();
  if (auto it = params.find("preferred_element_type");
      it != params.end() && !it->second.is_none()) {
    AXE_ASSIGN_OR_RETURN(dtype, it->second.AsDType("preferred_element_type"));
  } else if (l.dtype() != r.dtype()) {
    return TypeError(
        absl::StrCat("lax.dot_general requires arguments to have the same dtypes, got ",
                     DTypeName(l.dtype()), ", ", DTypeName(r.dtype()), "."));
  }
  std::vector<int64_t> shape = Pick(l, dn[2]);
  auto free = [&](const ShapedArray& a, const std::vector<int64_t>& c,
                  const std::vector<int64_t>& b) {
    for (int64_t i = 0; i < Rank(a); ++i) {
      if (std::find(c.begin(), c.end(), i) == c.end() &&
          std::find(b.begin(), b.end(), i) == b.end()) {
        shape.push_back(a.shape()[i]);
      }
    }
  };
  free(l, dn[0], dn[2]);
  free(r, dn[1], dn[3]);
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("dot_general", avals));
  return One(ShapedArray(std::move(shape), dtype, l.weak_type() && r.weak_type(), std::move(vma)));
}

struct Operand {
  std::vector<int64_t> batch, contract, free;
  std::vector<int64_t> strides;
};

Operand Split(const ShapedArray& a, std::vector<int64_t> contract, std::vector<int64_t> batch) {
  Operand o{std::move(batch), std::move(contract), {}, Strides(a.shape())};
  for (int64_t d = 0; d < static_cast<int64_t>(a.rank()); ++d) {
    if (std::find(o.batch.begin(), o.batch.end(), d) == o.batch.end() &&
        std::find(o.contract.begin(), o.contract.end(), d) == o.contract.end()) {
      o.free.push_back(d);
    }
  }
  return o;
}

// The flat offset of an operand's element: batch and free coordinates from the output
// index (free ones start at `free_at`), contracting ones from `k`.
int64_t Offset(const Operand& o, const std::vector<int64_t>& out, size_t free_at,
               const std::vector<int64_t>& k) {
  int64_t flat = 0;
  for (size_t i = 0; i < o.batch.size(); ++i) flat += out[i] * o.strides[o.batch[i]];
  for (size_t i = 0; i < o.free.size(); ++i) flat += out[free_at + i] * o.strides[o.free[i]];
  for (size_t i = 0; i < o.contract.size(); ++i) flat += k[i] * o.strides[o.contract[i]];
  return flat;
}

absl::StatusOr<std::vector<HostArray>> DotGeneralImpl(absl::Span<const HostArray> args,
                                                      const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().dot_general, args, params));
  const Param& dn = params.find("dimension_numbers")->second;  // checked by ResultAval
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> lc,
                       dn.items()[0].items()[0].AsInts("dimension_numbers"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> rc,
                       dn.items()[0].items()[1].AsInts("dimension_numbers"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> lb,
                       dn.items()[1].items()[0].AsInts("dimension_numbers"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> rb,
                       dn.items()[1].items()[1].AsInts("dimension_numbers"));
  const HostArray& l = args[0];
  const HostArray& r = args[1];
  Operand lo = Split(l.aval, lc, lb);
  Operand ro = Split(r.aval, rc, rb);
  std::vector<int64_t> contract_shape;
  for (int64_t d : lc) contract_shape.push_back(l.aval.shape()[d]);
  bool empty_contract =
      std::find(contract_shape.begin(), contract_shape.end(), 0) != contract_shape.end();
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  std::vector<int64_t> index(aval.rank(), 0);
  size_t l_free_at = lo.batch.size();
  size_t r_free_at = l_free_at + lo.free.size();
  // Integer products and sums wrap on 64-bit bits and then in the result's width: a double
  // accumulator would round a product past 2^53 before the wrap.
  const bool integral = IsIntegral(aval.dtype());
  for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, aval.shape())) {
    double sum = 0;
    uint64_t int_sum = 0;
    std::vector<int64_t> k(contract_shape.size(), 0);
    if (!empty_contract) {
      do {
        double a = l.values[static_cast<size_t>(Offset(lo, index, l_free_at, k))];
        double b = r.values[static_cast<size_t>(Offset(ro, index, r_free_at, k))];
        if (integral) {
          int_sum += static_cast<uint64_t>(AsInt64(a)) * static_cast<uint64_t>(AsInt64(b));
        } else {
          sum += a * b;
        }
      } while (NextIndex(k, contract_shape));
    }
    out.values[i] =
        integral ? IntegerFromBits(int_sum, aval.dtype()) : RoundToDType(sum, aval.dtype());
  }
  return OneArray(std::move(out));
}

absl::StatusOr<JvpResult> DotGeneralJvp(Builder&, absl::Span<const Tracer> primals,
                                        absl::Span<const OptTracer> tangents,
                                        const Params& params) {
  const Primitive& dot = *Builtins().dot_general;
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(dot, primals, params));
  OptTracer a, c;
  if (tangents[0]) {
    AXE_ASSIGN_OR_RETURN(a, Op(dot, {*tangents[0], primals[1]}, params));
  }
  if (tangents[1]) {
    AXE_ASSIGN_OR_RETURN(c, Op(dot, {primals[0], *tangents[1]}, params));
  }
  AXE_ASSIGN_OR_RETURN(OptTracer t, AddTangents(a, c, out.aval));
  return JvpResult{{out}, {t}};
}

struct DimNumbers {
  Dims lhs_contract, rhs_contract, lhs_batch, rhs_batch;
};

absl::StatusOr<DimNumbers> ReadDims(const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, "dot_general", "dimension_numbers"));
  std::vector<Dims> parts;
  for (const Param& pair : p->items()) {
    for (const Param& d : pair.items()) {
      AXE_ASSIGN_OR_RETURN(Dims v, d.AsInts("dimension_numbers"));
      parts.push_back(std::move(v));
    }
  }
  if (parts.size() != 4) return absl::InvalidArgumentError("dot_general: bad dimension_numbers");
  return DimNumbers{parts[0], parts[1], parts[2], parts[3]};
}

Dims Remaining(int64_t rank, const Dims& a, const Dims& b) {
  Dims out;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end())
      out.push_back(d);
  }
  return out;
}

Dims Range(int64_t start, size_t n) {
  Dims out(n);
  std::iota(out.begin(), out.end(), start);
  return out;
}

Dims Argsort(const Dims& v) {
  Dims idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return v[a] < v[b]; });
  return idx;
}

Param List(const Dims& v) { return Param::Ints(v); }

// The cotangent of x in dot_general(x, y) (or of y when swap_ans: x and y already swapped).
absl::StatusOr<Tracer> TransposeLhs(const Tracer& g, const ShapedArray& x, const Tracer& y,
                                    const DimNumbers& dn, bool swap_ans, const Params& params) {
  int64_t x_rank = static_cast<int64_t>(x.rank());
  Dims x_kept = Remaining(x_rank, dn.lhs_contract, dn.lhs_batch);
  Dims y_kept = Remaining(static_cast<int64_t>(y.aval.rank()), dn.rhs_contract, dn.rhs_batch);
  size_t nb = dn.lhs_batch.size();
  Dims ans_batch = Range(0, nb);
  Dims ans_y = swap_ans ? Range(static_cast<int64_t>(nb), y_kept.size())
                        : Range(static_cast<int64_t>(nb + x_kept.size()), y_kept.size());
  Params p = params;
  p["dimension_numbers"] = Param::Tuple({Param::Tuple({List(ans_y), List(y_kept)}),
                                         Param::Tuple({List(ans_batch), List(dn.rhs_batch)})});
  p["preferred_element_type"] = Param::OfDType(x.dtype());
  Dims sorted_contract;
  for (int64_t i : Argsort(dn.rhs_contract)) sorted_contract.push_back(dn.lhs_contract[i]);
  Dims order = dn.lhs_batch;
  order.insert(order.end(), x_kept.begin(), x_kept.end());
  order.insert(order.end(), sorted_contract.begin(), sorted_contract.end());
  AXE_ASSIGN_OR_RETURN(Tracer d, Op(*Builtins().dot_general, {g, y}, p));
  Dims perm = Argsort(order);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) return d;
  return Transpose(d, perm);
}

absl::StatusOr<std::vector<OptTracer>> DotGeneralTranspose(Builder&,
                                                           absl::Span<const OptTracer> cts,
                                                           absl::Span<const TransposeArg> args,
                                                           const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (args.size() != 2 || (args[0].is_undefined_primal() && args[1].is_undefined_primal())) {
    return absl::InvalidArgumentError("dot_general is linear in one operand only");
  }
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(DimNumbers dn, ReadDims(params));
  if (args[0].is_undefined_primal()) {
    AXE_ASSIGN_OR_RETURN(out[0],
                         TransposeLhs(*cts[0], args[0].aval, *args[1].value, dn, false, params));
  } else {
    DimNumbers swapped{dn.rhs_contract, dn.lhs_contract, dn.rhs_batch, dn.lhs_batch};
    AXE_ASSIGN_OR_RETURN(
        out[1], TransposeLhs(*cts[0], args[1].aval, *args[0].value, swapped, true, params));
  }
  return out;
}

Dims Shift(const Dims& v) {
  Dims out;
  for (int64_t d : v) out.push_back(d + 1);
  return out;
}

size_t Kept(size_t rank, const Dims& contract, const Dims& batch) {
  return rank - contract.size() - batch.size();
}

absl::StatusOr<BatchResult> DotGeneralBatch(Builder&, absl::Span<const Tracer> args,
                                            absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* dn, GetParam(params, "dot_general", "dimension_numbers"));
  std::vector<Dims> parts;
  for (const Param& pair : dn->items()) {
    for (const Param& d : pair.items()) {
      AXE_ASSIGN_OR_RETURN(Dims v, d.AsInts("dimension_numbers"));
      parts.push_back(std::move(v));
    }
  }
  if (parts.size() != 4) return absl::InvalidArgumentError("dot_general: bad dimension_numbers");
  Dims lc = parts[0], rc = parts[1], lb = parts[2], rb = parts[3];
  Tracer x = args[0], y = args[1];
  int64_t out_dim = 0;
  if (dims[0]) {
    AXE_ASSIGN_OR_RETURN(x, MoveBatchDim(x, *dims[0], 0));
    lc = Shift(lc);
    lb = Shift(lb);
  }
  if (dims[1]) {
    AXE_ASSIGN_OR_RETURN(y, MoveBatchDim(y, *dims[1], 0));
    rc = Shift(rc);
    rb = Shift(rb);
  }
  if (dims[0] && dims[1]) {
    lb.insert(lb.begin(), 0);
    rb.insert(rb.begin(), 0);
  } else if (dims[0]) {
    out_dim = static_cast<int64_t>(lb.size());
  } else {
    out_dim = static_cast<int64_t>(lb.size() + Kept(x.aval.rank(), lc, lb));
  }
  Params p = params;
  p["dimension_numbers"] = Param::Tuple({Param::Tuple({Param::Ints(lc), Param::Ints(rc)}),
                                         Param::Tuple({Param::Ints(lb), Param::Ints(rb)})});
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       BindWithAutoPvary(*Builtins().dot_general, {x, y}, p));
  return BatchResult{outs, {out_dim}};
}

}  // namespace

void DefineDot(BuiltinPrimitives& p) {
  p.dot_general = DefineOneResult("dot_general", {{"dimension_numbers", ParamType::kAny}});
}

void RegisterDotRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.dot_general, DotGeneral);
  RegisterImpl(*p.dot_general, DotGeneralImpl);
  RegisterJvp(*p.dot_general, DotGeneralJvp);
  RegisterTranspose(*p.dot_general, DotGeneralTranspose);
  RegisterBatching(*p.dot_general, DotGeneralBatch);
}

}  // namespace axe::ir::internal
