// The HLO text form: every round-trip, print and rejection vector of the spec.
#include "axe/xla/text.h"

#include "absl/hash/hash_testing.h"
#include "absl/strings/str_cat.h"
#include "axe/base/dtype.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::xla {
namespace text_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

std::string Print(absl::string_view text, const ParseOptions& options = {}) {
  absl::StatusOr<Shape> s = ParseShape(text, options);
  if (!s.ok()) return absl::StrCat("ERROR: ", s.status().message());
  return s->ToString();
}

std::string Error(absl::string_view text, const ParseOptions& options = {}) {
  absl::StatusOr<Shape> s = ParseShape(text, options);
  return s.ok() ? "parsed: " + s->ToString() : std::string(s.status().message());
}

TEST(Text, RoundTrips) {
  for (const char* text : {
           "f32[]",                                                  // RT-1
           "u32[1,2]{1,0}",                                          // RT-2
           "f32[]{:T(256)}",                                         // RT-4
           "u32[]{:S(2)}",                                           // RT-5
           "token[]",                                                // RT-7
           "b(s32[3,4]{1,0})",                                       // RT-9
           "(opaque[], f32[], u32[1,2]{1,0}, s32[3,4]{0,1})",        // RT-10
           "bf16[2,3,4]{1,2,0:T(16,256)(2,1)}",                      // RT-15
           "pred[8,8,8]{0,2,1:T(8,128)E(32)}",                       // RT-17
           "bf16[2,3,1004]{2,1,0:T(2,*,128)}",                       // RT-19
           "s4[123,456]{1,0:T(2,128)E(4)}",                          // RT-24
           "f32[123,456]{1,0:T(16,128)M(1024)}",                     // RT-27
           "pred[123,456]{1,0:T(2,128)S(3)SC(1:200)}",               // RT-28
           "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])",  // PRN-1
           "()",
           "opaque[]",
           "f32[<=23,44,<=55]{2,1,0}",
           "f32[?,784]{1,0}",
           "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}",
           "bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}",
           "f32[4]{0:L(8)}",
           "f32[4]{0:S(300)}",
           "f32[4]{0:S(-1)}",
           "((f32[1]{0}, (s8[2,2]{0,1})), token[])",
           "f32[2,3]{0,1:SC(0:1)(1:1)}",
       }) {
    EXPECT_EQ(Print(text), text);
  }
}

TEST(Text, LayoutRoundTrips) {
  for (const char* text : {"{}", "{3,2,1,0:T(42,123)(4,5)}", "{3,2,1,0:T(*,*,42,123)}",
                           "{3,2,1,0:#(u32)}", "{1,0:*(u8)}", "{0:P(f32[4]{0})}", "{1,0:SC(1:)}",
                           "{0:T(2)L(3)#(u8)*(u16)E(4)S(1)SC(0:1)M(8)}"}) {
    absl::StatusOr<Layout> l = ParseLayout(text);
    ASSERT_TRUE(l.ok()) << text << ": " << l.status();
    EXPECT_EQ(l->ToString(), text);
  }
  EXPECT_EQ(Layout().ToString(), "{}");  // LO-1
  EXPECT_EQ(Tile({8, 128}).ToString(), "(8,128)");
  EXPECT_EQ(Tile({2, Tile::kCombineDimension, 128}).ToString(), "(2,*,128)");
}

TEST(Text, DynamicShapesWithoutLayout) {
  EXPECT_EQ(ParseShape("f32[<=23,44,<=55]")->ToString(false), "f32[<=23,44,<=55]");  // DY-1
  EXPECT_EQ(ParseShape("f32[?,784]")->ToString(false), "f32[?,784]");                // DY-3
  Shape s = *ParseShape("f32[?,<=3]");
  EXPECT_TRUE(s.is_unbounded_dynamic_dimension(0));
  EXPECT_TRUE(s.is_dynamic_dimension(1));
  EXPECT_EQ(s.dimensions(1), 3);
}

