// conv_general_dilated: XLA's convolution as JAX binds it (lax.conv_general_dilated, lax.conv,
// lax.conv_transpose, flax's NHWC convolutions, depthwise and grouped convolutions), with every
// rule: the params and JAX's printing, typing with JAX's and XLA's errors, the impl (direct
// loops over the interpreter's doubles), the JVP (bilinear), the transposes with respect to
// either operand (the gradients of the input and of the kernel) and batching.
//
//   conv_general_dilated[batch_group_count=1
//     dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2, 3), rhs_spec=(0, 1, 2, 3),
//                                            out_spec=(0, 1, 2, 3))
//     feature_group_count=1 lhs_dilation=(1, 1) out_sharding=None padding=((1, 1), (1, 1))
//     precision=None preferred_element_type=None rhs_dilation=(1, 1) window_strides=(1, 1)] x w
//
// The specs name the dimensions of each operand: lhs_spec = (batch, feature, spatial...),
// rhs_spec = (output feature, input feature, spatial...), out_spec = (batch, feature,
// spatial...). Output position y of spatial dimension d reads the input at
// y * stride + k * rhs_dilation - pad_lo for kernel position k, in the input dilated by
// lhs_dilation (holes read zero) and padded (a negative pad crops). With feature_group_count
// G, output feature o reads the input features of group o / (O / G); with batch_group_count
// B, output feature o reads the batch group o / (O / B) of the input's batch.
#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/dims.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/linear.h"
#include "axe/ir/shard_map.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
// A named namespace: the unity build shares anonymous namespaces between files.
namespace conv_family {

constexpr const char* kName = "conv_general_dilated";

struct ConvSpec {
  Dims lhs, rhs, out;  // dimension_numbers
  Dims strides, lhs_dilation, rhs_dilation;
  std::vector<std::pair<int64_t, int64_t>> padding;
  int64_t feature_groups = 1, batch_groups = 1;
};

absl::Status SpecError(const Param& p) {
  return TypeError(
      absl::StrCat(kName,
                   " dimension_numbers must be ConvDimensionNumbers(lhs_spec=..., rhs_spec=..., "
                   "out_spec=...), got ",
                   p.ToString()));
}

// One of lhs_spec / rhs_spec / out_spec: a permutation of the operand's dimensions.
absl::StatusOr<Dims> ReadPermutation(const Param& p, const std::string& name, size_t rank) {
  AXE_ASSIGN_OR_RETURN(Dims v, p.AsInts(name));
  Dims sorted = v;
  std::sort(sorted.begin(), sorted.end());
  Dims iota(rank);
  std::iota(iota.begin(), iota.end(), 0);
  if (sorted != iota) {
    return TypeError(absl::StrCat(kName, " dimension_numbers ", name,
                                  " must be a permutation of the ", rank,
                                  " dimensions of the operands, got ", PyTuple(v)));
  }
  return v;
}

absl::Status ReadDimensionNumbers(const Params& params, size_t rank, ConvSpec& s) {
  AXE_ASSIGN_OR_RETURN(const Param* dn, GetParam(params, kName, "dimension_numbers"));
  if (dn->kind() != Param::Kind::kCall || dn->text() != "ConvDimensionNumbers" ||
      dn->items().size() != 3) {
    return SpecError(*dn);
  }
  const char* names[3] = {"lhs_spec", "rhs_spec", "out_spec"};
  Dims* fields[3] = {&s.lhs, &s.rhs, &s.out};
  for (size_t k = 0; k < 3; ++k) {
    const Param& item = dn->items()[k];
    if (item.kind() != Param::Kind::kKeyword || item.text() != names[k]) return SpecError(*dn);
    AXE_ASSIGN_OR_RETURN(*fields[k], ReadPermutation(item.items()[0], names[k], rank));
  }
  return absl::OkStatus();
}

absl::StatusOr<Dims> ReadPerSpatial(const Params& params, const char* name, size_t n) {
  AXE_ASSIGN_OR_RETURN(Dims v, RequiredInts(params, kName, name));
  if (v.size() != n) {
    return TypeError(absl::StrCat(kName, " ", name, " must have one entry per spatial dimension (",
                                  n, "), got ", PyTuple(v)));
  }
  return v;
}

absl::Status ReadPadding(const Params& params, size_t n, ConvSpec& s) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, kName, "padding"));
  if (p->kind() != Param::Kind::kTuple && p->kind() != Param::Kind::kList) {
    return TypeError(absl::StrCat(kName, " padding must be a sequence of (low, high) pairs, got ",
                                  p->ToString()));
  }
  if (p->items().size() != n) {
    return TypeError(absl::StrCat("Wrong number of explicit pads for convolution: expected ", n,
                                  ", got ", p->items().size(), "."));
  }
  for (const Param& pair : p->items()) {
    absl::StatusOr<Dims> lh = pair.AsInts("padding");
    if (!lh.ok() || lh->size() != 2) {
      return TypeError(absl::StrCat(kName, " padding must be a sequence of (low, high) pairs, got ",
                                    p->ToString()));
    }
    s.padding.push_back({(*lh)[0], (*lh)[1]});
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ReadGroupCount(const Params& params, const char* name) {
  AXE_ASSIGN_OR_RETURN(int64_t n, RequiredInt(params, kName, name));
  if (n <= 0) {
    return TypeError(absl::StrCat(kName, " ", name, " must be a positive integer, got ", n, "."));
  }
  return n;
}

// The params, checked on their own (window_strides' length first, in JAX's order of checks).
absl::StatusOr<ConvSpec> ReadSpec(const Params& params, size_t rank) {
  ConvSpec s;
  AXE_RETURN_IF_ERROR(ReadDimensionNumbers(params, rank, s));
  const size_t n = rank - 2;
  AXE_ASSIGN_OR_RETURN(s.strides, RequiredInts(params, kName, "window_strides"));
  if (s.strides.size() != n) {
    return TypeError(absl::StrCat(kName,
                                  " window and window_strides must have the same number of "
                                  "dimensions, but got ",
                                  n, " and ", s.strides.size()));
  }
  for (size_t d = 0; d < n; ++d) {
    if (s.strides[d] <= 0) {
      return TypeError(absl::StrCat("expects window to have positive stride for ", d,
                                    "-th window dimension, but got ", s.strides[d], "."));
    }
  }
  AXE_RETURN_IF_ERROR(ReadPadding(params, n, s));
  AXE_ASSIGN_OR_RETURN(s.lhs_dilation, ReadPerSpatial(params, "lhs_dilation", n));
  AXE_ASSIGN_OR_RETURN(s.rhs_dilation, ReadPerSpatial(params, "rhs_dilation", n));
  for (const Dims* dil : {&s.lhs_dilation, &s.rhs_dilation}) {
    for (int64_t v : *dil) {
      if (v <= 0)
        return TypeError(absl::StrCat("All dilations must be positive, got ", PyTuple(*dil), "."));
    }
  }
  AXE_ASSIGN_OR_RETURN(s.feature_groups, ReadGroupCount(params, "feature_group_count"));
  AXE_ASSIGN_OR_RETURN(s.batch_groups, ReadGroupCount(params, "batch_group_count"));
  return s;
}

// The operands' sizes in the canonical order (N, C, spatial...), (O, I, window...).
struct Geometry {
  int64_t n = 0, c = 0, o = 0, i = 0, out_n = 0;
  Dims in_sp, win_sp, out_sp;  // input, window (undilated) and output spatial sizes
};

std::optional<int64_t> Dilate(int64_t size, int64_t dilation) {
  if (size == 0) return 0;
  std::optional<int64_t> gaps = CheckedMul(size - 1, dilation);
  return gaps ? CheckedAdd(*gaps, 1) : std::nullopt;
}

absl::Status NotAMultiple(int64_t size, int64_t count, const char* what) {
  return TypeError(absl::StrCat(kName, " rhs output feature dimension size must be a multiple of ",
                                what, ", but ", size, " is not a multiple of ", count, "."));
}

absl::Status CheckGroups(const Geometry& g, const ConvSpec& s) {
  const int64_t fg = s.feature_groups, bg = s.batch_groups;
  if (g.c % fg != 0) {
    return TypeError(absl::StrCat(kName,
                                  " feature_group_count must divide lhs feature dimension size, "
                                  "but ",
                                  fg, " does not divide ", g.c, "."));
  }
  if (g.c / fg != g.i) {
    return TypeError(absl::StrCat(kName,
                                  " lhs feature dimension size divided by feature_group_count "
                                  "must equal the rhs input feature dimension size, but ",
                                  g.c, " // ", fg, " != ", g.i, "."));
  }
  if (g.o % fg != 0) return NotAMultiple(g.o, fg, "feature_group_count");
  if (bg > 1 && g.n % bg != 0) {
    return TypeError(absl::StrCat(kName,
                                  " batch_group_count must divide lhs batch dimension size, but ",
                                  bg, " does not divide ", g.n, "."));
  }
  if (g.o % bg != 0) return NotAMultiple(g.o, bg, "batch_group_count");
  if (fg > 1 && bg > 1) {
    return TypeError(
        absl::StrCat("At most one of batch_group_count and feature_group_count may be > 1, got "
                     "batch_group_count=",
                     bg, " and feature_group_count=", fg));
  }
  return absl::OkStatus();
}

// The output's spatial sizes (XLA's shape rule), with JAX's and XLA's errors.
absl::Status SpatialSizes(Geometry& g, const ConvSpec& s) {
  Dims padded_sizes;
  bool negative = false;
  for (size_t d = 0; d < g.in_sp.size(); ++d) {
    if (g.win_sp[d] <= 0) {
      return TypeError(absl::StrCat("expects window to have positive value for ", d,
                                    "-th window dimension, but got ", g.win_sp[d], "."));
    }
    std::optional<int64_t> in = Dilate(g.in_sp[d], s.lhs_dilation[d]);
    std::optional<int64_t> win = Dilate(g.win_sp[d], s.rhs_dilation[d]);
    std::optional<int64_t> padded = in ? CheckedAdd(*in, s.padding[d].first) : std::nullopt;
    padded = padded ? CheckedAdd(*padded, s.padding[d].second) : std::nullopt;
    if (!win || !padded) {
      return TypeError(absl::StrCat(kName, " spatial dimension ", d,
                                    " overflows 64 bits once dilated and padded"));
    }
    negative = negative || *padded < 0;
    padded_sizes.push_back(*in);
    g.out_sp.push_back(*padded < *win ? 0 : (*padded - *win) / s.strides[d] + 1);
  }
  if (negative) {
    std::vector<std::string> pads;
    for (const auto& [lo, hi] : s.padding) pads.push_back(absl::StrCat("(", lo, ", ", hi, ")"));
    return TypeError(absl::StrCat(
        "Negative padding is larger than the size of the corresponding dimension: got padding=(",
        absl::StrJoin(pads, ", "), pads.size() == 1 ? ",)" : ")",
        " for lhs_shape[2:]=", PyTuple(padded_sizes)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Geometry> ComputeGeometry(const ShapedArray& lhs, const ShapedArray& rhs,
                                         const ConvSpec& s) {
  Geometry g;
  const Dims &ls = lhs.shape(), &rs = rhs.shape();
  g.n = ls[s.lhs[0]];
  g.c = ls[s.lhs[1]];
  g.o = rs[s.rhs[0]];
  g.i = rs[s.rhs[1]];
  for (size_t d = 2; d < s.lhs.size(); ++d) {
    g.in_sp.push_back(ls[s.lhs[d]]);
    g.win_sp.push_back(rs[s.rhs[d]]);
  }
  AXE_RETURN_IF_ERROR(CheckGroups(g, s));
  g.out_n = g.n / s.batch_groups;
  AXE_RETURN_IF_ERROR(SpatialSizes(g, s));
  return g;
}

// JAX's _validate_preferred_element_type (bool operands take any wider type).
absl::Status CheckPreferred(DType in, DType preferred) {
  if (!(IsIntegral(in) && IsFloatingPoint(preferred))) {
    if ((IsIntegral(in) && !IsIntegral(preferred)) ||
        (IsFloatingPoint(in) && !IsFloatingPoint(preferred)) ||
        (IsComplex(in) && !IsComplex(preferred))) {
      return TypeError(
          "Input type is incompatible with `preferred_element_type`. The compatible "
          "combinations of (input_type, preferred_element_type) are (integral, integral), "
          "(integral, floating), (floating, floating), (complex, complex.");
    }
    if (IsSignedIntegral(in) && !IsSignedIntegral(preferred)) {
      return TypeError(
          "`preferred_element_type` must have the same signedness as the original type.");
    }
  }
  if (ByteWidth(preferred) < ByteWidth(in)) {
    return TypeError("`preferred_element_type` must not be narrower than the original type.");
  }
  return absl::OkStatus();
}

absl::StatusOr<DType> ResultDType(const ShapedArray& l, const ShapedArray& r,
                                  const Params& params) {
  if (l.dtype() != r.dtype()) {
    return TypeError(absl::StrCat("lax.", kName,
                                  " requires arguments to have the same dtypes, got ",
                                  DTypeName(l.dtype()), ", ", DTypeName(r.dtype()), "."));
  }
  auto it = params.find("preferred_element_type");
  if (it == params.end() || it->second.is_none()) return l.dtype();
  AXE_ASSIGN_OR_RETURN(DType preferred, it->second.AsDType("preferred_element_type"));
  AXE_RETURN_IF_ERROR(CheckPreferred(l.dtype(), preferred));
  return preferred;
}

struct Typed {
  ConvSpec spec;
  Geometry geometry;
  ShapedArray out;
};

absl::StatusOr<Typed> TypeConv(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity(kName, avals, 2));
  const ShapedArray &l = avals[0], &r = avals[1];
  if (l.rank() != r.rank()) {
    return TypeError(absl::StrCat(kName,
                                  " lhs and rhs must have the same number of dimensions, but got ",
                                  PyTuple(l.shape()), " and ", PyTuple(r.shape()), "."));
  }
  if (l.rank() < 2) {
    return TypeError(
        absl::StrCat(kName, " operands need a batch and a feature dimension, got rank ", l.rank()));
  }
  Typed t;
  AXE_ASSIGN_OR_RETURN(t.spec, ReadSpec(params, l.rank()));
  AXE_ASSIGN_OR_RETURN(t.geometry, ComputeGeometry(l, r, t.spec));
  AXE_ASSIGN_OR_RETURN(DType dtype, ResultDType(l, r, params));
  Dims shape(l.rank());
  shape[t.spec.out[0]] = t.geometry.out_n;
  shape[t.spec.out[1]] = t.geometry.o;
  for (size_t d = 0; d < t.geometry.out_sp.size(); ++d) {
    shape[t.spec.out[d + 2]] = t.geometry.out_sp[d];
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma(kName, avals));
  t.out = ShapedArray(std::move(shape), dtype, false, std::move(vma));
  return t;
}

absl::StatusOr<std::vector<ShapedArray>> ConvRule(absl::Span<const ShapedArray> avals,
                                                  const Params& params) {
  AXE_ASSIGN_OR_RETURN(Typed t, TypeConv(avals, params));
  return One(t.out);
}

// ---- impl: direct loops over the interpreter's doubles ----

// Strides (in elements) of an operand's dimensions, in its spec's canonical order.
Dims SpecStrides(const ShapedArray& a, const Dims& spec) {
  Dims row_major = Strides(a.shape()), out;
  for (int64_t d : spec) out.push_back(row_major[d]);
  return out;
}

// The input offset (spatial part) read by output position `y` and window position `k`, or
// nullopt where it falls on padding or a hole of the lhs dilation.
std::optional<int64_t> InputOffset(const Geometry& g, const ConvSpec& s, const Dims& lhs_strides,
                                   const Dims& y, const Dims& k) {
  int64_t offset = 0;
  for (size_t d = 0; d < y.size(); ++d) {
    int64_t at = y[d] * s.strides[d] + k[d] * s.rhs_dilation[d] - s.padding[d].first;
    if (at < 0 || at % s.lhs_dilation[d] != 0) return std::nullopt;
    at /= s.lhs_dilation[d];
    if (at >= g.in_sp[d]) return std::nullopt;
    offset += at * lhs_strides[d + 2];
  }
  return offset;
}

// Sums of products: two's complement wrap-around for integer results, logical or/and for
// bool, doubles (rounded once to the result's type) otherwise.
struct Accumulator {
  DType t;
  uint64_t bits = 0;
  double sum = 0;
  void Add(double a, double b) {
    if (IsIntegral(t)) {
      bits += static_cast<uint64_t>(AsInt64(a)) * static_cast<uint64_t>(AsInt64(b));
    } else if (t == DType::kPred) {
      bits |= (a != 0 && b != 0) ? 1 : 0;
    } else {
      sum += a * b;
    }
  }
  double Result() const {
    if (IsIntegral(t)) return IntegerFromBits(bits, t);
    if (t == DType::kPred) return static_cast<double>(bits);
    return RoundToDType(sum, t);
  }
};

absl::StatusOr<std::vector<HostArray>> ConvImpl(absl::Span<const HostArray> args,
                                                const Params& params) {
  AXE_ASSIGN_OR_RETURN(Typed t, TypeConv(PlainAvals(args), params));
  const ConvSpec& s = t.spec;
  const Geometry& g = t.geometry;
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(t.out.WithVma({})));
  const Dims ls = SpecStrides(args[0].aval, s.lhs), rs = SpecStrides(args[1].aval, s.rhs);
  const Dims os = SpecStrides(t.out, s.out);
  Dims canonical = {g.out_n, g.o};
  canonical.insert(canonical.end(), g.out_sp.begin(), g.out_sp.end());
  const int64_t o_per_fg = g.o / s.feature_groups, o_per_bg = g.o / s.batch_groups;
  Dims index(canonical.size(), 0);
  const bool any = !out.values.empty();
  for (bool more = any; more; more = NextIndex(index, canonical)) {
    const int64_t n = index[0], o = index[1];
    const int64_t batch = (o / o_per_bg) * g.out_n + n, c0 = (o / o_per_fg) * g.i;
    const Dims y(index.begin() + 2, index.end());
    Accumulator acc{t.out.dtype()};
    Dims k(g.win_sp.size(), 0);
    for (bool window = true; window; window = NextIndex(k, g.win_sp)) {
      std::optional<int64_t> at = InputOffset(g, s, ls, y, k);
      if (!at) continue;
      int64_t w_at = o * rs[0];
      for (size_t d = 0; d < k.size(); ++d) w_at += k[d] * rs[d + 2];
      for (int64_t i = 0; i < g.i; ++i) {
        acc.Add(args[0].values[static_cast<size_t>(batch * ls[0] + (c0 + i) * ls[1] + *at)],
                args[1].values[static_cast<size_t>(w_at + i * rs[1])]);
      }
    }
    int64_t o_at = n * os[0] + o * os[1];
    for (size_t d = 0; d < y.size(); ++d) o_at += y[d] * os[d + 2];
    out.values[static_cast<size_t>(o_at)] = acc.Result();
  }
  return OneArray(std::move(out));
}

// ---- JVP and transposes ----

const Primitive& Conv() { return *Builtins().conv_general_dilated; }

absl::StatusOr<JvpResult> ConvJvp(Builder&, absl::Span<const Tracer> primals,
                                  absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(Conv(), primals, params));
  OptTracer a, c;
  if (tangents[0]) {
    AXE_ASSIGN_OR_RETURN(a, Op(Conv(), {*tangents[0], primals[1]}, params));
  }
  if (tangents[1]) {
    AXE_ASSIGN_OR_RETURN(c, Op(Conv(), {primals[0], *tangents[1]}, params));
  }
  AXE_ASSIGN_OR_RETURN(OptTracer t, AddTangents(a, c, out.aval));
  return JvpResult{{out}, {t}};
}

// JAX's _reshape_axis_out_of: dimension `src` split into (size, rest).
absl::StatusOr<Tracer> AxisOutOf(int64_t src, int64_t size, const Tracer& x) {
  Dims shape = x.aval.shape();
  const int64_t whole = shape[src];
  shape[src] = whole / size;
  shape.insert(shape.begin() + src, size);
  return Reshape(x, shape);
}

// JAX's _reshape_axis_into: dimension `src` merged into dimension `dst` (numbered without
// `src`) as its major part.
absl::StatusOr<Tracer> AxisInto(int64_t src, int64_t dst, const Tracer& x) {
  const int64_t rank = static_cast<int64_t>(x.aval.rank());
  Dims perm;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != src) perm.push_back(d);
  }
  perm.insert(perm.begin() + dst, src);
  Tracer moved = x;
  Dims iota(rank);
  std::iota(iota.begin(), iota.end(), 0);
  if (perm != iota) {
    AXE_ASSIGN_OR_RETURN(moved, Transpose(x, perm));
  }
  Dims shape = moved.aval.shape();
  shape[dst] *= shape[dst + 1];
  shape.erase(shape.begin() + dst + 1);
  return Reshape(moved, shape);
}

