// The reductions, with every rule: reduce_sum (linear), reduce_max, reduce_min and reduce_prod
// over `axes`; argmax and argmin (index results) and reduce_or / reduce_and / reduce_xor
// (bitwise over integers, logical over bool) with zero tangents; the cumulative reductions
// cumsum (linear), cumprod, cummax, cummin and cumlogsumexp along `axis`. Sums fold pairwise
// as XLA's CPU reductions do; cumprod / cummax / cummin differentiate as JAX's associative
// scans.
//
// Sections hold the typing rules, then the impl, JVP, transpose and batching rules; the
// Register functions at the end register each primitive's rules together.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/numerics.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/control_flow.h"
#include "axe/ir/eval.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "axe/ir/transpose.h"

#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Result = absl::StatusOr<std::vector<ShapedArray>>;

Rule Reduction(std::string name) {
  return [name](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 1));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, name, "axes"));
    const ShapedArray& x = avals[0];
    std::vector<bool> drop(x.rank(), false);
    for (int64_t a : axes) {
      if (a < 0 || a >= Rank(x)) {
        return TypeError(absl::StrCat("reduction axes ", PyTuple(axes),
                                      " contains out-of-bounds indices for ", x.Str(), "."));
      }
      if (drop[a]) {
        return TypeError(absl::StrCat("duplicate value in 'axes' of reduction: ", PyTuple(axes)));
      }
      drop[a] = true;
    }
    std::vector<int64_t> shape;
    for (size_t i = 0; i < x.rank(); ++i) {
      if (!drop[i]) shape.push_back(x.shape()[i]);
    }
    return One(x.WithShape(std::move(shape)));
  };
}

// argmax / argmin: one reduced axis, the index dtype's result.
Rule ArgReduction(std::string name) {
  return [name](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, name, "axes"));
    if (axes.size() != 1) {
      return TypeError(absl::StrCat(name, " requires exactly one axis, got ", PyTuple(axes)));
    }
    AXE_ASSIGN_OR_RETURN(const Param* dtype_param, GetParam(params, name, "index_dtype"));
    AXE_ASSIGN_OR_RETURN(DType index, dtype_param->AsDType("index_dtype"));
    if (!IsIntegral(index)) {
      return TypeError(
          absl::StrCat(name, " index_dtype must be an integer type, got ", DTypeName(index)));
    }
    AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> out, Reduction(name)(avals, params));
    return One(out[0].WithDType(index).WithWeakType(false));
  };
}

// reduce_or / reduce_and / reduce_xor: a bool or integer operand (JAX's words), reduced; the
// result is never weakly typed (JAX strips it). Axes are checked as for the other reductions:
// JAX's rule drops them with np.delete, which would also take a negative or repeated axis,
// but no JAX function binds those.
Rule LogicalReduction(std::string name) {
  return [name](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 1));
    const DType t = avals[0].dtype();
    if (t != DType::kPred && !IsIntegral(t)) {
      return TypeError(absl::StrCat("logical reduction requires operand dtype bool or int, got ",
                                    DTypeName(t), "."));
    }
    AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> out, Reduction(name)(avals, params));
    return One(out[0].WithWeakType(false));
  };
}

// `rule`, then JAX's dtype check of reduce_sum, reduce_prod and the cumulative reductions: the
// operand must be a number (JAX checks the shape first, then the dtype).
Rule NumbersOnly(std::string name, Rule rule) {
  return [name, rule](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> out, rule(avals, params));
    if (avals[0].dtype() == DType::kPred || IsKeyType(avals[0].dtype())) {
      return TypeError(absl::StrCat(name, " does not accept dtype ", DTypeName(avals[0].dtype()),
                                    ". Accepted dtypes are subtypes of number."));
    }
    return out;
  };
}

// cumsum ... cumlogsumexp: the operand's type; `axis` within its rank (JAX's words).
Rule Cumulative(std::string name) {
  return [name](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 1));
    AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, name, "axis"));
    const ShapedArray& x = avals[0];
    if (axis < 0) return TypeError("XLA operations do not allow negative axes");
    if (axis >= Rank(x)) {
      return TypeError(
          absl::StrCat("axis ", axis, " is out of bounds for array of shape ", PyTuple(x.shape())));
    }
    return One(x);
  };
}

using Impl = absl::StatusOr<std::vector<HostArray>>;

