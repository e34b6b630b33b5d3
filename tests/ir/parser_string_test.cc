// Findings of the jaxpr fuzz target (fuzz/jaxpr_fuzz.cc): texts that parsed but whose print did
// not read back.
#include <string>

#include "axe/ir/jaxpr.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace parser_string_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

// Checks that the print of `j` at `width` reads back to `j` and prints the same again.
void ExpectPrintReadsBack(const ClosedJaxpr& j, const std::string& printed, size_t width = 80) {
  absl::StatusOr<ClosedJaxpr> again = ParseJaxpr(printed);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
  EXPECT_EQ(*again, j);
  EXPECT_EQ(PrintJaxpr(*again, width), printed);
}

// A shard_map whose mesh axis is named `axis` (as raw text between the quotes).
std::string ShardMapWithMeshAxis(const std::string& axis) {
  return "{ lambda ; a:f32[8]. let\n"
         "    b:f32[2] = shard_map[\n"
         "      check_vma=True\n"
         "      in_specs=(P('x',),)\n"
         "      jaxpr={ lambda ; c:f32[2]{V:x}. let\n"
         "          d:f32[2] = psum_invariant[axes=('x',)] c\n"
         "        in (d,) }\n"
         "      mesh=Mesh('" +
         axis +
         "': 4, axis_types=(Auto,))\n"
         "      newly_manual_axes=frozenset({'x'})\n"
         "      out_specs=(P(),)\n"
         "    ] a\n"
         "  in (b,) }\n";
}

// Found by the jaxpr fuzz target (fuzz/corpus/jaxpr/control-char-mesh-axis-regression): a
// name with control characters printed as '\x16x' read back as the four characters \x16.
TEST(ParserStringTest, ControlCharactersPrintAndParseBack) {
  absl::StatusOr<ClosedJaxpr> raw = ParseJaxpr(ShardMapWithMeshAxis("\x16\x16\x16x"));
  ASSERT_TRUE(raw.ok()) << raw.status();
  const std::string printed = PrintJaxpr(*raw);
  EXPECT_THAT(printed, HasSubstr("Mesh('\\x16\\x16\\x16x': 4"));
  ExpectPrintReadsBack(*raw, printed);

  absl::StatusOr<ClosedJaxpr> escaped = ParseJaxpr(ShardMapWithMeshAxis("\\x16\\x16\\x16x"));
  ASSERT_TRUE(escaped.ok()) << escaped.status();
  EXPECT_EQ(*escaped, *raw);
}

// '\xff' is the code point U+00FF, as in Python: the text stays UTF-8 (it used to be the
// byte 0xff, which Python could not decode from the print).
TEST(ParserStringTest, HexEscapesAreCodePointsAsInPython) {
  absl::StatusOr<ClosedJaxpr> escaped = ParseJaxpr(ShardMapWithMeshAxis("\\xff\\x85x"));
  ASSERT_TRUE(escaped.ok()) << escaped.status();
  absl::StatusOr<ClosedJaxpr> raw = ParseJaxpr(ShardMapWithMeshAxis("\xC3\xBF\xC2\x85x"));
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_EQ(*escaped, *raw);
  const std::string printed = PrintJaxpr(*escaped);
  // As Python's repr: U+00FF printed, U+0085 (a control character) escaped.
  EXPECT_THAT(printed, HasSubstr("Mesh('\xC3\xBF\\x85x': 4"));
  ExpectPrintReadsBack(*escaped, printed);
}

TEST(ParserStringTest, TruncatedHexEscapeIsAnErrorAtItsPosition) {
  EXPECT_THAT(ParseJaxpr(ShardMapWithMeshAxis("\\x1")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 8, column 18: truncated \\xXX escape")));
  EXPECT_THAT(ParseJaxpr(ShardMapWithMeshAxis("a\\xg0")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("truncated \\xXX escape")));
}

// An equation without outputs (JAX prints it as `prim[params] operands`) used to be read as
// operands of the equation above it once the jaxpr was printed on several lines:
// `b:f32[3] = neg a\n    sin` gave "unknown variable 'sin'" (found by the jaxpr fuzz target,
// fuzz/corpus/jaxpr/eqn-without-outputs-regression).
TEST(ParserEqnTest, EquationsWithoutOutputsReadBackFromTheMultiLinePrint) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(
      "{ lambda ; a:f32[1,3]. let b:f32[3] = squeeze[dimensions=(0,)] a; sin; "
      "c:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(2, 3) sharding=None] b; "
      "neg in (c,) }");
  ASSERT_TRUE(j.ok()) << j.status();
  ASSERT_EQ(j->jaxpr.eqns.size(), 4u);
  const std::string multi_line = PrintJaxpr(*j, /*width=*/20);
  EXPECT_THAT(multi_line, HasSubstr("\n    sin \n"));
  ExpectPrintReadsBack(*j, multi_line, 20);
}

// A param the printer hides (broadcast_in_dim's shape and sharding, JAX's pretty-printing
// rule) but that was written with another value than the output type implies was kept, and
// the print lost it: parse(print(j)) != j (found by the jaxpr fuzz target,
// fuzz/corpus/jaxpr/hidden-param-regression). Such a value is now refused where it is read.
TEST(ParserEqnTest, HiddenParamsMustBeWhatTheOutputTypesImply) {
  EXPECT_THAT(ParseJaxpr("{ lambda ; a:f32[4]. let\n"
                         "   broadcast_in_dim[dimension=0 dtype=float32 shape=(4.,) "
                         "sharding=e] \n    c:f32[4] = add a   in (c,) }\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("broadcast_in_dim: parameter shape=(4.0,) is implied by the "
                                 "equation's output types, which give nothing")));
  EXPECT_THAT(
      ParseJaxpr("{ lambda ; a:f32[]. let b:f32[4] = broadcast_in_dim[broadcast_dimensions=() "
                 "shape=(8,) sharding=None] a in (b,) }"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("parameter shape=(8,) is implied by the equation's output types, "
                         "which give (4,)")));
  EXPECT_THAT(
      ParseJaxpr("{ lambda ; a:f32[]. let b:f32[4] = broadcast_in_dim[broadcast_dimensions=() "
                 "shape=(4,) sharding=e] a in (b,) }"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("parameter sharding=e")));
  // Written as the output type implies: accepted, and the print reads back.
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(
      "{ lambda ; a:f32[]. let b:f32[4] = broadcast_in_dim[broadcast_dimensions=() "
      "shape=(4,) sharding=None] a; c:f32[4] = sin[accuracy=None] b in (c,) }");
  ASSERT_TRUE(j.ok()) << j.status();
  const std::string text = PrintJaxpr(*j);
  EXPECT_THAT(text, HasSubstr("b:f32[4] = broadcast_in_dim a\n"));
  ExpectPrintReadsBack(*j, text);
}

}  // namespace
}  // namespace parser_string_test
}  // namespace axe::ir
