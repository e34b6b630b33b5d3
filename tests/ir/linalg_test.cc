// cholesky, triangular_solve, lu and checkpoint_name's `name` (family_linalg.cc,
// family_checkpoint_name.cc): typing in JAX's words, the interpreter's values on small matrices
// solved by hand, NaN for a matrix that is not positive definite (as JAX on CPU), lu's pivots,
// the transpose of triangular_solve in b, and `name` as the identity under grad. JAX's own
// printouts with its values, gradients and vmaps are python/tests/data/everyday2
// (test_jax_everyday2.py).
#include <cmath>
#include <string>
#include <vector>

#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "axe/ir/transpose.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace linalg_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::Status CheckText(const std::string& text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  if (!j.ok()) return j.status();
  return CheckJaxpr(*j);
}

std::vector<double> EvalOne(const std::string& text, const std::vector<HostArray>& args) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  EXPECT_THAT(j, IsOk());
  if (!j.ok()) return {};
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(*j, args);
  EXPECT_THAT(out, IsOk());
  return out.ok() ? (*out)[0].values : std::vector<double>{};
}

HostArray F32(std::vector<int64_t> shape, std::vector<double> values) {
  return HostArray{ShapedArray(std::move(shape), DType::kF32), std::move(values)};
}

std::string Solve(const std::string& params, const std::string& b_type) {
  return "{ lambda ; a:f32[2,2] b:" + b_type + ". let c:" + b_type +
         " = triangular_solve[conjugate_a=False " + params + "] a b in (c,) }";
}

TEST(LinalgTest, TypingUsesJaxsWords) {
  EXPECT_THAT(CheckText("{ lambda ; a:f32[2,3]. let b:f32[2,3] = cholesky a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("The input to cholesky must be a square matrix. Got shape "
                                 "(2, 3).")));
  EXPECT_THAT(CheckText("{ lambda ; a:i32[2,2]. let b:i32[2,2] = cholesky a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cholesky does not accept dtype int32")));
  const std::string flags = "left_side=True lower=True transpose_a=False unit_diagonal=False";
  EXPECT_THAT(CheckText("{ lambda ; a:f32[2,2] b:f32[3,1]. let c:f32[3,1] = triangular_solve["
                        "conjugate_a=False " +
                        flags + "] a b in (c,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Incompatible shapes for arguments to triangular_solve: (2, 2) "
                                 "and (3, 1).")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[2,2] b:f32[4,2,1]. let c:f32[4,2,1] = triangular_solve["
                        "conjugate_a=False " +
                        flags + "] a b in (c,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("triangular_solve requires both arguments to have the same "
                                 "number of dimensions and equal batch dimensions, got (2, 2) "
                                 "and (4, 2, 1).")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[2,3] b:f32[2,1]. let c:f32[2,1] = triangular_solve["
                        "conjugate_a=False " +
                        flags + "] a b in (c,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("requires the last two dimensions of a to be equal in size, "
                                 "got a.shape of (2, 3).")));
  EXPECT_THAT(CheckText(Solve(flags, "f32[2,1]")), IsOk());
}

TEST(LinalgTest, CholeskyFactorsFromTheLowerTriangle) {
  const std::string text = "{ lambda ; a:f32[2,2]. let b:f32[2,2] = cholesky a in (b,) }";
  // The upper triangle (99) is not read; the result's upper triangle is zero.
  EXPECT_THAT(EvalOne(text, {F32({2, 2}, {4, 99, 2, 5})}), ElementsAre(2, 0, 1, 2));
  std::vector<double> bad = EvalOne(text, {F32({2, 2}, {1, 2, 2, 1})});
  ASSERT_EQ(bad.size(), 4u);
  for (double v : bad) EXPECT_TRUE(std::isnan(v));
}

