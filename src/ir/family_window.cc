// The windowed reductions (pooling), with every rule: reduce_window_sum (linear; its transpose
// pads the cotangent and sums it over windows again), reduce_window_max and reduce_window_min
// (JVP through select_and_gather_add, as JAX's), the generic reduce_window (a jaxpr
// reducer over any number of operands), select_and_gather_add (the tangent of each window's
// chosen element) and select_and_scatter_add (its transpose: each window's cotangent added at
// the chosen element).
//
//   reduce_window_max[base_dilation=(1, 1, 1, 1) padding=((0, 0), (0, 1), (0, 1), (0, 0))
//     window_dilation=(1, 1, 1, 1) window_dimensions=(1, 2, 2, 1)
//     window_strides=(1, 2, 2, 1)] x
//   select_and_scatter_add[padding=... select_prim=ge window_dimensions=...
//     window_strides=...] ct x
//
// Output position y of dimension d reads the input at y * stride + k * window_dilation -
// pad_lo for window position k, in the input dilated by base_dilation. Positions on padding
// or on a hole of the dilation take no part (the init value stands for them). Among equal
// candidates the first in row-major window order is chosen (XLA's select order).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/ir/ad.h"
#include "axe/ir/builder.h"
#include "axe/ir/eval.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
// A named namespace: the unity build shares anonymous namespaces between files.
namespace window_family {

using Ints = std::vector<int64_t>;
using Pads = std::vector<std::pair<int64_t, int64_t>>;

struct Window {
  Ints dims, strides, base_dilation, window_dilation;
  Pads padding;
};

absl::StatusOr<Pads> ReadPadding(const Params& params, absl::string_view prim) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, prim, "padding"));
  Pads pads;
  const std::string bad =
      absl::StrCat(prim, " padding must be a sequence of (low, high) pairs, got ", p->ToString());
  if (p->kind() != Param::Kind::kTuple && p->kind() != Param::Kind::kList) return TypeError(bad);
  for (const Param& pair : p->items()) {
    absl::StatusOr<Ints> lh = pair.AsInts("padding");
    if (!lh.ok() || lh->size() != 2) return TypeError(bad);
    pads.push_back({(*lh)[0], (*lh)[1]});
  }
  return pads;
}

// JAX's lax._check_shapelike.
absl::Status CheckShapelike(absl::string_view prim, absl::string_view name, const Ints& v,
                            bool positive) {
  for (int64_t d : v) {
    if (d < (positive ? 1 : 0)) {
      return TypeError(absl::StrCat(prim, " ", name, " must have every element be ",
                                    positive ? "strictly positive" : "nonnegative", ", got ",
                                    PyTuple(v), "."));
    }
  }
  return absl::OkStatus();
}

// The window params with JAX's checks (reduce_window's words, as JAX's shape rule says them);
// `dilations`: select_and_scatter_add has none (all ones).
absl::StatusOr<Window> ReadWindow(const Params& params, absl::string_view prim, size_t rank,
                                  bool dilations) {
  Window w;
  AXE_ASSIGN_OR_RETURN(w.dims, RequiredInts(params, prim, "window_dimensions"));
  AXE_ASSIGN_OR_RETURN(w.strides, RequiredInts(params, prim, "window_strides"));
  AXE_ASSIGN_OR_RETURN(w.padding, ReadPadding(params, prim));
  w.base_dilation = w.window_dilation = Ints(w.dims.size(), 1);
  if (dilations) {
    AXE_ASSIGN_OR_RETURN(w.base_dilation, RequiredInts(params, prim, "base_dilation"));
    AXE_ASSIGN_OR_RETURN(w.window_dilation, RequiredInts(params, prim, "window_dilation"));
  }
  AXE_RETURN_IF_ERROR(CheckShapelike("reduce_window", "window_dimensions", w.dims, true));
  AXE_RETURN_IF_ERROR(CheckShapelike("reduce_window", "window_strides", w.strides, true));
  AXE_RETURN_IF_ERROR(CheckShapelike("reduce_window", "base_dilation", w.base_dilation, false));
  AXE_RETURN_IF_ERROR(CheckShapelike("reduce_window", "window_dilation", w.window_dilation, false));
  if (rank != w.dims.size()) {
    return TypeError(absl::StrCat(
        "reduce_window got the wrong number of window_dimensions for operand: got operand "
        "shape with rank ",
        rank, " with window_dimensions ", PyTuple(w.dims), "."));
  }
  const std::pair<const char*, const Ints*> others[] = {{"window_strides", &w.strides},
                                                        {"base_dilation", &w.base_dilation},
                                                        {"window_dilation", &w.window_dilation}};
  for (const auto& [name, v] : others) {
    if (v->size() != w.dims.size()) {
      return TypeError(absl::StrCat("reduce_window got inconsistent ", name,
                                    " and window_dimensions: got ", name, " ", PyTuple(*v),
                                    " and window_dimensions ", PyTuple(w.dims), "."));
    }
  }
  for (const Ints* dil : {&w.base_dilation, &w.window_dilation}) {
    for (int64_t v : *dil) {
      if (v <= 0)
        return TypeError(absl::StrCat("All dilations must be positive, got ", PyTuple(*dil), "."));
    }
  }
  if (w.padding.size() != rank) {
    return TypeError(absl::StrCat(prim, " padding must have one (low, high) pair per dimension (",
                                  rank, "), got ", w.padding.size()));
  }
  return w;
}

