// cholesky, triangular_solve, lu, qr, eigh and svd (JAX's lax.linalg primitives behind
// jnp.linalg.cholesky, jax.scipy.linalg.solve_triangular and cho_solve, jnp.linalg.slogdet and
// det, jnp.linalg.qr, eigh and svd).
//
//   cholesky          a[..., n, n] (floating) -> the lower factor L, a = L L^T, computed from
//                     a's lower triangle; the upper triangle of the result is zero. A matrix
//                     that is not positive definite gives NaN everywhere, as JAX on CPU does.
//   triangular_solve  a[..., m, m], b[..., m, n] (left_side) or b[..., n, m]: x with
//                     op(a) x = b (left_side) or x op(a) = b, op(a) = a^T when transpose_a,
//                     reading only a's `lower` (else upper) triangle and taking its diagonal as
//                     ones when unit_diagonal. conjugate_a is the identity on real types.
//   lu                a[..., m, n] (floating) -> (lu, pivots i32[..., min(m, n)], permutation
//                     i32[..., m]): LAPACK's getrf, partial pivoting on the first largest
//                     |element| of each column; L (unit diagonal) below, U on and above the
//                     diagonal; row i of the permuted a is row permutation[i] of a. A zero
//                     pivot leaves its column unscaled, as getrf does.
//
//   qr                a[..., m, n] -> (q[..., m, k], r[..., k, n]), k = m with full_matrices,
//                     else min(m, n); Householder reflections with LAPACK's signs.
//   eigh              a[..., n, n] -> (v, w): eigenvectors as columns, eigenvalues ascending,
//                     reading the `lower` (else upper) triangle; vectors' signs are Eigen's.
//   svd               a[..., m, n] -> s (descending), then with compute_uv u and vt.
//   The three run Eigen in doubles; a matrix holding NaN or infinity gives NaN. eigh's JVP is
//   JAX's (distinct eigenvalues), qr's JAX's for m >= n with thin factors, svd's JAX's for the
//   singular values alone. pivoting=True and subset_by_index are refused.
//
// The impls are the interpreter's (doubles, rounded to the type at the end). The JVPs are
// JAX's: triangular_solve's is linear in b and, in a, -op(a)^-1 op(tri(da)) x; cholesky's is
// L phi(L^-1 da L^-T) with phi the lower triangle with a halved diagonal; lu's (square
// matrices) is L tril(X, -1) + triu(X) U with X = L^-1 P da U^-1. triangular_solve
// is linear in b: its transpose solves with op(a) transposed. Batching moves the batch
// dimension to the front (both operands of triangular_solve, broadcast when unbatched).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "Eigen/Dense"
#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace linalg_family {

const BuiltinPrimitives& P() { return Builtins(); }

std::string PyShape(const ShapedArray& a) { return PyTuple(a.shape()); }

// ---- typing

absl::StatusOr<std::vector<ShapedArray>> CholeskyRule(absl::Span<const ShapedArray> avals,
                                                      const Params&) {
  AXE_RETURN_IF_ERROR(ExpectArity("cholesky", avals, 1));
  const ShapedArray& a = avals[0];
  if (!IsFloatingPoint(a.dtype())) {
    return TypeError(absl::StrCat("cholesky does not accept dtype ", DTypeName(a.dtype()),
                                  ". Accepted dtypes are subtypes of floating, complexfloating."));
  }
  if (Rank(a) < 2) {
    return TypeError(
        absl::StrCat("cholesky requires its input to have at least 2 dimensions, "
                     "got shape ",
                     PyShape(a), "."));
  }
  const int64_t r = Rank(a);
  if (a.shape()[r - 1] != a.shape()[r - 2]) {
    return TypeError(absl::StrCat("The input to cholesky must be a square matrix. Got shape ",
                                  PyTuple({a.shape()[r - 2], a.shape()[r - 1]}), "."));
  }
  return One(a.WithWeakType(false));
}

absl::StatusOr<std::vector<ShapedArray>> LuRule(absl::Span<const ShapedArray> avals,
                                                const Params&) {
  AXE_RETURN_IF_ERROR(ExpectArity("lu", avals, 1));
  const ShapedArray& a = avals[0];
  if (!IsFloatingPoint(a.dtype())) {
    return TypeError(absl::StrCat("lu does not accept dtype ", DTypeName(a.dtype()),
                                  ". Accepted dtypes are subtypes of floating, complexfloating."));
  }
  if (Rank(a) < 2) {
    return TypeError(
        absl::StrCat("lu requires its input to have at least 2 dimensions, got "
                     "shape ",
                     PyShape(a), "."));
  }
  std::vector<int64_t> pivots(a.shape().begin(), a.shape().end() - 1);
  const int64_t m = a.shape()[Rank(a) - 2], n = a.shape()[Rank(a) - 1];
  std::vector<int64_t> permutation = pivots;
  pivots.back() = std::min(m, n);
  return std::vector<ShapedArray>{a.WithWeakType(false), ShapedArray(pivots, DType::kS32),
                                  ShapedArray(permutation, DType::kS32)};
}

struct SolveParams {
  bool left_side, lower, transpose_a, unit_diagonal;
};

absl::StatusOr<bool> BoolParam(const Params& params, absl::string_view name) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, "triangular_solve", name));
  return p->AsBool(name);
}

absl::StatusOr<SolveParams> ReadSolveParams(const Params& params) {
  SolveParams s{};
  AXE_ASSIGN_OR_RETURN(s.left_side, BoolParam(params, "left_side"));
  AXE_ASSIGN_OR_RETURN(s.lower, BoolParam(params, "lower"));
  AXE_ASSIGN_OR_RETURN(s.transpose_a, BoolParam(params, "transpose_a"));
  AXE_ASSIGN_OR_RETURN(s.unit_diagonal, BoolParam(params, "unit_diagonal"));
  return s;
}

