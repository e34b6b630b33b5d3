// conv_general_dilated, typed. The operands are first brought into the canonical layouts
// [batch, feature, spatial...] and [out feature, in feature, window...] in the accumulation
// type (a relayout when the type already is that, a converting gather otherwise):
//
//   result                     accumulation
//   integer                    int64, wrapping (bit-exact: the low bits of the true sum)
//   f64                        double
//   f32, f16, bf16             float, rounded once to the result type (XLA:CPU's way)
//
// Then, per output batch element and feature group, the patches of the input are laid out as
// columns (im2col: [in feature x window, output positions], holes of the padding and of the
// lhs dilation as zeros) and multiplied by the kernel's rows: a GEMM through OpenBLAS for
// float and double when large enough, plain loops otherwise. The columns are built in chunks
// of output positions, so their memory stays bounded whatever the window. The canonical
// result is finally moved (and converted) into the output's layout. bool convolutions run on
// the interpreter.
#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "exec/blas.h"
#include "exec/dtype_switch.h"
#include "exec/permute.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

using Ints = std::vector<int64_t>;

struct ConvGeometry {
  int64_t n = 0, c = 0, o = 0, i = 0, out_n = 0, groups = 1, window = 1, positions = 1;
  bool batch_groups = false;   // the groups split the batch (else the features)
  bool channels_last = false;  // canonical [N, spatial..., C], [window..., I, O], [N, ..., O]
  Ints in_sp, win_sp, out_sp, strides, lhs_dil, rhs_dil, pad_lo;
  Ints in_sp_strides;  // row-major strides of the input's spatial dimensions
  Ints lhs_strides, rhs_strides, out_strides;  // the operands' strides, canonical order
  Ints lhs_shape, rhs_shape, out_shape;        // canonical shapes
  DType in_t = DType::kF32, out_t = DType::kF32, acc_t = DType::kF32;
  ir::ShapedArray out;
};

// Output positions of one im2col chunk: the patches stay within this many elements (1 MiB of
// floats), small enough for the GEMM to read them back from cache, and within an eighth of the
// result (a small convolution's patches add little to its operands), but cover at least
// kMinChunkPositions positions (or all of them) so that each GEMM stays efficient.
constexpr int64_t kColumnElements = int64_t{1} << 18;
constexpr int64_t kMinChunkPositions = 64;
// Below this many multiply-adds per GEMM, plain loops.
constexpr int64_t kSmallConv = int64_t{1} << 15;

absl::StatusOr<Ints> SpecInts(const ir::Param& dn, size_t k) {
  if (dn.kind() != ir::Param::Kind::kCall || dn.items().size() != 3 ||
      dn.items()[k].items().size() != 1) {
    return absl::InvalidArgumentError("conv_general_dilated: malformed dimension_numbers");
  }
  return dn.items()[k].items()[0].AsInts("dimension_numbers");
}

Ints Pick(const Ints& v, const Ints& spec) {
  Ints out;
  for (int64_t d : spec) out.push_back(v[static_cast<size_t>(d)]);
  return out;
}

int64_t Product(const Ints& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<int64_t>());
}

absl::Status ReadSpatialParams(const EqnView& v, ConvGeometry& g) {
  AXE_ASSIGN_OR_RETURN(g.strides, IntsParam(v.eqn, "window_strides"));
  AXE_ASSIGN_OR_RETURN(g.lhs_dil, IntsParam(v.eqn, "lhs_dilation"));
  AXE_ASSIGN_OR_RETURN(g.rhs_dil, IntsParam(v.eqn, "rhs_dilation"));
  const ir::Param& padding = v.eqn.params.at("padding");
  for (const ir::Param& pair : padding.items()) {
    AXE_ASSIGN_OR_RETURN(Ints lh, pair.AsInts("padding"));
    g.pad_lo.push_back(lh.at(0));
  }
  return absl::OkStatus();
}

DType AccumulationType(DType out) {
  if (IsIntegral(out)) return DType::kS64;
  return out == DType::kF64 ? DType::kF64 : DType::kF32;
}