TEST(Text, PrintsDifferently) {
  EXPECT_EQ(Print("f32[123,456]"), "f32[123,456]{1,0}");  // PP-1
  EXPECT_EQ(ParseShape("f32[123,456]")->ToString(false), "f32[123,456]");
  EXPECT_EQ(Print("(f32[1572864],s8[5120,1024])"),
            "(f32[1572864]{0}, s8[5120,1024]{1,0})");             // PP-3
  EXPECT_EQ(Print("f32[10,10]{1,0:D(D,C)}"), "f32[10,10]{1,0}");  // PP-7
  EXPECT_EQ(Print("f32[10,10]{1,0:D(D,C)}", {.preserve_dim_level_types = true}),
            "f32[10,10]{1,0:D(D,C)}");
  EXPECT_EQ(Print("f32[2]{0:L(1)E(0)S(0)M(0)}"), "f32[2]{0}");  // PP-9
  EXPECT_EQ(Print("f32[2,3]{1,0:}"), "f32[2,3]{1,0}");          // rule 3
  EXPECT_EQ(Print("f32[007]"), "f32[7]{0}");
  EXPECT_EQ(Print(" f32 [ 1, 2,3]{0, 1 ,2}"), "f32[1,2,3]{0,1,2}");
  EXPECT_EQ(Print("bf16[2,3,1004]{2,1,0:T(2, * , 128)}"), "bf16[2,3,1004]{2,1,0:T(2,*,128)}");
  EXPECT_EQ(Print("f32[2] /* a comment */"), "f32[2]{0}");
  EXPECT_EQ(Print("(f32[], // line comment\n s32[])"), "(f32[], s32[])");
  EXPECT_EQ(Print("f32[]{}", {.fill_missing_layouts = false}).substr(0, 6), "ERROR:");
  EXPECT_EQ(Print("f32[2,3]", {.fill_missing_layouts = false}), "f32[2,3]");
}

TEST(Text, Rejections) {
  // RJ-2: the minor_to_major length must equal the rank.
  EXPECT_THAT(Error("f32[123,456,789]{1:T(2, * , 128)}"),
              HasSubstr("Dimensions size is 3, but minor to major size is 1."));
  EXPECT_THAT(Error("b()"), HasSubstr("expected primitive type"));  // RJ-5
  EXPECT_THAT(Error("b(s32[], f32[])"), HasSubstr("expects ')' at the end of buffer shape"));
  EXPECT_THAT(Error("f32[2]{}"), HasSubstr("extra content after shape"));  // RJ-8
  EXPECT_THAT(Error("f32[]{}"), HasSubstr("extra content after shape"));
  EXPECT_THAT(Error("f32[2]{0:S(1)T(8,128)}"),
              HasSubstr("expects layout to end with '}'"));  // RJ-10
  EXPECT_THAT(Error("f32[2]{0:T(8)T(8)}"), HasSubstr("expects layout to end with '}'"));
  EXPECT_THAT(Error("f32[2]{0:Q(1)}"), HasSubstr("expects layout to end with '}'"));
  EXPECT_THAT(Error("(f32[2,3]{0,0})"), HasSubstr("duplicate values"));  // RJ-15
  EXPECT_THAT(Error("(f32[2,3]{0,2})"), HasSubstr("out-of-bounds value"));
  EXPECT_THAT(Error("(f32[2,3]{0,1,2})"), HasSubstr("minor to major size is 3"));
  EXPECT_THAT(Error("f32[8]{0:T(-2)}"), HasSubstr("layout has invalid tiles: bound -2"));  // RJ-17
  EXPECT_THAT(Error("f32[8]{0:T(-1)}"), HasSubstr("layout has invalid tiles: bound -1"));
  EXPECT_THAT(Error("f32[8]{0:L(0)}"), HasSubstr("L(n) must be >= 1, got 0"));
  EXPECT_THAT(Error("f32[8]{0:L(-1)}"), HasSubstr("got -1"));
  EXPECT_THAT(Error("token[1]"), HasSubstr("token shapes have no dimensions"));
  EXPECT_THAT(Error("opaque[3]"), HasSubstr("opaque shapes have no dimensions"));
  EXPECT_THAT(Error("(f32[2], token[1])"), HasSubstr("token shapes have no dimensions"));
  EXPECT_THAT(Error("token[]{:S(1)}"), HasSubstr("token shapes have no layout"));
  EXPECT_THAT(Error("f32[-5]"), HasSubstr("dimension size must be >= 0, got -5"));
  EXPECT_THAT(Error("f32[<=?]"), HasSubstr("'<=?' is not a dimension size"));
  EXPECT_THAT(Error("f32[2]{0:P(f32[2]{0})}"),
              HasSubstr("Layout has physical shape, but is not for a sparse array"));
  EXPECT_THAT(Error("f32[2]{0:D(X)}"), HasSubstr("DimLevelType abbreviation (D, C, or S)"));
  EXPECT_THAT(Error("F32[2]"), HasSubstr("unknown element type 'F32'"));  // case-sensitive
  EXPECT_THAT(Error("F32[3,5]{1,0:T(2,2)}"), HasSubstr("unknown element type 'F32'"));
  EXPECT_THAT(Error("opaque_type[]"), HasSubstr("unknown element type 'opaque_type'"));
  EXPECT_THAT(Error("tuple[]"), HasSubstr("unknown element type 'tuple'"));
  EXPECT_THAT(Error("f32[9223372036854775808]"), HasSubstr("does not fit in int64"));
  EXPECT_THAT(Error("f32[2]{0:M(-1)}"), HasSubstr("M(n) must be >= 0"));
  EXPECT_THAT(Error("f32[2]{0:T()}"), HasSubstr("invalid tiles"));
  EXPECT_THAT(Error("f32[2]{0:T(0)}"), HasSubstr("invalid tiles"));
  EXPECT_THAT(Error("f32[2]{0:E(-1)}"), HasSubstr("element_size_in_bits must be >= 0"));
  EXPECT_THAT(Error("f32[2,3]"), ::testing::StartsWith("parsed"));
  EXPECT_THAT(Error("f32[2,3"), HasSubstr("expected ',' or ']'"));
  EXPECT_THAT(Error("(f32[2] f32[3])"), HasSubstr("expected ',' or ')' in tuple shape"));
  EXPECT_THAT(Error(""), HasSubstr("expected primitive type"));
  EXPECT_THAT(Error("b((f32[2]))"), HasSubstr("expected primitive type"));
  EXPECT_THAT(Error("b(token[])"), HasSubstr("a buffer wraps an array shape"));
  EXPECT_THAT(Error("f32[4611686018427387904,4]"), HasSubstr("size may overflow int64_t"));
  EXPECT_THAT(Error("f32[2]{0:SC(0:2)}"), HasSubstr("split config"));
  // Errors name the position.
  EXPECT_THAT(Error("f32[2]{0:S(1)T(8,128)}"), HasSubstr("position 13"));
}

