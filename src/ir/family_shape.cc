// rev, split and pad: what JAX's derivatives of the cumulative reductions print. Each has its
// abstract-evaluation, impl, batching and (all three are linear) JVP and transpose rules.
//
//   rev[dimensions=(1,)] x                         x reversed along those dimensions
//   split[axis=1 sizes=(1, 2)] x                   consecutive pieces along `axis`
//   pad[padding_config=((lo, hi, interior), ...)] x v
//                                                  lo/hi (negative: cropped) and interior
//                                                  copies of the scalar v around and between
#include <numeric>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/linear.h"
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

const BuiltinPrimitives& Prims() { return Builtins(); }

absl::StatusOr<std::vector<int64_t>> RevDims(const Params& params, size_t rank) {
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, RequiredInts(params, "rev", "dimensions"));
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || static_cast<size_t>(d) >= rank || seen[static_cast<size_t>(d)]) {
      return TypeError(absl::StrCat("rev dimensions must be unique and in range, got ",
                                    PyTuple(dims), " for an operand of rank ", rank));
    }
    seen[static_cast<size_t>(d)] = true;
  }
  return dims;
}

Avals RevRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("rev", avals, 1));
  AXE_RETURN_IF_ERROR(RevDims(params, avals[0].rank()).status());
  return One(avals[0]);
}

Arrays RevImpl(absl::Span<const HostArray> args, const Params& params) {
  const ShapedArray& a = args[0].aval;
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, RevDims(params, a.rank()));
  HostArray out{a, args[0].values};
  std::vector<bool> flip(a.rank(), false);
  for (int64_t d : dims) flip[static_cast<size_t>(d)] = true;
  std::vector<int64_t> strides = Strides(a.shape());
  std::vector<int64_t> index(a.rank(), 0);
  for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, a.shape())) {
    int64_t from = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      from += (flip[d] ? a.shape()[d] - 1 - index[d] : index[d]) * strides[d];
    }
    out.values[i] = args[0].values[static_cast<size_t>(from)];
  }
  return std::vector<HostArray>{std::move(out)};
}

Cotangents RevTranspose(Builder&, absl::Span<const OptTracer> cts,
                        absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(out[0], Op(*Prims().rev, {*cts[0]}, params));
  return out;
}

struct SplitSpec {
  int64_t axis = 0;
  std::vector<int64_t> sizes;
};

absl::StatusOr<SplitSpec> ReadSplit(const Params& params, const ShapedArray& x) {
  SplitSpec s;
  AXE_ASSIGN_OR_RETURN(s.axis, RequiredInt(params, "split", "axis"));
  AXE_ASSIGN_OR_RETURN(s.sizes, RequiredInts(params, "split", "sizes"));
  if (s.axis < 0 || static_cast<size_t>(s.axis) >= x.rank()) {
    return TypeError(absl::StrCat("split axis ", s.axis,
                                  " is out of bounds for an operand of "
                                  "rank ",
                                  x.rank()));
  }
  int64_t total = 0;
  for (int64_t n : s.sizes) {
    std::optional<int64_t> t = n < 0 ? std::nullopt : CheckedAdd(total, n);
    if (!t)
      return TypeError(absl::StrCat("split sizes must be non-negative, got ", PyTuple(s.sizes)));
    total = *t;
  }
  if (total != x.shape()[static_cast<size_t>(s.axis)]) {
    return TypeError(absl::StrCat("Sum of sizes ", total, " must be equal to dimension ",
                                  x.shape()[static_cast<size_t>(s.axis)], " of the operand ",
                                  "shape ", PyTuple(x.shape())));
  }
  return s;
}

Avals SplitRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("split", avals, 1));
  AXE_ASSIGN_OR_RETURN(SplitSpec s, ReadSplit(params, avals[0]));
  std::vector<ShapedArray> outs;
  for (int64_t n : s.sizes) {
    std::vector<int64_t> shape = avals[0].shape();
    shape[static_cast<size_t>(s.axis)] = n;
    outs.push_back(avals[0].WithShape(std::move(shape)));
  }
  return outs;
}