TEST(LinalgTest, TriangularSolveReadsOneTriangleOnEitherSide) {
  // a = [[2, 7], [1, 4]]: lower reads [[2, 0], [1, 4]], upper [[2, 7], [0, 4]].
  const HostArray a = F32({2, 2}, {2, 7, 1, 4});
  // [[2, 0], [1, 4]] x = [2, 9]  ->  x = [1, 2].
  EXPECT_THAT(
      EvalOne(Solve("left_side=True lower=True transpose_a=False unit_diagonal=False", "f32[2,1]"),
              {a, F32({2, 1}, {2, 9})}),
      ElementsAre(1, 2));
  // [[2, 0], [1, 4]]^T x = [4, 8]  ->  x = [1, 2].
  EXPECT_THAT(
      EvalOne(Solve("left_side=True lower=True transpose_a=True unit_diagonal=False", "f32[2,1]"),
              {a, F32({2, 1}, {4, 8})}),
      ElementsAre(1, 2));
  // x [[1, 7], [0, 1]] = [3, 23] (upper, unit diagonal)  ->  x = [3, 2].
  EXPECT_THAT(
      EvalOne(Solve("left_side=False lower=False transpose_a=False unit_diagonal=True", "f32[1,2]"),
              {a, F32({1, 2}, {3, 23})}),
      ElementsAre(3, 2));
  // x [[2, 7], [0, 4]]^T = [16, 8]  ->  x = [1, 2].
  EXPECT_THAT(
      EvalOne(Solve("left_side=False lower=False transpose_a=True unit_diagonal=False", "f32[1,2]"),
              {a, F32({1, 2}, {16, 8})}),
      ElementsAre(DoubleNear(1, 1e-6), DoubleNear(2, 1e-6)));
}

TEST(LinalgTest, TriangularSolveTransposesInB) {
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(
      Solve("left_side=True lower=True transpose_a=False unit_diagonal=False", "f32[2,1]"));
  ASSERT_THAT(f, IsOk());
  absl::StatusOr<ClosedJaxpr> t = LinearTranspose(*f, {false, true});
  ASSERT_THAT(t, IsOk());
  EXPECT_THAT(PrintJaxpr(*t), HasSubstr("transpose_a=True"));
  // The transpose solves with a^T: [[2, 1], [0, 4]] y = [4, 8]  ->  y = [1, 2].
  absl::StatusOr<std::vector<HostArray>> y =
      EvalJaxpr(*t, {F32({2, 2}, {2, 7, 1, 4}), F32({2, 1}, {4, 8})});
  ASSERT_THAT(y, IsOk());
  EXPECT_THAT(y->back().values, ElementsAre(1, 2));
}

TEST(LinalgTest, LuPivotsOnTheLargestElementOfEachColumn) {
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(
      "{ lambda ; a:f32[2,2]. let\n    b:f32[2,2] c:i32[2] d:i32[2] = lu a\n  in (b, c, d) }");
  ASSERT_THAT(f, IsOk());
  EXPECT_THAT(CheckJaxpr(*f), IsOk());
  // [[1, 2], [3, 4]]: row 1 pivots; L = [[1, 0], [1/3, 1]], U = [[3, 4], [0, 2/3]].
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(*f, {F32({2, 2}, {1, 2, 3, 4})});
  ASSERT_THAT(out, IsOk());
  EXPECT_THAT((*out)[0].values,
              ElementsAre(3, 4, DoubleNear(1.0 / 3, 1e-7), DoubleNear(2.0 / 3, 1e-7)));
  EXPECT_THAT((*out)[1].values, ElementsAre(1, 1));
  EXPECT_THAT((*out)[2].values, ElementsAre(1, 0));
  EXPECT_THAT(
      CheckText("{ lambda ; a:i32[2,2]. let\n    b:i32[2,2] c:i32[2] d:i32[2] = lu a\n"
                "  in (b, c, d) }"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("lu does not accept dtype int32")));
}

TEST(LinalgTest, NameIsTheIdentityAndPassesGradientsThrough) {
  const std::string text =
      "{ lambda ; a:f32[3]. let\n    b:f32[3] = sin a\n    c:f32[3] = name[name=proj] b\n"
      "    d:f32[3] = mul c c\n  in (d,) }";
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(text);
  ASSERT_THAT(f, IsOk());
  EXPECT_THAT(CheckJaxpr(*f), IsOk());
  EXPECT_THAT(PrintJaxpr(*f), HasSubstr("c:f32[3] = name[name=proj] b"));
  const std::string loss =
      "{ lambda ; a:f32[3]. let\n    b:f32[3] = sin a\n    c:f32[3] = name[name=proj] b\n"
      "    d:f32[3] = mul c c\n    e:f32[] = reduce_sum[axes=(0,) out_sharding=None] d\n"
      "  in (e,) }";
  absl::StatusOr<ClosedJaxpr> l = ParseJaxpr(loss);
  ASSERT_THAT(l, IsOk());
  absl::StatusOr<ClosedJaxpr> dl = Grad(*l);
  ASSERT_THAT(dl, IsOk());
  absl::StatusOr<std::vector<HostArray>> d = EvalJaxpr(*dl, {F32({3}, {0.0, 0.5, 1.0})});
  ASSERT_THAT(d, IsOk());
  // d/da sum(sin(a)^2) = 2 sin(a) cos(a) = sin(2a).
  EXPECT_THAT((*d)[0].values, ElementsAre(DoubleNear(0, 1e-6), DoubleNear(std::sin(1.0), 1e-6),
                                          DoubleNear(std::sin(2.0), 1e-6)));
}

