// ShapeUtil: the spec's SU vectors and bitcast laws checked against index math.
#include "axe/xla/shape_util.h"

#include <random>

#include "axe/xla/index_util.h"
#include "axe/xla/program_shape.h"
#include "axe/xla/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/parse_for_test.h"

namespace axe::xla {
namespace shape_util_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Shape S(absl::string_view text) { return testing::ParsedShape(text); }

TEST(ShapeUtil, PermuteDimensionsSU1) {
  Shape p = *ShapeUtil::PermuteDimensions({1, 2, 0}, S("f32[10,100,1000]{2,1,0}"));
  EXPECT_EQ(p.ToString(), "f32[100,1000,10]{1,0,2}");
  // The transpose is a bitcast: output dim i is input dim P[i].
  EXPECT_TRUE(*ShapeUtil::TransposeIsBitcast(S("f32[10,100,1000]{2,1,0}"), p, {1, 2, 0}));
  EXPECT_EQ(ShapeUtil::PermuteDimensionsIgnoringLayout({1, 2, 0}, S("f32[10,100,1000]{2,1,0}"))
                ->ToString(),
            "f32[100,1000,10]{2,1,0}");
  EXPECT_EQ(*ShapeUtil::ReorderLogicalDimensions(S("f32[10,100,1000]{2,1,0}"), {1, 2, 0}), p);
  EXPECT_EQ(ShapeUtil::PermuteDimensions({1, 0}, S("f32[<=3,4]{1,0}"))->ToString(),
            "f32[4,<=3]{0,1}");
  EXPECT_FALSE(ShapeUtil::PermuteDimensions({0, 0}, S("f32[2,3]")).ok());
  EXPECT_FALSE(ShapeUtil::PermuteDimensions({0}, S("f32[2,3]")).ok());
}

TEST(ShapeUtil, TransposeIsBitcastSU3) {
  EXPECT_TRUE(*ShapeUtil::TransposeIsBitcast(S("f32[10,5]{1,0}"), S("f32[5,10]{0,1}"), {1, 0}));
  EXPECT_FALSE(*ShapeUtil::TransposeIsBitcast(S("f32[10,5]{1,0}"), S("f16[5,10]{0,1}"), {1, 0}));
  EXPECT_TRUE(
      *ShapeUtil::TransposeIsBitcast(S("f32[10,5]{1,0}"), S("f16[5,10]{0,1}"), {1, 0}, true));
  EXPECT_FALSE(*ShapeUtil::TransposeIsBitcast(S("f32[10,5]{1,0}"), S("f32[5,10]{1,0}"), {1, 0}));
}

TEST(ShapeUtil, DeduceTranspose) {
  EXPECT_THAT(
      **ShapeUtil::DeduceTransposeDimensionsForBitcast(S("f32[10,5]{1,0}"), S("f32[5,10]{0,1}")),
      ElementsAre(1, 0));
  EXPECT_FALSE(
      ShapeUtil::DeduceTransposeDimensionsForBitcast(S("f32[10,5]{1,0}"), S("f32[5,10]{1,0}"))
          ->has_value());
  EXPECT_FALSE(ShapeUtil::DeduceTransposeDimensionsForBitcast(S("f32[10,5]{1,0}"), S("f32[50]{0}"))
                   ->has_value());
}

TEST(ShapeUtil, DecomposeBitcastSU7) {
  // SU-7a: a reshape.
  auto a = *ShapeUtil::DecomposeBitcast(S("f32[1,16,17,3]{3,2,1,0}"), S("f32[16,51]{1,0}"));
  EXPECT_TRUE(std::holds_alternative<ShapeUtil::BitcastReshape>(a));
  // A transpose.
  auto t = *ShapeUtil::DecomposeBitcast(S("f32[10,5]{1,0}"), S("f32[5,10]{0,1}"));
  ASSERT_TRUE(std::holds_alternative<ShapeUtil::BitcastTranspose>(t));
  EXPECT_THAT(std::get<ShapeUtil::BitcastTranspose>(t).transpose_dims, ElementsAre(1, 0));
  // SU-7d: transpose-reshape-transpose.
  auto d = *ShapeUtil::DecomposeBitcast(S("f32[16,17,3]{2,1,0}"), S("f32[51,16]{0,1}"));
  ASSERT_TRUE(std::holds_alternative<ShapeUtil::BitcastTrt>(d));
  const auto& trt = std::get<ShapeUtil::BitcastTrt>(d);
  EXPECT_THAT(trt.transpose1_dims, ElementsAre(0, 1, 2));
  EXPECT_EQ(trt.transpose1_shape.ToString(), "f32[16,17,3]{2,1,0}");
  EXPECT_EQ(trt.reshape_shape.ToString(), "f32[16,51]{1,0}");
  EXPECT_THAT(trt.transpose2_dims, ElementsAre(1, 0));
  EXPECT_THAT(std::string(ShapeUtil::DecomposeBitcast(S("f32[2]"), S("f32[3]")).status().message()),
              HasSubstr("not a bitcast"));
}

TEST(ShapeUtil, ReshapeIsBitcast) {
  EXPECT_TRUE(*ShapeUtil::ReshapeIsBitcast(S("f32[1,16,17,3]{3,2,1,0}"), S("f32[16,51]{1,0}")));
  EXPECT_FALSE(*ShapeUtil::ReshapeIsBitcast(S("f32[16,17,3]{2,1,0}"), S("f32[51,16]{0,1}")));
  EXPECT_TRUE(*ShapeUtil::ReshapeIsBitcast(S("f32[0,3]"), S("f32[0]")));
  EXPECT_FALSE(*ShapeUtil::ReshapeIsBitcast(S("f32[6]"), S("s32[2,3]")));
  EXPECT_TRUE(*ShapeUtil::ReshapeIsBitcast(S("f32[6]"), S("s32[2,3]"), true));
  EXPECT_TRUE(*ShapeUtil::IsReshapeOrTransposeBitcast(S("f32[10,5]{1,0}"), S("f32[5,10]{0,1}")));
  EXPECT_FALSE(
      *ShapeUtil::IsReshapeOrTransposeBitcast(S("f32[16,17,3]{2,1,0}"), S("f32[51,16]{0,1}")));
}

// ReshapeIsBitcast agrees with the brute-force definition: every element keeps its offset.
TEST(ShapeUtil, ReshapeIsBitcastMatchesBruteForce) {
  std::mt19937_64 rng(5);
  const std::vector<std::vector<int64_t>> shapes = {{12},      {3, 4},    {4, 3},  {2, 6},
                                                    {2, 2, 3}, {3, 2, 2}, {1, 12}, {2, 3, 2}};
  int yes = 0;
  for (int n = 0; n < 300; ++n) {
    auto pick = [&] {
      std::vector<int64_t> dims = shapes[rng() % shapes.size()];
      std::vector<int64_t> m2m(dims.size());
      for (size_t i = 0; i < m2m.size(); ++i) m2m[i] = static_cast<int64_t>(i);
      std::shuffle(m2m.begin(), m2m.end(), rng);
      return *ShapeUtil::MakeShapeWithDenseLayout(PrimitiveType::kF32, dims, m2m);
    };
    Shape a = pick(), b = pick();
    bool brute = true;
    for (int64_t k = 0; k < 12; ++k) {
      auto unflat = [&](const Shape& s) {
        std::vector<int64_t> idx(s.dimensions().size());
        int64_t rest = k;
        for (size_t d = idx.size(); d-- > 0;) {
          idx[d] = rest % s.dimensions(d);
          rest /= s.dimensions(d);
        }
        return idx;
      };
      brute = brute && *IndexUtil::MultidimensionalIndexToLinearIndex(a, unflat(a)) ==
                           *IndexUtil::MultidimensionalIndexToLinearIndex(b, unflat(b));
    }
    EXPECT_EQ(*ShapeUtil::ReshapeIsBitcast(a, b), brute) << a << " -> " << b;
    yes += brute;
  }
  EXPECT_GT(yes, 20);
}

TEST(ShapeUtil, AlignLayoutsSU8) {
  std::optional<Shape> out =
      *ShapeUtil::AlignLayouts(S("f32[3,8,5,7,11]{3,2,1,0,4}"), S("f32[4,3,2,7,5,11]"));
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->ToString(), "f32[4,3,2,7,5,11]{4,3,2,1,0,5}");
  EXPECT_TRUE(*ShapeUtil::ReshapeIsBitcast(S("f32[3,8,5,7,11]{3,2,1,0,4}"), *out));
  // Size-1 output dims go most major, in decreasing order.
  std::optional<Shape> ones = *ShapeUtil::AlignLayouts(S("f32[6,4]{0,1}"), S("f32[1,6,1,4]"));
  ASSERT_TRUE(ones.has_value());
  EXPECT_EQ(ones->ToString(), "f32[1,6,1,4]{1,3,2,0}");
  EXPECT_TRUE(*ShapeUtil::ReshapeIsBitcast(S("f32[6,4]{0,1}"), *ones));
  // A group whose dims are not one descending run: no layout.
  EXPECT_FALSE(ShapeUtil::AlignLayouts(S("f32[2,3]{0,1}"), S("f32[6]"))->has_value());
}

