// The executor on every SIMD target this CPU has: a few fused elementwise, math, reduction,
// transpose and integer programs run with Highway's dispatch restricted to each target give
// the default target's values (integers exactly, floats within a few ulp: targets without
// FMA round a multiply-add twice). Also the benchmark switch's own behaviour.
#include "axe/exec/simd_targets.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "axe/exec/executable.h"
#include "axe/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::exec {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Every vectorized math function, fused with arithmetic (JAX's jaxpr).
constexpr char kMath[] = R"({ lambda ; a:f32[1003]. let
    b:f32[1003] = tanh a
    c:f32[1003] = mul b 1.5:f32[]
    d:f32[1003] = add c 0.25:f32[]
    e:f32[1003] = neg d
    f:f32[1003] = mul e d
    g:f32[1003] = exp f
    h:f32[1003] = sub g d
    i:f32[1003] = logistic a
    j:f32[1003] = add h i
    k:f32[1003] = mul a a
    l:f32[1003] = add k 1.0:f32[]
    m:f32[1003] = log l
    n:f32[1003] = add j m
    o:f32[1003] = sin a
    p:f32[1003] = cos a
    q:f32[1003] = mul o p
    r:f32[1003] = add n q
    s:f32[1003] = abs a
    t:f32[1003] = sqrt s
    u:f32[1003] = add r t
    v:f32[1003] = mul a a
    w:f32[1003] = add v 0.5:f32[]
    x:f32[1003] = rsqrt w
    y:f32[1003] = add u x
    z:f32[1003] = expm1 a
    ba:f32[1003] = add y z
    bb:f32[1003] = abs a
    bc:f32[1003] = log1p bb
    bd:f32[1003] = sub ba bc
    be:f32[1003] = max bd 0.10000000149011612:f32[]
    bf:f32[1003] = mul be bd
  in (bf,) })";

constexpr char kSoftmax[] = R"({ lambda ; a:f32[7,300]. let
    b:f32[7] = reduce_max[axes=(1,)] a
    c:f32[7] = max -inf:f32[] b
    d:f32[7,1] = broadcast_in_dim[broadcast_dimensions=(0,)] c
    e:f32[7,1] = stop_gradient d
    f:f32[7,300] = sub a e
    g:f32[7,300] = exp f
    h:f32[7] = reduce_sum[axes=(1,) out_sharding=None] g
    i:f32[7,1] = broadcast_in_dim[broadcast_dimensions=(0,)] h
    j:f32[7,300] = div g i
  in (j,) })";

constexpr char kLayernorm[] = R"({ lambda ; a:f32[5,257]. let
    b:f32[5] = reduce_sum[axes=(1,) out_sharding=None] a
    c:f32[5,1] = broadcast_in_dim[broadcast_dimensions=(0,)] b
    d:f32[5,1] = div c 257.0:f32[]
    e:f32[5,257] = sub a d
    f:f32[5,257] = integer_pow[y=2] e
    g:f32[5] = reduce_sum[axes=(1,) out_sharding=None] f
    h:f32[5,1] = broadcast_in_dim[broadcast_dimensions=(0,)] g
    i:f32[5,1] = div h 257.0:f32[]
    j:f32[5,257] = sub a d
    k:f32[5,1] = add i 9.999999747378752e-06:f32[]
    l:f32[5,1] = rsqrt k
    m:f32[5,257] = mul j l
  in (m,) })";

constexpr char kTranspose[] = R"({ lambda ; a:f32[67,131]. let
    b:f32[131,67] = transpose[permutation=(1, 0)] a
    c:f32[131,67] = exp b
    d:f32[131,67] = add c 1.0:f32[]
  in (d,) })";

constexpr char kIntegers[] = R"({ lambda ; a:i32[64,33] b:i32[64,33]. let
    c:i32[64,33] = mul a -1640531535:i32[]
    d:i32[64,33] = shift_right_arithmetic b 3:i32[]
    e:i32[64,33] = xor c d
    f:i32[33] = reduce_sum[axes=(0,) out_sharding=None] e
    g:i32[64,33] = mul a b
    h:i32[64,33] = add g 7:i32[]
    i:i32[64] = reduce_max[axes=(1,)] h
  in (f, i) })";