std::vector<HostArray> EvalAll(const std::string& text, const std::vector<HostArray>& args) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  EXPECT_THAT(j, IsOk());
  if (!j.ok()) return {};
  EXPECT_THAT(CheckJaxpr(*j), IsOk());
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(*j, args);
  EXPECT_THAT(out, IsOk());
  return out.ok() ? *out : std::vector<HostArray>{};
}

TEST(LinalgTest, DecompositionTypingUsesJaxsWords) {
  EXPECT_THAT(
      CheckText("{ lambda ; a:f32[2,3]. let b:f32[2,3] c:f32[3] = eigh[lower=True "
                "sort_eigenvalues=True subset_by_index=None] a in (c,) }"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Argument to symmetric eigendecomposition must have shape [..., n, n], "
                         "got shape (2, 3)")));
  EXPECT_THAT(
      CheckText("{ lambda ; a:i32[2,2]. let b:i32[2,2] c:i32[2,2] = qr[full_matrices=True "
                "pivoting=False] a in (b,) }"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("qr does not accept dtype int32")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3]. let b:f32[3] = svd[compute_uv=False "
                        "full_matrices=True] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("svd requires its input to have at least 2 dimensions, got "
                                 "shape (3,).")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[2,2]. let b:f32[2,2] c:f32[2,2] d:i32[2] = qr["
                        "full_matrices=True pivoting=True] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("axe's qr does not pivot (pivoting=True)")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[2,2]. let b:f32[2,1] c:f32[1] = eigh[lower=True "
                        "subset_by_index=(0, 1)] a in (c,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("axe's eigh computes every eigen or singular value: "
                                 "subset_by_index=(0, 1) is not supported")));
  // The outputs' types are JAX's: thin qr of a 3x2 matrix, full svd of a 3x2 matrix.
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3,2]. let b:f32[3,2] c:f32[2,2] = qr[full_matrices=False "
                        "pivoting=False] a in (b, c) }"),
              IsOk());
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3,2]. let b:f32[2] c:f32[3,3] d:f32[2,2] = svd["
                        "compute_uv=True full_matrices=True] a in (b, c, d) }"),
              IsOk());
}

// a = [[3, 1], [4, 2]]: the first reflection maps (3, 4) to (-5, 0) (LAPACK's sign), the
// second is the identity; q = [[-0.6, -0.8], [-0.8, 0.6]], r = [[-5, -2.2], [0, 0.4]].
TEST(LinalgTest, QrIsLapacksHouseholderFactorisation) {
  std::vector<HostArray> out = EvalAll(
      "{ lambda ; a:f32[2,2]. let b:f32[2,2] c:f32[2,2] = qr[full_matrices=True "
      "pivoting=False use_magma=None] a in (b, c) }",
      {F32({2, 2}, {3, 1, 4, 2})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0].values, ElementsAre(DoubleNear(-0.6, 1e-6), DoubleNear(-0.8, 1e-6),
                                         DoubleNear(-0.8, 1e-6), DoubleNear(0.6, 1e-6)));
  EXPECT_THAT(out[1].values, ElementsAre(DoubleNear(-5, 1e-5), DoubleNear(-2.2, 1e-5),
                                         DoubleNear(0, 0), DoubleNear(0.4, 1e-5)));
}

// lower=True reads 7 below the diagonal (eigenvalues 2 -+ 7), lower=False reads 1 above it
// (1 and 3); ascending either way.
TEST(LinalgTest, EighReadsOneTriangleAndSortsAscending) {
  const HostArray a = F32({2, 2}, {2, 1, 7, 2});
  for (bool lower : {true, false}) {
    std::vector<HostArray> out = EvalAll(
        std::string("{ lambda ; a:f32[2,2]. let b:f32[2,2] c:f32[2] = eigh[algorithm=None lower=") +
            (lower ? "True" : "False") +
            " sort_eigenvalues=True subset_by_index=None] a in (c, b) }",
        {a});
    ASSERT_EQ(out.size(), 2u);
    if (lower) {
      EXPECT_THAT(out[0].values, ElementsAre(DoubleNear(-5, 1e-5), DoubleNear(9, 1e-5)));
    } else {
      EXPECT_THAT(out[0].values, ElementsAre(DoubleNear(1, 1e-5), DoubleNear(3, 1e-5)));
    }
    // Unit eigenvectors, up to sign: (1, -1) / sqrt(2) for the smaller eigenvalue.
    EXPECT_NEAR(std::fabs(out[1].values[0]), std::sqrt(0.5), 1e-6);
    EXPECT_NEAR(out[1].values[0] + out[1].values[2], 0, 1e-6);
  }
}