// reduce_or / reduce_and / reduce_xor ('|', '&', '^'): bitwise over an integer type's bits,
// logical over bool; an empty reduction gives the identity (0, all ones, 0).
ImplRule LogicalReduceImpl(const Primitive& prim, char op) {
  return [&prim, op](absl::Span<const HostArray> args, const Params& params) -> Impl {
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, prim.name(), "axes"));
    AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
    const DType t = aval.dtype();
    std::vector<uint64_t> acc(out.values.size(), op == '&' ? ~uint64_t{0} : 0);
    const std::vector<int64_t> at = ReducedPositions(args[0], axes);
    for (size_t i = 0; i < at.size(); ++i) {
      const double v = args[0].values[i];
      const uint64_t bits = t == DType::kPred ? (v != 0) : static_cast<uint64_t>(AsInt64(v));
      uint64_t& a = acc[static_cast<size_t>(at[i])];
      a = op == '|' ? (a | bits) : op == '&' ? (a & bits) : (a ^ bits);
    }
    for (size_t o = 0; o < acc.size(); ++o) {
      if (t == DType::kPred) {
        out.values[o] = static_cast<double>(acc[o] & 1);
      } else if (IsUnsignedIntegral(t)) {
        out.values[o] = static_cast<double>(acc[o] & UnsignedMask(t));
      } else {  // sign-extended operands give a sign-extended result
        out.values[o] = static_cast<double>(static_cast<int64_t>(acc[o]));
      }
    }
    return OneArray(std::move(out));
  };
}

// The index of the first maximum (minimum) along the axis; a NaN counts as the extreme.
ImplRule ArgImpl(const Primitive& prim, bool is_max) {
  return [&prim, is_max](absl::Span<const HostArray> args, const Params& params) -> Impl {
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, prim.name(), "axes"));
    AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
    std::vector<double> best(out.values.size(), 0);
    std::vector<bool> seen(out.values.size(), false);
    const ShapedArray& x = args[0].aval;
    size_t axis = static_cast<size_t>(axes[0]);
    std::vector<int64_t> at = ReducedPositions(args[0], axes);
    std::vector<int64_t> index(x.rank(), 0);
    for (size_t i = 0; i < at.size(); ++i, NextIndex(index, x.shape())) {
      size_t o = static_cast<size_t>(at[i]);
      double v = args[0].values[i];
      bool take = !seen[o] ||
                  (!std::isnan(best[o]) && (std::isnan(v) || (is_max ? v > best[o] : v < best[o])));
      if (take) {
        seen[o] = true;
        best[o] = v;
        out.values[o] = static_cast<double>(index[axis]);
      }
    }
    return OneArray(std::move(out));
  };
}

enum class Cum { kSum, kProd, kMax, kMin, kLogSumExp };

double Combine(Cum op, double acc, double v, DType t) {
  switch (op) {
    case Cum::kSum: return RoundToDType(acc + v, t);
    case Cum::kProd: return RoundToDType(acc * v, t);
    case Cum::kMax: return std::isnan(acc) || std::isnan(v) ? NAN : std::max(acc, v);
    case Cum::kMin: return std::isnan(acc) || std::isnan(v) ? NAN : std::min(acc, v);
    case Cum::kLogSumExp: {
      if (std::isnan(acc) || std::isnan(v)) return NAN;
      double m = std::max(acc, v);
      if (m == -HUGE_VAL) return -HUGE_VAL;
      if (m == HUGE_VAL) return HUGE_VAL;
      return RoundToDType(m + std::log1p(std::exp(std::min(acc, v) - m)), t);
    }
  }
  return v;
}