std::optional<int64_t> Dilated(int64_t size, int64_t dilation) {
  if (size == 0) return 0;
  std::optional<int64_t> gaps = CheckedMul(size - 1, dilation);
  return gaps ? CheckedAdd(*gaps, 1) : std::nullopt;
}

// JAX's reduce_window_shape_tuple.
absl::StatusOr<Ints> OutputShape(const Ints& in, const Window& w) {
  Ints out;
  for (size_t d = 0; d < in.size(); ++d) {
    std::optional<int64_t> base = Dilated(in[d], w.base_dilation[d]);
    std::optional<int64_t> win = Dilated(w.dims[d], w.window_dilation[d]);
    std::optional<int64_t> padded = base ? CheckedAdd(*base, w.padding[d].first) : std::nullopt;
    padded = padded ? CheckedAdd(*padded, w.padding[d].second) : std::nullopt;
    if (!win || !padded) {
      return TypeError(absl::StrCat("reduce_window dimension ", d,
                                    " overflows 64 bits once dilated and padded"));
    }
    out.push_back(*padded < *win ? 0 : (*padded - *win) / w.strides[d] + 1);
  }
  return out;
}

absl::StatusOr<ShapedArray> WindowedAval(const ShapedArray& x, const Window& w) {
  AXE_ASSIGN_OR_RETURN(Ints shape, OutputShape(x.shape(), w));
  return x.WithShape(std::move(shape));
}

// ---- typing ----

using Result = absl::StatusOr<std::vector<ShapedArray>>;

Rule ReduceWindowRule(std::string name, bool numbers_only) {
  return [name, numbers_only](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 1));
    const ShapedArray& x = avals[0];
    if (numbers_only && (x.dtype() == DType::kPred || IsKeyType(x.dtype()))) {
      return TypeError(absl::StrCat("operand to ", name, " must have a number dtype, got ",
                                    DTypeName(x.dtype())));
    }
    AXE_ASSIGN_OR_RETURN(Window w, ReadWindow(params, name, x.rank(), true));
    AXE_ASSIGN_OR_RETURN(ShapedArray out, WindowedAval(x, w));
    return One(std::move(out));
  };
}

absl::StatusOr<const Primitive*> SelectPrim(const Params& params, absl::string_view prim) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, prim, "select_prim"));
  const std::string text = p->kind() == Param::Kind::kSymbol ? p->text() : p->ToString();
  if (text == "ge") return Builtins().ge;
  if (text == "le") return Builtins().le;
  return TypeError(absl::StrCat(prim, " select_prim must be ge or le, got ", p->ToString()));
}

Result SelectAndGatherAddRule(absl::Span<const ShapedArray> avals, const Params& params) {
  constexpr const char* kName = "select_and_gather_add";
  AXE_RETURN_IF_ERROR(ExpectArity(kName, avals, 2));
  const ShapedArray &t = avals[0], &x = avals[1];
  if (t.shape() != x.shape()) {
    return TypeError(absl::StrCat(kName, " tangents and operand shapes must match, got ",
                                  PyTuple(t.shape()), " and ", PyTuple(x.shape()), "."));
  }
  AXE_RETURN_IF_ERROR(SelectPrim(params, kName).status());
  AXE_ASSIGN_OR_RETURN(Window w, ReadWindow(params, kName, x.rank(), true));
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma(kName, avals));
  AXE_ASSIGN_OR_RETURN(ShapedArray out, WindowedAval(t, w));
  return One(out.WithVma(std::move(vma)));
}

Result SelectAndScatterAddRule(absl::Span<const ShapedArray> avals, const Params& params) {
  constexpr const char* kName = "select_and_scatter_add";
  AXE_RETURN_IF_ERROR(ExpectArity(kName, avals, 2));
  const ShapedArray &source = avals[0], &x = avals[1];
  AXE_RETURN_IF_ERROR(SelectPrim(params, kName).status());
  AXE_ASSIGN_OR_RETURN(Window w, ReadWindow(params, kName, x.rank(), false));
  AXE_ASSIGN_OR_RETURN(Ints windows, OutputShape(x.shape(), w));
  if (source.shape() != windows || source.dtype() != x.dtype()) {
    return TypeError(absl::StrCat(kName, " source must have one element of the operand's dtype ",
                                  DTypeName(x.dtype()), " per window ", PyTuple(windows), ", got ",
                                  source.Str()));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma(kName, avals));
  return One(x.WithVma(std::move(vma)));
}