absl::StatusOr<std::vector<ShapedArray>> TriangularSolveRule(absl::Span<const ShapedArray> avals,
                                                             const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("triangular_solve", avals, 2));
  AXE_ASSIGN_OR_RETURN(SolveParams s, ReadSolveParams(params));
  const ShapedArray &a = avals[0], &b = avals[1];
  if (!IsFloatingPoint(a.dtype()) || a.dtype() != b.dtype()) {
    return TypeError(
        absl::StrCat("triangular_solve requires both arguments to have the same "
                     "floating dtype, got ",
                     DTypeName(a.dtype()), " and ", DTypeName(b.dtype()), "."));
  }
  if (Rank(a) < 2) {
    return TypeError(
        absl::StrCat("triangular_solve requires a.ndim to be at least 2, got ", Rank(a), "."));
  }
  if (Rank(b) < 2) {
    return TypeError(
        absl::StrCat("triangular_solve requires b.ndim to be at least 2, got ", Rank(b), "."));
  }
  const int64_t ra = Rank(a), rb = Rank(b);
  if (a.shape()[ra - 1] != a.shape()[ra - 2]) {
    return TypeError(
        absl::StrCat("triangular_solve requires the last two dimensions of a to be "
                     "equal in size, got a.shape of ",
                     PyShape(a), "."));
  }
  if (ra != rb || !std::equal(a.shape().begin(), a.shape().end() - 2, b.shape().begin())) {
    return TypeError(
        absl::StrCat("triangular_solve requires both arguments to have the same "
                     "number of dimensions and equal batch dimensions, got ",
                     PyShape(a), " and ", PyShape(b), "."));
  }
  if (a.shape()[ra - 1] != b.shape()[rb - (s.left_side ? 2 : 1)]) {
    return TypeError(absl::StrCat("Incompatible shapes for arguments to triangular_solve: ",
                                  PyShape(a), " and ", PyShape(b), "."));
  }
  return One(b.WithWeakType(false));
}

// ---- impls (row-major matrices of doubles)

// The lower factor of the n x n matrix at `a` into `l`; false when not positive definite.
bool CholeskyFactor(const double* a, int64_t n, double* l) {
  for (int64_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (int64_t k = 0; k < j; ++k) d -= l[j * n + k] * l[j * n + k];
    if (!(d > 0)) return false;  // NaN too
    l[j * n + j] = std::sqrt(d);
    for (int64_t i = j + 1; i < n; ++i) {
      double v = a[i * n + j];
      for (int64_t k = 0; k < j; ++k) v -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = v / l[j * n + j];
    }
  }
  return true;
}

absl::StatusOr<std::vector<HostArray>> CholeskyImpl(absl::Span<const HostArray> args,
                                                    const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*P().cholesky, args, params));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  const int64_t n = aval.shape().back();
  const int64_t block = n * n;
  for (size_t at = 0; at < out.values.size(); at += static_cast<size_t>(block)) {
    double* l = out.values.data() + at;
    if (!CholeskyFactor(args[0].values.data() + at, n, l)) {
      std::fill(l, l + block, std::numeric_limits<double>::quiet_NaN());
    }
  }
  for (double& v : out.values) v = RoundToDType(v, aval.dtype());
  return OneArray(std::move(out));
}

// Solves t x = r in place (r holds x after), t an m x m triangular matrix given by element
// accessor `at(i, j)`, lower or upper.
template <typename At>
void Substitute(At at, bool lower, int64_t m, double* r, int64_t stride) {
  for (int64_t step = 0; step < m; ++step) {
    const int64_t i = lower ? step : m - 1 - step;
    double v = r[i * stride];
    const int64_t from = lower ? 0 : i + 1, to = lower ? i : m;
    for (int64_t k = from; k < to; ++k) v -= at(i, k) * r[k * stride];
    r[i * stride] = v / at(i, i);
  }
}

// One matrix: b (m x n, left side; n x m, right side) overwritten with the solution.
void SolveOne(const double* a, double* b, int64_t m, int64_t n, const SolveParams& s) {
  // The triangle of a that is read, with its unit diagonal.
  auto tri = [&](int64_t i, int64_t j) {
    if (i == j) return s.unit_diagonal ? 1.0 : a[i * m + j];
    return (s.lower ? i > j : i < j) ? a[i * m + j] : 0.0;
  };
  // op(a) for the left side; op(a)^T for the right side (x op(a) = b <=> op(a)^T x^T = b^T).
  const bool transposed = s.transpose_a != !s.left_side;
  auto op = [&](int64_t i, int64_t j) { return transposed ? tri(j, i) : tri(i, j); };
  const bool op_lower = s.lower != transposed;
  if (s.left_side) {
    for (int64_t c = 0; c < n; ++c) Substitute(op, op_lower, m, b + c, n);
  } else {
    for (int64_t row = 0; row < n; ++row) Substitute(op, op_lower, m, b + row * m, 1);
  }
}

absl::StatusOr<std::vector<HostArray>> TriangularSolveImpl(absl::Span<const HostArray> args,
                                                           const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*P().triangular_solve, args, params));
  AXE_ASSIGN_OR_RETURN(SolveParams s, ReadSolveParams(params));
  HostArray out{aval, args[1].values};
  const int64_t m = args[0].aval.shape().back();
  const int64_t r = Rank(aval);
  const int64_t n = s.left_side ? aval.shape()[r - 1] : aval.shape()[r - 2];
  const size_t batches = m * n == 0 ? 0 : out.values.size() / static_cast<size_t>(m * n);
  for (size_t k = 0; k < batches; ++k) {
    SolveOne(args[0].values.data() + k * m * m, out.values.data() + k * m * n, m, n, s);
  }
  for (double& v : out.values) v = RoundToDType(v, aval.dtype());
  return OneArray(std::move(out));
}