// Floats in [-3, 3] led by the values the vectorized math hands to the C library (NaN,
// infinities, exp's overflow, log's zero); integers over the whole i32 range.
ir::HostArray Input(const ir::ShapedArray& aval, std::mt19937_64& rng) {
  ir::HostArray a{aval, std::vector<double>(static_cast<size_t>(*aval.NumElements()))};
  std::uniform_real_distribution<double> real(-3.0, 3.0);
  std::uniform_int_distribution<int32_t> i32(std::numeric_limits<int32_t>::min());
  for (double& v : a.values) {
    v = aval.dtype() == DType::kS32 ? i32(rng) : static_cast<double>(static_cast<float>(real(rng)));
  }
  if (aval.dtype() == DType::kF32 || aval.dtype() == DType::kF64) {
    const double specials[] = {std::nan(""), INFINITY, -INFINITY, 100.0, -100.0, 0.0, -0.0};
    for (size_t i = 0; i < std::size(specials) && i < a.values.size(); ++i) {
      a.values[i] = specials[i];
    }
  }
  return a;
}

// "" when `got` is `want`: NaN where NaN, integers exactly, floats within 16 ulp of their type at
// the larger of the magnitude and 1 (the math program sums eight functions and squares the sum,
// so a one-ulp difference in one function grows to several).
std::string Difference(const std::vector<ir::HostArray>& want,
                       const std::vector<ir::HostArray>& got) {
  if (want.size() != got.size()) return "output count";
  for (size_t o = 0; o < want.size(); ++o) {
    const DType t = want[o].aval.dtype();
    const double ulp = t == DType::kF64 ? 0x1p-52 : 0x1p-23;
    for (size_t i = 0; i < want[o].values.size(); ++i) {
      const double w = want[o].values[i], g = got[o].values[i];
      const bool same = t == DType::kS32 ? w == g
                        : std::isnan(w)  ? std::isnan(g)
                        : std::isinf(w)
                            ? w == g
                            : std::fabs(w - g) <= 16 * ulp * std::max({1.0, std::fabs(w)});
      if (!same) {
        return absl::StrFormat("output %d element %d: %.17g where %.17g", o, i, g, w);
      }
    }
  }
  return "";
}

std::vector<std::string> Programs() {
  return {kMath,    absl::StrReplaceAll(kMath, {{"f32", "f64"}}), kSoftmax, kLayernorm, kTranspose,
          kIntegers};
}

constexpr char kMaxMin[] = R"({ lambda ; a:f32[37] b:f32[37]. let
    c:f32[37] = max a b
    d:f32[37] = min a b
    e:f32[37] = max b a
    f:f32[37] = min b a
  in (c, d, e, f) })";

class SimdTargetsTest : public ::testing::Test {
 protected:
  void TearDown() override { ASSERT_THAT(RestrictSimdTarget(""), IsOk()); }
};

TEST_F(SimdTargetsTest, EveryTargetGivesTheDefaultTargetsValues) {
  const std::vector<std::string> targets = AvailableSimdTargets();
  ASSERT_GE(targets.size(), 2u);  // x86-64 has at least SSE4 (or SSE2's EMU128) and more
  std::mt19937_64 rng(testing_support::TestSeed(2026));
  for (const std::string& text : Programs()) {
    absl::StatusOr<ir::ClosedJaxpr> jaxpr = ir::ParseJaxpr(text);
    ASSERT_THAT(jaxpr, IsOk());
    std::vector<ir::HostArray> args;
    for (const ir::ShapedArray& aval : jaxpr->jaxpr.in_avals()) args.push_back(Input(aval, rng));
    ASSERT_THAT(RestrictSimdTarget(""), IsOk());
    absl::StatusOr<std::vector<ir::HostArray>> want = ExecuteJaxpr(*jaxpr, args);
    ASSERT_THAT(want, IsOk());
    for (const std::string& target : targets) {
      SCOPED_TRACE(absl::StrCat(target, "\n", text));
      ASSERT_THAT(RestrictSimdTarget(target), IsOk());
      EXPECT_EQ(ActiveSimdTarget(), target);
      absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(*jaxpr, args);
      ASSERT_THAT(got, IsOk());
      EXPECT_EQ(Difference(*want, *got), "");
    }
  }
}