// The generic reduce_window: n operands then n scalar init values, a reducer jaxpr taking
// (accumulators..., elements...).
absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> Reducer(const Params& params) {
  return BodyParam(params, "reduce_window", "jaxpr");
}

Result GenericRule(absl::Span<const ShapedArray> avals, const Params& params) {
  if (avals.empty() || avals.size() % 2 != 0) {
    return TypeError(absl::StrCat("reduce_window takes operands then as many init_values, got ",
                                  avals.size(), " values"));
  }
  const size_t n = avals.size() / 2;
  std::vector<std::string> ops, inits;
  bool mismatch = false, scalars = true;
  for (size_t i = 0; i < n; ++i) {
    ops.push_back(DTypeName(avals[i].dtype()));
    inits.push_back(DTypeName(avals[n + i].dtype()));
    mismatch = mismatch || avals[i].dtype() != avals[n + i].dtype();
    scalars = scalars && avals[n + i].rank() == 0;
  }
  if (mismatch) {
    return TypeError(absl::StrCat(
        "reduce_window got inconsistent dtypes for operands and init_values: got operand dtypes "
        "[",
        absl::StrJoin(ops, ", "), "] and init_value dtypes [", absl::StrJoin(inits, ", "), "]."));
  }
  if (!scalars) {
    return TypeError(absl::StrCat(
        "reduce_window expected init_values to be scalars but init_values have shapes [",
        Shapes(avals.subspan(n)), "]."));
  }
  for (size_t i = 1; i < n; ++i) {
    if (avals[i].shape() != avals[0].shape()) {
      return TypeError(absl::StrCat("reduce_window operands must have the same shape, got ",
                                    Shapes(avals.subspan(0, n)), "."));
    }
  }
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const ClosedJaxpr> reducer, Reducer(params));
  if (reducer->jaxpr.invars.size() != 2 * n || reducer->jaxpr.outvars.size() != n) {
    return TypeError(absl::StrCat("reduce_window's jaxpr must take ", 2 * n, " scalars and return ",
                                  n, ", got one of ", reducer->jaxpr.invars.size(), " and ",
                                  reducer->jaxpr.outvars.size()));
  }
  AXE_ASSIGN_OR_RETURN(Window w, ReadWindow(params, "reduce_window", avals[0].rank(), true));
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("reduce_window", avals.subspan(0, n)));
  std::vector<ShapedArray> outs;
  for (size_t i = 0; i < n; ++i) {
    AXE_ASSIGN_OR_RETURN(ShapedArray out, WindowedAval(avals[i], w));
    outs.push_back(out.WithVma(vma));
  }
  return outs;
}

// ---- impl: direct loops over the interpreter's doubles ----

// Along one dimension, for each output position, the input positions its window reads, in
// window order (those on padding or on dilation holes left out). The loop runs over the
// shorter of the window and the input, so that huge windows or paddings stay cheap.
using Taps = std::vector<Ints>;

// Positions in 128 bits: a padding near 2^63 must not overflow on the way.
Taps DimensionTaps(int64_t in, int64_t out, const Window& w, size_t d) {
  using Wide = absl::int128;
  Taps taps(static_cast<size_t>(out));
  const Wide bd = w.base_dilation[d], wd = w.window_dilation[d], lo = w.padding[d].first;
  for (int64_t y = 0; y < out; ++y) {
    const Wide start = Wide(y) * w.strides[d] - lo;  // the window's first position, dilated
    Ints& at = taps[static_cast<size_t>(y)];
    if (w.dims[d] <= in) {
      for (int64_t k = 0; k < w.dims[d]; ++k) {
        const Wide p = start + Wide(k) * wd;
        if (p >= 0 && p % bd == 0 && p / bd < in) at.push_back(static_cast<int64_t>(p / bd));
      }
    } else {
      for (int64_t i = 0; i < in; ++i) {
        const Wide p = Wide(i) * bd - start;
        if (p >= 0 && p % wd == 0 && p / wd < w.dims[d]) at.push_back(i);
      }
    }
  }
  return taps;
}

struct WindowWalk {
  std::vector<Taps> taps;
  Ints in_strides;
  Ints out_shape;
};

// The most input positions one dimension's windows may list (all outputs together), and the
// most window elements the interpreter folds in one equation.
constexpr int64_t kMaxTapsPerDimension = int64_t{1} << 24;
constexpr int64_t kMaxWindowElements = int64_t{1} << 31;