TEST(LinalgTest, SvdGivesDescendingValuesAndReconstructs) {
  std::vector<HostArray> out = EvalAll(
      "{ lambda ; a:f32[2,2]. let b:f32[2] c:f32[2,2] d:f32[2,2] = svd[algorithm=None "
      "compute_uv=True full_matrices=True subset_by_index=None] a in (b, c, d) }",
      {F32({2, 2}, {3, 0, 0, -4})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_THAT(out[0].values, ElementsAre(DoubleNear(4, 1e-6), DoubleNear(3, 1e-6)));
  const std::vector<double>&s = out[0].values, &u = out[1].values, &vt = out[2].values;
  const std::vector<double> a = {3, 0, 0, -4};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      double v = 0;
      for (int k = 0; k < 2; ++k) v += u[i * 2 + k] * s[k] * vt[k * 2 + j];
      EXPECT_NEAR(v, a[i * 2 + j], 1e-5) << i << "," << j;
    }
  }
  // A matrix with NaN gives NaN, as LAPACK does.
  std::vector<HostArray> nan = EvalAll(
      "{ lambda ; a:f32[2,2]. let b:f32[2] = svd[compute_uv=False full_matrices=True] a in (b,) }",
      {F32({2, 2}, {NAN, 0, 0, 1})});
  ASSERT_EQ(nan.size(), 1u);
  EXPECT_TRUE(std::isnan(nan[0].values[0]));
}

TEST(LinalgTest, DecompositionsVmapOverTheLeadingDimension) {
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(
      "{ lambda ; a:f32[2,2]. let b:f32[2] = svd[compute_uv=False "
      "full_matrices=True] a in (b,) }");
  ASSERT_THAT(f, IsOk());
  VmapOptions options;
  options.in_axes = {2};
  options.axis_size = 2;
  absl::StatusOr<ClosedJaxpr> v = Vmap(*f, options);
  ASSERT_THAT(v, IsOk());
  // Batch on the last axis: matrices diag(1, 2) and diag(5, 3).
  absl::StatusOr<std::vector<HostArray>> out =
      EvalJaxpr(*v, {F32({2, 2, 2}, {1, 5, 0, 0, 0, 0, 2, 3})});
  ASSERT_THAT(out, IsOk());
  EXPECT_THAT((*out)[0].values, ElementsAre(DoubleNear(2, 1e-6), DoubleNear(1, 1e-6),
                                            DoubleNear(5, 1e-6), DoubleNear(3, 1e-6)));
}

// d max(w) / da = v v^T for the largest eigenvalue's unit eigenvector v: (1, 1) / sqrt(2) for
// [[2, 1], [1, 2]] (eigenvalues 1 and 3), so every entry is 1/2.
TEST(LinalgTest, EighGradIsJaxsPerturbationRule) {
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(
      "{ lambda ; a:f32[2,2]. let b:f32[2,2] c:f32[2] = eigh[algorithm=None lower=True "
      "sort_eigenvalues=True subset_by_index=None] a; d:f32[] = reduce_max[axes=(0,) "
      "out_sharding=None] c in (d,) }");
  ASSERT_THAT(f, IsOk());
  absl::StatusOr<ClosedJaxpr> g = Grad(*f);
  ASSERT_THAT(g, IsOk());
  absl::StatusOr<std::vector<HostArray>> d = EvalJaxpr(*g, {F32({2, 2}, {2, 1, 1, 2})});
  ASSERT_THAT(d, IsOk());
  EXPECT_THAT((*d)[0].values, ElementsAre(DoubleNear(0.5, 1e-6), DoubleNear(0.5, 1e-6),
                                          DoubleNear(0.5, 1e-6), DoubleNear(0.5, 1e-6)));
}