TEST(Text, GoldenDecisions) {
  // G-b: XLA checks a standalone array only for its minor_to_major length; tuples fully.
  EXPECT_EQ(Print("f32[2,3]{0,0}", {.lenient = true}), "f32[2,3]{0,0}");
  EXPECT_THAT(Error("f32[2,3]{0,0}"), HasSubstr("duplicate values"));
  EXPECT_THAT(Error("(f32[2,3]{0,0})", {.lenient = true}), HasSubstr("duplicate values"));
  EXPECT_THAT(Error("f32[2,3]{0}", {.lenient = true}), HasSubstr("minor to major size is 1"));
  // XLA's crashes stay errors in lenient mode.
  EXPECT_FALSE(ParseShape("f32[8]{0:T(-2)}", {.lenient = true}).ok());
  EXPECT_FALSE(ParseShape("f32[8]{0:L(0)}", {.lenient = true}).ok());
  EXPECT_FALSE(ParseShape("token[1]", {.lenient = true}).ok());
  // G-c: #(s32) and *(s32) are rejected.
  EXPECT_THAT(Error("f32[2]{0:#(s32)}"), HasSubstr("unsigned integer type"));
  EXPECT_THAT(Error("f32[2]{0:*(s32)}"), HasSubstr("unsigned integer type"));
  EXPECT_FALSE(ParseLayout("{0:#(s32)}").ok());
  // Memory space is an int64, printed as written (XLA's int8 would wrap 300 to 44).
  EXPECT_EQ(ParseShape("f32[2]{0:S(300)}")->layout().memory_space(), 300);
  // Index / pointer types and P are for sparse arrays only.
  EXPECT_THAT(Error("f32[2]{0:#(u32)}"), HasSubstr("not a sparse array"));
  EXPECT_EQ(Print("f32[2]{0:D(C)#(u32)*(u16)}", {.preserve_dim_level_types = true}),
            "f32[2]{0:D(C)#(u32)*(u16)}");
  EXPECT_EQ(Print("f32[2,2]{1,0:D(D,C+~)}", {.preserve_dim_level_types = true}),
            "f32[2,2]{1,0:D(D,C+~)}");
  EXPECT_THAT(Error("f32[2,2]{1,0:D(C)}", {.preserve_dim_level_types = true}),
              HasSubstr("dim level types size is 1"));
  EXPECT_THAT(Error("f32[2]{0:D(C)T(8)}", {.preserve_dim_level_types = true}),
              HasSubstr("Layout has tiles"));
}