Param SpecParam(const Dims& lhs, const Dims& rhs, const Dims& out) {
  return Param::Call("ConvDimensionNumbers", {Param::Keyword("lhs_spec", Param::Ints(lhs)),
                                              Param::Keyword("rhs_spec", Param::Ints(rhs)),
                                              Param::Keyword("out_spec", Param::Ints(out))});
}

Param PaddingParam(const std::vector<std::pair<int64_t, int64_t>>& pads) {
  std::vector<Param> items;
  for (const auto& [lo, hi] : pads) items.push_back(Param::Ints({lo, hi}));
  return Param::Tuple(std::move(items));
}

Dims SwapFirstTwo(Dims spec) {
  std::swap(spec[0], spec[1]);
  return spec;
}

Dims Spatial(const Dims& spec) { return Dims(spec.begin() + 2, spec.end()); }

// The params of a convolution derived from `params` (precision and the rest kept).
Params Derived(const Params& params, const Dims& strides,
               const std::vector<std::pair<int64_t, int64_t>>& padding, const Dims& lhs_dilation,
               const Dims& rhs_dilation, Param spec, int64_t feature_groups, int64_t batch_groups) {
  Params p = params;
  p["window_strides"] = Param::Ints(strides);
  p["padding"] = PaddingParam(padding);
  p["lhs_dilation"] = Param::Ints(lhs_dilation);
  p["rhs_dilation"] = Param::Ints(rhs_dilation);
  p["dimension_numbers"] = std::move(spec);
  p["feature_group_count"] = Param::Int(feature_groups);
  p["batch_group_count"] = Param::Int(batch_groups);
  p["out_sharding"] = Param::None();
  return p;
}

