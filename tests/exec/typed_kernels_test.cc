// The typed kernels that replaced interpreter fallbacks, against JAX 0.10.2's values: the
// cumulative reductions (a bf16 running sum that does not stall, integer sums and products
// that wrap, NaN through a reversed cummax), pad (negative and interior padding), rev, argmax
// and argmin (ties, NaN), clamp, the dynamic slices (clamped starts), split, reduce_prod
// (wrapping), the logical reductions and elementwise operands that broadcast against each
// other; and none of them runs through the interpreter.
#include <cmath>
#include <string>
#include <vector>

#include "axe/exec/executable.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::exec {
namespace typed_kernels_test {
namespace {

using ::axe::testing_support::IsOk;

// Runs `text` on `args` (ParseArgSpec's texts); the executor must take every equation typed.
std::vector<std::vector<double>> RunTypedAll(const std::string& text,
                                             const std::vector<std::string>& args) {
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(text);
  EXPECT_THAT(j, IsOk()) << text;
  std::vector<ir::HostArray> values;
  for (const std::string& arg : args) {
    absl::StatusOr<ir::HostArray> x = ir::ParseArgSpec(arg);
    EXPECT_THAT(x, IsOk()) << arg;
    if (!x.ok()) return {};
    values.push_back(*x);
  }
  if (!j.ok()) return {};
  absl::StatusOr<Executable> e = Executable::Compile(*j);
  EXPECT_THAT(e, IsOk());
  if (!e.ok()) return {};
  EXPECT_EQ(e->stats().fallbacks + e->stats().nested_fallbacks, 0) << e->Describe();
  absl::StatusOr<std::vector<ir::HostArray>> out = ExecuteJaxpr(*j, values);
  EXPECT_THAT(out, IsOk());
  std::vector<std::vector<double>> results;
  if (out.ok()) {
    for (const ir::HostArray& o : *out) results.push_back(o.values);
  }
  return results;
}

std::vector<double> RunTyped(const std::string& text, const std::string& arg) {
  std::vector<std::vector<double>> out = RunTypedAll(text, {arg});
  return out.size() == 1 ? out[0] : std::vector<double>{};
}

TEST(TypedKernelsTest, Bf16CumsumRoundsEachOutputOnceAsJaxDoes) {
  // A running bf16 sum rounded after every add would stay at 256.
  const std::vector<double> c = RunTyped(
      "{ lambda ; a:bf16[1024]. let b:bf16[1024] = cumsum[axis=0 reverse=False] a in (b,) }",
      "bf16[1024]=1");
  ASSERT_EQ(c.size(), 1024u);
  EXPECT_EQ(std::vector<double>(c.begin() + 254, c.begin() + 262),
            (std::vector<double>{255, 256, 256, 258, 260, 260, 260, 262}));
  EXPECT_EQ(c[600], 600);
  EXPECT_EQ(c[1023], 1024);
}

TEST(TypedKernelsTest, IntegerCumsumAndCumprodWrapLikeJax) {
  EXPECT_EQ(RunTyped("{ lambda ; a:i32[3]. let b:i32[3] = cumsum[axis=0 reverse=False] a in (b,) }",
                     "i32[3]=2147483647,1,1"),
            (std::vector<double>{2147483647, -2147483648.0, -2147483647}));
  EXPECT_EQ(
      RunTyped("{ lambda ; a:i32[2]. let b:i32[2] = cumprod[axis=0 reverse=False] a in (b,) }",
               "i32[2]=123456789,123456789"),
      (std::vector<double>{123456789, -1757895751}));
}

TEST(TypedKernelsTest, ReversedCummaxPropagatesNanAndCumlogsumexpKeepsInfinities) {
  const std::vector<double> m =
      RunTyped("{ lambda ; a:f32[2,4]. let b:f32[2,4] = cummax[axis=1 reverse=True] a in (b,) }",
               "f32[2,4]=1,nan,3,2,0,5,-1,4");
  ASSERT_EQ(m.size(), 8u);
  EXPECT_TRUE(std::isnan(m[0]) && std::isnan(m[1]));
  EXPECT_EQ(std::vector<double>(m.begin() + 2, m.end()), (std::vector<double>{3, 2, 5, 5, 4, 4}));
  const std::vector<double> l =
      RunTyped("{ lambda ; a:f32[4]. let b:f32[4] = cumlogsumexp[axis=0 reverse=False] a in (b,) }",
               "f32[4]=0,-inf,1,700");
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0], 0);
  EXPECT_EQ(l[1], 0);
  EXPECT_FLOAT_EQ(l[2], 1.3132617473602295);
  EXPECT_EQ(l[3], 700);
}