Arrays SplitImpl(absl::Span<const HostArray> args, const Params& params) {
  const ShapedArray& a = args[0].aval;
  AXE_ASSIGN_OR_RETURN(SplitSpec s, ReadSplit(params, a));
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals, SplitRule({a}, params));
  std::vector<int64_t> strides = Strides(a.shape());
  std::vector<HostArray> outs;
  int64_t offset = 0;
  for (size_t k = 0; k < avals.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(avals[k].WithVma({})));
    std::vector<int64_t> index(a.rank(), 0);
    for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, out.aval.shape())) {
      int64_t from = 0;
      for (size_t d = 0; d < index.size(); ++d) {
        from += (index[d] + (static_cast<int64_t>(d) == s.axis ? offset : 0)) * strides[d];
      }
      out.values[i] = args[0].values[static_cast<size_t>(from)];
    }
    offset += s.sizes[k];
    outs.push_back(std::move(out));
  }
  return outs;
}

// The cotangents concatenated along the axis (zeros for symbolic zeros).
Cotangents SplitTranspose(Builder& b, absl::Span<const OptTracer> cts,
                          absl::Span<const TransposeArg> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(SplitSpec s, ReadSplit(params, args[0].aval));
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals, SplitRule({args[0].aval}, params));
  std::vector<Tracer> pieces;
  for (size_t k = 0; k < avals.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(Tracer piece, Instantiate(b, cts[k], avals[k]));
    pieces.push_back(piece);
  }
  std::vector<OptTracer> out(args.size());
  AXE_ASSIGN_OR_RETURN(out[0], Concatenate(pieces, s.axis));
  return out;
}

absl::StatusOr<BatchResult> SplitBatch(Builder&, absl::Span<const Tracer> args,
                                       absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
  AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, "split", "axis"));
  Params p = params;
  p["axis"] = Param::Int(axis + 1);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*Prims().split, {x}, p));
  return BatchResult{outs, std::vector<BDim>(outs.size(), 0)};
}

absl::StatusOr<BatchResult> RevBatch(Builder&, absl::Span<const Tracer> args,
                                     absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> rev, RequiredInts(params, "rev", "dimensions"));
  for (int64_t& d : rev) ++d;
  Params p = params;
  p["dimensions"] = Param::Ints(rev);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*Prims().rev, {x}, p));
  return BatchResult{outs, {0}};
}

struct PadDim {
  int64_t lo = 0, hi = 0, interior = 0;
};

// padding_config, one (lo, hi, interior) per dimension (np.int64(...) items read as ints).
absl::StatusOr<std::vector<PadDim>> ReadPad(const Params& params, size_t rank) {
  AXE_ASSIGN_OR_RETURN(const Param* config, GetParam(params, "pad", "padding_config"));
  if (config->kind() != Param::Kind::kTuple || config->items().size() != rank) {
    return TypeError(
        absl::StrCat("pad: padding_config must have one (lo, hi, interior) per "
                     "dimension of the operand (rank ",
                     rank, ")"));
  }
  std::vector<PadDim> out;
  for (const Param& item : config->items()) {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> v, item.AsInts("padding_config"));
    if (v.size() != 3) return TypeError("pad: each padding_config entry is (lo, hi, interior)");
    if (v[2] < 0) {
      return TypeError(
          absl::StrCat("interior padding in padding_config must be nonnegative, got ", PyTuple(v)));
    }
    out.push_back({v[0], v[1], v[2]});
  }
  return out;
}

Avals PadRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("pad", avals, 2));
  const ShapedArray &x = avals[0], &v = avals[1];
  if (v.rank() != 0) return TypeError("pad: padding_value must be a scalar");
  if (v.dtype() != x.dtype()) {
    return TypeError(absl::StrCat("pad operand and padding_value must be same dtype: got ",
                                  DTypeName(x.dtype()), " and ", DTypeName(v.dtype()), "."));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<PadDim> pad, ReadPad(params, x.rank()));
  std::vector<int64_t> shape;
  for (size_t d = 0; d < x.rank(); ++d) {
    int64_t n = x.shape()[d];
    std::optional<int64_t> gaps = CheckedMul(n > 0 ? n - 1 : 0, pad[d].interior);
    std::optional<int64_t> size = gaps ? CheckedAdd(n, *gaps) : std::nullopt;
    size = size ? CheckedAdd(*size, pad[d].lo) : std::nullopt;
    size = size ? CheckedAdd(*size, pad[d].hi) : std::nullopt;
    if (!size || *size < 0) {
      return TypeError(absl::StrCat(
          "Dimension size after padding is not at least 0, got "
          "padding ",
          pad[d].lo, ", ", pad[d].hi, ", ", pad[d].interior, " for dimension ", d, " of size ", n));
    }
    shape.push_back(*size);
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("pad", avals));
  return One(x.WithShape(std::move(shape)).WithVma(std::move(vma)));
}