// getrf on the m x n matrix `a` in place: pivots (k = min(m, n) of them) and the permutation.
void LuFactor(double* a, int64_t m, int64_t n, double* pivots, double* permutation) {
  for (int64_t i = 0; i < m; ++i) permutation[i] = static_cast<double>(i);
  for (int64_t j = 0; j < std::min(m, n); ++j) {
    int64_t p = j;
    for (int64_t i = j + 1; i < m; ++i) {
      if (std::fabs(a[i * n + j]) > std::fabs(a[p * n + j])) p = i;
    }
    pivots[j] = static_cast<double>(p);
    if (p != j) {
      std::swap_ranges(a + j * n, a + (j + 1) * n, a + p * n);
      std::swap(permutation[j], permutation[p]);
    }
    const double d = a[j * n + j];
    if (d == 0) continue;
    for (int64_t i = j + 1; i < m; ++i) {
      a[i * n + j] /= d;
      for (int64_t c = j + 1; c < n; ++c) a[i * n + c] -= a[i * n + j] * a[j * n + c];
    }
  }
}

absl::StatusOr<std::vector<HostArray>> LuImpl(absl::Span<const HostArray> args,
                                              const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals, LuRule(PlainAvals(args), params));
  std::vector<HostArray> out{{avals[0], args[0].values}, {}, {}};
  AXE_ASSIGN_OR_RETURN(out[1], ZeroArray(avals[1]));
  AXE_ASSIGN_OR_RETURN(out[2], ZeroArray(avals[2]));
  const int64_t r = Rank(avals[0]);
  const int64_t m = avals[0].shape()[r - 2], n = avals[0].shape()[r - 1], k = std::min(m, n);
  const size_t batches = m * n == 0 ? 0 : out[0].values.size() / static_cast<size_t>(m * n);
  for (size_t b = 0; b < batches; ++b) {
    LuFactor(out[0].values.data() + b * m * n, m, n, out[1].values.data() + b * k,
             out[2].values.data() + b * m);
  }
  for (double& v : out[0].values) v = RoundToDType(v, avals[0].dtype());
  return out;
}

// ---- derivative helpers (traced)

Params SolveParamsWith(const Params& params, bool left_side, bool lower, bool transpose_a) {
  Params p = params;
  p["left_side"] = Param::Bool(left_side);
  p["lower"] = Param::Bool(lower);
  p["transpose_a"] = Param::Bool(transpose_a);
  return p;
}

// x @ y over the last two dimensions, the leading ones batch dimensions.
absl::StatusOr<Tracer> BatchMatmul(const Tracer& x, const Tracer& y) {
  const int64_t r = Rank(x.aval);
  std::vector<int64_t> batch;
  for (int64_t d = 0; d + 2 < r; ++d) batch.push_back(d);
  return DotGeneral(x, y, {r - 1}, {r - 2}, batch, batch);
}

// The last two dimensions swapped.
absl::StatusOr<Tracer> SwapLast(const Tracer& x) {
  const int64_t r = Rank(x.aval);
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < r; ++d) perm.push_back(d);
  std::swap(perm[r - 1], perm[r - 2]);
  return Transpose(x, perm);
}

// Where row - col compares to zero as `cmp` says (ge: lower triangle, gt: strictly lower,
// le, lt, eq), over x's last two dimensions.
absl::StatusOr<Tracer> TriangleMask(Builder& b, const Tracer& x, const Primitive& cmp) {
  const int64_t r = Rank(x.aval);
  AXE_ASSIGN_OR_RETURN(Tracer rows, Iota(b, DType::kS32, x.aval.shape(), r - 2));
  AXE_ASSIGN_OR_RETURN(Tracer cols, Iota(b, DType::kS32, x.aval.shape(), r - 1));
  return Binary(cmp, rows, cols);
}

// x where `mask`, else zero.
absl::StatusOr<Tracer> Keep(Builder& b, const Tracer& mask, const Tracer& x) {
  AXE_ASSIGN_OR_RETURN(Tracer zero, ZerosLike(b, x.aval));
  return SelectN(mask, {zero, x});
}

// The tangent of triangular_solve's result `x` for a's tangent `da` (JAX's rule).
absl::StatusOr<Tracer> SolveTangentInA(Builder& b, const Tracer& a, const Tracer& x,
                                       const Tracer& da, const Params& params) {
  AXE_ASSIGN_OR_RETURN(SolveParams s, ReadSolveParams(params));
  const Primitive& cmp =
      s.lower ? (s.unit_diagonal ? *P().gt : *P().ge) : (s.unit_diagonal ? *P().lt : *P().le);
  AXE_ASSIGN_OR_RETURN(Tracer mask, TriangleMask(b, da, cmp));
  AXE_ASSIGN_OR_RETURN(Tracer g, Keep(b, mask, da));
  AXE_ASSIGN_OR_RETURN(g, Neg(g));
  if (s.transpose_a) {
    AXE_ASSIGN_OR_RETURN(g, SwapLast(g));
  }
  AXE_ASSIGN_OR_RETURN(Tracer prod, s.left_side ? BatchMatmul(g, x) : BatchMatmul(x, g));
  return Op(*P().triangular_solve, {a, prod}, params);
}

