// Wrapping integer arithmetic and pairwise float sums (numerics.h) against naive oracles.
#include "axe/base/numerics.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "support/test_seed.h"

namespace axe {
namespace numerics_test {
namespace {

// The oracle: the value of the low `width` bits, computed with arithmetic on the exact integer
// (no bit tricks): subtract 2^width when the sign bit is set.
int64_t NaiveWrap(uint64_t bits, int width, bool is_signed) {
  if (width == 64) return static_cast<int64_t>(bits);
  uint64_t low = bits % (uint64_t{1} << width);
  if (is_signed && low >= (uint64_t{1} << (width - 1))) {
    return -static_cast<int64_t>((uint64_t{1} << width) - low);  // low - 2^width, negative
  }
  return static_cast<int64_t>(low);
}

// 2^53 and its negation are doubles exactly; one past either side is not (2^53 + 1 rounds).
TEST(FitsDoubleExactlyTest, TheBoundIsTwoToThe53) {
  constexpr int64_t kTwo53 = int64_t{1} << 53;
  EXPECT_TRUE(FitsDoubleExactly(kTwo53));
  EXPECT_TRUE(FitsDoubleExactly(-kTwo53));
  EXPECT_TRUE(FitsDoubleExactly(int64_t{0}));
  EXPECT_FALSE(FitsDoubleExactly(kTwo53 + 1));
  EXPECT_FALSE(FitsDoubleExactly(-kTwo53 - 1));
  EXPECT_FALSE(FitsDoubleExactly(INT64_MIN));
  EXPECT_TRUE(FitsDoubleExactly(uint64_t{1} << 53));
  EXPECT_FALSE(FitsDoubleExactly((uint64_t{1} << 53) + 1));
  EXPECT_FALSE(FitsDoubleExactly(UINT64_MAX));
  EXPECT_EQ(static_cast<int64_t>(static_cast<double>(kTwo53 + 1)), kTwo53);  // why: it rounds
}

TEST(WrapBitsTest, TheProductThatADoubleRounds) {
  // 123456789^2 = 15241578750190521 is past 2^53: wrapping a double of it gives ...752.
  uint64_t a = 123456789;
  EXPECT_EQ(WrapBits(a * a, 32, true), -1757895751);
  EXPECT_EQ(WrapBits(a * a, 32, false), 2537071545);
  EXPECT_EQ(WrapBits(uint64_t{0x80}, 8, true), -128);
  EXPECT_EQ(WrapBits(uint64_t{0x7f}, 8, true), 127);
  EXPECT_EQ(WrapBits(~uint64_t{0}, 64, true), -1);
  EXPECT_EQ(WrapBits(uint64_t{1}, 1, true), -1);  // a signed 1-bit integer holds -1 and 0
}

TEST(WrapBitsTest, MatchesTheOracleOnRandomValuesOfEveryWidth) {
  std::mt19937_64 rng(testing_support::TestSeed(20261128));
  for (int width = 1; width <= 64; ++width) {
    for (int i = 0; i < 200; ++i) {
      uint64_t bits = rng();
      ASSERT_EQ(WrapBits(bits, width, true), NaiveWrap(bits, width, true)) << width << " " << bits;
      ASSERT_EQ(WrapBits(bits, width, false), NaiveWrap(bits, width, false))
          << width << " " << bits;
    }
  }
}

TEST(WrappingPowTest, MatchesRepeatedMultiplication) {
  std::mt19937_64 rng(testing_support::TestSeed(20261128));
  for (int i = 0; i < 500; ++i) {
    uint64_t a = rng();
    uint64_t e = rng() % 70;
    uint64_t want = 1;
    for (uint64_t k = 0; k < e; ++k) want *= a;
    ASSERT_EQ(WrappingPow(a, e), want) << a << "^" << e;
  }
  EXPECT_EQ(WrappingPow(0, 0), 1u);
}

double RoundToFloat(double s) { return static_cast<double>(static_cast<float>(s)); }

TEST(PairwiseSumTest, ExactForIntegersInAnyLength) {
  for (size_t n : {0, 1, 127, 128, 129, 255, 256, 1000, 4097}) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
    double want = static_cast<double>(n) * (static_cast<double>(n) - 1) / 2;
    EXPECT_EQ(PairwiseSum(v, [](double s) { return s; }), want) << n;
  }
}

TEST(PairwiseSumTest, FloatSumsStayCloseWhereAFoldDrifts) {
  std::vector<double> v(4096, RoundToFloat(0.1));
  float fold = 0;
  for (double x : v) fold += static_cast<float>(x);
  double pairwise = PairwiseSum(v, RoundToFloat);
  double exact = 4096 * RoundToFloat(0.1);
  EXPECT_GT(std::fabs(fold - exact), 1e-2);      // the fold's drift: 409.61578
  EXPECT_LT(std::fabs(pairwise - exact), 1e-4);  // within an ulp or two of 409.6
  // 2^20 values: the relative error of the mean stays at f32's epsilon, not 4.5e-4.
  std::vector<double> w(1 << 20, RoundToFloat(0.3));
  double mean = PairwiseSum(w, RoundToFloat) / static_cast<double>(w.size());
  EXPECT_LT(std::fabs(mean - RoundToFloat(0.3)) / RoundToFloat(0.3), 1e-6);
}

TEST(DigammaTest, DoubleAccurate) {
  // -Euler's gamma, -gamma - 2 ln 2, and psi(3.7), to a few ulps (the f64 corpus's tolerance
  // is 1e-12; an asymptotic series cut at 6 was off by 1e-11).
  EXPECT_NEAR(Digamma(1.0), -0.57721566490153286, 1e-15);
  EXPECT_NEAR(Digamma(0.5), -1.9635100260214235, 1e-15);
  EXPECT_NEAR(Digamma(3.7), 1.1671535393615113, 1e-15);
  EXPECT_TRUE(std::isnan(Digamma(-2.0)));
}

}  // namespace
}  // namespace numerics_test
}  // namespace axe