// The geometry of a well-typed equation (the interpreter's rule has accepted it).
absl::StatusOr<ConvGeometry> ReadGeometry(const EqnView& v) {
  ConvGeometry g;
  const ir::Param& dn = v.eqn.params.at("dimension_numbers");
  AXE_ASSIGN_OR_RETURN(Ints ls, SpecInts(dn, 0));
  AXE_ASSIGN_OR_RETURN(Ints rs, SpecInts(dn, 1));
  AXE_ASSIGN_OR_RETURN(Ints os, SpecInts(dn, 2));
  AXE_RETURN_IF_ERROR(ReadSpatialParams(v, g));
  AXE_ASSIGN_OR_RETURN(int64_t fg, v.eqn.params.at("feature_group_count").AsInt("fgc"));
  AXE_ASSIGN_OR_RETURN(int64_t bg, v.eqn.params.at("batch_group_count").AsInt("bgc"));
  const Ints lhs = Pick(v.in[0].shape(), ls), rhs = Pick(v.in[1].shape(), rs);
  const Ints out = Pick(v.out[0].shape(), os);
  g.n = lhs[0];
  g.c = lhs[1];
  g.o = rhs[0];
  g.i = rhs[1];
  g.out_n = out[0];
  g.groups = std::max(fg, bg);
  g.batch_groups = bg > 1;
  g.in_sp.assign(lhs.begin() + 2, lhs.end());
  g.win_sp.assign(rhs.begin() + 2, rhs.end());
  g.out_sp.assign(out.begin() + 2, out.end());
  // Features innermost in the input (flax's NHWC): patches are runs of features (of at least
  // a few: single features are better copied a row of positions at a time).
  g.channels_last = ls.size() > 2 && ls[1] == static_cast<int64_t>(ls.size()) - 1 && g.i >= 4;
  if (g.channels_last) {
    ls.push_back(ls[1]);
    ls.erase(ls.begin() + 1);
    os.push_back(os[1]);
    os.erase(os.begin() + 1);
    Ints window(rs.begin() + 2, rs.end());
    window.push_back(rs[1]);
    window.push_back(rs[0]);
    rs = window;
  }
  g.lhs_shape = Pick(v.in[0].shape(), ls);
  g.rhs_shape = Pick(v.in[1].shape(), rs);
  g.out_shape = Pick(v.out[0].shape(), os);
  g.lhs_strides = Pick(RowMajorStrides(v.in[0].shape()), ls);
  g.rhs_strides = Pick(RowMajorStrides(v.in[1].shape()), rs);
  g.out_strides = Pick(RowMajorStrides(v.out[0].shape()), os);
  g.in_sp_strides = RowMajorStrides(g.in_sp);
  g.window = Product(g.win_sp);
  g.positions = Product(g.out_sp);
  g.in_t = v.in[0].dtype();
  g.out_t = v.out[0].dtype();
  g.acc_t = AccumulationType(g.out_t);
  g.out = v.out[0];
  return g;
}

// ---- layouts: operands into canonical accumulation buffers, the result out of one ----

