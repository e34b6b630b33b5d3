// ParseElementValue: every supported type, range errors, and float rounding to nearest even.
#include "axe/relayout/element_value.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::relayout {
namespace element_value_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

template <typename T>
std::vector<uint8_t> Bytes(T value) {
  std::vector<uint8_t> out(sizeof(T));
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}

TEST(ElementValue, IntegersInRange) {
  EXPECT_THAT(ParseElementValue("255", DType::kU8), IsOkAndHolds(Bytes<uint8_t>(255)));
  EXPECT_THAT(ParseElementValue(" -128 ", DType::kS8), IsOkAndHolds(Bytes<int8_t>(-128)));
  EXPECT_THAT(ParseElementValue("-32768", DType::kS16), IsOkAndHolds(Bytes<int16_t>(-32768)));
  EXPECT_THAT(ParseElementValue("65535", DType::kU16), IsOkAndHolds(Bytes<uint16_t>(65535)));
  EXPECT_THAT(ParseElementValue("-7", DType::kS32), IsOkAndHolds(Bytes<int32_t>(-7)));
  EXPECT_THAT(ParseElementValue("4294967295", DType::kU32),
              IsOkAndHolds(Bytes<uint32_t>(4294967295u)));
  // Above 2^53: exact, not through a double.
  EXPECT_THAT(ParseElementValue("9007199254740993", DType::kS64),
              IsOkAndHolds(Bytes<int64_t>(9007199254740993)));
  EXPECT_THAT(ParseElementValue("-9223372036854775808", DType::kS64),
              IsOkAndHolds(Bytes<int64_t>(INT64_MIN)));
  EXPECT_THAT(ParseElementValue("18446744073709551615", DType::kU64),
              IsOkAndHolds(Bytes<uint64_t>(UINT64_MAX)));
}

TEST(ElementValue, IntegersOutOfRange) {
  EXPECT_THAT(ParseElementValue("300", DType::kU8),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("'300' is out of range for u8 (0 to 255)")));
  EXPECT_THAT(ParseElementValue("-1", DType::kU32),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("u32 (0 to 4294967295)")));
  EXPECT_THAT(ParseElementValue("128", DType::kS8),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("s8 (-128 to 127)")));
  EXPECT_THAT(ParseElementValue("9223372036854775808", DType::kS64),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("s64 (-9223372036854775808 to 9223372036854775807)")));
  EXPECT_THAT(ParseElementValue("18446744073709551616", DType::kU64),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("out of range for u64")));
  EXPECT_THAT(ParseElementValue(std::string(60, '9'), DType::kU64),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("out of range for u64")));
}

TEST(ElementValue, IntegersRejectFractionsAndWords) {
  EXPECT_THAT(ParseElementValue("1.5", DType::kS32),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'1.5' is not an integer; s32 holds integers from "
                                 "-2147483648 to 2147483647")));
  EXPECT_THAT(ParseElementValue("1e3", DType::kU16),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an integer")));
  EXPECT_THAT(ParseElementValue("", DType::kU8),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an integer")));
  EXPECT_THAT(ParseElementValue("-", DType::kS8),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an integer")));
}

TEST(ElementValue, Pred) {
  EXPECT_THAT(ParseElementValue("1", DType::kPred), IsOkAndHolds(std::vector<uint8_t>{1}));
  EXPECT_THAT(ParseElementValue("true", DType::kPred), IsOkAndHolds(std::vector<uint8_t>{1}));
  EXPECT_THAT(ParseElementValue("0", DType::kPred), IsOkAndHolds(std::vector<uint8_t>{0}));
  EXPECT_THAT(ParseElementValue("false", DType::kPred), IsOkAndHolds(std::vector<uint8_t>{0}));
  EXPECT_THAT(ParseElementValue("2", DType::kPred),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'2' is not a pred value: use 0, 1, true or false")));
}

TEST(ElementValue, F32AndF64) {
  EXPECT_THAT(ParseElementValue("1.5", DType::kF32), IsOkAndHolds(Bytes(1.5f)));
  EXPECT_THAT(ParseElementValue("0.1", DType::kF32), IsOkAndHolds(Bytes(0.1f)));
  EXPECT_THAT(ParseElementValue("0.1", DType::kF64), IsOkAndHolds(Bytes(0.1)));
  EXPECT_THAT(ParseElementValue("-inf", DType::kF64),
              IsOkAndHolds(Bytes(-std::numeric_limits<double>::infinity())));
  EXPECT_THAT(ParseElementValue("1e39", DType::kF32),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("out of range for f32")));
  EXPECT_THAT(ParseElementValue("1e400", DType::kF64),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("out of range for f64")));
  EXPECT_THAT(ParseElementValue("one", DType::kF32),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'one' is not a number")));
}

TEST(ElementValue, BF16RoundsToNearestEven) {
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to the even 1.0 (0x3f80).
  EXPECT_THAT(ParseElementValue("1.00390625", DType::kBF16), IsOkAndHolds(Bytes<uint16_t>(0x3f80)));
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: up to 0x3f82.
  EXPECT_THAT(ParseElementValue("1.01171875", DType::kBF16), IsOkAndHolds(Bytes<uint16_t>(0x3f82)));
  // Just above the tie rounds up, where truncation would give 0x3f80.
  EXPECT_THAT(ParseElementValue("1.0039063", DType::kBF16), IsOkAndHolds(Bytes<uint16_t>(0x3f81)));
  // 0.1 = 0x3dcccccd in f32: truncation gives 0x3dcc, rounding 0x3dcd.
  EXPECT_THAT(ParseElementValue("0.1", DType::kBF16), IsOkAndHolds(Bytes<uint16_t>(0x3dcd)));
  EXPECT_THAT(ParseElementValue("-2", DType::kBF16), IsOkAndHolds(Bytes<uint16_t>(0xc000)));
  EXPECT_THAT(ParseElementValue("inf", DType::kBF16), IsOkAndHolds(Bytes<uint16_t>(0x7f80)));
  EXPECT_THAT(ParseElementValue("3.4e38", DType::kBF16),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("out of range for bf16")));
}

TEST(ElementValue, F16RoundsToNearestEven) {
  EXPECT_THAT(ParseElementValue("1", DType::kF16), IsOkAndHolds(Bytes<uint16_t>(0x3c00)));
  EXPECT_THAT(ParseElementValue("65504", DType::kF16), IsOkAndHolds(Bytes<uint16_t>(0x7bff)));
  // 65519 rounds down to the largest finite value; 65520 is the tie that goes to infinity.
  EXPECT_THAT(ParseElementValue("65519", DType::kF16), IsOkAndHolds(Bytes<uint16_t>(0x7bff)));
  EXPECT_THAT(ParseElementValue("65520", DType::kF16),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("out of range for f16 (largest finite magnitude 65504)")));
  // 1 + 2^-11 ties to 1.0; 1 + 3 * 2^-11 ties up to 1 + 2^-9.
  EXPECT_THAT(ParseElementValue("1.00048828125", DType::kF16),
              IsOkAndHolds(Bytes<uint16_t>(0x3c00)));
  EXPECT_THAT(ParseElementValue("1.00146484375", DType::kF16),
              IsOkAndHolds(Bytes<uint16_t>(0x3c02)));
  // Subnormals: 2^-24 is the smallest; 2^-25 ties to 0; 3 * 2^-25 ties up to 2 * 2^-24.
  EXPECT_THAT(ParseElementValue("5.9604644775390625e-8", DType::kF16),
              IsOkAndHolds(Bytes<uint16_t>(0x0001)));
  EXPECT_THAT(ParseElementValue("2.98023223876953125e-8", DType::kF16),
              IsOkAndHolds(Bytes<uint16_t>(0x0000)));
  EXPECT_THAT(ParseElementValue("8.94069671630859375e-8", DType::kF16),
              IsOkAndHolds(Bytes<uint16_t>(0x0002)));
  // The largest subnormal rounds up into the smallest normal (2^-14).
  EXPECT_THAT(ParseElementValue("6.1035e-5", DType::kF16), IsOkAndHolds(Bytes<uint16_t>(0x0400)));
  EXPECT_THAT(ParseElementValue("-0", DType::kF16), IsOkAndHolds(Bytes<uint16_t>(0x8000)));
  EXPECT_THAT(ParseElementValue("1e-30", DType::kF16), IsOkAndHolds(Bytes<uint16_t>(0x0000)));
  EXPECT_EQ(RoundToF16Bits(std::numeric_limits<double>::quiet_NaN()) & 0x7e00, 0x7e00);
}