absl::StatusOr<WindowWalk> PlanWalk(const Ints& in, const Ints& out, const Window& w) {
  int64_t total = 1;
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t reach = std::min(w.dims[d], in[d]);
    std::optional<int64_t> taps = CheckedMul(out[d], reach);
    if (!taps || *taps > kMaxTapsPerDimension) {
      return absl::ResourceExhaustedError(absl::StrCat("reduce_window dimension ", d, ": ", out[d],
                                                       " windows of ", w.dims[d], " over ", in[d],
                                                       " elements read more than 2^24 positions"));
    }
    total = CheckedMul(total, *taps).value_or(kMaxWindowElements + 1);
  }
  if (total > kMaxWindowElements) {
    return absl::ResourceExhaustedError(
        "reduce_window: the windows hold more than 2^31 elements for the interpreter");
  }
  WindowWalk walk;
  for (size_t d = 0; d < in.size(); ++d) walk.taps.push_back(DimensionTaps(in[d], out[d], w, d));
  walk.in_strides = Strides(in);
  walk.out_shape = out;
  return walk;
}

// Calls visit(offset) for the input offsets of output position y's window, row-major.
void ForEachTap(const WindowWalk& walk, const Ints& y, const std::function<void(int64_t)>& visit) {
  const size_t rank = y.size();
  std::vector<const Ints*> lists(rank);
  for (size_t d = 0; d < rank; ++d) {
    lists[d] = &walk.taps[d][static_cast<size_t>(y[d])];
    if (lists[d]->empty()) return;
  }
  Ints pos(rank, 0), sizes(rank);
  for (size_t d = 0; d < rank; ++d) sizes[d] = static_cast<int64_t>(lists[d]->size());
  do {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) {
      offset += (*lists[d])[static_cast<size_t>(pos[d])] * walk.in_strides[d];
    }
    visit(offset);
  } while (NextIndex(pos, sizes));
}

// Calls visit(out_offset, y) for every output position.
void ForEachOutput(const WindowWalk& walk, const std::function<void(int64_t, const Ints&)>& visit) {
  Ints y(walk.out_shape.size(), 0);
  for (int64_t v : walk.out_shape) {
    if (v == 0) return;
  }
  int64_t at = 0;
  do {
    visit(at++, y);
  } while (NextIndex(y, walk.out_shape));
}

double Lowest(DType t) {
  if (IsFloatingPoint(t)) return -std::numeric_limits<double>::infinity();
  if (t == DType::kPred || !IsSignedIntegral(t)) return 0;
  return -std::ldexp(1.0, BitWidth(t) - 1);
}

double Highest(DType t) {
  if (IsFloatingPoint(t)) return std::numeric_limits<double>::infinity();
  if (t == DType::kPred) return 1;
  return std::ldexp(1.0, BitWidth(t) - (IsSignedIntegral(t) ? 1 : 0)) - 1;
}

enum class Monoid { kSum, kMax, kMin };

ImplRule MonoidImpl(const Primitive* prim, Monoid m) {
  return [prim, m](absl::Span<const HostArray> args,
                   const Params& params) -> absl::StatusOr<std::vector<HostArray>> {
    const HostArray& x = args[0];
    AXE_ASSIGN_OR_RETURN(Window w, ReadWindow(params, prim->name(), x.aval.rank(), true));
    AXE_ASSIGN_OR_RETURN(ShapedArray out_aval, WindowedAval(x.aval.WithVma({}), w));
    AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(out_aval));
    const DType t = x.aval.dtype();
    AXE_ASSIGN_OR_RETURN(const WindowWalk walk, PlanWalk(x.aval.shape(), out_aval.shape(), w));
    ForEachOutput(walk, [&](int64_t at, const Ints& y) {
      uint64_t bits = 0;
      double acc = m == Monoid::kSum ? 0.0 : (m == Monoid::kMax ? Lowest(t) : Highest(t));
      ForEachTap(walk, y, [&](int64_t i) {
        const double v = x.values[static_cast<size_t>(i)];
        if (m == Monoid::kSum && IsIntegral(t)) {
          bits += static_cast<uint64_t>(AsInt64(v));
        } else if (m == Monoid::kSum) {
          acc = RoundToDType(acc + v, t);  // XLA:CPU's loop: rounded to the type per add
        } else if (std::isnan(acc) || std::isnan(v)) {
          acc = std::numeric_limits<double>::quiet_NaN();
        } else {
          acc = m == Monoid::kMax ? std::max(acc, v) : std::min(acc, v);
        }
      });
      if (m == Monoid::kSum && IsIntegral(t)) acc = IntegerFromBits(bits, t);
      out.values[static_cast<size_t>(at)] = RoundToDType(acc, t);
    });
    return OneArray(std::move(out));
  };
}

// The offset of the element each window chooses (XLA's select: the current choice stays
// while select(current, candidate) holds), or nullopt for a window of padding only.
std::optional<int64_t> Chosen(const WindowWalk& walk, const Ints& y, const HostArray& x, bool ge) {
  std::optional<int64_t> chosen;
  ForEachTap(walk, y, [&](int64_t i) {
    if (!chosen) {
      chosen = i;
      return;
    }
    const double a = x.values[static_cast<size_t>(*chosen)], b = x.values[static_cast<size_t>(i)];
    if (!(ge ? a >= b : a <= b)) chosen = i;
  });
  return chosen;
}