ImplRule CumulativeImpl(const Primitive& prim, Cum op) {
  return [&prim, op](absl::Span<const HostArray> args, const Params& params) -> Impl {
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
    AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, prim.name(), "axis"));
    bool reverse = false;
    if (auto it = params.find("reverse"); it != params.end()) {
      AXE_ASSIGN_OR_RETURN(reverse, it->second.AsBool("reverse"));
    }
    HostArray out{aval, args[0].values};
    const std::vector<int64_t>& shape = aval.shape();
    int64_t n = shape[static_cast<size_t>(axis)];
    int64_t inner = 1, outer = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<int64_t>(d) < axis) outer *= shape[d];
      if (static_cast<int64_t>(d) > axis) inner *= shape[d];
    }
    // Integer sums and products run in 64-bit accumulators: exact two's complement wrap-around.
    const DType t = aval.dtype();
    const bool wrap = IsIntegral(t) && (op == Cum::kSum || op == Cum::kProd);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        uint64_t run = 0;
        for (int64_t k = 0; k < n; ++k) {
          int64_t cur = reverse ? n - 1 - k : k, prev = reverse ? cur + 1 : cur - 1;
          size_t c = static_cast<size_t>((o * n + cur) * inner + in);
          if (wrap) {
            const uint64_t v = static_cast<uint64_t>(AsInt64(out.values[c]));
            run = k == 0 ? v : (op == Cum::kSum ? run + v : run * v);
            out.values[c] = IntegerFromBits(run, t);
          } else if (k > 0) {
            size_t p = static_cast<size_t>((o * n + prev) * inner + in);
            out.values[c] = Combine(op, out.values[p], out.values[c], t);
          }
        }
      }
    }
    for (double& v : out.values) v = RoundToDType(v, aval.dtype());
    return OneArray(std::move(out));
  };
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

// The tangent at the maximal positions, averaged over ties (JAX's location-indicator rule).
// reduce_min likewise at the minimal positions.
JvpRule ReduceExtremumJvp(const Primitive* reduce) {
  return [reduce](Builder&, absl::Span<const Tracer> primals, absl::Span<const OptTracer> tangents,
                  const Params& params) -> absl::StatusOr<JvpResult> {
    const BuiltinPrimitives& p = Builtins();
    const Tracer& x = primals[0];
    AXE_ASSIGN_OR_RETURN(Tracer out, Op(*reduce, {x}, params));
    if (!tangents[0]) return JvpResult{{out}, {std::nullopt}};
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, reduce->name(), "axes"));
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < static_cast<int64_t>(x.aval.rank()); ++d) {
      if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept.push_back(d);
    }
    AXE_ASSIGN_OR_RETURN(Tracer wide, BroadcastInDim(out, x.aval.shape(), kept));
    AXE_ASSIGN_OR_RETURN(Tracer hit, Op(*p.eq, {x, wide}));
    AXE_ASSIGN_OR_RETURN(Tracer mask, ConvertElementType(hit, x.aval.dtype()));
    AXE_ASSIGN_OR_RETURN(Tracer picked, Op(*p.mul, {*tangents[0], mask}));
    AXE_ASSIGN_OR_RETURN(Tracer num, ReduceSum(picked, axes));
    AXE_ASSIGN_OR_RETURN(Tracer count, ReduceSum(mask, axes));
    AXE_ASSIGN_OR_RETURN(Tracer t, Op(*p.div, {num, count}));
    return JvpResult{{out}, {t}};
  };
}

// Operand `x` split at `at` along dimension 0: the pieces [0, at) and [at, size).
absl::StatusOr<std::pair<Tracer, Tracer>> SplitFront(const Tracer& x, int64_t at) {
  AXE_ASSIGN_OR_RETURN(Tracer front, SliceRows(x, 0, at));
  AXE_ASSIGN_OR_RETURN(Tracer back, SliceRows(x, at, x.aval.shape()[0]));
  return std::make_pair(front, back);
}

// `x` with one more row of `value` at the end of dimension 0.
absl::StatusOr<Tracer> PadEnd1(Builder& b, const Tracer& x, double value) {
  std::vector<Param> config(x.aval.rank(), Param::Ints({0, 0, 0}));
  config[0] = Param::Ints({0, 1, 0});
  return Op(*Builtins().pad, {x, b.Scalar(value, x.aval.dtype())},
            {{"padding_config", Param::Tuple(std::move(config))}});
}

