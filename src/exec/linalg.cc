// cholesky, triangular_solve and lu on f32 and f64 matrices, computed in their own type (not
// in doubles): Eigen's LLT and triangular solves, and LAPACK's unblocked getrf (getf2) written
// over T, so that pivots break ties as LAPACK does (the first largest magnitude of a column).
// Leading dimensions are batch dimensions, one matrix after another. Semantics are the
// interpreter's (src/ir/family_linalg.cc): cholesky reads the lower triangle, zeros above the
// diagonal and NaN everywhere for a matrix that is not positive definite; triangular_solve reads
// only its triangle; lu gives (lu, pivots, permutation). Other dtypes fall back to the
// interpreter.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "Eigen/Dense"
#include "axe/base/status_macros.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const RowMatrix<T>>;
template <typename T>
using MatrixMap = Eigen::Map<RowMatrix<T>>;

bool IsF32OrF64(DType dtype) { return dtype == DType::kF32 || dtype == DType::kF64; }

// f32 or f64 as a template argument.
template <typename Fn>
void DispatchFloat(DType dtype, Fn&& fn) {
  if (dtype == DType::kF32) {
    fn(float{});
  } else {
    fn(double{});
  }
}

// The matrices of a value [..., rows, cols].
struct Matrices {
  int64_t batches, rows, cols;
};
Matrices MatricesOf(const ir::ShapedArray& a) {
  const size_t r = a.rank();
  Matrices m{1, a.shape()[r - 2], a.shape()[r - 1]};
  for (size_t d = 0; d + 2 < r; ++d) m.batches *= a.shape()[d];
  return m;
}

// ---- cholesky

