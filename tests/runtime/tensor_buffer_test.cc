// Buffer layouts from text: Axe layouts and XLA shape strings (with padded tiled domains),
// and how ResolveRelayout combines both sides with a given shape and element type.
#include "axe/runtime/tensor_buffer.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/layout/layout.h"
#include "axe/xla/text.h"
#include "axe/xla/to_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::runtime {

using relayout::BufferLayout;

namespace tensor_buffer_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;

TEST(TensorBuffer, LooksLikeXlaShape) {
  EXPECT_TRUE(LooksLikeXlaShape("f32[8,8]{1,0}"));
  EXPECT_TRUE(LooksLikeXlaShape("  bf16[4096,4096]{1,0:T(8,128)(2,1)}"));
  EXPECT_TRUE(LooksLikeXlaShape("s4[8]"));
  EXPECT_FALSE(LooksLikeXlaShape("S[(8,8):(8,1)]"));
  EXPECT_FALSE(LooksLikeXlaShape("S[16:1] over (4, 4)"));
  EXPECT_FALSE(LooksLikeXlaShape("[8]"));
  EXPECT_FALSE(LooksLikeXlaShape("f-32[8]"));
  EXPECT_TRUE(LooksLikeXlaShape("(f32[8]{0}, s32[])"));  // a tuple: rejected as not an array
}

TEST(TensorBuffer, XlaShapeWithPaddedTiles) {
  absl::StatusOr<TensorBuffer> t = BufferLayoutFromXla("bf16[60,250]{1,0:T(8,128)(2,1)}");
  ASSERT_OK(t);
  EXPECT_THAT(t->shape, Optional(ElementsAre(60, 250)));
  EXPECT_THAT(t->element_type, Optional(DType::kBF16));
  EXPECT_THAT(t->buffer.domain, ElementsAre(64, 256));
  // The same layout as xla::ToAxe's.
  absl::StatusOr<xla::AxeForm> form = xla::ToAxe("bf16[60,250]{1,0:T(8,128)(2,1)}");
  ASSERT_OK(form);
  EXPECT_EQ(t->buffer.layout, form->layout);
  // Text without a layout gets XLA's default (descending) layout.
  t = BufferLayoutFromXla("f32[4,6]");
  ASSERT_OK(t);
  EXPECT_EQ(t->buffer.layout, *Layout::Parse("S[(4,6):(6,1)]"));
  // Unpadded: the domain is the shape.
  t = BufferLayoutFromXla("f32[4,6]{0,1}");
  ASSERT_OK(t);
  EXPECT_THAT(t->buffer.domain, ElementsAre(4, 6));
}

TEST(TensorBuffer, ParsesEitherForm) {
  absl::StatusOr<TensorBuffer> t = ParseTensorBuffer("S[(8,8):(8,1)]");
  ASSERT_OK(t);
  EXPECT_EQ(t->shape, std::nullopt);
  EXPECT_EQ(t->element_type, std::nullopt);
  t = ParseTensorBuffer("S[16:1] over (4, 4)\n");  // from a file: a trailing newline
  ASSERT_OK(t);
  EXPECT_THAT(t->buffer.domain, ElementsAre(4, 4));
  t = ParseTensorBuffer(" s32[3,5]{1,0}\n");
  ASSERT_OK(t);
  EXPECT_THAT(t->element_type, Optional(DType::kS32));
}

// Inputs come from files of up to 256 MiB: an error quotes them elided, never whole.
TEST(TensorBuffer, LongShapesElidedInErrors) {
  std::string tuple = "(";
  while (tuple.size() < 100000) absl::StrAppend(&tuple, "f32[2]{0}, ");
  tuple += "s32[])";
  absl::StatusOr<TensorBuffer> t = ParseTensorBuffer(tuple);
  EXPECT_THAT(t, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is not an array")));
  EXPECT_LT(t.status().message().size(), 400u);

  xla::ParseOptions keep_missing;
  keep_missing.fill_missing_layouts = false;
  std::string dims = "f32[";
  for (int k = 0; k < 100; ++k) absl::StrAppend(&dims, k == 0 ? "" : ",", "1");
  absl::StatusOr<xla::Shape> shape = xla::ParseShape(dims + "]", keep_missing);
  ASSERT_OK(shape);
  t = BufferLayoutFromXla(*shape);
  EXPECT_THAT(t, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("has no layout: give one, e.g. '{99,98,")));
  EXPECT_LT(t.status().message().size(), 400u);
}

TEST(TensorBuffer, Errors) {
  xla::ParseOptions keep_missing;
  keep_missing.fill_missing_layouts = false;
  EXPECT_THAT(BufferLayoutFromXla(*xla::ParseShape("f32[8,8]", keep_missing)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("XLA shape 'f32[8,8]' has no layout: give one, e.g. "
                                 "'f32[8,8]{1,0}'")));
  EXPECT_THAT(BufferLayoutFromXla(*xla::ParseShape("f32[2,3,4]", keep_missing)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("e.g. 'f32[2,3,4]{2,1,0}'")));
  EXPECT_THAT(ParseTensorBuffer("token[]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("XLA shape 'token[]' is not an array")));
  EXPECT_THAT(ParseTensorBuffer("(f32[2]{0}, s32[])"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is not an array")));
  EXPECT_THAT(BufferLayoutFromXla("s4[8]{0:E(4)}"),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("packed elements (E(n))")));
  EXPECT_THAT(BufferLayoutFromXla("f32[8,8"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position")));
  EXPECT_THAT(ParseTensorBuffer("S[(8,8):(8,1)"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position")));
  EXPECT_THAT(ParseTensorBuffer("f128[4]{0}"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown element type")));
}

TEST(TensorBuffer, ResolveRelayout) {
  const TensorBuffer axe{BufferLayout(*Layout::Parse("S[(8,8):(8,1)]")), std::nullopt,
                         std::nullopt};
  const TensorBuffer xla = *BufferLayoutFromXla("bf16[8,8]{0,1}");
  absl::StatusOr<RelayoutRequest> r = ResolveRelayout(axe, xla, std::nullopt, std::nullopt);
  ASSERT_OK(r);
  EXPECT_THAT(r->shape, ElementsAre(8, 8));
  EXPECT_EQ(r->element_type, DType::kBF16);
  EXPECT_EQ(r->src, axe.buffer);
  EXPECT_EQ(r->dst, xla.buffer);
  // A given shape and type that agree; f32 by default.
  r = ResolveRelayout(axe, axe, std::vector<int64_t>{8, 8}, std::nullopt);
  ASSERT_OK(r);
  EXPECT_EQ(r->element_type, DType::kF32);
  EXPECT_OK(ResolveRelayout(xla, axe, std::vector<int64_t>{8, 8}, DType::kBF16));

  EXPECT_THAT(ResolveRelayout(axe, xla, std::vector<int64_t>{8, 9}, std::nullopt),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("destination: the shape's dims (8, 8) differ from (8, 9)")));
  EXPECT_THAT(ResolveRelayout(xla, axe, std::nullopt, DType::kF32, {"--from", "--to"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--from: element type bf16 differs from f32")));
  EXPECT_THAT(ResolveRelayout(axe, axe, std::nullopt, std::nullopt, {"--from", "--to"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a shape is required unless --from or --to is an XLA shape")));
}

}  // namespace
}  // namespace tensor_buffer_test
}  // namespace axe::runtime