TEST(ShapeUtil, DeleteAndInsertDimensions) {
  EXPECT_EQ(ShapeUtil::DeleteDimensions({1}, S("f32[5,3,2]{2,0,1}"))->ToString(),
            "f32[5,2]{1,0}");  // SU-10a
  EXPECT_EQ(ShapeUtil::DropDegenerateDimensions(S("f32[1,5,1,2]{0,3,2,1}"))->ToString(),
            "f32[5,2]{1,0}");
  EXPECT_EQ(ShapeUtil::DropDegenerateDimensions(S("f32[1,1]"))->ToString(), "f32[]");
  EXPECT_EQ(ShapeUtil::PrependMajorDimension(40, S("f32[10,20,30]{0,2,1}"))->ToString(),
            "f32[40,10,20,30]{1,3,2,0}");  // SU-13a
  EXPECT_EQ(ShapeUtil::AppendMinorDimension(7, S("f32[10,20]{0,1}"))->ToString(),
            "f32[10,20,7]{2,0,1}");
  EXPECT_EQ(ShapeUtil::InsertDimensionAtIndex(S("f32[10,20]{0,1}"), 1, 3)->ToString(),
            "f32[10,3,20]{0,2,1}");
  EXPECT_EQ(ShapeUtil::InsertDimensionsAtIndex(S("f32[10,20]{1,0}"), 0, {3, 4})->ToString(),
            "f32[3,4,10,20]{3,2,1,0}");
  EXPECT_FALSE(ShapeUtil::InsertDimensionAtIndex(S("f32[10]"), 3, 3).ok());
  EXPECT_FALSE(ShapeUtil::DeleteDimensions({2}, S("f32[10]")).ok());
  EXPECT_EQ(
      ShapeUtil::MakeShapeWithDescendingLayoutAndSamePhysicalLayout(S("f32[2,3,4]{0,2,1:T(2)S(1)}"))
          ->ToString(),
      "f32[3,4,2]{2,1,0:T(2)S(1)}");
  EXPECT_EQ(ShapeUtil::MoveDimToMajor(S("(f32[2,3,4]{2,1,0:T(2)S(1)}, token[])"), 1)->ToString(),
            "(f32[2,3,4]{2,0,1}, token[])");
  EXPECT_EQ(ShapeUtil::MoveDimToMajor(S("f32[2,3,4]"), 2)->ToString(), "f32[2,3,4]{1,0,2}");
  EXPECT_FALSE(ShapeUtil::MoveDimToMajor(S("f32[2]"), 1).ok());
  EXPECT_TRUE(*ShapeUtil::IsEffectivelyMostMajorDimension(S("f32[1,5,3]{1,2,0}"), 2));
  EXPECT_FALSE(*ShapeUtil::IsEffectivelyMostMajorDimension(S("f32[1,5,3]{1,2,0}"), 1));
  EXPECT_EQ(ShapeUtil::TrueNumDimensions(S("f32[1,5,1,3]")), 2);
}