absl::StatusOr<JvpResult> TriangularSolveJvp(Builder& b, absl::Span<const Tracer> primals,
                                             absl::Span<const OptTracer> tangents,
                                             const Params& params) {
  AXE_ASSIGN_OR_RETURN(Tracer x, Op(*P().triangular_solve, {primals[0], primals[1]}, params));
  OptTracer tangent;
  if (tangents[1]) {
    AXE_ASSIGN_OR_RETURN(tangent, Op(*P().triangular_solve, {primals[0], *tangents[1]}, params));
  }
  if (tangents[0]) {
    AXE_ASSIGN_OR_RETURN(Tracer ta, SolveTangentInA(b, primals[0], x, *tangents[0], params));
    AXE_ASSIGN_OR_RETURN(tangent, AddTangents(tangent, ta, x.aval));
  }
  return JvpResult{{x}, {tangent}};
}

absl::StatusOr<std::vector<OptTracer>> TriangularSolveTranspose(Builder&,
                                                                absl::Span<const OptTracer> cts,
                                                                absl::Span<const TransposeArg> args,
                                                                const Params& params) {
  if (args[0].is_undefined_primal() || !args[1].is_undefined_primal()) {
    return absl::InvalidArgumentError(
        "triangular_solve is linear in b only: transposing it needs a's value");
  }
  std::vector<OptTracer> out(2);
  if (cts[0]) {
    AXE_ASSIGN_OR_RETURN(SolveParams s, ReadSolveParams(params));
    AXE_ASSIGN_OR_RETURN(out[1], Op(*P().triangular_solve, {*args[0].value, *cts[0]},
                                    SolveParamsWith(params, s.left_side, s.lower, !s.transpose_a)));
  }
  return out;
}

absl::StatusOr<BatchResult> TriangularSolveBatch(Builder&, absl::Span<const Tracer> args,
                                                 absl::Span<const BDim> dims,
                                                 const Params& params) {
  const int64_t size = BatchSize(args, dims);
  AXE_ASSIGN_OR_RETURN(Tracer a, Materialize(args[0], dims[0], size));
  AXE_ASSIGN_OR_RETURN(Tracer b, Materialize(args[1], dims[1], size));
  AXE_ASSIGN_OR_RETURN(Tracer x, Op(*P().triangular_solve, {a, b}, params));
  return BatchResult{{x}, {0}};
}

// JAX's rule: L_dot = L phi(L^-1 sigma_dot L^-T).
absl::StatusOr<JvpResult> CholeskyJvp(Builder& b, absl::Span<const Tracer> primals,
                                      absl::Span<const OptTracer> tangents, const Params&) {
  AXE_ASSIGN_OR_RETURN(Tracer l, Op(*P().cholesky, {primals[0]}));
  if (!tangents[0]) return JvpResult{{l}, {std::nullopt}};
  Params solve;
  solve["conjugate_a"] = Param::Bool(false);
  solve["unit_diagonal"] = Param::Bool(false);
  AXE_ASSIGN_OR_RETURN(Tracer tmp, Op(*P().triangular_solve, {l, *tangents[0]},
                                      SolveParamsWith(solve, false, true, true)));
  AXE_ASSIGN_OR_RETURN(
      Tracer inner, Op(*P().triangular_solve, {l, tmp}, SolveParamsWith(solve, true, true, false)));
  AXE_ASSIGN_OR_RETURN(Tracer strict, TriangleMask(b, inner, *P().gt));
  AXE_ASSIGN_OR_RETURN(Tracer diagonal, TriangleMask(b, inner, *P().eq));
  AXE_ASSIGN_OR_RETURN(Tracer half, Op(*P().mul, {inner, b.Scalar(0.5, inner.aval.dtype())}));
  AXE_ASSIGN_OR_RETURN(Tracer lower, Keep(b, strict, inner));
  AXE_ASSIGN_OR_RETURN(Tracer phi, SelectN(diagonal, {lower, half}));
  AXE_ASSIGN_OR_RETURN(Tracer dl, BatchMatmul(l, phi));
  return JvpResult{{l}, {dl}};
}

// The one-hot matrix of `permutation` (i32[..., m]) in `dtype`: row i has its 1 at column
// permutation[i], so P @ x is x's rows permuted.
absl::StatusOr<Tracer> PermutationMatrix(Builder& b, const Tracer& permutation, DType dtype) {
  std::vector<int64_t> shape = permutation.aval.shape();
  shape.push_back(shape.back());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d + 1 < static_cast<int64_t>(shape.size()); ++d) dims.push_back(d);
  AXE_ASSIGN_OR_RETURN(Tracer rows, BroadcastInDim(permutation, shape, dims));
  AXE_ASSIGN_OR_RETURN(Tracer cols, Iota(b, DType::kS32, shape, Rank(rows.aval) - 1));
  AXE_ASSIGN_OR_RETURN(Tracer hit, Binary(*P().eq, rows, cols));
  return ConvertElementType(hit, dtype);
}