absl::StatusOr<Tracer> CastTo(const Tracer& x, DType dtype) {
  if (x.aval.dtype() == dtype) return x;
  return ConvertElementType(x, dtype);
}

int64_t DilatedSize(int64_t size, int64_t dilation) {
  return size == 0 ? 0 : 1 + dilation * (size - 1);
}

// The cotangent of the input: the cotangent convolved with the window reversed, the kernel's
// input and output features swapped (JAX's _conv_general_dilated_transpose_lhs).
absl::StatusOr<Tracer> TransposeLhs(const Tracer& ct, const ShapedArray& lhs, Tracer rhs,
                                    const Typed& t, const Params& params) {
  const ConvSpec& s = t.spec;
  const Geometry& g = t.geometry;
  int64_t groups = s.feature_groups;
  if (s.feature_groups > 1 || s.batch_groups > 1) {
    groups = std::max(s.feature_groups, s.batch_groups);
    AXE_ASSIGN_OR_RETURN(rhs, AxisOutOf(s.rhs[0], groups, rhs));
    AXE_ASSIGN_OR_RETURN(rhs, AxisInto(s.rhs[0], s.rhs[1], rhs));
  }
  std::vector<std::pair<int64_t, int64_t>> pads;
  for (size_t d = 0; d < g.in_sp.size(); ++d) {
    const int64_t in = DilatedSize(g.in_sp[d], s.lhs_dilation[d]);
    const int64_t win = DilatedSize(g.win_sp[d], s.rhs_dilation[d]);
    const int64_t out = DilatedSize(g.out_sp[d], s.strides[d]);
    const int64_t before = win - s.padding[d].first - 1;
    pads.push_back({before, in + win - 1 - out - before});
  }
  AXE_ASSIGN_OR_RETURN(Tracer reversed,
                       Op(*Builtins().rev, {rhs}, {{"dimensions", Param::Ints(Spatial(s.rhs))}}));
  AXE_ASSIGN_OR_RETURN(reversed, CastTo(reversed, ct.aval.dtype()));
  Params p = Derived(params, s.lhs_dilation, pads, s.strides, s.rhs_dilation,
                     SpecParam(s.out, SwapFirstTwo(s.rhs), s.lhs), groups, 1);
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(Conv(), {ct, reversed}, p));
  AXE_ASSIGN_OR_RETURN(out, CastTo(out, lhs.dtype()));
  if (s.batch_groups > 1) {
    AXE_ASSIGN_OR_RETURN(out, AxisOutOf(s.lhs[1], s.batch_groups, out));
    AXE_ASSIGN_OR_RETURN(out, AxisInto(s.lhs[1], s.lhs[0], out));
  }
  return out;
}