TEST(Text, MaximumDepth) {
  std::string deep(50, '(');
  deep += "f32[]" + std::string(50, ')');
  EXPECT_TRUE(ParseShape(deep).ok());
  EXPECT_THAT(std::string(ParseShape(deep, {.max_depth = 20}).status().message()),
              HasSubstr("maximum recursion depth exceeded"));
  std::string very_deep(100000, '(');
  EXPECT_THAT(std::string(ParseShape(very_deep).status().message()),
              HasSubstr("maximum recursion depth exceeded"));
  // The deepest accepted nesting validates, prints, compares and hashes without trouble.
  std::string deepest = std::string(512, '(') + "f32[2]" + std::string(512, ')');
  absl::StatusOr<Shape> s = ParseShape(deepest);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*ParseShape(s->ToString()), *s);
  // Equal values hash equal (a copy, and the value parsed back from its text); shapes that
  // differ only deep inside hash differently.
  const Shape copy = *s;
  EXPECT_EQ(absl::HashOf(copy), absl::HashOf(*s));
  EXPECT_EQ(absl::HashOf(*ParseShape(s->ToString())), absl::HashOf(*s));
  const std::string deepest_other = std::string(512, '(') + "f32[3]" + std::string(512, ')');
  EXPECT_NE(absl::HashOf(*ParseShape(deepest_other)), absl::HashOf(*s));
  const std::string shallower = std::string(511, '(') + "f32[2]" + std::string(511, ')');
  EXPECT_NE(absl::HashOf(*ParseShape(shallower)), absl::HashOf(*s));
  EXPECT_FALSE(ParseShape("(" + deepest + ")").ok());
}

TEST(Text, HashSeparatesDifferentShapesAndJoinsEqualOnes) {
  const std::vector<std::string> texts = {
      "f32[]",          "f32[2]{0}",      "f32[3]{0}",
      "s32[2]{0}",      "f32[2,3]{1,0}",  "f32[2,3]{0,1}",
      "f32[3,2]{1,0}",  "f32[2]{0:S(1)}", "f32[2]{0:T(2)}",
      "f32[2]{0:T(1)}", "f32[2]{0:E(8)}", "f32[<=2]{0}",
      "(f32[2]{0})",    "((f32[2]{0}))",  "(f32[2]{0}, f32[2]{0})",
      "b(f32[2]{0})",   "token[]",        "opaque[]",
      "f32[2]{0:L(2)}", "f32[2]{0:M(8)}"};
  std::vector<size_t> hashes;
  for (const std::string& t : texts) {
    absl::StatusOr<Shape> a = ParseShape(t);
    ASSERT_TRUE(a.ok()) << t << ": " << a.status();
    EXPECT_EQ(absl::HashOf(*a), absl::HashOf(*ParseShape(t))) << t;              // equal values
    EXPECT_EQ(absl::HashOf(*a), absl::HashOf(*ParseShape(a->ToString()))) << t;  // round trip
    hashes.push_back(absl::HashOf(*a));
  }
  for (size_t i = 0; i < hashes.size(); ++i) {
    for (size_t j = i + 1; j < hashes.size(); ++j) {
      EXPECT_NE(hashes[i], hashes[j]) << texts[i] << " vs " << texts[j];
    }
  }
}