absl::StatusOr<std::vector<HostArray>> SelectAndGatherAddImpl(absl::Span<const HostArray> args,
                                                              const Params& params) {
  constexpr const char* kName = "select_and_gather_add";
  const HostArray &t = args[0], &x = args[1];
  AXE_ASSIGN_OR_RETURN(const Primitive* select, SelectPrim(params, kName));
  AXE_ASSIGN_OR_RETURN(Window w, ReadWindow(params, kName, x.aval.rank(), true));
  AXE_ASSIGN_OR_RETURN(ShapedArray out_aval, WindowedAval(t.aval.WithVma({}), w));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(out_aval));
  AXE_ASSIGN_OR_RETURN(const WindowWalk walk, PlanWalk(x.aval.shape(), out_aval.shape(), w));
  const bool ge = select == Builtins().ge;
  ForEachOutput(walk, [&](int64_t at, const Ints& y) {
    std::optional<int64_t> i = Chosen(walk, y, x, ge);
    if (i) out.values[static_cast<size_t>(at)] = t.values[static_cast<size_t>(*i)];
  });
  return OneArray(std::move(out));
}

absl::StatusOr<std::vector<HostArray>> SelectAndScatterAddImpl(absl::Span<const HostArray> args,
                                                               const Params& params) {
  constexpr const char* kName = "select_and_scatter_add";
  const HostArray &source = args[0], &x = args[1];
  AXE_ASSIGN_OR_RETURN(const Primitive* select, SelectPrim(params, kName));
  AXE_ASSIGN_OR_RETURN(Window w, ReadWindow(params, kName, x.aval.rank(), false));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(x.aval.WithVma({})));
  AXE_ASSIGN_OR_RETURN(const WindowWalk walk, PlanWalk(x.aval.shape(), source.aval.shape(), w));
  const bool ge = select == Builtins().ge;
  const DType t = x.aval.dtype();
  ForEachOutput(walk, [&](int64_t at, const Ints& y) {
    std::optional<int64_t> i = Chosen(walk, y, x, ge);
    if (!i) return;
    double& slot = out.values[static_cast<size_t>(*i)];
    const double v = source.values[static_cast<size_t>(at)];
    slot = t == DType::kPred ? ((slot != 0 || v != 0) ? 1 : 0) : RoundToDType(slot + v, t);
  });
  return OneArray(std::move(out));
}

absl::StatusOr<std::vector<HostArray>> GenericImpl(absl::Span<const HostArray> args,
                                                   const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> out_avals, GenericRule(PlainAvals(args), params));
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const ClosedJaxpr> reducer, Reducer(params));
  AXE_ASSIGN_OR_RETURN(Window w, ReadWindow(params, "reduce_window", args[0].aval.rank(), true));
  const size_t n = args.size() / 2;
  std::vector<HostArray> outs;
  for (const ShapedArray& a : out_avals) {
    AXE_ASSIGN_OR_RETURN(HostArray o, ZeroArray(a.WithVma({})));
    outs.push_back(std::move(o));
  }
  AXE_ASSIGN_OR_RETURN(const WindowWalk walk,
                       PlanWalk(args[0].aval.shape(), out_avals[0].shape(), w));
  absl::Status status;
  ForEachOutput(walk, [&](int64_t at, const Ints& y) {
    if (!status.ok()) return;
    std::vector<HostArray> acc(args.begin() + static_cast<int64_t>(n), args.end());
    ForEachTap(walk, y, [&](int64_t i) {
      if (!status.ok()) return;
      std::vector<HostArray> in = acc;
      for (size_t k = 0; k < n; ++k) {
        in.push_back(HostArray{acc[k].aval, {args[k].values[static_cast<size_t>(i)]}});
      }
      absl::StatusOr<std::vector<HostArray>> next = EvalJaxpr(*reducer, in);
      if (!next.ok()) {
        status = next.status();
        return;
      }
      acc = std::move(*next);
    });
    for (size_t k = 0; k < n && status.ok(); ++k) {
      outs[k].values[static_cast<size_t>(at)] = acc[k].values[0];
    }
  });
  AXE_RETURN_IF_ERROR(status);
  return outs;
}

// ---- JVP and transposes ----

const BuiltinPrimitives& P() { return Builtins(); }

Param PaddingParam(const Pads& pads) {
  std::vector<Param> items;
  for (const auto& [lo, hi] : pads) items.push_back(Param::Ints({lo, hi}));
  return Param::Tuple(std::move(items));
}

Params WindowParams(const Window& w, bool dilations) {
  Params p = {{"window_dimensions", Param::Ints(w.dims)},
              {"window_strides", Param::Ints(w.strides)},
              {"padding", PaddingParam(w.padding)}};
  if (dilations) {
    p["base_dilation"] = Param::Ints(w.base_dilation);
    p["window_dilation"] = Param::Ints(w.window_dilation);
  }
  return p;
}