// r = -|a| for a column a = (3, 4) (LAPACK's sign), so d r / da = -a / |a| = (-0.6, -0.8); a
// wide matrix has no rule in axe yet.
TEST(LinalgTest, QrGradIsJaxsRuleForTallMatrices) {
  auto loss = [](const std::string& type, const std::string& q, const std::string& r) {
    return "{ lambda ; a:f32[" + type + "]. let b:f32[" + q + "] c:f32[" + r +
           "] = qr[full_matrices=False pivoting=False use_magma=None] a; d:f32[] = reduce_sum["
           "axes=(0, 1) out_sharding=None] c in (d,) }";
  };
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(loss("2,1", "2,1", "1,1"));
  ASSERT_THAT(f, IsOk());
  absl::StatusOr<ClosedJaxpr> g = Grad(*f);
  ASSERT_THAT(g, IsOk());
  absl::StatusOr<std::vector<HostArray>> d = EvalJaxpr(*g, {F32({2, 1}, {3, 4})});
  ASSERT_THAT(d, IsOk());
  EXPECT_THAT((*d)[0].values, ElementsAre(DoubleNear(-0.6, 1e-6), DoubleNear(-0.8, 1e-6)));
  absl::StatusOr<ClosedJaxpr> wide = ParseJaxpr(loss("1,2", "1,1", "1,2"));
  ASSERT_THAT(wide, IsOk());
  EXPECT_THAT(Grad(*wide), StatusIs(absl::StatusCode::kUnimplemented,
                                    HasSubstr("axe differentiates qr of matrices with at least "
                                              "as many rows as columns")));
}

// The sum of singular values (the nuclear norm) has gradient u vt: [[1, 0], [0, -1]] for
// diag(3, -4), whatever the signs of u and vt; with compute_uv, no rule in axe yet.
TEST(LinalgTest, SvdGradOfTheSingularValues) {
  auto loss = [](bool uv) {
    return std::string("{ lambda ; a:f32[2,2]. let b:f32[2]") +
           (uv ? " c:f32[2,2] d:f32[2,2]" : "") +
           " = svd[algorithm=None compute_uv=" + (uv ? "True" : "False") +
           " full_matrices=False subset_by_index=None] a; e:f32[] = reduce_sum[axes=(0,) "
           "out_sharding=None] b in (e,) }";
  };
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(loss(false));
  ASSERT_THAT(f, IsOk());
  absl::StatusOr<ClosedJaxpr> g = Grad(*f);
  ASSERT_THAT(g, IsOk());
  absl::StatusOr<std::vector<HostArray>> d = EvalJaxpr(*g, {F32({2, 2}, {3, 0, 0, -4})});
  ASSERT_THAT(d, IsOk());
  EXPECT_THAT((*d)[0].values, ElementsAre(DoubleNear(1, 1e-6), DoubleNear(0, 1e-6),
                                          DoubleNear(0, 1e-6), DoubleNear(-1, 1e-6)));
  absl::StatusOr<ClosedJaxpr> with_uv = ParseJaxpr(loss(true));
  ASSERT_THAT(with_uv, IsOk());
  EXPECT_THAT(Grad(*with_uv), StatusIs(absl::StatusCode::kUnimplemented,
                                       HasSubstr("axe differentiates svd's singular values only")));
}

// jax.debug.print's equation reads back as JAX prints it, types with no outputs, and neither
// stops a run nor a gradient.
TEST(LinalgTest, DebugPrintReadsBackAndRuns) {
  const std::string text =
      "{ lambda ; a:f32[3]. let\n"
      "    b:f32[3] = sin a\n"
      "    c:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n"
      "    debug_print[\n"
      "      fmt=loss {} and {x}\n"
      "      has_placeholders=True\n"
      "      in_tree=PyTreeDef(((*,), {'x': *}))\n"
      "      logging_record=None\n"
      "      np_printoptions=(('edgeitems', 3), ('threshold', 1000))\n"
      "      ordered=False\n"
      "      partitioned=False\n"
      "      static_args=()\n"
      "    ] c b\n"
      "  in (c,) }";
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(text);
  ASSERT_THAT(f, IsOk());
  EXPECT_EQ(PrintJaxpr(*f), text);
  EXPECT_THAT(CheckJaxpr(*f), IsOk());
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(*f, {F32({3}, {0, 0, 0})});
  ASSERT_THAT(out, IsOk());
  EXPECT_THAT((*out)[0].values, ElementsAre(0.0));
  absl::StatusOr<ClosedJaxpr> g = Grad(*f);
  ASSERT_THAT(g, IsOk());
  EXPECT_THAT(PrintJaxpr(*g), HasSubstr("debug_print"));
  absl::StatusOr<std::vector<HostArray>> d = EvalJaxpr(*g, {F32({3}, {0, 0, 0})});
  ASSERT_THAT(d, IsOk());
  EXPECT_THAT((*d)[0].values, ElementsAre(1.0, 1.0, 1.0));
  EXPECT_THAT(
      ParseJaxpr("{ lambda ; a:f32[]. let debug_print[fmt=x has_placeholders=False "
                 "in_tree=PyTreeDef((*,)] a in () }"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("an unterminated PyTreeDef(...)")));
}

}  // namespace
}  // namespace linalg_test
}  // namespace axe::ir