// The cotangent of the kernel: the input convolved with the cotangent, batch and feature
// dimensions swapped, the groups of one kind turned into the other
// (JAX's _conv_general_dilated_transpose_rhs).
absl::StatusOr<Tracer> TransposeRhs(Builder& b, const Tracer& ct, Tracer lhs,
                                    const ShapedArray& rhs, const Typed& t, const Params& params) {
  const ConvSpec& s = t.spec;
  const Geometry& g = t.geometry;
  if (ct.aval.NumElements().value_or(1) == 0) return ZerosLike(b, rhs);
  std::vector<std::pair<int64_t, int64_t>> pads;
  for (size_t d = 0; d < g.in_sp.size(); ++d) {
    const int64_t in = DilatedSize(g.in_sp[d], s.lhs_dilation[d]);
    const int64_t win = DilatedSize(g.win_sp[d], s.rhs_dilation[d]);
    const int64_t out = DilatedSize(g.out_sp[d], s.strides[d]);
    const int64_t lo = s.padding[d].first;
    pads.push_back({lo, (out - in) + (win - lo - 1)});
  }
  AXE_ASSIGN_OR_RETURN(lhs, CastTo(lhs, ct.aval.dtype()));
  Params p = Derived(params, s.rhs_dilation, pads, s.lhs_dilation, s.strides,
                     SpecParam(SwapFirstTwo(s.lhs), SwapFirstTwo(s.out), SwapFirstTwo(s.rhs)),
                     s.batch_groups, s.feature_groups);
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(Conv(), {lhs, ct}, p));
  return CastTo(out, rhs.dtype());
}