// reduce_prod's tangent without dividing by the operand (zeros are allowed), as JAX's rule
// computes it: the reduced axes are moved to the front and flattened, then the rows are
// halved until one is left, x = x1 * x2 and t = t1 * x2 + x1 * t2 (an odd second half padded
// with a row of ones, its tangent with zeros). Each step binds slice, pad, mul and add, so the
// tangent can be differentiated again.
absl::StatusOr<JvpResult> ReduceProdJvp(Builder& b, absl::Span<const Tracer> primals,
                                        absl::Span<const OptTracer> tangents,
                                        const Params& params) {
  const BuiltinPrimitives& p = Builtins();
  const Tracer& x = primals[0];
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*p.reduce_prod, {x}, params));
  const std::optional<int64_t> count = x.aval.NumElements();
  if (!count) return absl::InvalidArgumentError("reduce_prod: the operand's size overflows int64");
  if (!tangents[0] || *count == 0) return JvpResult{{out}, {std::nullopt}};
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, "reduce_prod", "axes"));
  const std::vector<int64_t>& shape = x.aval.shape();
  std::vector<int64_t> perm = axes, flat = {1};
  for (int64_t a : axes) flat[0] *= shape[static_cast<size_t>(a)];  // <= the element count
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (std::find(axes.begin(), axes.end(), d) != axes.end()) continue;
    perm.push_back(d);
    flat.push_back(shape[static_cast<size_t>(d)]);
  }
  const bool moved = !std::is_sorted(perm.begin(), perm.end());
  Tracer xs = x, ts = *tangents[0];
  const Params reshape = {{"dimensions", moved ? Param::Ints(perm) : Param::None()},
                          {"new_sizes", Param::Ints(flat)},
                          {"sharding", Param::None()}};
  for (Tracer* v : {&xs, &ts}) {
    if (!moved && v->aval.shape() == flat) continue;  // as JAX's reshape, which returns x
    AXE_ASSIGN_OR_RETURN(*v, Op(*p.reshape, {*v}, reshape));
  }
  for (int64_t n = flat[0]; n > 1; n = (n + 1) / 2) {
    AXE_ASSIGN_OR_RETURN(auto xh, SplitFront(xs, (n + 1) / 2));
    AXE_ASSIGN_OR_RETURN(auto th, SplitFront(ts, (n + 1) / 2));
    if (n % 2 == 1) {
      AXE_ASSIGN_OR_RETURN(xh.second, PadEnd1(b, xh.second, 1));
      AXE_ASSIGN_OR_RETURN(th.second, PadEnd1(b, th.second, 0));
    }
    AXE_ASSIGN_OR_RETURN(Tracer left, Op(*p.mul, {th.first, xh.second}));
    AXE_ASSIGN_OR_RETURN(Tracer right, Op(*p.mul, {xh.first, th.second}));
    AXE_ASSIGN_OR_RETURN(ts, Op(*p.add, {left, right}));
    AXE_ASSIGN_OR_RETURN(xs, Op(*p.mul, {xh.first, xh.second}));
  }
  AXE_ASSIGN_OR_RETURN(Tracer t, Squeeze(ts, {0}));
  return JvpResult{{out}, {t}};
}

enum class Running { kProd, kMax, kMin };

// One step of the scan: the next carry (value, tangent) and the tangent as the step's output.
absl::StatusOr<std::vector<Tracer>> Step(Builder& body, Running op, const Tracer& m,
                                         const Tracer& dm, const Tracer& x, const Tracer& t) {
  const BuiltinPrimitives& p = Builtins();
  if (op == Running::kProd) {
    AXE_ASSIGN_OR_RETURN(Tracer next, Op(*p.mul, {m, x}));
    AXE_ASSIGN_OR_RETURN(Tracer carried, Op(*p.mul, {dm, x}));
    AXE_ASSIGN_OR_RETURN(Tracer fresh, Op(*p.mul, {m, t}));
    AXE_ASSIGN_OR_RETURN(Tracer dnext, Op(*p.add, {carried, fresh}));
    return std::vector<Tracer>{next, dnext, dnext};
  }
  const bool is_max = op == Running::kMax;
  AXE_ASSIGN_OR_RETURN(Tracer next, Op(is_max ? *p.max : *p.min, {m, x}));
  AXE_ASSIGN_OR_RETURN(Tracer takes, Op(is_max ? *p.gt : *p.lt, {x, m}));
  AXE_ASSIGN_OR_RETURN(Tracer ties, Op(*p.eq, {x, m}));
  AXE_ASSIGN_OR_RETURN(Tracer sum, Op(*p.add, {dm, t}));
  AXE_ASSIGN_OR_RETURN(Tracer half, Op(*p.mul, {sum, body.Scalar(0.5, t.aval.dtype())}));
  AXE_ASSIGN_OR_RETURN(Tracer kept, Op(*p.select_n, {ties, dm, half}));
  AXE_ASSIGN_OR_RETURN(Tracer dnext, Op(*p.select_n, {takes, kept, t}));
  return std::vector<Tracer>{next, dnext, dnext};
}

