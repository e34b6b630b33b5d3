// The executor's typed cholesky, triangular_solve and lu (src/exec/linalg.cc): no fallback to
// the interpreter for f32 and f64, values within rounding of the interpreter's (doubles) on
// batched matrices and every triangular_solve flag, lu's pivots and permutation exactly
// LAPACK's (ties go to the first row), NaN for a matrix that is not positive definite.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/exec/executable.h"
#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::exec {
namespace {

using ::axe::testing_support::IsOk;

// Random entries in [-1, 1] plus `diagonal` on the diagonals of the last two dimensions (a
// well-conditioned triangle, or a positive definite a a^T + diagonal after symmetrizing).
ir::HostArray Matrices(const ir::ShapedArray& aval, double diagonal, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  ir::HostArray a{aval, std::vector<double>(static_cast<size_t>(*aval.NumElements()))};
  const int64_t r = static_cast<int64_t>(aval.shape().size());
  const int64_t rows = aval.shape()[r - 2], cols = aval.shape()[r - 1];
  for (size_t i = 0; i < a.values.size(); ++i) {
    const int64_t in = static_cast<int64_t>(i) % (rows * cols);
    a.values[i] =
        ir::RoundToDType(real(rng) + (in / cols == in % cols ? diagonal : 0.0), aval.dtype());
  }
  return a;
}

// Compiles `text` (no fallback), runs it on the executor and the interpreter; "" or the first
// difference beyond a relative 1e-4 (f32 sums in f32, the interpreter in doubles).
std::string Differ(const std::string& text, const std::vector<ir::HostArray>& args) {
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(text);
  if (!j.ok()) return j.status().ToString();
  absl::StatusOr<Executable> e = Executable::Compile(*j);
  if (!e.ok()) return e.status().ToString();
  if (e->stats().fallbacks != 0) return "fell back: " + e->Describe();
  absl::StatusOr<std::vector<ir::HostArray>> want = ir::EvalJaxpr(*j, args);
  absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(*j, args);
  if (!want.ok() || !got.ok()) return "a run failed";
  for (size_t o = 0; o < want->size(); ++o) {
    for (size_t i = 0; i < (*want)[o].values.size(); ++i) {
      const double w = (*want)[o].values[i], g = (*got)[o].values[i];
      if (std::isnan(w) && std::isnan(g)) continue;
      if (!(std::fabs(w - g) <= 1e-4 * std::max(1.0, std::fabs(w)))) {
        return absl::StrCat("output ", o, " element ", i, ": ", g, " where the interpreter gives ",
                            w);
      }
    }
  }
  return "";
}

TEST(ExecLinalgTest, CholeskyIsTypedAndMatchesTheInterpreter) {
  std::mt19937_64 rng(7);
  for (const std::string t : {"f32", "f64"}) {
    const std::string text =
        "{ lambda ; a:" + t + "[3,5,5]. let b:" + t + "[3,5,5] = cholesky a in (b,) }";
    ir::HostArray a =
        Matrices(ir::ShapedArray({3, 5, 5}, t == "f32" ? DType::kF32 : DType::kF64), 6.0, rng);
    // Symmetric positive definite except the last matrix, which has a negative pivot.
    for (int64_t b = 0; b < 3; ++b) {
      for (int64_t i = 0; i < 5; ++i) {
        for (int64_t k = 0; k < i; ++k) a.values[b * 25 + k * 5 + i] = a.values[b * 25 + i * 5 + k];
      }
    }
    a.values[2 * 25 + 2 * 5 + 2] = -6;
    EXPECT_EQ(Differ(text, {a}), "") << t;
    absl::StatusOr<std::vector<ir::HostArray>> out = ExecuteJaxpr(*ir::ParseJaxpr(text), {a});
    ASSERT_THAT(out, IsOk());
    EXPECT_TRUE(std::isnan((*out)[0].values[2 * 25])) << "not positive definite: NaN";
    EXPECT_EQ((*out)[0].values[1], 0.0) << "zeros above the diagonal";
  }
}

TEST(ExecLinalgTest, TriangularSolveIsTypedForEveryFlag) {
  std::mt19937_64 rng(8);
  for (int flags = 0; flags < 16; ++flags) {
    const bool left = flags & 1, lower = flags & 2, transpose = flags & 4, unit = flags & 8;
    const std::string b_type = left ? "f32[2,4,3]" : "f32[2,3,4]";
    const std::string text = absl::StrCat(
        "{ lambda ; a:f32[2,4,4] b:", b_type, ". let c:", b_type,
        " = triangular_solve[conjugate_a=False left_side=", left ? "True" : "False",
        " lower=", lower ? "True" : "False", " transpose_a=", transpose ? "True" : "False",
        " unit_diagonal=", unit ? "True" : "False", "] a b in (c,) }");
    ir::HostArray a = Matrices(ir::ShapedArray({2, 4, 4}, DType::kF32), 4.0, rng);
    ir::HostArray b = Matrices(
        ir::ShapedArray(left ? std::vector<int64_t>{2, 4, 3} : std::vector<int64_t>{2, 3, 4},
                        DType::kF32),
        0.0, rng);
    EXPECT_EQ(Differ(text, {a, b}), "") << text;
  }
}

TEST(ExecLinalgTest, LuIsTypedWithLapacksPivots) {
  std::mt19937_64 rng(9);
  for (const std::string shape : {"2,4,4", "3,5", "5,3"}) {
    for (const std::string t : {"f32", "f64"}) {
      absl::StatusOr<ir::ClosedJaxpr> typed =
          ir::ParseJaxpr("{ lambda ; a:" + t + "[" + shape + "]. let b:" + t + "[" + shape +
                         "] = sin a in (b,) }");
      ASSERT_THAT(typed, IsOk());
      const ir::ShapedArray aval = typed->jaxpr.in_avals()[0];
      const int64_t r = static_cast<int64_t>(aval.shape().size());
      const int64_t m = aval.shape()[r - 2], n = aval.shape()[r - 1];
      const std::string batch = r == 3 ? "2," : "";
      const std::string lu =
          absl::StrCat("{ lambda ; a:", t, "[", shape, "]. let b:", t, "[", shape, "] c:i32[",
                       batch, std::min(m, n), "] d:i32[", batch, m, "] = lu a in (b, c, d) }");
      EXPECT_EQ(Differ(lu, {Matrices(aval, 0.0, rng)}), "") << lu;
    }
  }
  // Ties: |1| = |-1| in the first column, so row 0 pivots (LAPACK's idamax takes the first).
  const std::string text =
      "{ lambda ; a:f32[2,2]. let b:f32[2,2] c:i32[2] d:i32[2] = lu a in (b, c, d) }";
  absl::StatusOr<std::vector<ir::HostArray>> out = ExecuteJaxpr(
      *ir::ParseJaxpr(text), {ir::HostArray{ir::ShapedArray({2, 2}, DType::kF32), {1, 2, -1, 3}}});
  ASSERT_THAT(out, IsOk());
  EXPECT_THAT((*out)[0].values, ::testing::ElementsAre(1, 2, -1, 5));
  EXPECT_THAT((*out)[1].values, ::testing::ElementsAre(0, 1));
  EXPECT_THAT((*out)[2].values, ::testing::ElementsAre(0, 1));
}

// qr, eigh and svd run on the interpreter, their n^3 counted in the work budget: an eigh of a
// 64 x 64 matrix (9 * 64^3 multiply-adds) is over a budget of 2^20.
TEST(ExecLinalgTest, DecompositionsCountCubicWork) {
  ExecOptions options;
  options.max_work = int64_t{1} << 20;
  for (const std::string text :
       {"{ lambda ; a:f32[64,64]. let b:f32[64,64] c:f32[64] = eigh[lower=True] a in (c,) }",
        "{ lambda ; a:f32[64,64]. let b:f32[64,64] c:f32[64,64] = qr[full_matrices=True] a in "
        "(c,) }",
        "{ lambda ; a:f32[64,64]. let b:f32[64] = svd[compute_uv=False full_matrices=True] a in "
        "(b,) }"}) {
    absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(text);
    ASSERT_THAT(j, IsOk());
    EXPECT_THAT(
        Executable::Compile(*j, options),
        ::axe::testing_support::StatusIs(absl::StatusCode::kResourceExhausted,
                                         ::testing::HasSubstr("more than the limit of 1048576")))
        << text;
    EXPECT_THAT(Executable::Compile(*j), IsOk()) << text;
  }
}

}  // namespace
}  // namespace axe::exec