TEST(ShapeUtil, ElementTypeAndStridesSU15SU16) {
  Shape s4 = S("s4[10,20]{1,0:E(4)}");
  EXPECT_EQ(ShapeUtil::ChangeElementType(s4, PrimitiveType::kU4)->ToString(),
            "u4[10,20]{1,0:E(4)}");  // SU-15
  EXPECT_EQ(ShapeUtil::ChangeElementType(s4, PrimitiveType::kPred)->ToString(), "pred[10,20]{1,0}");
  EXPECT_EQ(ShapeUtil::ChangeElementType(s4, PrimitiveType::kU8)->ToString(), "u8[10,20]{1,0}");
  EXPECT_EQ(ShapeUtil::ChangeElementType(S("s8[2]{0}"), PrimitiveType::kS4)->ToString(),
            "s4[2]{0}");
  EXPECT_EQ(ShapeUtil::UpdateElementSizeInBits(S("s4[2]{0}"), true)->ToString(), "s4[2]{0:E(4)}");
  EXPECT_EQ(ShapeUtil::UpdateElementSizeInBits(s4, false)->ToString(), "s4[10,20]{1,0}");
  EXPECT_EQ(*ShapeUtil::ElementSizeInBits(s4), 4);
  EXPECT_EQ(*ShapeUtil::ElementSizeInBits(S("bf16[2]")), 16);
  EXPECT_THAT(*ShapeUtil::UnpackedByteStrides(S("f32[3,5,7]")), ElementsAre(140, 28, 4));  // SU-16
  EXPECT_THAT(*ShapeUtil::UnpackedByteStrides(S("f16[5,7,9]")), ElementsAre(126, 18, 2));
  EXPECT_THAT(*ShapeUtil::UnpackedByteStrides(S("s4[2,4]{1,0:E(4)}")), ElementsAre(4, 1));
  EXPECT_FALSE(ShapeUtil::ByteStrides(s4)->has_value());
  EXPECT_THAT(**ShapeUtil::ByteStrides(S("f32[3,5]{0,1}")), ElementsAre(4, 12));
}

