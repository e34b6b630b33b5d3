#include "axe/base/checked_math.h"

#include "gtest/gtest.h"

namespace axe {
namespace checked_math_test {
namespace {

TEST(CheckedMath, DetectsOverflow) {
  EXPECT_EQ(CheckedAdd(INT64_MAX, 1), std::nullopt);
  EXPECT_EQ(CheckedAdd(INT64_MAX - 1, 1), INT64_MAX);
  EXPECT_EQ(CheckedSub(INT64_MIN, 1), std::nullopt);
  EXPECT_EQ(CheckedMul(int64_t{1} << 32, int64_t{1} << 31), std::nullopt);
  EXPECT_EQ(CheckedMul(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
  EXPECT_EQ(CheckedAbs(INT64_MIN), std::nullopt);
  EXPECT_EQ(CheckedAbs(-5), 5);
  EXPECT_EQ(CheckedProduct({}), 1);
  EXPECT_EQ(CheckedProduct({3, 5, 7}), 105);
  EXPECT_EQ(CheckedProduct({int64_t{1} << 40, int64_t{1} << 30}), std::nullopt);
}

TEST(CheckedMath, FloorAndCeil) {
  EXPECT_EQ(FloorDiv(7, 2), 3);
  EXPECT_EQ(FloorDiv(-7, 2), -4);
  EXPECT_EQ(FloorMod(-7, 2), 1);
  EXPECT_EQ(CeilDiv(7, 2), 4);
  EXPECT_EQ(CeilDiv(-7, 2), -3);
  EXPECT_EQ(CeilDiv(8, 2), 4);
  EXPECT_EQ(FloorMod(INT64_MIN, 3), 1);  // -2^63 = 3 * (-3074457345618258603) + 1
  EXPECT_EQ(FloorDiv(INT64_MIN, 3), -3074457345618258603);
  EXPECT_EQ(CeilDiv(INT64_MIN, 3), -3074457345618258602);
  EXPECT_EQ(CeilDiv(INT64_MAX, 2), int64_t{1} << 62);
  EXPECT_EQ(FloorMod(-7, 7), 0);
  // Negative divisors, as Python's // and %.
  EXPECT_EQ(FloorDiv(7, -2), -4);
  EXPECT_EQ(FloorMod(7, -2), -1);
  EXPECT_EQ(CeilDiv(7, -2), -3);
  EXPECT_EQ(FloorDiv(-7, -2), 3);
  EXPECT_EQ(FloorMod(-7, -2), -1);
  EXPECT_EQ(FloorMod(INT64_MIN, -3), -2);
  EXPECT_EQ(FloorDiv(INT64_MAX, -1), -INT64_MAX);
  // Against a naive oracle over a small domain.
  for (int64_t a = -30; a <= 30; ++a) {
    for (int64_t b = -7; b <= 7; ++b) {
      if (b == 0) continue;
      // floor(a/b): the q with q <= a/b < q + 1, by search (b's sign flips the inequalities).
      int64_t q = -100;
      while (!(b > 0 ? (q * b <= a && a < (q + 1) * b) : (q * b >= a && a > (q + 1) * b))) ++q;
      ASSERT_LE(q, 100);
      EXPECT_EQ(FloorDiv(a, b), q) << a << "/" << b;
      EXPECT_EQ(FloorMod(a, b), a - q * b) << a << "%" << b;
      EXPECT_EQ(CeilDiv(a, b), (a % b == 0) ? a / b : q + 1) << a << "/" << b;
    }
  }
}

TEST(CheckedMath, MulDivFloor) {
  EXPECT_EQ(MulDivFloor(7, 3, 2), 10);
  EXPECT_EQ(MulDivFloor(-7, 3, 2), -11);
  EXPECT_EQ(MulDivFloor(0, INT64_MAX, 5), 0);
  // The product leaves int64; the quotient does not (the sharding picture's column width of
  // an array of 2^62 elements over 8 devices).
  EXPECT_EQ(MulDivFloor(int64_t{1} << 59, 40, int64_t{1} << 62), 5);
  EXPECT_EQ(MulDivFloor(INT64_MAX - 8, 1000, INT64_MAX), 999);
  EXPECT_EQ(MulDivFloor(INT64_MIN, 1, 1), INT64_MIN);
  EXPECT_EQ(MulDivFloor(INT64_MIN, -1, 1), std::nullopt);
  EXPECT_EQ(MulDivFloor(INT64_MAX, 2, 1), std::nullopt);
  EXPECT_EQ(MulDivFloor(INT64_MAX, INT64_MAX, INT64_MAX), INT64_MAX);
  // Against FloorDiv where the product fits.
  for (int64_t a = -40; a <= 40; ++a) {
    for (int64_t b = -5; b <= 5; ++b) {
      for (int64_t c = 1; c <= 9; ++c) EXPECT_EQ(MulDivFloor(a, b, c), FloorDiv(a * b, c));
    }
  }
}

}  // namespace
}  // namespace checked_math_test
}  // namespace axe
