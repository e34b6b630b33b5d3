// ExplainArray / ExplainLeaves / ExplainIndex / ExplainText: the facts `axe xla explain`
// prints, and that they stay linear in the size of the shape.
#include "axe/xla/explain.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "axe/xla/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::xla {
namespace explain_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

ArrayExplanation Explain(absl::string_view text, const ParseOptions& options = {}) {
  absl::StatusOr<Shape> s = ParseShape(text, options);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  absl::StatusOr<ArrayExplanation> e = ExplainArray(*s);
  EXPECT_TRUE(e.ok()) << e.status();
  return *e;
}

TEST(Explain, FactsOfATpuTiling) {
  ArrayExplanation e = Explain("bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}");
  EXPECT_EQ(e.element_type, "bf16");
  EXPECT_EQ(e.bit_width, 16);
  EXPECT_FALSE(e.invalid.has_value());
  EXPECT_THAT(e.minor_to_major, ElementsAre(2, 1, 0));
  EXPECT_THAT(e.major_to_minor, ElementsAre(0, 1, 2));
  ASSERT_EQ(e.tile_levels.size(), 2u);
  EXPECT_THAT(e.tile_levels[0].covered, ElementsAre(32, 4096));
  EXPECT_THAT(e.tile_levels[0].counts, ElementsAre(4, 32));
  EXPECT_THAT(e.tile_levels[1].covered, ElementsAre(8, 128));
  EXPECT_THAT(e.tile_levels[1].counts, ElementsAre(4, 128));
  EXPECT_THAT(e.expanded_shape, ElementsAre(32, 4, 32, 4, 128, 2, 1));
  EXPECT_EQ(e.memory_space, 1);
  EXPECT_EQ(e.memory_space_name, "fast");
  EXPECT_EQ(*e.elements_in, 4194304);
  EXPECT_EQ(*e.array_size_bytes, 8388608);
  EXPECT_TRUE(e.axe.ok());
  const std::string text = ExplainText(e);
  EXPECT_THAT(
      text, HasSubstr("level 2: (2,1) covers the minor dims (8, 128): (4, 128) tiles of (2, 1)\n"));
  EXPECT_THAT(text, HasSubstr("memory space    1: fast memory"));
}

TEST(Explain, AttributesAndInvalidReason) {
  ArrayExplanation e = Explain("s4[8,16]{1,0:T(1)L(4)E(4)S(5)SC(0:2)M(8)}");
  EXPECT_EQ(e.element_size_in_bits, 4);
  EXPECT_EQ(e.tail_padding_alignment, 4);
  EXPECT_EQ(e.metadata_prefix_bytes, 8);
  EXPECT_THAT(e.split_configs, ElementsAre("(0:2)"));
  const std::string text = ExplainText(e);
  EXPECT_THAT(text, HasSubstr("E(4): packed"));
  EXPECT_THAT(text, HasSubstr("L(4)"));
  EXPECT_THAT(text, HasSubstr("SC(0:2)"));
  EXPECT_THAT(text, HasSubstr("M(8)"));
  ArrayExplanation bad = Explain("f32[2,3]{0,0}", {.lenient = true});
  ASSERT_TRUE(bad.invalid.has_value());
  EXPECT_THAT(*bad.invalid, HasSubstr("duplicate values"));
  EXPECT_THAT(ExplainText(bad),
              HasSubstr("invalid         layout minor_to_major field has duplicate"));
}

TEST(Explain, CombinedDimArraySizeIsExplained) {
  ArrayExplanation e = Explain("bf16[2,3,1004]{2,1,0:T(2,*,128)}");
  EXPECT_EQ(*e.array_size_bytes, 0);
  ASSERT_TRUE(e.array_size_note.has_value());
  EXPECT_THAT(*e.array_size_note, HasSubstr("kCombineDimension"));
  EXPECT_THAT(e.tile_levels[0].folded, ElementsAre(2, 3012));
  EXPECT_EQ(*e.padded_elements, 6144);
}