absl::StatusOr<Tracer> Rev0(const Tracer& x) {
  return Op(*Builtins().rev, {x}, {{"dimensions", Param::Ints({0})}});
}

// The tangent of the running reduction along dimension 0 of `x` (n >= 1 rows).
absl::StatusOr<Tracer> RunningTangent(Running op, const Tracer& x, const Tracer& t) {
  const int64_t n = x.aval.shape()[0];
  if (n == 1) return t;
  AXE_ASSIGN_OR_RETURN(Tracer x0_row, SliceRows(x, 0, 1));
  AXE_ASSIGN_OR_RETURN(Tracer t0_row, SliceRows(t, 0, 1));
  AXE_ASSIGN_OR_RETURN(Tracer x0, Squeeze(x0_row, {0}));
  AXE_ASSIGN_OR_RETURN(Tracer t0, Squeeze(t0_row, {0}));
  AXE_ASSIGN_OR_RETURN(Tracer x_rest, SliceRows(x, 1, n));
  AXE_ASSIGN_OR_RETURN(Tracer t_rest, SliceRows(t, 1, n));
  TracedFunction body = [op](Builder& b, absl::Span<const Tracer> a) {
    return Step(b, op, a[0], a[1], a[2], a[3]);
  };
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> res, Scan(body, {x0, t0}, {x_rest, t_rest}, n - 1));
  return Concatenate({t0_row, res[2]}, 0);
}

JvpRule CumulativeJvp(const Primitive* prim, Running op) {
  return
      [prim, op](Builder&, absl::Span<const Tracer> primals, absl::Span<const OptTracer> tangents,
                 const Params& params) -> absl::StatusOr<JvpResult> {
        const Tracer& x = primals[0];
        AXE_ASSIGN_OR_RETURN(Tracer out, Op(*prim, {x}, params));
        const std::optional<int64_t> count = x.aval.NumElements();
        if (!tangents[0] || !count || *count == 0) return JvpResult{{out}, {std::nullopt}};
        AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, prim->name(), "axis"));
        bool reverse = false;
        if (auto it = params.find("reverse"); it != params.end()) {
          AXE_ASSIGN_OR_RETURN(reverse, it->second.AsBool("reverse"));
        }
        std::vector<int64_t> perm(x.aval.rank());
        std::iota(perm.begin(), perm.end(), 0);
        perm.erase(perm.begin() + axis);
        perm.insert(perm.begin(), axis);
        Tracer xs = x, ts = *tangents[0];
        for (Tracer* v : {&xs, &ts}) {
          if (axis != 0) {
            AXE_ASSIGN_OR_RETURN(*v, Transpose(*v, perm));
          }
          if (reverse) {
            AXE_ASSIGN_OR_RETURN(*v, Rev0(*v));
          }
        }
        AXE_ASSIGN_OR_RETURN(Tracer t, RunningTangent(op, xs, ts));
        if (reverse) {
          AXE_ASSIGN_OR_RETURN(t, Rev0(t));
        }
        if (axis != 0) {
          AXE_ASSIGN_OR_RETURN(t, Transpose(t, InversePermutation(perm)));
        }
        return JvpResult{{out}, {t}};
      };
}

using Cts = absl::StatusOr<std::vector<OptTracer>>;

const BuiltinPrimitives& ReducePrims() { return Builtins(); }

