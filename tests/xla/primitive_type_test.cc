// Primitive types: names round-trip, the widths table of the spec.
#include "axe/xla/primitive_type.h"

#include "gtest/gtest.h"

namespace axe::xla {
namespace primitive_type_test {
namespace {

TEST(PrimitiveType, NamesRoundTripAndEnumValues) {
  EXPECT_EQ(AllPrimitiveTypes().size(), 36u);
  for (PrimitiveType t : AllPrimitiveTypes()) {
    const absl::string_view name = PrimitiveTypeName(t);
    if (t == PrimitiveType::kTuple || t == PrimitiveType::kBuffer) {
      EXPECT_FALSE(PrimitiveTypeFromName(name).has_value()) << name;  // not type tokens
    } else {
      EXPECT_EQ(PrimitiveTypeFromName(name), t) << name;
    }
  }
  EXPECT_EQ(static_cast<int>(PrimitiveType::kF6E2M3FN), 36);
  EXPECT_EQ(static_cast<int>(PrimitiveType::kBF16), 16);
  EXPECT_EQ(PrimitiveTypeName(PrimitiveType::kOpaque), "opaque");
  EXPECT_FALSE(PrimitiveTypeFromName("opaque_type").has_value());
  EXPECT_FALSE(PrimitiveTypeFromName("F32").has_value());
  EXPECT_FALSE(PrimitiveTypeFromName("invalid").has_value());
}

TEST(PrimitiveType, Widths) {
  struct Row {
    PrimitiveType t;
    int bits, bytes;
  };
  const Row rows[] = {{PrimitiveType::kPred, 1, 1},     {PrimitiveType::kS1, 1, 1},
                      {PrimitiveType::kS2, 2, 1},       {PrimitiveType::kS4, 4, 1},
                      {PrimitiveType::kS8, 8, 1},       {PrimitiveType::kS16, 16, 2},
                      {PrimitiveType::kS32, 32, 4},     {PrimitiveType::kS64, 64, 8},
                      {PrimitiveType::kU1, 1, 1},       {PrimitiveType::kU4, 4, 1},
                      {PrimitiveType::kU64, 64, 8},     {PrimitiveType::kF16, 16, 2},
                      {PrimitiveType::kBF16, 16, 2},    {PrimitiveType::kF32, 32, 4},
                      {PrimitiveType::kF64, 64, 8},     {PrimitiveType::kF8E5M2, 8, 1},
                      {PrimitiveType::kF8E4M3FN, 8, 1}, {PrimitiveType::kF8E8M0FNU, 8, 1},
                      {PrimitiveType::kF4E2M1FN, 4, 1}, {PrimitiveType::kF6E3M2FN, 8, 1},
                      {PrimitiveType::kF6E2M3FN, 8, 1}, {PrimitiveType::kC64, 64, 8},
                      {PrimitiveType::kC128, 128, 16},  {PrimitiveType::kToken, 0, 0},
                      {PrimitiveType::kTuple, 0, 0}};
  for (const Row& r : rows) {
    EXPECT_EQ(BitWidth(r.t), r.bits) << PrimitiveTypeName(r.t);
    EXPECT_EQ(ByteWidth(r.t), r.bytes) << PrimitiveTypeName(r.t);
  }
  EXPECT_EQ(IfrtBitSize(PrimitiveType::kF6E3M2FN), 6);
  EXPECT_EQ(IfrtBitSize(PrimitiveType::kPred), 8);
  EXPECT_EQ(IfrtBitSize(PrimitiveType::kS4), 4);
  EXPECT_TRUE(IsSubByteNonPred(PrimitiveType::kS4));
  EXPECT_TRUE(IsSubByteNonPred(PrimitiveType::kF4E2M1FN));
  EXPECT_FALSE(IsSubByteNonPred(PrimitiveType::kPred));
  EXPECT_FALSE(IsSubByteNonPred(PrimitiveType::kF6E2M3FN));
  EXPECT_TRUE(IsUnsignedIntegral(PrimitiveType::kU2));
  EXPECT_FALSE(IsUnsignedIntegral(PrimitiveType::kS32));
  EXPECT_TRUE(IsFloatingPoint(PrimitiveType::kBF16));
  EXPECT_FALSE(IsFloatingPoint(PrimitiveType::kC64));
  EXPECT_TRUE(IsComplex(PrimitiveType::kC64));
  EXPECT_FALSE(IsArrayType(PrimitiveType::kOpaque));
}

}  // namespace
}  // namespace primitive_type_test
}  // namespace axe::xla