// reduce_window_max / _min: the tangent is that of each window's chosen element.
JvpRule ChooserJvp(const Primitive* prim, bool is_max) {
  return [prim, is_max](Builder&, absl::Span<const Tracer> primals,
                        absl::Span<const OptTracer> tangents,
                        const Params& params) -> absl::StatusOr<JvpResult> {
    AXE_ASSIGN_OR_RETURN(Tracer out, Op(*prim, primals, params));
    if (!tangents[0]) return JvpResult{{out}, {std::nullopt}};
    Params p = params;
    p["select_prim"] = Param::Symbol(is_max ? "ge" : "le");
    AXE_ASSIGN_OR_RETURN(Tracer t, Op(*P().select_and_gather_add, {*tangents[0], primals[0]}, p));
    return JvpResult{{out}, {t}};
  };
}

// The generic reduce_window's reducer over primals and tangents, for a reduce_window over
// (operands..., tangents...): (accs..., acc tangents..., xs..., x tangents...) -> (outs...,
// out tangents...).
absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> ReducerJvp(const ClosedJaxpr& reducer,
                                                              size_t n) {
  Builder b;
  const Jaxpr& j = reducer.jaxpr;
  std::vector<Tracer> primals(2 * n);
  std::vector<OptTracer> tangents(2 * n);
  for (size_t g = 0; g < 2; ++g) {
    for (size_t k = 0; k < n; ++k) primals[g * n + k] = b.Arg(j.aval(j.invars[g * n + k]));
    for (size_t k = 0; k < n; ++k) tangents[g * n + k] = b.Arg(j.aval(j.invars[g * n + k]));
  }
  AXE_ASSIGN_OR_RETURN(JvpResult r, JvpTrace(b, reducer, primals, tangents));
  std::vector<Tracer> outs = r.primals_out;
  for (size_t k = 0; k < r.primals_out.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(b, r.tangents_out[k], r.primals_out[k].aval));
    outs.push_back(t);
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr closed, b.Build(outs));
  return std::make_shared<const ClosedJaxpr>(std::move(closed));
}

// JAX's reduce_window_jvp: one reduce_window over the operands and their tangents, reduced by
// the reducer's JVP (the init values' tangents are zeros).
absl::StatusOr<JvpResult> GenericJvp(Builder& b, absl::Span<const Tracer> primals,
                                     absl::Span<const OptTracer> tangents, const Params& params) {
  const size_t n = primals.size() / 2;
  for (size_t i = n; i < primals.size(); ++i) {
    if (tangents[i]) {
      return absl::InvalidArgumentError(
          "reduce_window jvp does not support non-zero init_value_tangent.");
    }
  }
  bool any = false;
  for (size_t i = 0; i < n; ++i)
    any = any || (tangents[i] && Differentiable(primals[i].aval.dtype()));
  if (!any) {
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                         BindWithAutoPvary(*P().reduce_window, primals, params));
    return JvpResult{outs, std::vector<OptTracer>(outs.size())};
  }
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const ClosedJaxpr> reducer, Reducer(params));
  std::vector<Tracer> ops(primals.begin(), primals.begin() + static_cast<int64_t>(n));
  for (size_t i = 0; i < n; ++i) {
    AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(b, tangents[i], primals[i].aval));
    ops.push_back(t);
  }
  for (size_t i = n; i < 2 * n; ++i) ops.push_back(primals[i]);
  for (size_t i = n; i < 2 * n; ++i) ops.push_back(b.Scalar(0, primals[i].aval.dtype()));
  Params p = params;
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const ClosedJaxpr> jvp, ReducerJvp(*reducer, n));
  p["jaxpr"] = Param::Jaxpr(std::move(jvp));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*P().reduce_window, ops, p));
  JvpResult r;
  r.primals_out.assign(outs.begin(), outs.begin() + static_cast<int64_t>(n));
  r.tangents_out.assign(outs.begin() + static_cast<int64_t>(n), outs.end());
  return r;
}

// JAX's _conv_general_vjp_lhs_padding for a window.
Pads TransposePadding(const Ints& in, const Ints& out, const Window& w) {
  Pads pads;
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t base = *Dilated(in[d], w.base_dilation[d]);
    const int64_t win = *Dilated(w.dims[d], w.window_dilation[d]);
    const int64_t got = *Dilated(out[d], w.strides[d]);
    const int64_t before = win - w.padding[d].first - 1;
    pads.push_back({before, base + win - 1 - got - before});
  }
  return pads;
}