TEST(TypedKernelsTest, PadCropsAndSpreadsAsJaxDoes) {
  EXPECT_EQ(RunTyped("{ lambda ; a:i32[5,3]. let\n"
                     "    b:i32[10,2] = pad[padding_config=((-1, 2, 1), (1, -2, 0))] a -7:i32[]\n"
                     "  in (b,) }",
                     "i32[5,3]=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14"),
            (std::vector<double>{-7, -7, -7, 3,  -7, -7, -7, 6,  -7, -7,
                                 -7, 9,  -7, -7, -7, 12, -7, -7, -7, -7}));
}

// Paddings near 2^63 that crop the whole operand: no overflow on the way, only the value.
TEST(TypedKernelsTest, PadWithPaddingsNear2To63KeepsOnlyThePaddingValue) {
  EXPECT_EQ(RunTypedAll("{ lambda ; a:f32[2]. let\n"
                        "    b:f32[2] = pad[padding_config=((-9223372036854775807, "
                        "9223372036854775807, 0),)] a 5.0:f32[]\n"
                        "  in (b,) }",
                        {"f32[2]=1,2"}),
            (std::vector<std::vector<double>>{{5, 5}}));
}

TEST(TypedKernelsTest, RevMirrorsTheGivenDimensions) {
  EXPECT_EQ(
      RunTyped("{ lambda ; a:bf16[2,3,4]. let b:bf16[2,3,4] = rev[dimensions=(0, 2)] a in (b,) }",
               "bf16[2,3,4]=iota"),
      (std::vector<double>{15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20,
                           3,  2,  1,  0,  7,  6,  5,  4,  11, 10, 9,  8}));
}

TEST(TypedKernelsTest, ArgmaxTakesTheFirstExtremeOrTheFirstNan) {
  EXPECT_EQ(RunTyped("{ lambda ; a:f32[2,5]. let\n"
                     "    b:i32[2] = argmax[axes=(1,) index_dtype=int32] a\n"
                     "  in (b,) }",
                     "f32[2,5]=1,3,3,nan,3,2,2,1,0,2"),
            (std::vector<double>{3, 0}));
  EXPECT_EQ(RunTyped("{ lambda ; a:i8[2,2]. let\n"
                     "    b:i32[2] = argmin[axes=(0,) index_dtype=int32] a\n"
                     "  in (b,) }",
                     "i8[2,2]=1,0,1,-1"),
            (std::vector<double>{0, 1}));
}

TEST(TypedKernelsTest, ClampKeepsNan) {
  const std::vector<double> c =
      RunTyped("{ lambda ; a:f32[4]. let b:f32[4] = clamp 0.0:f32[] a 1.0:f32[] in (b,) }",
               "f32[4]=-1,0.5,nan,2");
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0], 0);
  EXPECT_EQ(c[1], 0.5);
  EXPECT_TRUE(std::isnan(c[2]));
  EXPECT_EQ(c[3], 1);
}

TEST(TypedKernelsTest, DynamicSlicesClampTheirStartsAndSplitCutsPieces) {
  EXPECT_EQ(RunTypedAll("{ lambda ; a:i32[5] b:i32[]. let\n"
                        "    f:i32[3] = dynamic_slice[slice_sizes=(3,)] a b\n"
                        "  in (f,) }",
                        {"i32[5]=iota", "i32[]=3"}),
            (std::vector<std::vector<double>>{{2, 3, 4}}));
  EXPECT_EQ(RunTypedAll("{ lambda ; a:f32[4] b:f32[2] c:i32[]. let\n"
                        "    g:f32[4] = dynamic_update_slice a b c\n"
                        "  in (g,) }",
                        {"f32[4]=0", "f32[2]=7,8", "i32[]=3"}),
            (std::vector<std::vector<double>>{{0, 0, 7, 8}}));
  EXPECT_EQ(RunTypedAll("{ lambda ; a:f32[2,5]. let\n"
                        "    b:f32[2,2] c:f32[2,0] d:f32[2,3] = split[axis=1 sizes=(2, 0, 3)] a\n"
                        "  in (b, c, d) }",
                        {"f32[2,5]=iota"}),
            (std::vector<std::vector<double>>{{0, 1, 5, 6}, {}, {2, 3, 4, 7, 8, 9}}));
}