// d out_i = sum_{j <= i} exp(x_j - out_i) dx_j, computed as
// cumsum(exp(x - m) * dx) * exp(m - out) with m the maximum along the axis.
absl::StatusOr<JvpResult> CumLogSumExpJvp(Builder&, absl::Span<const Tracer> primals,
                                          absl::Span<const OptTracer> tangents,
                                          const Params& params) {
  const Tracer& x = primals[0];
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*ReducePrims().cumlogsumexp, {x}, params));
  if (!tangents[0]) return JvpResult{{out}, {std::nullopt}};
  AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, "cumlogsumexp", "axis"));
  AXE_ASSIGN_OR_RETURN(Tracer m, ReduceMax(x, {axis}));
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < static_cast<int64_t>(x.aval.rank()); ++d) {
    if (d != axis) kept.push_back(d);
  }
  AXE_ASSIGN_OR_RETURN(Tracer wide, BroadcastInDim(m, x.aval.shape(), kept));
  AXE_ASSIGN_OR_RETURN(Tracer shifted, Op(*ReducePrims().sub, {x, wide}));
  AXE_ASSIGN_OR_RETURN(Tracer weights, Op(*ReducePrims().exp, {shifted}));
  AXE_ASSIGN_OR_RETURN(Tracer weighted, Op(*ReducePrims().mul, {weights, *tangents[0]}));
  Params cumsum_params = params;
  cumsum_params.erase("reverse");
  if (auto it = params.find("reverse"); it != params.end()) cumsum_params["reverse"] = it->second;
  AXE_ASSIGN_OR_RETURN(Tracer sums, Op(*ReducePrims().cumsum, {weighted}, cumsum_params));
  AXE_ASSIGN_OR_RETURN(Tracer back, Op(*ReducePrims().sub, {wide, out}));
  AXE_ASSIGN_OR_RETURN(Tracer scale, Op(*ReducePrims().exp, {back}));
  AXE_ASSIGN_OR_RETURN(Tracer t, Op(*ReducePrims().mul, {sums, scale}));
  return JvpResult{{out}, {t}};
}

// cumsum's transpose runs the other way along the axis.
Cts CumsumTranspose(Builder&, absl::Span<const OptTracer> cts, absl::Span<const TransposeArg> args,
                    const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  bool reverse = false;
  if (auto it = params.find("reverse"); it != params.end()) {
    AXE_ASSIGN_OR_RETURN(reverse, it->second.AsBool("reverse"));
  }
  Params flipped = params;
  flipped["reverse"] = Param::Bool(!reverse);
  AXE_ASSIGN_OR_RETURN(out[0], Op(*ReducePrims().cumsum, {*cts[0]}, flipped));
  return out;
}

Cts ReduceSumTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                       absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, "reduce_sum", "axes"));
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < static_cast<int64_t>(args[0].aval.rank()); ++d) {
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept.push_back(d);
  }
  AXE_ASSIGN_OR_RETURN(Tracer r, BroadcastInDim(*cts[0], args[0].aval.shape(), kept));
  out[0] = r;
  return out;
}

// reduce_sum (linear), reduce_max, reduce_min and reduce_prod, with every rule.
void RegisterArithmeticReductions(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.reduce_sum, NumbersOnly("reduce_sum", Reduction("reduce_sum")));
  RegisterImpl(*p.reduce_sum, ReductionImpl(*p.reduce_sum, Fold::kSum));
  RegisterJvp(*p.reduce_sum, LinearJvp(p.reduce_sum, LinearOperands::kFirst));
  RegisterTranspose(*p.reduce_sum, ReduceSumTranspose);
  RegisterBatching(*p.reduce_sum,
                   OneOperandBatching(p.reduce_sum, ShiftInts("reduce_sum", "axes")));

  RegisterAbstractEval(*p.reduce_max, Reduction("reduce_max"));
  RegisterImpl(*p.reduce_max, ReductionImpl(*p.reduce_max, Fold::kMax));
  RegisterJvp(*p.reduce_max, ReduceExtremumJvp(p.reduce_max));
  RegisterBatching(*p.reduce_max,
                   OneOperandBatching(p.reduce_max, ShiftInts("reduce_max", "axes")));

  RegisterAbstractEval(*p.reduce_min, Reduction("reduce_min"));
  RegisterImpl(*p.reduce_min, ReductionImpl(*p.reduce_min, Fold::kMin));
  RegisterJvp(*p.reduce_min, ReduceExtremumJvp(p.reduce_min));
  RegisterBatching(*p.reduce_min,
                   OneOperandBatching(p.reduce_min, ShiftInts("reduce_min", "axes")));

  RegisterAbstractEval(*p.reduce_prod, NumbersOnly("reduce_prod", Reduction("reduce_prod")));
  RegisterImpl(*p.reduce_prod, ReductionImpl(*p.reduce_prod, Fold::kProd));
  RegisterJvp(*p.reduce_prod, ReduceProdJvp);
  RegisterBatching(*p.reduce_prod,
                   OneOperandBatching(p.reduce_prod, ShiftInts("reduce_prod", "axes")));
}