TEST(Explain, LeavesAndTupleLeaf) {
  Shape s = *ParseShape("(f32[2], (token[], s4[8]{0:E(4)}))");
  std::vector<LeafExplanation> leaves = ExplainLeaves(s);
  ASSERT_EQ(leaves.size(), 3u);
  EXPECT_THAT(leaves[2].tuple_index, ElementsAre(1, 1));
  EXPECT_EQ(leaves[1].kind, "token");
  EXPECT_FALSE(leaves[1].array.has_value());
  EXPECT_EQ(LeafLine(leaves[2]),
            "{1,1} s4[8]{0:E(4)}: 8 elements, byte_size_of 4, array_size 4, padded_elements 8, "
            "memory space 0 "
            "(default), axe S[8:1] over (8)\n");
  EXPECT_THAT(TupleLeaf(s, {1, 1}),
              ::axe::testing_support::IsOkAndHolds(&s.tuple_shapes(1).tuple_shapes(1)));
  EXPECT_THAT(TupleLeaf(s, {2}),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("position 0 is 2, but that tuple has 2 elements")));
  EXPECT_THAT(TupleLeaf(s, {0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 1 goes into f32[2]{0}, which is not a tuple")));
}

TEST(Explain, IndexGivesByteAndBitOffsets) {
  IndexExplanation f = *ExplainIndex(*ParseShape("f32[3,5]{1,0:T(2,2)}"), {2, 3});
  EXPECT_EQ(f.linear_index, 17);
  EXPECT_EQ(f.byte_offset, 68);
  EXPECT_FALSE(f.packed);
  // s4 packed two per byte: element 5 is the high nibble of byte 2.
  IndexExplanation p = *ExplainIndex(*ParseShape("s4[8]{0:E(4)}"), {5});
  EXPECT_TRUE(p.packed);
  EXPECT_EQ(p.bit_offset, 20);
  EXPECT_EQ(p.byte_offset, 2);
  EXPECT_EQ(p.bit_in_byte, 4);
  EXPECT_THAT(ExplainIndexText(p), HasSubstr("byte 2, bit 4 of that byte (bit offset 20)"));
  IndexExplanation u = *ExplainIndex(*ParseShape("s4[8]"), {5});  // unpacked: a byte each
  EXPECT_EQ(u.byte_offset, 5);
  EXPECT_THAT(ExplainIndex(*ParseShape("f32[3,5]"), {3, 0}),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("dimension 0")));
}

// Token and opaque leaves are explained by the library too (this used to be CLI code), with
// the array-only facts absent.
TEST(Explain, NonTupleCoversTokensAndOpaques) {
  absl::StatusOr<ArrayExplanation> t = ExplainNonTuple(*ParseShape("token[]"));
  ASSERT_OK(t.status());
  EXPECT_EQ(t->kind, "token");
  EXPECT_EQ(t->element_type, "token");
  EXPECT_FALSE(HasArrayFacts(*t));
  EXPECT_THAT(t->byte_size_of, IsOkAndHolds(0));
  EXPECT_THAT(t->elements_in,
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a token is not an array")));
  EXPECT_EQ(ExplainText(*t),
            "shape           token[]\n"
            "kind            token (an ordering token: no data, 0 bytes)\n");
  absl::StatusOr<ArrayExplanation> o = ExplainNonTuple(*ParseShape("opaque[]"));
  ASSERT_OK(o.status());
  EXPECT_EQ(o->kind, "opaque");
  EXPECT_THAT(o->byte_size_of,
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("pointer size")));
  EXPECT_THAT(ExplainText(*o), HasSubstr("kind            opaque (an opaque handle: one pointer)"));
  absl::StatusOr<ArrayExplanation> b = ExplainNonTuple(*ParseShape("b(f32[2]{0})"));
  ASSERT_OK(b.status());
  EXPECT_EQ(b->kind, "buffer");
  EXPECT_TRUE(HasArrayFacts(*b));
  EXPECT_THAT(b->elements_in, IsOkAndHolds(2));
  EXPECT_THAT(ExplainNonTuple(*ParseShape("(f32[2])")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs a non-tuple shape")));
}

// Regression: the byte offset of an unpacked element went through a bit count (x8) that
// overflowed int64 for arrays over 2^60 bytes, so valid indices of such arrays were refused.
TEST(Explain, IndexOfArrayOverTwoToTheSixtyBytes) {
  // 2^60 f32 elements: 2^62 bytes (fits int64), 2^65 bits (does not).
  absl::StatusOr<IndexExplanation> last =
      ExplainIndex(*ParseShape("f32[1152921504606846976]"), {1152921504606846975});
  ASSERT_OK(last.status());
  EXPECT_EQ(last->linear_index, 1152921504606846975);
  EXPECT_EQ(last->byte_offset, 4611686018427387900);
  EXPECT_EQ(last->bit_offset, 0);
  EXPECT_FALSE(last->packed);
}

// The explanation of a shape with rank R and L tile levels is O(R + L) text (it used to list
// the whole shape at every level: 36 KB of input gave gigabytes of work).
TEST(Explain, LargeShapeExplainsInLinearSize) {
  constexpr int kRank = 6000, kLevels = 6000;
  std::string text = "f32[";
  std::string m2m;
  for (int i = 0; i < kRank; ++i) {
    text += i == 0 ? "2" : ",1";
    absl::StrAppend(&m2m, i == 0 ? "" : ",", kRank - 1 - i);
  }
  absl::StrAppend(&text, "]{", m2m, ":T");
  for (int i = 0; i < kLevels; ++i) text += "(1,1)";
  text += "}";
  ArrayExplanation e = Explain(text);
  EXPECT_EQ(e.tile_levels.size(), static_cast<size_t>(kLevels));
  size_t listed = 0;
  for (const TileLevelFacts& l : e.tile_levels)
    listed += l.covered.size() + l.counts.size() + l.bounds.size();
  EXPECT_LE(listed, static_cast<size_t>(6 * kLevels));
  const std::string out = ExplainText(e);
  EXPECT_LT(out.size(), 200 * text.size() / 10);  // a constant factor of the input, not R x L
  EXPECT_TRUE(e.axe.ok()) << e.axe.status();
}

// Rank 10001 with a padding tile: the sizes and the Axe form of a high-rank shape (ArraySize
// once validated the whole shape per dim, and the Axe form's padding step recomputed every
// domain dim's place value per dim).
TEST(Explain, HighRankPaddedShape) {
  constexpr int kRank = 10000;
  std::string text = "f32[";
  std::string m2m;
  for (int i = 0; i < kRank; ++i) {
    text += "1,";
    m2m += std::to_string(kRank - i) + ",";
  }
  text += "3]{" + m2m + "0:T(2)SC(" + std::to_string(kRank) + ":1)}";
  ArrayExplanation e = Explain(text);
  EXPECT_EQ(*e.elements_in, 3);
  EXPECT_EQ(*e.array_size_bytes, 8);  // the larger split piece (2) is already a multiple of 2
  EXPECT_EQ(*e.padded_elements, 4);
  ASSERT_TRUE(e.axe.ok()) << e.axe.status();
  EXPECT_EQ(e.axe->layout.ToString(), "S[(2,2):(2,1)]");
}

}  // namespace
}  // namespace explain_test
}  // namespace axe::xla
