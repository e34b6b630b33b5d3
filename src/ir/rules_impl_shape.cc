// Impl rules of the structural primitives that move or combine elements without indexing by
// values: convert_element_type, broadcast_in_dim, reshape, squeeze, transpose, reductions,
// iota, select_n, concatenate, with_layout_constraint.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "axe/base/numerics.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "eval_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Impl = absl::StatusOr<std::vector<HostArray>>;
using IndexMap = std::function<int64_t(const std::vector<int64_t>& out_index)>;

// out[i] = in[map(multi-index of i)].
Impl Gather(const HostArray& in, const ShapedArray& aval, const IndexMap& map) {
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  std::vector<int64_t> index(aval.rank(), 0);
  for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, aval.shape())) {
    out.values[i] = in.values[static_cast<size_t>(map(index))];
  }
  return OneArray(std::move(out));
}

ImplRule SameValues(const Primitive& prim) {
  return [&prim](absl::Span<const HostArray> args, const Params& params) -> Impl {
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
    return OneArray(HostArray{aval, args[0].values});
  };
}

Impl ConvertImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval,
                       ResultAval(*Builtins().convert_element_type, args, params));
  HostArray out{aval, args[0].values};
  for (double& v : out.values) v = ConvertValue(v, args[0].aval.dtype(), aval.dtype());
  return OneArray(std::move(out));
}

Impl BroadcastImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().broadcast_in_dim, args, params));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, OptionalInts(params, "broadcast_dimensions", {}));
  const HostArray& x = args[0];
  std::vector<int64_t> strides = Strides(x.aval.shape());
  return Gather(x, aval, [&](const std::vector<int64_t>& out) {
    int64_t flat = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (x.aval.shape()[i] != 1) flat += out[static_cast<size_t>(dims[i])] * strides[i];
    }
    return flat;
  });
}

Impl TransposeImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().transpose, args, params));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, RequiredInts(params, "transpose", "permutation"));
  std::vector<int64_t> strides = Strides(args[0].aval.shape());
  return Gather(args[0], aval, [&](const std::vector<int64_t>& out) {
    int64_t flat = 0;
    for (size_t j = 0; j < perm.size(); ++j) flat += out[j] * strides[perm[j]];
    return flat;
  });
}

// reshape: the same values in row-major order, read in the order of `dimensions` when given
// (a transpose first, as JAX's reshape with dimensions).
Impl ReshapeImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().reshape, args, params));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, OptionalInts(params, "dimensions", {}));
  if (dims.empty()) return OneArray(HostArray{aval, args[0].values});
  AXE_ASSIGN_OR_RETURN(std::vector<HostArray> moved,
                       TransposeImpl(args, {{"permutation", Param::Ints(dims)}}));
  return OneArray(HostArray{aval, std::move(moved[0].values)});
}

// The smallest and largest values of a non-float type (max's and min's identities).
double Lowest(DType t) { return IsSignedIntegral(t) ? -std::ldexp(1.0, BitWidth(t) - 1) : 0.0; }
double Highest(DType t) {
  if (t == DType::kPred) return 1;
  const int bits = BitWidth(t);
  return IsSignedIntegral(t) ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
}

enum class Fold { kSum, kProd, kMax, kMin };

// The float sums of reduce_sum: each output's elements (in row-major order) added in the
// pairwise order of PairwiseSum, rounding to the type after every addition (an f16 sum still
// overflows to inf as XLA's does, but the error grows with log n, not n).
void PairwiseSums(const HostArray& x, const std::vector<int64_t>& at, DType t, HostArray& out) {
  std::vector<size_t> start(out.values.size() + 1, 0);
  for (int64_t o : at) ++start[static_cast<size_t>(o) + 1];
  for (size_t o = 0; o < out.values.size(); ++o) start[o + 1] += start[o];
  std::vector<double> grouped(at.size());
  std::vector<size_t> next(start.begin(), start.end() - 1);
  for (size_t i = 0; i < at.size(); ++i) grouped[next[static_cast<size_t>(at[i])]++] = x.values[i];
  auto round = [t](double s) { return RoundToDType(s, t); };
  for (size_t o = 0; o < out.values.size(); ++o) {
    out.values[o] =
        PairwiseSum(absl::MakeConstSpan(grouped).subspan(start[o], start[o + 1] - start[o]), round);
  }
}