// JAX's rule for square matrices.
absl::StatusOr<JvpResult> LuJvp(Builder& b, absl::Span<const Tracer> primals,
                                absl::Span<const OptTracer> tangents, const Params&) {
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> out, b.Bind(*P().lu, {primals[0]}));
  JvpResult result{out, {std::nullopt, std::nullopt, std::nullopt}};
  if (!tangents[0]) return result;
  const Tracer& lu = out[0];
  const int64_t r = Rank(lu.aval);
  if (lu.aval.shape()[r - 1] != lu.aval.shape()[r - 2]) {
    return absl::UnimplementedError(absl::StrCat(
        "axe differentiates lu of square matrices only, got shape ", PyShape(lu.aval)));
  }
  const DType dtype = lu.aval.dtype();
  AXE_ASSIGN_OR_RETURN(Tracer perm, PermutationMatrix(b, out[2], dtype));
  AXE_ASSIGN_OR_RETURN(Tracer x, BatchMatmul(perm, *tangents[0]));
  AXE_ASSIGN_OR_RETURN(Tracer strict, TriangleMask(b, lu, *P().gt));
  AXE_ASSIGN_OR_RETURN(Tracer upper, TriangleMask(b, lu, *P().le));
  AXE_ASSIGN_OR_RETURN(Tracer diagonal, TriangleMask(b, lu, *P().eq));
  AXE_ASSIGN_OR_RETURN(Tracer eye, ConvertElementType(diagonal, dtype));
  AXE_ASSIGN_OR_RETURN(Tracer l, Keep(b, strict, lu));
  AXE_ASSIGN_OR_RETURN(l, Op(*P().add, {l, eye}));
  AXE_ASSIGN_OR_RETURN(Tracer u, Keep(b, upper, lu));
  Params solve;
  solve["conjugate_a"] = Param::Bool(false);
  solve["unit_diagonal"] = Param::Bool(true);
  AXE_ASSIGN_OR_RETURN(
      Tracer la, Op(*P().triangular_solve, {l, x}, SolveParamsWith(solve, true, true, false)));
  solve["unit_diagonal"] = Param::Bool(false);
  AXE_ASSIGN_OR_RETURN(
      Tracer lau, Op(*P().triangular_solve, {u, la}, SolveParamsWith(solve, false, false, false)));
  AXE_ASSIGN_OR_RETURN(Tracer lau_lower, Keep(b, strict, lau));
  AXE_ASSIGN_OR_RETURN(Tracer lau_upper, Keep(b, upper, lau));
  AXE_ASSIGN_OR_RETURN(Tracer l_dot, BatchMatmul(l, lau_lower));
  AXE_ASSIGN_OR_RETURN(Tracer u_dot, BatchMatmul(lau_upper, u));
  AXE_ASSIGN_OR_RETURN(result.tangents_out[0], Op(*P().add, {l_dot, u_dot}));
  return result;
}

absl::StatusOr<BatchResult> LuBatch(Builder& b, absl::Span<const Tracer> args,
                                    absl::Span<const BDim> dims, const Params&) {
  AXE_ASSIGN_OR_RETURN(Tracer a, MoveBatchDim(args[0], *dims[0], 0));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*P().lu, {a}));
  return BatchResult{outs, {0, 0, 0}};
}

// ---- qr, eigh, svd: typing (JAX's shape and dtype rules) and impls (Eigen, in doubles)

absl::Status ExpectFloatingMatrices(absl::string_view name, const ShapedArray& a) {
  if (!IsFloatingPoint(a.dtype())) {
    return TypeError(absl::StrCat(name, " does not accept dtype ", DTypeName(a.dtype()),
                                  ". Accepted dtypes are subtypes of floating, complexfloating."));
  }
  if (Rank(a) < 2) {
    return TypeError(absl::StrCat(name, " requires its input to have at least 2 dimensions, got ",
                                  "shape ", PyShape(a), "."));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> FlagParam(const Params& params, absl::string_view primitive,
                               absl::string_view name) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, primitive, name));
  return p->AsBool(name);
}

// subset_by_index (eigh, svd) other than None is not modelled.
absl::Status ExpectNoSubset(const Params& params, absl::string_view primitive) {
  auto it = params.find("subset_by_index");
  if (it == params.end() || it->second.is_none()) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat("axe's ", primitive, " computes every eigen or singular value: subset_by_index=",
                   it->second.ToString(), " is not supported"));
}

// a's batch dimensions followed by `tail`.
ShapedArray BatchedLike(const ShapedArray& a, std::vector<int64_t> tail, DType dtype) {
  std::vector<int64_t> shape(a.shape().begin(), a.shape().end() - 2);
  shape.insert(shape.end(), tail.begin(), tail.end());
  return ShapedArray(shape, dtype);
}

struct MatrixDims {
  int64_t m, n;
};
MatrixDims DimsOf(const ShapedArray& a) { return {a.shape()[Rank(a) - 2], a.shape()[Rank(a) - 1]}; }

absl::StatusOr<std::vector<ShapedArray>> QrRule(absl::Span<const ShapedArray> avals,
                                                const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("qr", avals, 1));
  AXE_RETURN_IF_ERROR(ExpectFloatingMatrices("qr", avals[0]));
  AXE_ASSIGN_OR_RETURN(bool full, FlagParam(params, "qr", "full_matrices"));
  auto pivoting = params.find("pivoting");
  if (pivoting != params.end() && pivoting->second.kind() == Param::Kind::kBool &&
      pivoting->second.bool_value()) {
    return absl::UnimplementedError("axe's qr does not pivot (pivoting=True)");
  }
  const auto [m, n] = DimsOf(avals[0]);
  const int64_t k = full ? m : std::min(m, n);
  const DType t = avals[0].dtype();
  return std::vector<ShapedArray>{BatchedLike(avals[0], {m, k}, t),
                                  BatchedLike(avals[0], {k, n}, t)};
}

// Outputs (v, w): the eigenvectors as columns, then the eigenvalues, as JAX's eigh binds them.
absl::StatusOr<std::vector<ShapedArray>> EighRule(absl::Span<const ShapedArray> avals,
                                                  const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("eigh", avals, 1));
  AXE_RETURN_IF_ERROR(ExpectFloatingMatrices("eigh", avals[0]));
  const auto [m, n] = DimsOf(avals[0]);
  if (m != n) {
    return TypeError(absl::StrCat(
        "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape ",
        PyTuple({m, n})));
  }
  AXE_RETURN_IF_ERROR(FlagParam(params, "eigh", "lower").status());
  AXE_RETURN_IF_ERROR(ExpectNoSubset(params, "eigh"));
  const DType t = avals[0].dtype();
  return std::vector<ShapedArray>{BatchedLike(avals[0], {n, n}, t), BatchedLike(avals[0], {n}, t)};
}