TEST(Text, UnknownElementTypeIsNamedWithItsPosition) {
  EXPECT_THAT(ParseShape("f128[4]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 0: unknown element type 'f128'")));
  EXPECT_THAT(ParseShape("(f32[2], float32[3])"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 9: unknown element type 'float32'")));
  EXPECT_THAT(ParseShape("b(q8[2])"), StatusIs(absl::StatusCode::kInvalidArgument,
                                               HasSubstr("position 2: unknown element type 'q8'")));
  // No identifier at all is still "expected primitive type".
  EXPECT_THAT(ParseShape("[4]"), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("position 0: expected primitive type")));
  // A 100 KB identifier is not echoed whole.
  absl::Status st = ParseShape(std::string(100000, 'x') + "[4]").status();
  EXPECT_THAT(st, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown element type")));
  EXPECT_LT(st.message().size(), 1000u);
}

// The list of known names in the message comes from the DType table (it used to be a
// hand-written list that could drift): every array type, then token and opaque.
TEST(Text, UnknownElementTypeListsEveryShapeTypeName) {
  absl::Status st = ParseShape("f128[4]").status();
  ASSERT_THAT(st, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("(XLA's are pred, ")));
  const std::string message(st.message());
  for (DType t : AllDTypes()) {
    if (!IsArrayType(t)) continue;
    EXPECT_THAT(message, HasSubstr(absl::StrCat(" ", XlaName(t), ","))) << XlaName(t);
  }
  EXPECT_THAT(message, HasSubstr(", token, opaque)"));
}

// XLA's words for a bad tile bound (LayoutUtil::ValidateLayoutForShape).
TEST(Text, NegativeTileBoundIsInvalidTiles) {
  EXPECT_THAT(ParseShape("f32[8,8]{1,0:T(2,-2)}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 17: layout has invalid tiles: bound -2")));
  EXPECT_THAT(ParseShape("f32[8,8]{1,0:T(2,0)}"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("layout has invalid tiles")));
}

// Validation errors quote the input elided, as parse errors do.
TEST(Text, ValidationErrorsDoNotEchoHugeInputs) {
  std::string dims = "1";
  std::string m2m = "0";
  for (int i = 1; i < 20000; ++i) {
    dims += ",1";
    m2m = std::to_string(i) + "," + m2m;
  }
  const std::string dup = "f32[" + dims + "]{0," + m2m.substr(m2m.find(',') + 1) + "}";
  absl::Status st = ParseShape(dup).status();
  EXPECT_THAT(st, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("duplicate values")));
  EXPECT_GT(dup.size(), 100000u);
  EXPECT_LT(st.message().size(), 2000u);
  absl::Status tuple = ParseShape("(" + dup + ")").status();
  EXPECT_THAT(tuple, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("duplicate values")));
  EXPECT_LT(tuple.message().size(), 2000u);
}

TEST(Text, ShapeAndLayoutAreRegularValues) {
  std::vector<Shape> shapes;
  for (const char* text :
       {"f32[]", "f32[2]{0}", "f32[2]{0:S(1)}", "f32[2]{0:M(8)}", "(f32[], s32[])", "token[]",
        "opaque[]", "b(f32[2]{0})", "f32[<=2]{0}", "f32[2,3]{0,1}", "f32[2]"}) {
    shapes.push_back(*ParseShape(text, {.fill_missing_layouts = false}));
  }
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly(shapes));
  for (size_t i = 0; i < shapes.size(); ++i) {
    for (size_t j = 0; j < shapes.size(); ++j)
      EXPECT_EQ(shapes[i] == shapes[j], i == j) << i << " " << j;
    EXPECT_EQ(*ParseShape(shapes[i].ToString(), {.fill_missing_layouts = false}), shapes[i]);
  }
  std::vector<Layout> layouts;
  for (const char* text : {"{}", "{0}", "{1,0}", "{1,0:T(8,128)}", "{1,0:T(8,128)(2,1)}",
                           "{0:M(4)}", "{0:S(1)}", "{0:P(f32[2]{0})}", "{0:P(f32[3]{0})}"}) {
    layouts.push_back(*ParseLayout(text));
  }
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly(layouts));
  for (size_t i = 0; i < layouts.size(); ++i) {
    for (size_t j = 0; j < layouts.size(); ++j)
      EXPECT_EQ(layouts[i] == layouts[j], i == j) << i << " " << j;
  }
}

}  // namespace
}  // namespace text_test
}  // namespace axe::xla