absl::StatusOr<std::vector<OptTracer>> ConvTranspose(Builder& b, absl::Span<const OptTracer> cts,
                                                     absl::Span<const TransposeArg> args,
                                                     const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (args.size() != 2 || (args[0].is_undefined_primal() == args[1].is_undefined_primal())) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, " is linear in exactly one of its operands here"));
  }
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(Typed t, TypeConv({args[0].aval, args[1].aval}, params));
  if (args[0].is_undefined_primal()) {
    AXE_ASSIGN_OR_RETURN(out[0], TransposeLhs(*cts[0], args[0].aval, *args[1].value, t, params));
  } else {
    AXE_ASSIGN_OR_RETURN(out[1], TransposeRhs(b, *cts[0], *args[0].value, args[1].aval, t, params));
  }
  return out;
}

// ---- batching (JAX's rule: the batch dimension is folded into the batch, the features or
// the groups, then split off the result) ----

absl::StatusOr<Tracer> BindConv(const Tracer& lhs, const Tracer& rhs, const Params& params,
                                int64_t feature_groups, int64_t batch_groups) {
  Params p = params;
  p["feature_group_count"] = Param::Int(feature_groups);
  p["batch_group_count"] = Param::Int(batch_groups);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(Conv(), {lhs, rhs}, p));
  return outs[0];
}