absl::StatusOr<std::vector<OptTracer>> SumTranspose(Builder& b, absl::Span<const OptTracer> cts,
                                                    absl::Span<const TransposeArg> args,
                                                    const Params& params) {
  std::vector<OptTracer> result(1);
  if (!cts[0]) return result;
  const ShapedArray& x = args[0].aval;
  AXE_ASSIGN_OR_RETURN(Window w, ReadWindow(params, "reduce_window_sum", x.rank(), true));
  const Tracer& ct = *cts[0];
  const Pads pads = TransposePadding(x.shape(), ct.aval.shape(), w);
  std::vector<Param> config;
  for (size_t d = 0; d < pads.size(); ++d) {
    config.push_back(Param::Ints({pads[d].first, pads[d].second, w.strides[d] - 1}));
  }
  AXE_ASSIGN_OR_RETURN(Tracer padded, Op(*P().pad, {ct, b.Scalar(0, ct.aval.dtype())},
                                         {{"padding_config", Param::Tuple(std::move(config))}}));
  Window back;
  back.dims = w.dims;
  back.strides = w.base_dilation;
  back.padding = Pads(x.rank(), {0, 0});
  back.base_dilation = Ints(x.rank(), 1);
  back.window_dilation = w.window_dilation;
  AXE_ASSIGN_OR_RETURN(result[0], Op(*P().reduce_window_sum, {padded}, WindowParams(back, true)));
  return result;
}

absl::StatusOr<std::vector<OptTracer>> ScatterTranspose(Builder&, absl::Span<const OptTracer> cts,
                                                        absl::Span<const TransposeArg> args,
                                                        const Params& params) {
  std::vector<OptTracer> result(2);
  if (!args[0].is_undefined_primal() || args[1].is_undefined_primal()) {
    return absl::InvalidArgumentError("select_and_scatter_add is linear in its source only");
  }
  if (!cts[0]) return result;
  const ShapedArray& x = args[1].aval;
  AXE_ASSIGN_OR_RETURN(Window w, ReadWindow(params, "select_and_scatter_add", x.rank(), false));
  Params p = WindowParams(w, true);
  p["select_prim"] = params.at("select_prim");
  AXE_ASSIGN_OR_RETURN(result[0], Op(*P().select_and_gather_add, {*cts[0], *args[1].value}, p));
  return result;
}

absl::StatusOr<std::vector<OptTracer>> GatherTranspose(Builder& b, absl::Span<const OptTracer> cts,
                                                       absl::Span<const TransposeArg> args,
                                                       const Params& params) {
  constexpr const char* kName = "select_and_gather_add";
  std::vector<OptTracer> result(2);
  if (!args[0].is_undefined_primal() || args[1].is_undefined_primal()) {
    return absl::InvalidArgumentError("select_and_gather_add is linear in its tangents only");
  }
  const ShapedArray& x = args[1].aval;
  AXE_ASSIGN_OR_RETURN(Window w, ReadWindow(params, kName, x.rank(), true));
  for (int64_t d : w.window_dilation) {
    if (d != 1) {
      return absl::UnimplementedError(absl::StrCat(
          "VJP not implemented for select_and_gather (MaxPool) with window dilation, got "
          "window_dilation=",
          PyTuple(w.window_dilation), "."));
    }
  }
  if (!cts[0]) return result;
  AXE_ASSIGN_OR_RETURN(const Primitive* select, SelectPrim(params, kName));
  Tracer operand = *args[1].value;
  const bool dilated =
      std::any_of(w.base_dilation.begin(), w.base_dilation.end(), [](int64_t d) { return d != 1; });
  if (dilated) {
    std::vector<Param> config;
    for (int64_t d : w.base_dilation) config.push_back(Param::Ints({0, 0, d - 1}));
    const DType t = x.dtype();
    const double identity = select == P().ge ? Lowest(t) : Highest(t);
    AXE_ASSIGN_OR_RETURN(operand, Op(*P().pad, {operand, b.Scalar(identity, t)},
                                     {{"padding_config", Param::Tuple(std::move(config))}}));
  }
  Params p = WindowParams(w, false);
  p["select_prim"] = params.at("select_prim");
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*P().select_and_scatter_add, {*cts[0], operand}, p));
  if (dilated) {
    AXE_ASSIGN_OR_RETURN(out, Op(*P().slice, {out},
                                 {{"start_indices", Param::Ints(Ints(x.rank(), 0))},
                                  {"limit_indices", Param::Ints(operand.aval.shape())},
                                  {"strides", Param::Ints(w.base_dilation)}}));
  }
  result[0] = out;
  return result;
}

// ---- batching: the batch dimension moved to the front, a window of 1 over it ----

Params WithBatchWindow(const Params& params, bool dilations) {
  Params p = params;
  auto prepend = [&p, &params](const char* name, int64_t v) {
    Ints old = *params.at(name).AsInts(name);
    old.insert(old.begin(), v);
    p[name] = Param::Ints(old);
  };
  prepend("window_dimensions", 1);
  prepend("window_strides", 1);
  if (dilations) {
    prepend("base_dilation", 1);
    prepend("window_dilation", 1);
  }
  std::vector<Param> pads = {Param::Ints({0, 0})};
  for (const Param& item : params.at("padding").items()) pads.push_back(item);
  p["padding"] = Param::Tuple(std::move(pads));
  return p;
}