TEST(TypedKernelsTest, ProductsWrapAndLogicalReductionsRunTyped) {
  EXPECT_EQ(RunTyped("{ lambda ; a:i32[2,3]. let b:i32[3] = reduce_prod[axes=(0,)] a in (b,) }",
                     "i32[2,3]=123456789,3,-2,123456789,5,7"),
            (std::vector<double>{-1757895751, 15, -14}));
  EXPECT_EQ(RunTyped("{ lambda ; a:f32[2,3,2]. let b:f32[3] = reduce_prod[axes=(0, 2)] a in (b,) }",
                     "f32[2,3,2]=0.25,0.5,0.75,1,1.25,1.5,1.75,2,2.25,2.5,2.75,3"),
            (std::vector<double>{0.4375, 4.21875, 15.46875}));
  EXPECT_EQ(RunTyped("{ lambda ; a:bool[2,2]. let b:bool[2] = reduce_and[axes=(1,)] a in (b,) }",
                     "bool[2,2]=true,false,true,true"),
            (std::vector<double>{0, 1}));
  EXPECT_EQ(RunTyped("{ lambda ; a:i32[4]. let b:i32[] = reduce_or[axes=(0,)] a in (b,) }",
                     "i32[4]=1,2,4,1"),
            (std::vector<double>{7}));
  EXPECT_EQ(RunTyped("{ lambda ; a:bool[2,3]. let b:bool[2] = reduce_xor[axes=(1,)] a in (b,) }",
                     "bool[2,3]=true,true,true,true,false,true"),
            (std::vector<double>{1, 0}));
}

// iota[None, :] < lengths[:, None], as JAX prints it: the operands broadcast against each
// other through their size-1 dimensions.
TEST(TypedKernelsTest, OperandsThatBroadcastAgainstEachOtherRunTyped) {
  EXPECT_EQ(RunTypedAll("{ lambda ; a:i32[1,5] b:i32[3,1]. let c:bool[3,5] = lt a b in (c,) }",
                        {"i32[1,5]=iota", "i32[3,1]=1,3,5"}),
            (std::vector<std::vector<double>>{{1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1}}));
  EXPECT_EQ(RunTypedAll("{ lambda ; a:u32[3,1] b:u32[1,3]. let c:u32[3,3] = add a b in (c,) }",
                        {"u32[3,1]=0,10,4294967295", "u32[1,3]=1,2,3"}),
            (std::vector<std::vector<double>>{{1, 2, 3, 11, 12, 13, 0, 1, 2}}));
}

TEST(TypedKernelsTest, SixteenBitMaxAndMinReductionsRunTypedAndPropagateNan) {
  const std::vector<double> m = RunTyped(
      "{ lambda ; a:bf16[2,3]. let b:bf16[2] = reduce_max[axes=(1,) out_sharding=None] a "
      "in (b,) }",
      "bf16[2,3]=1,nan,3,-1,2.5,0.5");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_TRUE(std::isnan(m[0]));
  EXPECT_EQ(m[1], 2.5);
  EXPECT_EQ(
      RunTyped("{ lambda ; a:f16[2,2]. let b:f16[2] = reduce_min[axes=(0,) out_sharding=None] a "
               "in (b,) }",
               "f16[2,2]=1,-2,3,0.5"),
      (std::vector<double>{1, -2}));
}

// x ** n with an int32 n, as JAX prints it (jax_kinks/pow_integer_exponent_zero): the
// exponent converted to f32 first, as JAX lowers it.
TEST(TypedKernelsTest, PowWithAnIntegerExponentRunsTyped) {
  EXPECT_EQ(RunTypedAll("{ lambda ; a:f32[4] b:i32[4]. let c:f32[4] = pow a b in (c,) }",
                        {"f32[4]=2,-3,0.5,0", "i32[4]=3,2,-2,0"}),
            (std::vector<std::vector<double>>{{8, 9, 4, 1}}));
}

}  // namespace
}  // namespace typed_kernels_test
}  // namespace axe::exec