absl::StatusOr<BatchResult> BatchBoth(const Tracer& lhs, const Tracer& rhs, const ConvSpec& s,
                                      const Params& params) {
  const int64_t size = lhs.aval.shape()[0];
  int64_t fg = s.feature_groups, bg = s.batch_groups;
  Tracer l = lhs;
  if (bg > 1) {
    AXE_ASSIGN_OR_RETURN(l, AxisInto(0, s.lhs[0], lhs));
    bg *= size;
  } else {
    AXE_ASSIGN_OR_RETURN(l, AxisInto(0, s.lhs[1], lhs));
    fg *= size;
  }
  AXE_ASSIGN_OR_RETURN(Tracer r, AxisInto(0, s.rhs[0], rhs));
  AXE_ASSIGN_OR_RETURN(Tracer out, BindConv(l, r, params, fg, bg));
  AXE_ASSIGN_OR_RETURN(out, AxisOutOf(s.out[1], size, out));
  return BatchResult{{out}, {s.out[1]}};
}

absl::StatusOr<BatchResult> BatchLhs(const Tracer& lhs, const Tracer& rhs, const ConvSpec& s,
                                     const Params& params) {
  const int64_t size = lhs.aval.shape()[0];
  Tracer l = lhs;
  if (s.batch_groups == 1) {
    AXE_ASSIGN_OR_RETURN(l, AxisInto(0, s.lhs[0], lhs));
  } else {
    AXE_ASSIGN_OR_RETURN(l, AxisOutOf(s.lhs[0] + 1, s.batch_groups, lhs));
    AXE_ASSIGN_OR_RETURN(l, AxisInto(0, s.lhs[0] + 1, l));
    AXE_ASSIGN_OR_RETURN(l, AxisInto(s.lhs[0], s.lhs[0], l));
  }
  AXE_ASSIGN_OR_RETURN(Tracer out, BindConv(l, rhs, params, s.feature_groups, s.batch_groups));
  AXE_ASSIGN_OR_RETURN(out, AxisOutOf(s.out[0], size, out));
  return BatchResult{{out}, {s.out[0]}};
}