// dst[canonical row-major] = Acc(src[sum(index * strides)]).
template <typename Src, typename Acc>
void GatherConvert(const Src* src, const Ints& shape, const Ints& strides, Acc* dst) {
  const int64_t total = Product(shape);
  if (total == 0) return;
  Ints index(shape.size(), 0);
  const size_t last = shape.size() - 1;
  for (int64_t at = 0; at < total; at += shape[last]) {
    int64_t from = 0;
    for (size_t d = 0; d < last; ++d) from += index[d] * strides[d];
    for (int64_t x = 0; x < shape[last]; ++x) {
      dst[at + x] = static_cast<Acc>(static_cast<ComputeType<Src>>(src[from + x * strides[last]]));
    }
    for (size_t d = last; d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

// dst[sum(index * strides)] = Dst(src[canonical row-major]); integers wrap.
template <typename Acc, typename Dst>
void ScatterConvert(const Acc* src, const Ints& shape, const Ints& strides, Dst* dst) {
  const int64_t total = Product(shape);
  if (total == 0) return;
  Ints index(shape.size(), 0);
  const size_t last = shape.size() - 1;
  for (int64_t at = 0; at < total; at += shape[last]) {
    int64_t to = 0;
    for (size_t d = 0; d < last; ++d) to += index[d] * strides[d];
    for (int64_t x = 0; x < shape[last]; ++x) {
      if constexpr (std::is_integral_v<Acc> && std::is_integral_v<Dst>) {
        dst[to + x * strides[last]] = static_cast<Dst>(static_cast<uint64_t>(src[at + x]));
      } else {
        dst[to + x * strides[last]] = static_cast<Dst>(src[at + x]);
      }
    }
    for (size_t d = last; d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

bool IsRowMajor(const Ints& shape, const Ints& strides) {
  return RowMajorStrides(shape) == strides || Product(shape) <= 1;
}

// How one operand (or the result) moves between its layout and the canonical buffer.
struct Move {
  bool in_place = false;            // already canonical and of the accumulation type
  std::optional<StridedCopy> copy;  // same type, another layout
  Ints shape, strides;              // for a converting move
};

absl::StatusOr<Move> PlanMove(const Ints& shape, const Ints& strides, bool same_type, int bytes,
                              bool gather, int threads) {
  Move m;
  m.shape = shape;
  m.strides = strides;
  if (same_type && IsRowMajor(shape, strides)) {
    m.in_place = true;
  } else if (same_type && !shape.empty()) {
    const Ints canonical = RowMajorStrides(shape);
    AXE_ASSIGN_OR_RETURN(StridedCopy copy,
                         StridedCopy::Plan(shape, gather ? strides : canonical,
                                           gather ? canonical : strides, bytes, threads));
    m.copy = std::move(copy);
  }
  return m;
}

// ---- im2col and the products ----

// Fills columns [p0, p1) of the patch matrix rows for lhs features [0, I) of one batch
// element (`lhs` at its feature 0, canonical): row (i, k) holds the input read by window
// position k at each output position, zero on padding and dilation holes.
template <typename A>
struct Im2Col {
  const ConvGeometry& g;

  // The spatial offset read by output position y at window position k along dimension d,
  // or -1 outside the input.
  int64_t Read(size_t d, int64_t y, int64_t k) const {
    int64_t at = y * g.strides[d] + k * g.rhs_dil[d] - g.pad_lo[d];
    if (at < 0 || at % g.lhs_dil[d] != 0) return -1;
    at /= g.lhs_dil[d];
    return at < g.in_sp[d] ? at : -1;
  }

  // One row segment: output positions along the last dimension, [x0, x0 + run).
  void Run(const A* src, const Ints& y, const Ints& k, int64_t x0, int64_t run, A* dst) const {
    const size_t nd = g.in_sp.size();
    int64_t offset = 0;
    for (size_t d = 0; d + 1 < nd; ++d) {
      const int64_t at = Read(d, y[d], k[d]);
      if (at < 0) {
        std::fill_n(dst, run, A(0));
        return;
      }
      offset += at * g.in_sp_strides[d];
    }
    const size_t d = nd - 1;
    const A* row = src + offset;
    if (g.lhs_dil[d] == 1) {
      const int64_t s = g.strides[d], base = k[d] * g.rhs_dil[d] - g.pad_lo[d];
      for (int64_t x = 0; x < run; ++x) {
        const int64_t at = (x0 + x) * s + base;
        dst[x] = at >= 0 && at < g.in_sp[d] ? row[at] : A(0);
      }
      return;
    }
    for (int64_t x = 0; x < run; ++x) {
      const int64_t at = Read(d, x0 + x, k[d]);
      dst[x] = at >= 0 ? row[at] : A(0);
    }
  }

  void Row(const A* lhs, int64_t row, int64_t p0, int64_t p1, A* dst) const {
    const int64_t i = row / g.window;
    const A* src = lhs + i * Product(g.in_sp);
    if (g.in_sp.empty()) {
      dst[0] = src[0];
      return;
    }
    Ints k(g.win_sp.size()), y(g.out_sp.size());
    for (int64_t r = row % g.window, d = static_cast<int64_t>(k.size()) - 1; d >= 0; --d) {
      k[d] = r % g.win_sp[d];
      r /= g.win_sp[d];
    }
    for (int64_t r = p0, d = static_cast<int64_t>(y.size()) - 1; d >= 0; --d) {
      y[d] = r % g.out_sp[d];
      r /= g.out_sp[d];
    }
    const int64_t width = g.out_sp.back();
    for (int64_t p = p0; p < p1;) {
      const int64_t run = std::min(width - y.back(), p1 - p);
      Run(src, y, k, y.back(), run, dst + (p - p0));
      p += run;
      y.back() += run;
      for (size_t d = y.size() - 1; d > 0 && y[d] == g.out_sp[d]; --d) {
        y[d] = 0;
        ++y[d - 1];
      }
    }
  }
};

// c[m, n] (row stride ldc) = a[m, k] (row stride lda) b[k, n] (row stride ldb): OpenBLAS's
// GEMM for float and double when large enough, plain loops otherwise (integers wrap).
template <typename A>
void Multiply(int64_t m, int64_t k, int64_t n, const A* a, int64_t lda, const A* b, int64_t ldb,
              A* c, int64_t ldc, int threads) {
  const Blas* blas = nullptr;
  if constexpr (std::is_floating_point_v<A>) {
    if (m * k * n > kSmallConv && std::max({m, k, n, lda, ldb, ldc}) < kMaxBlasDim) {
      blas = LoadedBlas();
    }
  }
  if (blas != nullptr) {
    SetBlasThreads(*blas, std::max(1, threads));
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
    const int la = static_cast<int>(lda), lb = static_cast<int>(ldb), lc = static_cast<int>(ldc);
    if constexpr (std::is_same_v<A, float>) {
      blas->sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, mi, ni, ki, 1.0f, a, la, b, lb, 0.0f,
                  c, lc);
    } else if constexpr (std::is_same_v<A, double>) {
      blas->dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, mi, ni, ki, 1.0, a, la, b, lb, 0.0, c,
                  lc);
    }
    return;
  }
  using Sum = std::conditional_t<std::is_integral_v<A>, uint64_t, A>;
  std::vector<Sum> row(static_cast<size_t>(n));
  for (int64_t r = 0; r < m; ++r) {
    std::fill(row.begin(), row.end(), Sum(0));
    for (int64_t q = 0; q < k; ++q) {
      const Sum x = static_cast<Sum>(a[r * lda + q]);
      const A* brow = b + q * ldb;
      for (int64_t p = 0; p < n; ++p) row[p] += x * static_cast<Sum>(brow[p]);
    }
    for (int64_t p = 0; p < n; ++p) c[r * ldc + p] = static_cast<A>(row[p]);
  }
}

// The channels-last patch matrix: row p (an output position) holds, per window position,
// the I input features read there (zeros on padding and dilation holes). `src` is the batch
// element's input at its first feature of the group.
template <typename A>
void PatchRow(const ConvGeometry& g, const A* src, int64_t p, A* dst) {
  const size_t nd = g.out_sp.size();
  Ints y(nd), k(nd, 0);
  for (int64_t r = p, d = static_cast<int64_t>(nd) - 1; d >= 0; --d) {
    y[d] = r % g.out_sp[d];
    r /= g.out_sp[d];
  }
  const Im2Col<A> at{g};
  for (int64_t w = 0; w < g.window; ++w, dst += g.i) {
    int64_t offset = 0;
    bool inside = true;
    for (size_t d = 0; d < nd && inside; ++d) {
      const int64_t x = at.Read(d, y[d], k[d]);
      inside = x >= 0;
      offset += x * g.in_sp_strides[d];
    }
    if (inside) {
      std::memcpy(dst, src + offset * g.c, sizeof(A) * static_cast<size_t>(g.i));
    } else {
      std::fill_n(dst, g.i, A(0));
    }
    for (size_t d = nd; d-- > 0;) {
      if (++k[d] < g.win_sp[d]) break;
      k[d] = 0;
    }
  }
}

struct ConvPlan {
  ConvGeometry g;
  Move lhs, rhs, out;
  int64_t chunk = 1;  // output positions per im2col chunk
};

// The canonical channels-last result y[out_n x positions, O]: per feature group and chunk of
// output positions (of all batch elements at once, so that one GEMM covers several), patches
// [positions, window x I] times the kernel's columns of the group [window x I, O / G].
template <typename A>
void ConvolveChannelsLast(const ConvPlan& plan, const RunContext& ctx, const A* lhs, const A* rhs,
                          A* y, A* columns) {
  const ConvGeometry& g = plan.g;
  const int64_t og = g.o / g.groups, k = g.i * g.window, in_size = Product(g.in_sp);
  const int64_t total = g.out_n * g.positions;
  for (int64_t q = 0; q < g.groups; ++q) {
    for (int64_t r0 = 0; r0 < total; r0 += plan.chunk) {
      const int64_t r1 = std::min(total, r0 + plan.chunk), rows = r1 - r0;
      auto fill = [&](int64_t r) {
        const int64_t n = (r0 + r) / g.positions, p = (r0 + r) % g.positions;
        const int64_t batch = g.batch_groups ? q * g.out_n + n : n;
        const A* src = lhs + batch * in_size * g.c + (g.batch_groups ? 0 : q * g.i);
        PatchRow(g, src, p, columns + r * k);
      };
      if (ctx.pool != nullptr && ctx.threads > 1 && k * rows > (int64_t{1} << 16)) {
        ctx.pool->ParallelFor(rows, fill, ctx.threads);
      } else {
        for (int64_t r = 0; r < rows; ++r) fill(r);
      }
      Multiply(rows, k, og, columns, k, rhs + q * og, g.o, y + r0 * g.o + q * og, g.o, ctx.threads);
    }
  }
}

// The canonical result y[out_n, O, positions] from the canonical operands.
template <typename A>
void Convolve(const ConvPlan& plan, const RunContext& ctx, const A* lhs, const A* rhs, A* y,
              A* columns) {
  const ConvGeometry& g = plan.g;
  const int64_t og = g.o / g.groups, k = g.i * g.window;
  const int64_t in_size = Product(g.in_sp);
  const Im2Col<A> im2col{g};
  for (int64_t n = 0; n < g.out_n; ++n) {
    for (int64_t q = 0; q < g.groups; ++q) {
      const int64_t batch = g.batch_groups ? q * g.out_n + n : n;
      const int64_t c0 = g.batch_groups ? 0 : q * g.i;
      const A* src = lhs + (batch * g.c + c0) * in_size;
      for (int64_t p0 = 0; p0 < g.positions; p0 += plan.chunk) {
        const int64_t p1 = std::min(g.positions, p0 + plan.chunk), cols = p1 - p0;
        auto fill = [&](int64_t row) { im2col.Row(src, row, p0, p1, columns + row * cols); };
        if (ctx.pool != nullptr && ctx.threads > 1 && k * cols > (int64_t{1} << 16)) {
          ctx.pool->ParallelFor(k, fill, ctx.threads);
        } else {
          for (int64_t row = 0; row < k; ++row) fill(row);
        }
        Multiply(og, k, cols, rhs + q * og * k, k, columns, cols,
                 y + (n * g.o + q * og) * g.positions + p0, g.positions, ctx.threads);
      }
    }
  }
}

// A scratch buffer of `count` elements of the accumulation type, freed when the kernel ends
// (not kept in the value pool: the plan counts it only while the convolution runs).
absl::StatusOr<Value> Scratch(const RunContext&, DType t, int64_t count) {
  return Value::Uninitialized(ir::ShapedArray({count}, t));
}

template <typename A>
absl::StatusOr<const A*> Canonical(const Move& m, const RunContext& ctx, const Value& v, DType t,
                                   Value& holder) {
  if (m.in_place) return v.data<A>();
  AXE_ASSIGN_OR_RETURN(holder, Scratch(ctx, t, Product(m.shape)));
  if (m.copy) {
    AXE_RETURN_IF_ERROR(m.copy->Run(v.bytes(), holder.mutable_bytes()));
  } else {
    DispatchDType(v.aval().dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>) {
        GatherConvert(v.data<T>(), m.shape, m.strides, holder.mutable_data<A>());
      }
    });
  }
  return holder.data<A>();
}

template <typename A>
absl::Status ConvKernel(const ConvPlan& plan, const RunContext& ctx, absl::Span<const Value> in,
                        std::vector<Value>& out) {
  const ConvGeometry& g = plan.g;
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(g.out));
  Value lhs_holder, rhs_holder, y_holder, columns;
  AXE_ASSIGN_OR_RETURN(const A* lhs, Canonical<A>(plan.lhs, ctx, in[0], g.acc_t, lhs_holder));
  AXE_ASSIGN_OR_RETURN(const A* rhs, Canonical<A>(plan.rhs, ctx, in[1], g.acc_t, rhs_holder));
  A* y = nullptr;
  if (plan.out.in_place) {
    y = out[0].mutable_data<A>();
  } else {
    AXE_ASSIGN_OR_RETURN(y_holder, Scratch(ctx, g.acc_t, Product(g.out_shape)));
    y = y_holder.mutable_data<A>();
  }
  const int64_t k = g.i * g.window;
  if (k == 0) {
    std::fill_n(y, Product(g.out_shape), A(0));
  } else if (Product(g.out_shape) > 0) {
    AXE_ASSIGN_OR_RETURN(columns, Scratch(ctx, g.acc_t, k * plan.chunk));
    if (g.channels_last) {
      ConvolveChannelsLast<A>(plan, ctx, lhs, rhs, y, columns.mutable_data<A>());
    } else {
      Convolve<A>(plan, ctx, lhs, rhs, y, columns.mutable_data<A>());
    }
  }
  if (plan.out.copy) {
    AXE_RETURN_IF_ERROR(plan.out.copy->Run(y, out[0].mutable_bytes()));
  } else if (!plan.out.in_place) {
    DispatchDType(g.out_t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>) {
        ScatterConvert(y, plan.out.shape, plan.out.strides, out[0].mutable_data<T>());
      }
    });
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildConv(const EqnView& v) {
  if (v.in.size() != 2 || v.out.size() != 1) return std::nullopt;
  // Anything the interpreter's typing rejects is its to report.
  absl::StatusOr<ir::AbstractEvalRule> rule =
      ir::GetAbstractEvalRule(*ir::Builtins().conv_general_dilated);
  if (!rule.ok()) return std::nullopt;
  absl::StatusOr<std::vector<ir::ShapedArray>> typed = (*rule)(v.in, v.eqn.params);
  if (!typed.ok() || typed->size() != 1 || (*typed)[0].shape() != v.out[0].shape() ||
      (*typed)[0].dtype() != v.out[0].dtype()) {
    return std::nullopt;
  }
  const DType in_t = v.in[0].dtype(), out_t = v.out[0].dtype();
  if (in_t == DType::kPred || !IsHeld(in_t) || !IsHeld(out_t)) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(ConvGeometry g, ReadGeometry(v));
  ConvPlan plan;
  const int bytes = g.acc_t == DType::kF32 ? 4 : 8;
  const int threads = v.options.num_threads;
  AXE_ASSIGN_OR_RETURN(plan.lhs,
                       PlanMove(g.lhs_shape, g.lhs_strides, in_t == g.acc_t, bytes, true, threads));
  AXE_ASSIGN_OR_RETURN(plan.rhs,
                       PlanMove(g.rhs_shape, g.rhs_strides, in_t == g.acc_t, bytes, true, threads));
  AXE_ASSIGN_OR_RETURN(
      plan.out, PlanMove(g.out_shape, g.out_strides, out_t == g.acc_t, bytes, false, threads));
  const int64_t k = std::max<int64_t>(1, g.i * g.window);
  const int64_t positions = g.channels_last ? g.out_n * g.positions : g.positions;
  const int64_t elements =
      std::min(kColumnElements, std::max(NumElements(g.out) / 8, k * kMinChunkPositions));
  plan.chunk = std::clamp<int64_t>(elements / k, 1, std::max<int64_t>(1, positions));
  BuiltKernel built;
  built.description =
      absl::StrCat("im2col ", g.channels_last ? "channels-last " : "", NumpyName(g.acc_t),
                   plan.lhs.in_place ? "" : " pack-lhs", plan.out.in_place ? "" : " unpack-out");
  // Multiply-adds plus bytes touched, saturated: a huge convolution is refused by the work
  // budget rather than wrapping around to a small estimate.
  const int64_t touched = NumElements(v.in[0]) + NumElements(v.in[1]) + NumElements(g.out);
  std::optional<int64_t> work = CheckedProduct({g.out_n, g.o, g.positions, g.i, g.window});
  work = work ? CheckedAdd(*work, touched * bytes) : std::nullopt;
  built.work = work.value_or(std::numeric_limits<int64_t>::max());
  // What ConvKernel allocates besides its output: one chunk of patches, and a canonical copy
  // only of an operand (or the result) that is not read (written) in place.
  int64_t scratch = g.i * g.window > 0 && NumElements(g.out) > 0 ? k * plan.chunk : 0;
  if (!plan.lhs.in_place) scratch += NumElements(v.in[0]);
  if (!plan.rhs.in_place) scratch += NumElements(v.in[1]);
  if (!plan.out.in_place) scratch += NumElements(g.out);
  built.scratch_bytes = scratch * bytes;
  plan.g = std::move(g);
  auto shared = std::make_shared<const ConvPlan>(std::move(plan));
  built.kernel = [shared](const RunContext& ctx, absl::Span<const Value> in,
                          std::vector<Value>& out) -> absl::Status {
    switch (shared->g.acc_t) {
      case DType::kS64: return ConvKernel<int64_t>(*shared, ctx, in, out);
      case DType::kF64: return ConvKernel<double>(*shared, ctx, in, out);
      default: return ConvKernel<float>(*shared, ctx, in, out);
    }
  };
  return built;
}

}  // namespace

void AddConvKernels(KernelTable& table) { table["conv_general_dilated"] = BuildConv; }

}  // namespace axe::exec::internal