// Outputs s (descending), then with compute_uv u and vt (a = u diag(s) vt).
absl::StatusOr<std::vector<ShapedArray>> SvdRule(absl::Span<const ShapedArray> avals,
                                                 const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("svd", avals, 1));
  AXE_RETURN_IF_ERROR(ExpectFloatingMatrices("svd", avals[0]));
  AXE_ASSIGN_OR_RETURN(bool full, FlagParam(params, "svd", "full_matrices"));
  AXE_ASSIGN_OR_RETURN(bool uv, FlagParam(params, "svd", "compute_uv"));
  AXE_RETURN_IF_ERROR(ExpectNoSubset(params, "svd"));
  const auto [m, n] = DimsOf(avals[0]);
  const int64_t k = std::min(m, n);
  const DType t = avals[0].dtype();
  std::vector<ShapedArray> out{BatchedLike(avals[0], {k}, t)};
  if (uv) {
    out.push_back(BatchedLike(avals[0], {m, full ? m : k}, t));
    out.push_back(BatchedLike(avals[0], {full ? n : k, n}, t));
  }
  return out;
}

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMap = Eigen::Map<RowMatrix>;
using ConstRowMap = Eigen::Map<const RowMatrix>;

// Runs `one(batch index, a)` on every matrix of args[0] into fresh outputs of `avals`
// (rounded to their dtypes after). A matrix holding NaN or infinity gives NaN outputs (Eigen's
// iterations are not meant for them; LAPACK's give NaN too).
template <typename One>
absl::StatusOr<std::vector<HostArray>> PerMatrix(const HostArray& a,
                                                 const std::vector<ShapedArray>& avals, One one) {
  std::vector<HostArray> out;
  for (const ShapedArray& aval : avals) {
    AXE_ASSIGN_OR_RETURN(HostArray o, ZeroArray(aval));
    out.push_back(std::move(o));
  }
  const auto [m, n] = DimsOf(a.aval);
  const int64_t batches = m * n == 0 ? 0 : static_cast<int64_t>(a.values.size()) / (m * n);
  for (int64_t b = 0; b < batches; ++b) {
    ConstRowMap matrix(a.values.data() + b * m * n, m, n);
    if (matrix.allFinite()) {
      one(b, matrix, out);
      continue;
    }
    for (HostArray& o : out) {
      const int64_t size = static_cast<int64_t>(o.values.size()) / batches;
      std::fill(o.values.begin() + b * size, o.values.begin() + (b + 1) * size,
                std::numeric_limits<double>::quiet_NaN());
    }
  }
  for (HostArray& o : out) {
    for (double& v : o.values) v = RoundToDType(v, o.aval.dtype());
  }
  return out;
}

// The matrix block `b` of output `o`, as a row-major map of its last two dimensions.
RowMap BlockOf(HostArray& o, int64_t b) {
  const int64_t r = Rank(o.aval);
  const int64_t rows = o.aval.shape()[r - 2], cols = o.aval.shape()[r - 1];
  return RowMap(o.values.data() + b * rows * cols, rows, cols);
}
Eigen::Map<Eigen::VectorXd> VectorOf(HostArray& o, int64_t b) {
  const int64_t size = o.aval.shape().back();
  return Eigen::Map<Eigen::VectorXd>(o.values.data() + b * size, size);
}

// Householder QR, LAPACK's geqrf convention (r's diagonal may be negative), then q's first k
// columns.
absl::StatusOr<std::vector<HostArray>> QrImpl(absl::Span<const HostArray> args,
                                              const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals, QrRule(PlainAvals(args), params));
  return PerMatrix(args[0], avals,
                   [](int64_t b, const ConstRowMap& a, std::vector<HostArray>& out) {
                     Eigen::HouseholderQR<RowMatrix> qr(a);
                     RowMap q = BlockOf(out[0], b), r = BlockOf(out[1], b);
                     q = qr.householderQ() * RowMatrix::Identity(a.rows(), q.cols());
                     r = qr.matrixQR().topRows(r.rows()).triangularView<Eigen::Upper>();
                   });
}

absl::StatusOr<std::vector<HostArray>> EighImpl(absl::Span<const HostArray> args,
                                                const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals, EighRule(PlainAvals(args), params));
  AXE_ASSIGN_OR_RETURN(bool lower, FlagParam(params, "eigh", "lower"));
  return PerMatrix(args[0], avals,
                   [lower](int64_t b, const ConstRowMap& a, std::vector<HostArray>& out) {
                     // Eigen reads the lower triangle; the upper one is the transpose's lower.
                     RowMatrix read = lower ? RowMatrix(a) : RowMatrix(a.transpose());
                     Eigen::SelfAdjointEigenSolver<RowMatrix> eig(read);
                     BlockOf(out[0], b) = eig.eigenvectors();
                     VectorOf(out[1], b) = eig.eigenvalues();
                   });
}

absl::StatusOr<std::vector<HostArray>> SvdImpl(absl::Span<const HostArray> args,
                                               const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals, SvdRule(PlainAvals(args), params));
  AXE_ASSIGN_OR_RETURN(bool full, FlagParam(params, "svd", "full_matrices"));
  const bool uv = avals.size() == 3;
  const unsigned options = !uv    ? 0
                           : full ? Eigen::ComputeFullU | Eigen::ComputeFullV
                                  : Eigen::ComputeThinU | Eigen::ComputeThinV;
  return PerMatrix(args[0], avals,
                   [uv, options](int64_t b, const ConstRowMap& a, std::vector<HostArray>& out) {
                     Eigen::BDCSVD<Eigen::MatrixXd> svd(Eigen::MatrixXd(a), options);
                     VectorOf(out[0], b) = svd.singularValues();
                     if (!uv) return;
                     BlockOf(out[1], b) = svd.matrixU();
                     BlockOf(out[2], b) = svd.matrixV().transpose();
                   });
}