absl::StatusOr<BatchResult> BatchRhs(const Tracer& lhs, const Tracer& rhs, const ConvSpec& s,
                                     const Params& params) {
  const int64_t size = rhs.aval.shape()[0];
  const int64_t fg = s.feature_groups, bg = s.batch_groups;
  Tracer r = rhs, out;
  if (fg == 1 && bg == 1) {
    AXE_ASSIGN_OR_RETURN(r, AxisInto(0, s.rhs[0], rhs));
    AXE_ASSIGN_OR_RETURN(out, BindConv(lhs, r, params, fg, bg));
    AXE_ASSIGN_OR_RETURN(out, AxisOutOf(s.out[1], size, out));
    return BatchResult{{out}, {s.out[1]}};
  }
  const int64_t groups = std::max(fg, bg);
  AXE_ASSIGN_OR_RETURN(r, AxisOutOf(s.rhs[0] + 1, groups, rhs));
  AXE_ASSIGN_OR_RETURN(r, AxisInto(0, s.rhs[0] + 1, r));
  AXE_ASSIGN_OR_RETURN(r, AxisInto(s.rhs[0], s.rhs[0], r));
  AXE_ASSIGN_OR_RETURN(out, BindConv(lhs, r, params, fg, bg));
  AXE_ASSIGN_OR_RETURN(out, AxisOutOf(s.out[1], groups, out));
  AXE_ASSIGN_OR_RETURN(out, AxisOutOf(s.out[1] + 1, size, out));
  AXE_ASSIGN_OR_RETURN(out, AxisInto(s.out[1], s.out[1] + 1, out));
  return BatchResult{{out}, {s.out[1]}};
}