// reduce_sum, reduce_prod, reduce_max and reduce_min over `axes`, folding the operand in
// row-major order from the identity, which an empty reduction gives (0; 1; the type's lowest
// or highest value, -inf or inf for floats). Integer sums and products wrap around exactly
// (64-bit accumulators); float sums are pairwise (PairwiseSums); float products round to the
// type after every step; max and min propagate NaN.
ImplRule ReductionImpl(const Primitive& prim, Fold fold) {
  return [&prim, fold](absl::Span<const HostArray> args, const Params& params) -> Impl {
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, prim.name(), "axes"));
    AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
    const HostArray& x = args[0];
    const DType t = aval.dtype();
    const std::vector<int64_t> at = ReducedPositions(x, axes);
    const bool extremum = fold == Fold::kMax || fold == Fold::kMin;
    if (!extremum && IsIntegral(t)) {
      std::vector<uint64_t> acc(out.values.size(), fold == Fold::kProd ? 1 : 0);
      for (size_t i = 0; i < at.size(); ++i) {
        const uint64_t v = static_cast<uint64_t>(AsInt64(x.values[i]));
        uint64_t& a = acc[static_cast<size_t>(at[i])];
        a = fold == Fold::kSum ? a + v : a * v;
      }
      for (size_t o = 0; o < acc.size(); ++o) out.values[o] = IntegerFromBits(acc[o], t);
      return OneArray(std::move(out));
    }
    const bool floating = IsFloatingPoint(t);
    if (fold == Fold::kSum && floating) {
      PairwiseSums(x, at, t, out);
      return OneArray(std::move(out));
    }
    const double init = fold == Fold::kSum    ? 0.0
                        : fold == Fold::kProd ? 1.0
                        : fold == Fold::kMax  ? (floating ? -HUGE_VAL : Lowest(t))
                                              : (floating ? HUGE_VAL : Highest(t));
    std::fill(out.values.begin(), out.values.end(), init);
    for (size_t i = 0; i < at.size(); ++i) {
      double& acc = out.values[static_cast<size_t>(at[i])];
      const double v = x.values[i];
      if (!extremum) {
        acc = RoundToDType(fold == Fold::kSum ? acc + v : acc * v, t);
      } else if (std::isnan(acc) || std::isnan(v)) {
        acc = NAN;
      } else {
        acc = fold == Fold::kMax ? std::max(acc, v) : std::min(acc, v);
      }
    }
    return OneArray(std::move(out));
  };
}

Impl IotaImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().iota, args, params));
  AXE_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(params, "iota", "dimension"));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  std::vector<int64_t> index(aval.rank(), 0);
  for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, aval.shape())) {
    out.values[i] = RoundToDType(static_cast<double>(index[dim]), aval.dtype());
  }
  return OneArray(std::move(out));
}

Impl SelectImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().select_n, args, params));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  const HostArray& which = args[0];
  int64_t last = static_cast<int64_t>(args.size()) - 2;
  for (size_t i = 0; i < out.values.size(); ++i) {
    double w = which.values[which.aval.rank() == 0 ? 0 : i];
    int64_t c = std::clamp<int64_t>(
        std::isnan(w) ? 0 : static_cast<int64_t>(std::clamp(w, -1.0, 1e9)), 0, last);
    out.values[i] = args[static_cast<size_t>(c) + 1].values[i];
  }
  return OneArray(std::move(out));
}

Impl ConcatenateImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().concatenate, args, params));
  AXE_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(params, "concatenate", "dimension"));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  std::vector<int64_t> out_strides = Strides(aval.shape());
  int64_t offset = 0;
  for (const HostArray& a : args) {
    std::vector<int64_t> index(a.aval.rank(), 0);
    for (size_t i = 0; i < a.values.size(); ++i, NextIndex(index, a.aval.shape())) {
      int64_t flat = 0;
      for (size_t d = 0; d < index.size(); ++d) {
        flat += (index[d] + (static_cast<int64_t>(d) == dim ? offset : 0)) * out_strides[d];
      }
      out.values[static_cast<size_t>(flat)] = a.values[i];
    }
    offset += a.aval.shape()[static_cast<size_t>(dim)];
  }
  return OneArray(std::move(out));
}

}  // namespace

void RegisterShapeImpls(const BuiltinPrimitives& p) {
  RegisterImpl(*p.convert_element_type, ConvertImpl);
  RegisterImpl(*p.broadcast_in_dim, BroadcastImpl);
  RegisterImpl(*p.reshape, ReshapeImpl);
  RegisterImpl(*p.squeeze, SameValues(*p.squeeze));
  RegisterImpl(*p.with_layout_constraint, SameValues(*p.with_layout_constraint));
  RegisterImpl(*p.transpose, TransposeImpl);
  RegisterImpl(*p.reduce_sum, ReductionImpl(*p.reduce_sum, Fold::kSum));
  RegisterImpl(*p.reduce_prod, ReductionImpl(*p.reduce_prod, Fold::kProd));
  RegisterImpl(*p.reduce_max, ReductionImpl(*p.reduce_max, Fold::kMax));
  RegisterImpl(*p.reduce_min, ReductionImpl(*p.reduce_min, Fold::kMin));
  RegisterImpl(*p.iota, IotaImpl);
  RegisterImpl(*p.select_n, SelectImpl);
  RegisterImpl(*p.concatenate, ConcatenateImpl);
}

}  // namespace axe::ir::internal