// JAX's rule for m >= n with thin factors (full_matrices=False, or a square matrix): with
// Y = q^T dx r^-1 and O = tril(Y, -1) - tril(Y, -1)^T, dq = q (O - Y) + dx r^-1 and
// dr = (Y - O) r.
absl::StatusOr<JvpResult> QrJvp(Builder& b, absl::Span<const Tracer> primals,
                                absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> out, b.Bind(*P().qr, {primals[0]}, params));
  JvpResult result{out, {std::nullopt, std::nullopt}};
  if (!tangents[0]) return result;
  const auto [m, n] = DimsOf(primals[0].aval);
  AXE_ASSIGN_OR_RETURN(bool full, FlagParam(params, "qr", "full_matrices"));
  if (m < n || (full && m != n)) {
    return absl::UnimplementedError(absl::StrCat(
        "axe differentiates qr of matrices with at least as many rows as columns and thin "
        "factors (full_matrices=False or square), got shape ",
        PyShape(primals[0].aval), (full ? " with full_matrices=True" : "")));
  }
  const Tracer &q = out[0], &r = out[1];
  Params solve;
  solve["conjugate_a"] = Param::Bool(false);
  solve["unit_diagonal"] = Param::Bool(false);
  AXE_ASSIGN_OR_RETURN(Tracer dx_rinv, Op(*P().triangular_solve, {r, *tangents[0]},
                                          SolveParamsWith(solve, false, false, false)));
  AXE_ASSIGN_OR_RETURN(Tracer qt, SwapLast(q));
  AXE_ASSIGN_OR_RETURN(Tracer y, BatchMatmul(qt, dx_rinv));
  AXE_ASSIGN_OR_RETURN(Tracer strict, TriangleMask(b, y, *P().gt));
  AXE_ASSIGN_OR_RETURN(Tracer lower, Keep(b, strict, y));
  AXE_ASSIGN_OR_RETURN(Tracer lower_t, SwapLast(lower));
  AXE_ASSIGN_OR_RETURN(Tracer o, Op(*P().sub, {lower, lower_t}));
  AXE_ASSIGN_OR_RETURN(Tracer o_minus_y, Op(*P().sub, {o, y}));
  AXE_ASSIGN_OR_RETURN(Tracer q_part, BatchMatmul(q, o_minus_y));
  AXE_ASSIGN_OR_RETURN(result.tangents_out[0], Op(*P().add, {q_part, dx_rinv}));
  AXE_ASSIGN_OR_RETURN(Tracer y_minus_o, Op(*P().sub, {y, o}));
  AXE_ASSIGN_OR_RETURN(result.tangents_out[1], BatchMatmul(y_minus_o, r));
  return result;
}

// JAX's rule for the singular values alone (compute_uv=False): with a = u diag(s) vt (thin),
// ds = diag(u^T da vt^T).
absl::StatusOr<JvpResult> SvdJvp(Builder& b, absl::Span<const Tracer> primals,
                                 absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(bool uv, FlagParam(params, "svd", "compute_uv"));
  if (!tangents[0]) {
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> out, b.Bind(*P().svd, {primals[0]}, params));
    return JvpResult{out, std::vector<OptTracer>(out.size())};
  }
  if (uv) {
    return absl::UnimplementedError(
        "axe differentiates svd's singular values only (compute_uv=False)");
  }
  Params thin = params;
  thin["compute_uv"] = Param::Bool(true);
  thin["full_matrices"] = Param::Bool(false);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> out, b.Bind(*P().svd, {primals[0]}, thin));
  AXE_ASSIGN_OR_RETURN(Tracer ut, SwapLast(out[1]));
  AXE_ASSIGN_OR_RETURN(Tracer v, SwapLast(out[2]));
  AXE_ASSIGN_OR_RETURN(Tracer ut_da, BatchMatmul(ut, *tangents[0]));
  AXE_ASSIGN_OR_RETURN(Tracer ds_matrix, BatchMatmul(ut_da, v));
  AXE_ASSIGN_OR_RETURN(Tracer diagonal, TriangleMask(b, ds_matrix, *P().eq));
  AXE_ASSIGN_OR_RETURN(Tracer kept, Keep(b, diagonal, ds_matrix));
  AXE_ASSIGN_OR_RETURN(Tracer ds, ReduceSum(kept, {Rank(kept.aval) - 1}));
  return JvpResult{{out[0]}, {ds}};
}