ShapedArray Unbatched(const ShapedArray& a, const BDim& dim) {
  if (!dim) return a;
  Dims shape = a.shape();
  shape.erase(shape.begin() + *dim);
  return a.WithShape(std::move(shape));
}

absl::StatusOr<BatchResult> ConvBatch(Builder& b, absl::Span<const Tracer> args,
                                      absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(
      Typed t,
      TypeConv({Unbatched(args[0].aval, dims[0]), Unbatched(args[1].aval, dims[1])}, params));
  Tracer lhs = args[0], rhs = args[1];
  if (dims[0]) {
    AXE_ASSIGN_OR_RETURN(lhs, MoveBatchDim(lhs, *dims[0], 0));
  }
  if (dims[1]) {
    AXE_ASSIGN_OR_RETURN(rhs, MoveBatchDim(rhs, *dims[1], 0));
  }
  const int64_t size = BatchSize(args, dims);
  if (size == 0) {  // folding an empty batch into a dimension would lose its other sizes
    Dims shape = t.out.shape();
    shape.insert(shape.begin(), 0);
    AXE_ASSIGN_OR_RETURN(Tracer zeros, ZerosLike(b, t.out.WithShape(std::move(shape))));
    return BatchResult{{zeros}, {0}};
  }
  if (dims[0] && dims[1]) return BatchBoth(lhs, rhs, t.spec, params);
  if (dims[0]) return BatchLhs(lhs, rhs, t.spec, params);
  return BatchRhs(lhs, rhs, t.spec, params);
}

}  // namespace conv_family

void DefineConv(BuiltinPrimitives& p) {
  Primitive::Options o;
  o.name = conv_family::kName;
  o.params = {{"window_strides", ParamType::kInts},   {"padding", ParamType::kAny},
              {"lhs_dilation", ParamType::kInts},     {"rhs_dilation", ParamType::kInts},
              {"dimension_numbers", ParamType::kAny}, {"feature_group_count", ParamType::kInt},
              {"batch_group_count", ParamType::kInt}};
  // JAX prints precision, preferred_element_type and out_sharding always; text without them
  // reads as None.
  o.complete_parsed_params = [](Params& params, absl::Span<const ShapedArray>) {
    for (const char* n : {"precision", "preferred_element_type", "out_sharding"}) {
      params.try_emplace(n, Param::None());
    }
  };
  absl::StatusOr<const Primitive*> prim = DefinePrimitive(std::move(o));
  AXE_CHECK(prim.ok()) << prim.status();
  p.conv_general_dilated = *prim;
}

void RegisterConvRules(const BuiltinPrimitives& p) {
  const Primitive& conv = *p.conv_general_dilated;
  RegisterAbstractEval(conv, conv_family::ConvRule);
  RegisterImpl(conv, conv_family::ConvImpl);
  RegisterJvp(conv, conv_family::ConvJvp);
  RegisterTranspose(conv, conv_family::ConvTranspose);
  RegisterBatching(conv, conv_family::ConvBatch);
}

}  // namespace axe::ir::internal