// Every operand (the first `batched` of them) with its batch dimension at 0, the rest (init
// values) as they are.
BatchingRule WindowBatching(const Primitive* prim, bool dilations, size_t batched_operands) {
  return [prim, dilations, batched_operands](Builder&, absl::Span<const Tracer> args,
                                             absl::Span<const BDim> dims,
                                             const Params& params) -> absl::StatusOr<BatchResult> {
    const size_t n = batched_operands == 0 ? args.size() / 2 : batched_operands;
    for (size_t i = n; i < args.size(); ++i) {
      if (dims[i]) {
        return absl::UnimplementedError(
            "reduce_window batching is not implemented for initial values");
      }
    }
    const int64_t size = BatchSize(args, dims);
    std::vector<Tracer> ops;
    for (size_t i = 0; i < args.size(); ++i) {
      if (i < n) {
        AXE_ASSIGN_OR_RETURN(Tracer t, Materialize(args[i], dims[i], size));
        ops.push_back(t);
      } else {
        ops.push_back(args[i]);
      }
    }
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                         BindWithAutoPvary(*prim, ops, WithBatchWindow(params, dilations)));
    return BatchResult{outs, std::vector<BDim>(outs.size(), BDim(0))};
  };
}

}  // namespace window_family

void DefineWindow(BuiltinPrimitives& p) {
  const std::vector<ParamSpec> window = {{"base_dilation", ParamType::kInts},
                                         {"padding", ParamType::kAny},
                                         {"window_dilation", ParamType::kInts},
                                         {"window_dimensions", ParamType::kInts},
                                         {"window_strides", ParamType::kInts}};
  p.reduce_window_sum = DefineOneResult("reduce_window_sum", window);
  p.reduce_window_max = DefineOneResult("reduce_window_max", window);
  p.reduce_window_min = DefineOneResult("reduce_window_min", window);
  std::vector<ParamSpec> gather = window;
  gather.push_back({"select_prim", ParamType::kAny});
  p.select_and_gather_add = DefineOneResult("select_and_gather_add", gather);
  p.select_and_scatter_add =
      DefineOneResult("select_and_scatter_add", {{"padding", ParamType::kAny},
                                                 {"select_prim", ParamType::kAny},
                                                 {"window_dimensions", ParamType::kInts},
                                                 {"window_strides", ParamType::kInts}});
  std::vector<ParamSpec> generic = window;
  generic.push_back({"consts", ParamType::kAny});
  generic.push_back({"jaxpr", ParamType::kJaxpr});
  p.reduce_window = DefineBuiltin(MultiResultOptions("reduce_window", std::move(generic)));
}

void RegisterWindowRules(const BuiltinPrimitives& p) {
  using namespace window_family;  // NOLINT(build/namespaces)
  const std::pair<const Primitive*, Monoid> monoids[] = {{p.reduce_window_sum, Monoid::kSum},
                                                         {p.reduce_window_max, Monoid::kMax},
                                                         {p.reduce_window_min, Monoid::kMin}};
  for (const auto& [prim, m] : monoids) {
    RegisterAbstractEval(*prim, ReduceWindowRule(prim->name(), m == Monoid::kSum));
    RegisterImpl(*prim, MonoidImpl(prim, m));
    RegisterBatching(*prim, WindowBatching(prim, true, 1));
  }
  RegisterJvp(*p.reduce_window_sum, LinearJvp(p.reduce_window_sum, LinearOperands::kFirst));
  RegisterTranspose(*p.reduce_window_sum, SumTranspose);
  RegisterJvp(*p.reduce_window_max, ChooserJvp(p.reduce_window_max, true));
  RegisterJvp(*p.reduce_window_min, ChooserJvp(p.reduce_window_min, false));

  const Primitive& gather = *p.select_and_gather_add;
  RegisterAbstractEval(gather, SelectAndGatherAddRule);
  RegisterImpl(gather, SelectAndGatherAddImpl);
  RegisterJvp(gather, LinearJvp(&gather, LinearOperands::kFirst));
  RegisterTranspose(gather, GatherTranspose);
  RegisterBatching(gather, WindowBatching(&gather, true, 2));

  const Primitive& scatter = *p.select_and_scatter_add;
  RegisterAbstractEval(scatter, SelectAndScatterAddRule);
  RegisterImpl(scatter, SelectAndScatterAddImpl);
  RegisterJvp(scatter, LinearJvp(&scatter, LinearOperands::kFirst));
  RegisterTranspose(scatter, ScatterTranspose);
  RegisterBatching(scatter, WindowBatching(&scatter, false, 2));

  RegisterAbstractEval(*p.reduce_window, GenericRule);
  RegisterImpl(*p.reduce_window, GenericImpl);
  RegisterJvp(*p.reduce_window, GenericJvp);
  RegisterBatching(*p.reduce_window, WindowBatching(p.reduce_window, true, 0));
}

}  // namespace axe::ir::internal