TEST(ShapeUtil, MakeShapesAndHostShapes) {
  EXPECT_EQ(ShapeUtil::MakeShape(PrimitiveType::kF32, {2, 3})->ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(ShapeUtil::MakeShapeWithDenseLayout(PrimitiveType::kF32, {2, 3}, {0, 1}, {}, 1, 32)
                ->ToString(),
            "f32[2,3]{0,1}");
  EXPECT_FALSE(ShapeUtil::MakeShapeWithDenseLayout(PrimitiveType::kF32, {2, 3}, {0, 0}).ok());
  EXPECT_FALSE(ShapeUtil::MakeShape(PrimitiveType::kF32, {-1}).ok());
  Shape device = S("(f32[8,128]{1,0:T(8,128)S(1)}, s4[4]{0:L(2)E(4)M(8)})");
  EXPECT_FALSE(ShapeUtil::DeviceShapeIsHostShape(device));
  Shape host = ShapeUtil::DeviceShapeToHostShape(device);
  EXPECT_EQ(host.ToString(), "(f32[8,128]{1,0}, s4[4]{0})");
  EXPECT_TRUE(ShapeUtil::DeviceShapeIsHostShape(host));
}

TEST(ProgramShape, PRN3) {
  const char* layout = "(f32[], f32[2,3]{1,0:S(1)})->(f32[2,3]{1,0:S(1)}, f32[])";
  ProgramShape p = *ParseProgramShape(absl::StrCat("{", layout, "}"));
  EXPECT_EQ(p.ComputationLayoutString(), layout);
  EXPECT_EQ(p.ToString(), "((unknown): f32[], (unknown): f32[2,3]) -> (f32[2,3], f32[])");
  ProgramShape named = *ParseProgramShape("(Arg_0.5: f32[1,8], b: s32[]) -> f32[1,8]");
  EXPECT_EQ(named.ToString(), "(Arg_0.5: f32[1,8], b: s32[]) -> f32[1,8]");
  ProgramShape six =
      *ParseProgramShape("(f32[], f32[], f32[], f32[], f32[], /*index=5*/s32[])->f32[]");
  EXPECT_EQ(six.ComputationLayoutString(),
            "(f32[], f32[], f32[], f32[], f32[], /*index=5*/s32[])->f32[]");
  EXPECT_FALSE(ParseProgramShape("(f32[])").ok());
  EXPECT_FALSE(ParseProgramShape("(a: f32[], f32[])->f32[]").ok());
}

}  // namespace
}  // namespace shape_util_test
}  // namespace axe::xla
