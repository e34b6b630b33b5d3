#include "axe/base/dtype.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe {
namespace dtype_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;

TEST(DType, NamesOfEachEcosystem) {
  EXPECT_EQ(XlaName(DType::kBF16), "bf16");
  EXPECT_EQ(NumpyName(DType::kBF16), "bfloat16");
  EXPECT_EQ(JaxprName(DType::kBF16), "bf16");
  EXPECT_EQ(XlaName(DType::kS4), "s4");
  EXPECT_EQ(NumpyName(DType::kS4), "int4");
  EXPECT_EQ(JaxprName(DType::kS4), "i4");
  EXPECT_EQ(NumpyName(DType::kPred), "bool");
  EXPECT_EQ(JaxprName(DType::kPred), "bool");
  EXPECT_EQ(JaxprName(DType::kF8E4M3FN), "f8_e4m3fn");
  EXPECT_EQ(NumpyName(DType::kC128), "complex128");
  EXPECT_EQ(NumpyName(DType::kToken), "");
}

TEST(DType, ParseAcceptsEveryNameOfEveryArrayType) {
  int array_types = 0;
  for (DType t : AllDTypes()) {
    if (!IsArrayType(t)) {
      EXPECT_FALSE(ParseDType(XlaName(t)).ok()) << XlaName(t);
      continue;
    }
    ++array_types;
    for (absl::string_view name : {XlaName(t), NumpyName(t), JaxprName(t)}) {
      absl::StatusOr<DType> parsed = ParseDType(name);
      ASSERT_TRUE(parsed.ok()) << name << ": " << parsed.status();
      EXPECT_EQ(*parsed, t) << name;
    }
  }
  EXPECT_EQ(array_types, 32);
}

TEST(DType, UnknownNameSaysElementType) {
  EXPECT_THAT(ParseDType("f128"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       testing::StartsWith("unknown element type 'f128'; known: pred, s8")));
  EXPECT_THAT(ParseDType("float32"), IsOkAndHolds(DType::kF32));
  // Long inputs are elided.
  std::string long_name(1000, 'x');
  EXPECT_LT(ParseDType(long_name).status().message().size(), 500u);
  // Names are case-sensitive, as in XLA and NumPy.
  EXPECT_FALSE(ParseDType("F32").ok());
}

TEST(DType, Widths) {
  EXPECT_EQ(BitWidth(DType::kPred), 1);
  EXPECT_EQ(ByteWidth(DType::kPred), 1);
  EXPECT_EQ(BitWidth(DType::kS4), 4);
  EXPECT_EQ(ByteWidth(DType::kS4), 1);
  EXPECT_EQ(BitWidth(DType::kF6E2M3FN), 8);
  EXPECT_EQ(IfrtBitSize(DType::kF6E2M3FN), 6);
  EXPECT_EQ(IfrtBitSize(DType::kPred), 8);
  EXPECT_EQ(ByteWidth(DType::kC128), 16);
  EXPECT_EQ(BitWidth(DType::kTuple), 0);
  EXPECT_TRUE(IsSubByteNonPred(DType::kF4E2M1FN));
  EXPECT_FALSE(IsSubByteNonPred(DType::kPred));
  EXPECT_TRUE(IsIntegral(DType::kU2));
  EXPECT_FALSE(IsIntegral(DType::kPred));
  EXPECT_TRUE(IsFloatingPoint(DType::kF8E8M0FNU));
  EXPECT_TRUE(IsComplex(DType::kC64));
}

TEST(DType, XlaTypeTokens) {
  EXPECT_EQ(DTypeFromXlaName("opaque"), DType::kOpaque);
  EXPECT_EQ(DTypeFromXlaName("token"), DType::kToken);
  EXPECT_EQ(DTypeFromXlaName("tuple"), std::nullopt);
  EXPECT_EQ(DTypeFromXlaName("float32"), std::nullopt);  // HLO text has only XLA names
}

}  // namespace
}  // namespace dtype_test
}  // namespace axe