TEST(ElementValue, DecimalsNextToATieRoundOnce) {
  // Within half a double ulp of a tie: through a double they would land on the tie and go
  // to even; rounded once, they go to the nearer side.
  EXPECT_THAT(ParseElementValue("1.000488281250000000000001", DType::kF16),
              IsOkAndHolds(Bytes<uint16_t>(0x3c01)));
  EXPECT_THAT(ParseElementValue("-1.000488281250000000000001", DType::kF16),
              IsOkAndHolds(Bytes<uint16_t>(0xbc01)));
  EXPECT_THAT(ParseElementValue("1.001464843749999999999999", DType::kF16),
              IsOkAndHolds(Bytes<uint16_t>(0x3c01)));
  EXPECT_THAT(ParseElementValue("1.003906250000000000000001", DType::kBF16),
              IsOkAndHolds(Bytes<uint16_t>(0x3f81)));
  EXPECT_THAT(ParseElementValue("65519.99999999999999999", DType::kF16),
              IsOkAndHolds(Bytes<uint16_t>(0x7bff)));
  EXPECT_THAT(ParseElementValue("65520.00000000000000001", DType::kF16),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("out of range for f16")));
}

TEST(ElementValue, RoundingMatchesFloatForEveryBF16Neighbourhood) {
  // bf16 is f32's top half: for values exact in f32, round-to-nearest-even of the f32 bits
  // is the reference. Walk a spread of f32 patterns, ties included.
  for (uint32_t hi = 0; hi < 0x7f80; hi += 37) {
    for (uint32_t lo : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      const uint32_t f32_bits = (hi << 16) | lo;
      float f;
      std::memcpy(&f, &f32_bits, 4);
      const uint32_t round_up = (lo > 0x8000u || (lo == 0x8000u && (hi & 1) != 0)) ? 1 : 0;
      ASSERT_EQ(RoundToBF16Bits(f), hi + round_up) << std::hex << f32_bits;
    }
  }
}

TEST(ElementValue, OtherTypesUnimplemented) {
  for (DType type : {DType::kC64, DType::kF8E4M3FN, DType::kS4, DType::kTuple}) {
    EXPECT_THAT(ParseElementValue("1", type),
                StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("cannot be given yet")))
        << type;
  }
}

TEST(ElementValue, LongTextElided) {
  const std::string text(100000, 'x');
  absl::StatusOr<std::vector<uint8_t>> r = ParseElementValue(text, DType::kS32);
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an integer")));
  EXPECT_LT(r.status().message().size(), 400u);
}

}  // namespace
}  // namespace element_value_test
}  // namespace axe::relayout