// argmax / argmin and the logical reductions: integer or bool results, zero tangents.
void RegisterIndexAndLogicalReductions(const BuiltinPrimitives& p) {
  for (auto [prim, is_max] : {std::pair{p.argmax, true}, {p.argmin, false}}) {
    RegisterAbstractEval(*prim, ArgReduction(prim->name()));
    RegisterImpl(*prim, ArgImpl(*prim, is_max));
    RegisterJvp(*prim, ZeroTangentJvpRule(prim));
    RegisterBatching(*prim, OneOperandBatching(prim, ShiftInts(prim->name().c_str(), "axes")));
  }
  for (auto [prim, op] : {std::pair{p.reduce_or, '|'}, {p.reduce_and, '&'}, {p.reduce_xor, '^'}}) {
    RegisterAbstractEval(*prim, LogicalReduction(prim->name()));
    RegisterImpl(*prim, LogicalReduceImpl(*prim, op));
    RegisterJvp(*prim, ZeroTangentJvpRule(prim));
    // names live as long as prim
    RegisterBatching(*prim, OneOperandBatching(prim, ShiftInts(prim->name().c_str(), "axes")));
  }
}

// The cumulative reductions along `axis`: cumsum is linear, cumprod / cummax / cummin take
// JAX's associative-scan derivatives, cumlogsumexp its own.
void RegisterCumulativeReductions(const BuiltinPrimitives& p) {
  for (const Primitive* prim : {p.cumsum, p.cumprod, p.cummax, p.cummin, p.cumlogsumexp}) {
    RegisterAbstractEval(*prim, NumbersOnly(prim->name(), Cumulative(prim->name())));
    RegisterBatching(*prim, OneOperandBatching(prim, ShiftAxis(prim->name())));
  }
  RegisterImpl(*p.cumsum, CumulativeImpl(*p.cumsum, Cum::kSum));
  DefLinear2(*p.cumsum, CumsumTranspose);

  RegisterImpl(*p.cumprod, CumulativeImpl(*p.cumprod, Cum::kProd));
  RegisterJvp(*p.cumprod, CumulativeJvp(p.cumprod, Running::kProd));

  RegisterImpl(*p.cummax, CumulativeImpl(*p.cummax, Cum::kMax));
  RegisterJvp(*p.cummax, CumulativeJvp(p.cummax, Running::kMax));

  RegisterImpl(*p.cummin, CumulativeImpl(*p.cummin, Cum::kMin));
  RegisterJvp(*p.cummin, CumulativeJvp(p.cummin, Running::kMin));

  RegisterImpl(*p.cumlogsumexp, CumulativeImpl(*p.cumlogsumexp, Cum::kLogSumExp));
  RegisterJvp(*p.cumlogsumexp, CumLogSumExpJvp);
}

}  // namespace

void DefineReduce(BuiltinPrimitives& p) {
  p.reduce_sum = DefineOneResult("reduce_sum", {{"axes", ParamType::kInts}});
  p.reduce_max = DefineOneResult("reduce_max", {{"axes", ParamType::kInts}});
  p.reduce_min = DefineOneResult("reduce_min", {{"axes", ParamType::kInts}});
  p.reduce_prod = DefineOneResult("reduce_prod", {{"axes", ParamType::kInts}});
  p.argmax =
      DefineOneResult("argmax", {{"axes", ParamType::kInts}, {"index_dtype", ParamType::kDType}});
  p.argmin =
      DefineOneResult("argmin", {{"axes", ParamType::kInts}, {"index_dtype", ParamType::kDType}});
  p.reduce_or = DefineOneResult("reduce_or", {{"axes", ParamType::kInts}});
  p.reduce_and = DefineOneResult("reduce_and", {{"axes", ParamType::kInts}});
  p.reduce_xor = DefineOneResult("reduce_xor", {{"axes", ParamType::kInts}});
  auto cumulative = [](std::string name) {
    return DefineOneResult(std::move(name),
                           {{"axis", ParamType::kInt}, {"reverse", ParamType::kBool}});
  };
  p.cumsum = cumulative("cumsum");
  p.cumprod = cumulative("cumprod");
  p.cummax = cumulative("cummax");
  p.cummin = cumulative("cummin");
  p.cumlogsumexp = cumulative("cumlogsumexp");
}

void RegisterReduceRules(const BuiltinPrimitives& p) {
  RegisterArithmeticReductions(p);
  RegisterIndexAndLogicalReductions(p);
  RegisterCumulativeReductions(p);
}

}  // namespace axe::ir::internal