template <typename T>
absl::Status RunCholesky(const ir::ShapedArray& aval, const RunContext& ctx,
                         absl::Span<const Value> in, std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(aval));
  const Matrices m = MatricesOf(aval);
  const int64_t n = m.rows;
  for (int64_t b = 0; b < m.batches; ++b) {
    ConstMatrixMap<T> a(in[0].data<T>() + b * n * n, n, n);
    MatrixMap<T> l(out[0].mutable_data<T>() + b * n * n, n, n);
    Eigen::LLT<RowMatrix<T>, Eigen::Lower> llt(a);  // reads a's lower triangle only
    l = llt.matrixL();                              // zeros above the diagonal
    // Not positive definite (or NaN on the way): NaN everywhere, as JAX on CPU.
    if (llt.info() != Eigen::Success || l.hasNaN()) {
      l.setConstant(std::numeric_limits<T>::quiet_NaN());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildCholesky(const EqnView& v) {
  if (v.in.size() != 1 || v.out.size() != 1 || !IsF32OrF64(v.in[0].dtype()) || v.in[0].rank() < 2) {
    return std::nullopt;
  }
  const Matrices m = MatricesOf(v.in[0]);
  BuiltKernel kernel;
  kernel.description = "cholesky";
  kernel.work = m.batches * m.rows * m.rows * m.rows / 3 + 2 * NumElements(v.in[0]);
  const ir::ShapedArray aval = v.out[0];
  DispatchFloat(aval.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernel.kernel = [aval](const RunContext& ctx, absl::Span<const Value> in,
                           std::vector<Value>& out) { return RunCholesky<T>(aval, ctx, in, out); };
  });
  return kernel;
}

// ---- triangular_solve

struct SolveFlags {
  bool left_side, lower, transpose_a, unit_diagonal;
};

// Solves op(tri(a)) x = b (Side OnTheLeft) or x op(tri(a)) = b (OnTheRight) in place; the
// transpose of a triangle is the other triangle of a's transpose.
template <int Mode, int Side, typename T, typename X>
void SolveInMode(const ConstMatrixMap<T>& a, bool transpose, X& x) {
  constexpr int kFlipped = Mode ^ (Eigen::Lower | Eigen::Upper);
  if (transpose) {
    a.transpose().template triangularView<kFlipped>().template solveInPlace<Side>(x);
  } else {
    a.template triangularView<Mode>().template solveInPlace<Side>(x);
  }
}

template <int Side, typename T, typename X>
void SolveOnSide(const ConstMatrixMap<T>& a, const SolveFlags& s, X& x) {
  if (s.lower && s.unit_diagonal) SolveInMode<Eigen::UnitLower, Side>(a, s.transpose_a, x);
  if (s.lower && !s.unit_diagonal) SolveInMode<Eigen::Lower, Side>(a, s.transpose_a, x);
  if (!s.lower && s.unit_diagonal) SolveInMode<Eigen::UnitUpper, Side>(a, s.transpose_a, x);
  if (!s.lower && !s.unit_diagonal) SolveInMode<Eigen::Upper, Side>(a, s.transpose_a, x);
}

template <typename T>
absl::Status RunTriangularSolve(const ir::ShapedArray& aval, const SolveFlags& s,
                                const RunContext& ctx, absl::Span<const Value> in,
                                std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(aval));
  const Matrices x = MatricesOf(aval);
  const int64_t m = s.left_side ? x.rows : x.cols;
  std::memcpy(out[0].mutable_data<T>(), in[1].data<T>(),
              static_cast<size_t>(NumElements(aval)) * sizeof(T));
  for (int64_t b = 0; b < x.batches; ++b) {
    ConstMatrixMap<T> a(in[0].data<T>() + b * m * m, m, m);
    MatrixMap<T> xb(out[0].mutable_data<T>() + b * x.rows * x.cols, x.rows, x.cols);
    if (s.left_side) {
      SolveOnSide<Eigen::OnTheLeft, T>(a, s, xb);
    } else {
      SolveOnSide<Eigen::OnTheRight, T>(a, s, xb);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildTriangularSolve(const EqnView& v) {
  if (v.in.size() != 2 || v.out.size() != 1 || !IsF32OrF64(v.in[0].dtype()) ||
      v.in[1].dtype() != v.in[0].dtype() || v.in[0].rank() < 2) {
    return std::nullopt;
  }
  SolveFlags s{};
  for (auto [name, flag] : {std::pair<const char*, bool*>{"left_side", &s.left_side},
                            {"lower", &s.lower},
                            {"transpose_a", &s.transpose_a},
                            {"unit_diagonal", &s.unit_diagonal}}) {
    auto it = v.eqn.params.find(name);
    if (it == v.eqn.params.end()) return std::nullopt;
    absl::StatusOr<bool> value = it->second.AsBool(name);
    if (!value.ok()) return std::nullopt;
    *flag = *value;
  }
  const Matrices x = MatricesOf(v.out[0]);
  const int64_t m = s.left_side ? x.rows : x.cols;
  BuiltKernel kernel;
  kernel.description = "triangular_solve";
  kernel.work = x.batches * m * m * (x.rows * x.cols / std::max<int64_t>(m, 1)) / 2 +
                NumElements(v.in[0]) + 2 * NumElements(v.out[0]);
  const ir::ShapedArray aval = v.out[0];
  DispatchFloat(aval.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernel.kernel = [aval, s](const RunContext& ctx, absl::Span<const Value> in,
                              std::vector<Value>& out) {
      return RunTriangularSolve<T>(aval, s, ctx, in, out);
    };
  });
  return kernel;
}

// ---- lu

// LAPACK's getf2 on the rows x cols matrix `a` in place, in T: pivots[min(rows, cols)] and the
// row permutation. A zero pivot leaves its column unscaled.
template <typename T>
void LuFactor(MatrixMap<T>& a, int32_t* pivots, int32_t* permutation) {
  const int64_t rows = a.rows(), cols = a.cols();
  for (int64_t i = 0; i < rows; ++i) permutation[i] = static_cast<int32_t>(i);
  for (int64_t j = 0; j < std::min(rows, cols); ++j) {
    int64_t p = j;
    for (int64_t i = j + 1; i < rows; ++i) {
      if (std::fabs(a(i, j)) > std::fabs(a(p, j))) p = i;  // the first largest, as idamax
    }
    pivots[j] = static_cast<int32_t>(p);
    if (p != j) {
      a.row(j).swap(a.row(p));
      std::swap(permutation[j], permutation[p]);
    }
    const T d = a(j, j);
    if (d == T(0)) continue;
    for (int64_t i = j + 1; i < rows; ++i) {
      a(i, j) /= d;
      const T f = a(i, j);
      for (int64_t c = j + 1; c < cols; ++c) a(i, c) -= f * a(j, c);
    }
  }
}

template <typename T>
absl::Status RunLu(const std::vector<ir::ShapedArray>& avals, const RunContext& ctx,
                   absl::Span<const Value> in, std::vector<Value>& out) {
  for (size_t i = 0; i < 3; ++i) {
    AXE_ASSIGN_OR_RETURN(out[i], ctx.Allocate(avals[i]));
  }
  const Matrices m = MatricesOf(avals[0]);
  const int64_t k = std::min(m.rows, m.cols);
  std::memcpy(out[0].mutable_data<T>(), in[0].data<T>(),
              static_cast<size_t>(NumElements(avals[0])) * sizeof(T));
  for (int64_t b = 0; b < m.batches; ++b) {
    MatrixMap<T> a(out[0].mutable_data<T>() + b * m.rows * m.cols, m.rows, m.cols);
    LuFactor<T>(a, out[1].mutable_data<int32_t>() + b * k,
                out[2].mutable_data<int32_t>() + b * m.rows);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildLu(const EqnView& v) {
  if (v.in.size() != 1 || v.out.size() != 3 || !IsF32OrF64(v.in[0].dtype()) || v.in[0].rank() < 2 ||
      v.out[1].dtype() != DType::kS32 || v.out[2].dtype() != DType::kS32) {
    return std::nullopt;
  }
  const Matrices m = MatricesOf(v.in[0]);
  BuiltKernel kernel;
  kernel.description = "lu";
  kernel.work = m.batches * m.rows * m.cols * std::min(m.rows, m.cols) + 2 * NumElements(v.in[0]);
  const std::vector<ir::ShapedArray> avals = v.out;
  DispatchFloat(v.in[0].dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernel.kernel = [avals](const RunContext& ctx, absl::Span<const Value> in,
                            std::vector<Value>& out) { return RunLu<T>(avals, ctx, in, out); };
  });
  return kernel;
}

}  // namespace

void AddLinalgKernels(KernelTable& table) {
  table["cholesky"] = BuildCholesky;
  table["triangular_solve"] = BuildTriangularSolve;
  table["lu"] = BuildLu;
}

}  // namespace axe::exec::internal
