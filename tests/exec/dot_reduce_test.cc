// A dot_general whose product only a loss's elementwise chain and reduction read runs block by
// block of product rows: the plan says so, and the values are the unfused plan's (the same
// program with the product also an output), bit for bit where the row blocks follow the
// pairwise sum's own splits and within f32's rounding elsewhere.
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
#include "support/test_seed.h"

namespace axe::exec {
namespace dot_reduce_test {
namespace {

using ::axe::testing_support::IsOk;
using ::testing::HasSubstr;
using ::testing::Not;

ir::ClosedJaxpr Parse(const std::string& text) {
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(text);
  EXPECT_THAT(j, IsOk()) << text;
  return j.ok() ? *j : ir::ClosedJaxpr{};
}

std::string Dims(int64_t a, int64_t b) { return absl::StrCat("[", a, ",", b, "]"); }

// sum((a @ b) ** 2) as JAX prints it; `outputs` names what the program returns ("e" alone, or
// "e, c" to keep the product and so the unfused plan).
std::string SquaredLoss(int64_t m, int64_t k, int64_t n, const std::string& outputs) {
  return absl::StrCat(
      "{ lambda ; a:f32", Dims(m, k), " b:f32", Dims(k, n), ". let\n    c:f32", Dims(m, n),
      " = dot_general[dimension_numbers=(([1], [0]), ([], [])) "
      "preferred_element_type=float32] a b\n    d:f32",
      Dims(m, n), " = integer_pow[y=2] c\n",
      "    e:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] d\n  in (", outputs, ",) }");
}

// max(tanh(a @ b + bias), axis=1): a reduction over the minor dimension and an operand
// broadcast along the rows.
std::string RowMax(int64_t m, int64_t k, int64_t n, const std::string& outputs) {
  return absl::StrCat(
      "{ lambda ; a:f32", Dims(m, k), " b:f32", Dims(k, n), " c:f32[", n, "]. let\n    d:f32",
      Dims(m, n),
      " = dot_general[dimension_numbers=(([1], [0]), ([], [])) preferred_element_type=float32] "
      "a b\n    e:f32[1,",
      n, "] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(1, ", n,
      ") sharding=None] c\n    f:f32", Dims(m, n), " = add d e\n    g:f32", Dims(m, n),
      " = tanh f\n    h:f32[", m, "] = reduce_max[axes=(1,)] g\n  in (", outputs, ",) }");
}

std::vector<ir::HostArray> Arguments(const ir::ClosedJaxpr& j, double scale, uint64_t seed) {
  std::mt19937_64 rng(testing_support::TestSeed(seed));
  std::uniform_real_distribution<double> real(-scale, scale);
  std::vector<ir::HostArray> args;
  for (const ir::ShapedArray& a : j.jaxpr.in_avals()) {
    ir::HostArray h{a.WithVma({}), std::vector<double>(a.NumElements().value_or(0))};
    for (double& v : h.values) v = ir::RoundToDType(real(rng), a.dtype());
    args.push_back(std::move(h));
  }
  return args;
}

struct Pair {
  std::vector<double> blocked, unfused;
};

// Runs the program planned by blocks and its unfused twin on the same arguments.
Pair RunBoth(const std::string& blocked_text, const std::string& unfused_text, double scale) {
  ir::ClosedJaxpr blocked = Parse(blocked_text);
  ir::ClosedJaxpr unfused = Parse(unfused_text);
  absl::StatusOr<Executable> e = Executable::Compile(blocked);
  EXPECT_THAT(e, IsOk());
  if (!e.ok()) return {};
  EXPECT_THAT(e->Describe(), HasSubstr(" rows, fused["));
  absl::StatusOr<Executable> apart = Executable::Compile(unfused);
  EXPECT_THAT(apart, IsOk());
  if (!apart.ok()) return {};
  EXPECT_THAT(apart->Describe(), Not(HasSubstr(" rows, fused[")));
  const std::vector<ir::HostArray> args = Arguments(blocked, scale, 61);
  absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(blocked, args);
  absl::StatusOr<std::vector<ir::HostArray>> want = ExecuteJaxpr(unfused, args);
  EXPECT_THAT(got, IsOk());
  EXPECT_THAT(want, IsOk());
  if (!got.ok() || !want.ok()) return {};
  return {(*got)[0].values, (*want)[0].values};
}

TEST(ExecDotReduceTest, ASquaredLossRunsByBlocksOfRows) {
  absl::StatusOr<Executable> e = Executable::Compile(Parse(SquaredLoss(512, 256, 256, "e")));
  ASSERT_THAT(e, IsOk());
  // A quarter of the 512 rows per block: 128 KiB of product at a time.
  EXPECT_THAT(e->Describe(), HasSubstr("gemm by 128 rows, fused[integer_pow,reduce_sum]"));
}

// 2^20 squares (4096 rows of 256): blocks of 256 rows and rows of two pairwise blocks, all
// powers of two, so the row results combine as the whole pairwise sum splits. One contracted
// element: each product is one rounded multiplication, whatever way GEMM blocks its sums.
TEST(ExecDotReduceTest, ASumOfTwoToTheTwentySquaresIsTheUnfusedSum) {
  const Pair p = RunBoth(SquaredLoss(4096, 1, 256, "e"), SquaredLoss(4096, 1, 256, "e, c"), 0.5);
  ASSERT_EQ(p.blocked.size(), 1u);
  ASSERT_EQ(p.unfused.size(), 1u);
  EXPECT_EQ(p.blocked[0], p.unfused[0]);
}

// 300 rows: blocks of 64 and a last block of 44; the sum splits apart from the pairwise
// order, within f32's rounding of it.
TEST(ExecDotReduceTest, ALastPartialBlockAddsItsRows) {
  const Pair p = RunBoth(SquaredLoss(300, 24, 40, "e"), SquaredLoss(300, 24, 40, "e, c"), 1.0);
  ASSERT_EQ(p.blocked.size(), 1u);
  ASSERT_EQ(p.unfused.size(), 1u);
  EXPECT_NEAR(p.blocked[0], p.unfused[0], 1e-5 * std::fabs(p.unfused[0]));
}

// 200 rows: blocks of 32 and a last one of 8; one contracted element (each product one
// rounded multiplication) and a maximum (any order): the unfused values exactly.
TEST(ExecDotReduceTest, ARowMaxOfABiasedProductIsTheUnfusedOne) {
  const Pair p = RunBoth(RowMax(200, 1, 64, "h"), RowMax(200, 1, 64, "h, d"), 1.0);
  ASSERT_EQ(p.blocked.size(), 200u);
  ASSERT_EQ(p.unfused.size(), 200u);
  for (size_t r = 0; r < 200; ++r) EXPECT_EQ(p.blocked[r], p.unfused[r]) << "row " << r;
}

// An operand that differs from row to row, or a product of a few rows, keeps the plain plan.
TEST(ExecDotReduceTest, OnlyALossOverManyRowsRunsByBlocks) {
  const std::string by_rows =
      "{ lambda ; a:f32[256,16] b:f32[16,32] y:f32[256,32]. let\n"
      "    c:f32[256,32] = dot_general[dimension_numbers=(([1], [0]), ([], [])) "
      "preferred_element_type=float32] a b\n"
      "    d:f32[256,32] = sub c y\n"
      "    e:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] d\n  in (e,) }";
  for (const std::string& text : {by_rows, SquaredLoss(12, 8, 8, "e")}) {
    absl::StatusOr<Executable> e = Executable::Compile(Parse(text));
    ASSERT_THAT(e, IsOk());
    EXPECT_THAT(e->Describe(), Not(HasSubstr(" rows, fused["))) << text;
  }
}

}  // namespace
}  // namespace dot_reduce_test
}  // namespace axe::exec
