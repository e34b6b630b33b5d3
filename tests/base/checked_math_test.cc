#include "axe/base/checked_math.h"

#include "gtest/gtest.h"

namespace axe {
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
}

}  // namespace
}  // namespace axe