// max and min propagate a NaN from either operand and put +0 above -0, as XLA does, in the
// vector loops (37 elements: whole vectors and a tail on every target) as in the scalar ones.
TEST_F(SimdTargetsTest, MaxAndMinPropagateNanOnEveryTarget) {
  absl::StatusOr<ir::ClosedJaxpr> jaxpr = ir::ParseJaxpr(kMaxMin);
  ASSERT_THAT(jaxpr, IsOk());
  const ir::ShapedArray aval = jaxpr->jaxpr.in_avals()[0];
  ir::HostArray a{aval, std::vector<double>(37)}, b{aval, std::vector<double>(37)};
  for (int i = 0; i < 37; ++i) {
    a.values[i] = i % 3 == 0 ? std::nan("") : i - 10;
    b.values[i] = i % 4 == 1 ? std::nan("") : 5 - i;
  }
  for (int i : {2, 22}) a.values[i] = -0.0, b.values[i] = 0.0;  // +0 is above -0, both orders
  for (int i : {7, 35}) a.values[i] = 0.0, b.values[i] = -0.0;
  for (const std::string& target : AvailableSimdTargets()) {
    SCOPED_TRACE(target);
    ASSERT_THAT(RestrictSimdTarget(target), IsOk());
    absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(*jaxpr, {a, b});
    ASSERT_THAT(got, IsOk());
    for (int i = 0; i < 37; ++i) {
      const double x = a.values[i], y = b.values[i];
      if (std::isnan(x) || std::isnan(y)) {
        for (int o = 0; o < 4; ++o) EXPECT_TRUE(std::isnan((*got)[o].values[i])) << o << " " << i;
      } else {
        EXPECT_EQ((*got)[0].values[i], std::max(x, y)) << i;
        EXPECT_EQ((*got)[1].values[i], std::min(x, y)) << i;
        EXPECT_EQ((*got)[2].values[i], std::max(x, y)) << i;
        EXPECT_EQ((*got)[3].values[i], std::min(x, y)) << i;
        if (x == 0 && y == 0) {
          for (int o = 0; o < 4; ++o) {
            EXPECT_EQ(std::signbit((*got)[o].values[i]), o % 2 == 1) << o << " " << i;
          }
        }
      }
    }
  }
}

TEST_F(SimdTargetsTest, RestrictionIsNamedCaseInsensitivelyAndLifted) {
  const std::vector<std::string> targets = AvailableSimdTargets();
  ASSERT_FALSE(targets.empty());
  const std::string best = targets.front(), worst = targets.back();
  ASSERT_THAT(RestrictSimdTarget(absl::AsciiStrToLower(worst)), IsOk());
  EXPECT_EQ(ActiveSimdTarget(), worst);
  EXPECT_EQ(AvailableSimdTargets(), targets);  // the list ignores the restriction
  EXPECT_EQ(ActiveSimdTarget(), worst);        // and listing keeps it
  ASSERT_THAT(RestrictSimdTarget(""), IsOk());
  EXPECT_EQ(ActiveSimdTarget(), best);
}

TEST_F(SimdTargetsTest, UnknownTargetNamesTheTargetAndTheAvailableOnes) {
  EXPECT_THAT(RestrictSimdTarget("NEON"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("SIMD target 'NEON' is not available"),
                             HasSubstr(AvailableSimdTargets().front()))));
  EXPECT_EQ(ActiveSimdTarget(), AvailableSimdTargets().front());  // unchanged
}

}  // namespace
}  // namespace axe::exec
