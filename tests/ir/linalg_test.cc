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

}  // namespace
}  // namespace linalg_test
}  // namespace axe::ir