// JAX's rule (distinct eigenvalues): with v diag(w) v^T the eigendecomposition of a's symmetric
// part, X = v^T da v, dw = diag(X) and dv = v (F * X), F[i][j] = 1 / (w[j] - w[i]) off the
// diagonal and 0 on it.
absl::StatusOr<JvpResult> EighJvp(Builder& b, absl::Span<const Tracer> primals,
                                  absl::Span<const OptTracer> tangents, const Params& params) {
  const DType dtype = primals[0].aval.dtype();
  AXE_ASSIGN_OR_RETURN(Tracer at, SwapLast(primals[0]));
  AXE_ASSIGN_OR_RETURN(Tracer sum, Op(*P().add, {primals[0], at}));
  AXE_ASSIGN_OR_RETURN(Tracer sym, Op(*P().div, {sum, b.Scalar(2.0, dtype)}));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> out, b.Bind(*P().eigh, {sym}, params));
  JvpResult result{out, {std::nullopt, std::nullopt}};
  if (!tangents[0]) return result;
  const Tracer &v = out[0], &w = out[1];
  const int64_t r = Rank(v.aval);
  std::vector<int64_t> along_rows, along_cols;  // w[i] at [..., i, j], w[j] at [..., i, j]
  for (int64_t d = 0; d + 2 < r; ++d) {
    along_rows.push_back(d);
    along_cols.push_back(d);
  }
  along_rows.push_back(r - 2);
  along_cols.push_back(r - 1);
  AXE_ASSIGN_OR_RETURN(Tracer wi, BroadcastInDim(w, v.aval.shape(), along_rows));
  AXE_ASSIGN_OR_RETURN(Tracer wj, BroadcastInDim(w, v.aval.shape(), along_cols));
  AXE_ASSIGN_OR_RETURN(Tracer diagonal, TriangleMask(b, v, *P().eq));
  AXE_ASSIGN_OR_RETURN(Tracer eye, ConvertElementType(diagonal, dtype));
  AXE_ASSIGN_OR_RETURN(Tracer gap, Op(*P().add, {eye, wj}));
  AXE_ASSIGN_OR_RETURN(gap, Op(*P().sub, {gap, wi}));
  Params pow;
  pow["y"] = Param::Int(-1);
  AXE_ASSIGN_OR_RETURN(Tracer f, Op(*P().integer_pow, {gap}, pow));
  AXE_ASSIGN_OR_RETURN(f, Op(*P().sub, {f, eye}));
  AXE_ASSIGN_OR_RETURN(Tracer vt, SwapLast(v));
  AXE_ASSIGN_OR_RETURN(Tracer vt_da, BatchMatmul(vt, *tangents[0]));
  AXE_ASSIGN_OR_RETURN(Tracer x, BatchMatmul(vt_da, v));
  AXE_ASSIGN_OR_RETURN(Tracer fx, Op(*P().mul, {f, x}));
  AXE_ASSIGN_OR_RETURN(result.tangents_out[0], BatchMatmul(v, fx));
  AXE_ASSIGN_OR_RETURN(Tracer x_diagonal, Keep(b, diagonal, x));
  AXE_ASSIGN_OR_RETURN(result.tangents_out[1], ReduceSum(x_diagonal, {r - 1}));
  return result;
}

// Every output batched at dimension 0 (the operand's batch dimension moved to the front).
BatchingRule LeadingBatch(const Primitive* prim) {
  return [prim](Builder& b, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                const Params& params) -> absl::StatusOr<BatchResult> {
    AXE_ASSIGN_OR_RETURN(Tracer a, MoveBatchDim(args[0], *dims[0], 0));
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*prim, {a}, params));
    return BatchResult{outs, std::vector<BDim>(outs.size(), 0)};
  };
}

const Primitive* Define(std::string name, std::vector<ParamSpec> params,
                        bool multiple_results = false) {
  Primitive::Options o;
  o.name = std::move(name);
  o.multiple_results = multiple_results;
  o.params = std::move(params);
  absl::StatusOr<const Primitive*> p = DefinePrimitive(std::move(o));
  AXE_CHECK(p.ok()) << p.status();  // fixed identifiers, defined once
  return *p;
}

}  // namespace linalg_family

void DefineLinalg(BuiltinPrimitives& p) {
  p.cholesky = linalg_family::Define("cholesky", {});
  p.triangular_solve =
      linalg_family::Define("triangular_solve", {{"conjugate_a", ParamType::kBool},
                                                 {"left_side", ParamType::kBool},
                                                 {"lower", ParamType::kBool},
                                                 {"transpose_a", ParamType::kBool},
                                                 {"unit_diagonal", ParamType::kBool}});
  p.lu = linalg_family::Define("lu", {}, /*multiple_results=*/true);
  p.qr = linalg_family::Define(
      "qr", {{"full_matrices", ParamType::kBool}, {"pivoting", ParamType::kBool, false}},
      /*multiple_results=*/true);
  p.eigh = linalg_family::Define("eigh", {{"lower", ParamType::kBool}}, /*multiple_results=*/true);
  p.svd = linalg_family::Define(
      "svd", {{"compute_uv", ParamType::kBool}, {"full_matrices", ParamType::kBool}},
      /*multiple_results=*/true);
}

void RegisterLinalgRules(const BuiltinPrimitives& p) {
  using namespace linalg_family;  // NOLINT(build/namespaces): this family's rules
  RegisterAbstractEval(*p.cholesky, CholeskyRule);
  RegisterImpl(*p.cholesky, CholeskyImpl);
  RegisterJvp(*p.cholesky, CholeskyJvp);
  RegisterBatching(*p.cholesky, OneOperandBatching(p.cholesky, [](Params&, int64_t, const Params&) {
    return absl::OkStatus();
  }));
  RegisterAbstractEval(*p.triangular_solve, TriangularSolveRule);
  RegisterImpl(*p.triangular_solve, TriangularSolveImpl);
  RegisterJvp(*p.triangular_solve, TriangularSolveJvp);
  RegisterTranspose(*p.triangular_solve, TriangularSolveTranspose);
  RegisterBatching(*p.triangular_solve, TriangularSolveBatch);
  RegisterAbstractEval(*p.lu, LuRule);
  RegisterImpl(*p.lu, LuImpl);
  RegisterJvp(*p.lu, LuJvp);
  RegisterBatching(*p.lu, LuBatch);
  RegisterAbstractEval(*p.qr, QrRule);
  RegisterImpl(*p.qr, QrImpl);
  RegisterJvp(*p.qr, QrJvp);
  RegisterBatching(*p.qr, LeadingBatch(p.qr));
  RegisterAbstractEval(*p.eigh, EighRule);
  RegisterImpl(*p.eigh, EighImpl);
  RegisterJvp(*p.eigh, EighJvp);
  RegisterBatching(*p.eigh, LeadingBatch(p.eigh));
  RegisterAbstractEval(*p.svd, SvdRule);
  RegisterImpl(*p.svd, SvdImpl);
  RegisterJvp(*p.svd, SvdJvp);
  RegisterBatching(*p.svd, LeadingBatch(p.svd));
}

}  // namespace axe::ir::internal