Arrays PadImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Prims().pad, args, params));
  AXE_ASSIGN_OR_RETURN(std::vector<PadDim> pad, ReadPad(params, aval.rank()));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  std::fill(out.values.begin(), out.values.end(), args[1].values[0]);
  const ShapedArray& x = args[0].aval;
  std::vector<int64_t> out_strides = Strides(aval.shape());
  std::vector<int64_t> index(x.rank(), 0);
  for (size_t i = 0; i < args[0].values.size(); ++i, NextIndex(index, x.shape())) {
    int64_t to = 0;
    bool inside = true;
    for (size_t d = 0; d < index.size() && inside; ++d) {
      int64_t at = pad[d].lo + index[d] * (pad[d].interior + 1);  // bounded by the out size
      inside = at >= 0 && at < aval.shape()[d];
      to += at * out_strides[d];
    }
    if (inside) out.values[static_cast<size_t>(to)] = args[0].values[i];
  }
  return OneArray(std::move(out));
}

// The operand's cotangent: the cotangent un-padded (negated lo/hi) and strided by
// interior + 1; the padding value's: what is left of the cotangent's sum.
Cotangents PadTranspose(Builder& b, absl::Span<const OptTracer> cts,
                        absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  const ShapedArray& x = args[0].aval;
  AXE_ASSIGN_OR_RETURN(std::vector<PadDim> pad, ReadPad(params, x.rank()));
  std::vector<Param> unpad;
  std::vector<int64_t> strides;
  for (const PadDim& d : pad) {
    unpad.push_back(Param::Ints({-d.lo, -d.hi, 0}));
    strides.push_back(d.interior + 1);
  }
  Tracer zero = b.Scalar(0, x.dtype());
  AXE_ASSIGN_OR_RETURN(Tracer unpadded, Op(*Prims().pad, {*cts[0], zero},
                                           {{"padding_config", Param::Tuple(unpad)}}));
  std::vector<int64_t> start(x.rank(), 0);
  AXE_ASSIGN_OR_RETURN(Tracer t, Op(*Prims().slice, {unpadded},
                                    {{"start_indices", Param::Ints(start)},
                                     {"limit_indices", Param::Ints(unpadded.aval.shape())},
                                     {"strides", Param::Ints(strides)}}));
  if (args[0].is_undefined_primal()) out[0] = t;
  if (args[1].is_undefined_primal()) {
    std::vector<int64_t> all(x.rank());
    std::iota(all.begin(), all.end(), 0);
    AXE_ASSIGN_OR_RETURN(Tracer total, ReduceSum(*cts[0], all));
    AXE_ASSIGN_OR_RETURN(Tracer kept, ReduceSum(t, all));
    AXE_ASSIGN_OR_RETURN(out[1], Op(*Prims().sub, {total, kept}));
  }
  return out;
}

absl::StatusOr<BatchResult> PadBatch(Builder&, absl::Span<const Tracer> args,
                                     absl::Span<const BDim> dims, const Params& params) {
  if (dims[1]) return absl::UnimplementedError("batching pad over its padding value");
  AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
  AXE_ASSIGN_OR_RETURN(const Param* config, GetParam(params, "pad", "padding_config"));
  std::vector<Param> items = {Param::Ints({0, 0, 0})};
  if (config->kind() == Param::Kind::kTuple) {
    items.insert(items.end(), config->items().begin(), config->items().end());
  }
  Params p = params;
  p["padding_config"] = Param::Tuple(std::move(items));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*Prims().pad, {x, args[1]}, p));
  return BatchResult{outs, {0}};
}

}  // namespace

void RegisterRevSplitPad(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.rev, RevRule);
  RegisterImpl(*p.rev, RevImpl);
  DefLinear2(*p.rev, RevTranspose);
  RegisterAbstractEval(*p.split, SplitRule);
  RegisterImpl(*p.split, SplitImpl);
  DefLinear2(*p.split, SplitTranspose);
  RegisterBatching(*p.split, SplitBatch);
  RegisterBatching(*p.rev, RevBatch);
  RegisterAbstractEval(*p.pad, PadRule);
  RegisterImpl(*p.pad, PadImpl);
  DefLinear2(*p.pad, PadTranspose);
  RegisterBatching(*p.pad, PadBatch);
}

}  // namespace axe::ir::internal
