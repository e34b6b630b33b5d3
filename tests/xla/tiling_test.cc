// The nested tiled layout: the spec's worked examples and the oracle buffer.
#include "axe/xla/tiling.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "axe/xla/layout_util.h"
#include "axe/xla/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/parse_for_test.h"
#include "xla/random_shape.h"

namespace axe::xla {
namespace tiling_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Shape S(absl::string_view text) { return testing::ParsedShape(text); }

// The offsets of every element of a 2-D shape, rows = dim 0.
std::vector<std::vector<int64_t>> Map2D(const Shape& s) {
  TilingMap m = *TilingMap::Create(s);
  std::vector<std::vector<int64_t>> rows;
  for (int64_t i = 0; i < s.dimensions(0); ++i) {
    rows.emplace_back();
    for (int64_t j = 0; j < s.dimensions(1); ++j) rows.back().push_back(*m.LinearIndex({i, j}));
  }
  return rows;
}

TEST(Tiling, FigureOneA) {
  Shape s = S("f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(*NestedLinearIndex(s, {2, 3}), 17);
  EXPECT_THAT(Map2D(s), ElementsAre(ElementsAre(0, 1, 4, 5, 8), ElementsAre(2, 3, 6, 7, 10),
                                    ElementsAre(12, 13, 16, 17, 20)));
  TilingMap m = *TilingMap::Create(s);
  EXPECT_THAT(m.expanded_shape(), ElementsAre(2, 3, 2, 2));
  EXPECT_EQ(m.padded_elements(), 24);
  std::vector<LevelPosition> where = *m.Locate({2, 3});
  ASSERT_EQ(where.size(), 1u);
  EXPECT_THAT(where[0].tile_index, ElementsAre(1, 1));
  EXPECT_THAT(where[0].within, ElementsAre(0, 1));
  EXPECT_EQ(m.Delinearize(17)->index, (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(m.Delinearize(9)->padding);   // row 3 of the padded box
  EXPECT_TRUE(m.Delinearize(23)->padding);  // column 5
}

TEST(Tiling, FigureTwoB) {
  EXPECT_THAT(
      Map2D(S("f32[4,8]{1,0:T(2,4)(2,1)}")),
      ElementsAre(ElementsAre(0, 2, 4, 6, 8, 10, 12, 14), ElementsAre(1, 3, 5, 7, 9, 11, 13, 15),
                  ElementsAre(16, 18, 20, 22, 24, 26, 28, 30),
                  ElementsAre(17, 19, 21, 23, 25, 27, 29, 31)));
}

TEST(Tiling, OversizedTileIc) {
  Shape s = S("f32[8]{0:T(2,2)}");
  TilingMap m = *TilingMap::Create(s);
  EXPECT_EQ(*m.LinearIndex({5}), 9);
  EXPECT_EQ(m.levels()[0].left_padding, 1u);
  EXPECT_THAT(m.expanded_shape(), ElementsAre(1, 4, 2, 2));
  // A scalar under a rank-1 tile occupies t slots.
  TilingMap scalar = *TilingMap::Create(S("f32[]{:T(256)}"));
  EXPECT_EQ(scalar.padded_elements(), 256);
  EXPECT_EQ(*scalar.LinearIndex({}), 0);
}

TEST(Tiling, SubTilePaddingJ) {
  TilingMap m = *TilingMap::Create(S("f32[8,128]{1,0:T(8,128)(3,1)}"));
  EXPECT_THAT(m.expanded_shape(), ElementsAre(1, 1, 3, 128, 3, 1));
  EXPECT_EQ(m.padded_elements(), 1152);
}

TEST(Tiling, PhysicalOrderTS1) {
  TilingMap m = *TilingMap::Create(S("f32[8,100,100,3]{3,0,2,1}"));
  EXPECT_THAT(m.physical_dimensions(), ElementsAre(100, 100, 8, 3));
  EXPECT_THAT(m.physical_order(), ElementsAre(1, 2, 0, 3));
}

TEST(Tiling, PackingTS2) {
  // T(8,128)(2,1): the second tile lands on the within-tile (8,128): pairs of rows interleave.
  TilingMap m = *TilingMap::Create(S("bf16[8,128]{1,0:T(8,128)(2,1)}"));
  const TilingLevel& second = m.levels()[1];
  EXPECT_EQ(second.input_rank, 4u);
  EXPECT_EQ(second.prefix, 2u);
  EXPECT_THAT(second.covered, ElementsAre(8, 128));
  EXPECT_THAT(second.counts, ElementsAre(4, 128));
  EXPECT_THAT(second.bounds, ElementsAre(2, 1));
  EXPECT_EQ(second.output_rank(), 6u);
  EXPECT_THAT(m.expanded_shape(), ElementsAre(1, 1, 4, 128, 2, 1));
  EXPECT_EQ(*m.LinearIndex({0, 0}), 0);
  EXPECT_EQ(*m.LinearIndex({1, 0}), 1);
  EXPECT_EQ(*m.LinearIndex({0, 1}), 2);
  EXPECT_EQ(*m.LinearIndex({2, 0}), 256);
}

TEST(Tiling, CombinedDimsTS3) {
  // F32[2,7,8,11,10]{4,3,2,1,0} with T(*,*,2,*,3) is [112,110] tiled (2,3).
  Shape s = S("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
  Shape flat = S("f32[112,110]{1,0:T(2,3)}");
  TilingMap a = *TilingMap::Create(s), b = *TilingMap::Create(flat);
  EXPECT_EQ(a.levels()[0].folded, (std::vector<int64_t>{112, 110}));
  EXPECT_EQ(a.expanded_shape(), b.expanded_shape());
  for (std::vector<int64_t> i :
       {std::vector<int64_t>{1, 6, 7, 10, 9}, {0, 3, 5, 2, 7}, {1, 0, 0, 0, 0}}) {
    const int64_t row = (i[0] * 7 + i[1]) * 8 + i[2], col = i[3] * 10 + i[4];
    EXPECT_EQ(*a.LinearIndex(i), *b.LinearIndex({row, col}));
  }
}

TEST(Tiling, TopLevelOnlyLinearIndexIsXlaParity) {
  Shape j = S("f32[8,128]{1,0:T(8,128)(3,1)}");
  EXPECT_EQ(*LayoutUtil::LinearIndex(j, {1, 0}), 128);  // first level only
  EXPECT_NE(*NestedLinearIndex(j, {1, 0}), 128);
  EXPECT_EQ(*LayoutUtil::LinearIndex(S("f32[8]{0:T(4)}"), {5}), 5);  // rank 1: tiles ignored
  EXPECT_EQ(*LayoutUtil::LinearIndex(S("f32[]{:T(256)}"), {}), 0);
}

TEST(Tiling, Errors) {
  EXPECT_THAT(std::string(TilingMap::Create(*ParseShape("f32[4,8]{1,0:T(2,*)}", {.lenient = true}))
                              .status()
                              .message()),
              HasSubstr("ends with '*'"));
  Shape s = S("f32[3,5]{1,0:T(2,2)}");
  EXPECT_THAT(std::string(NestedLinearIndex(s, {3, 0}).status().message()),
              HasSubstr("dimension 0"));
  EXPECT_FALSE(NestedLinearIndex(s, {0}).ok());
  EXPECT_FALSE(NestedDelinearize(s, 24).ok());
  EXPECT_FALSE(NestedDelinearize(s, -1).ok());
  EXPECT_FALSE(TilingMap::Create(S("f32[?,784]")).ok());
  EXPECT_FALSE(TilingMap::Create(*ParseShape("f32[2,3]{0,0}", {.lenient = true})).ok());
  EXPECT_FALSE(TilingMap::Create(S("(f32[2])")).ok());
  // Overflow of the padded size is an error, not a wrap.
  EXPECT_THAT(
      std::string(TilingMap::Create(S("s8[4611686018427387903,2]{1,0:T(3,3)}")).status().message()),
      HasSubstr("overflows"));
}

TEST(Tiling, TailPaddingIsPadding) {
  TilingMap m = *TilingMap::Create(S("f32[5]{0:L(8)}"));
  EXPECT_EQ(m.padded_elements(), 8);
  EXPECT_EQ(*m.Delinearize(4), (DelinearizedIndex{false, {4}}));
  EXPECT_EQ(*m.Delinearize(5), DelinearizedIndex::Padding());
}

// The library's map against the materialised oracle buffer, and the inverse against both.
TEST(Tiling, MatchesOracleBufferOnRandomShapes) {
  std::mt19937_64 rng(2026);
  int combined = 0, long_tiles = 0, multi = 0, padded = 0;
  for (int n = 0; n < 400; ++n) {
    Shape s = testing::RandomTiledShape(rng);
    std::vector<int64_t> buffer = testing::OracleBuffer(s);
    TilingMap m = *TilingMap::Create(s);
    ASSERT_EQ(m.padded_elements(), static_cast<int64_t>(buffer.size())) << s;
    const std::vector<int64_t> dims(s.dimensions().begin(), s.dimensions().end());
    std::vector<int64_t> seen(buffer.size(), -1);
    for (int64_t off = 0; off < m.padded_elements(); ++off) {
      DelinearizedIndex idx = *m.Delinearize(off);
      ASSERT_EQ(idx.padding, buffer[static_cast<size_t>(off)] < 0) << s << " offset " << off;
      if (idx.padding) continue;
      int64_t flat = 0;
      for (size_t d = 0; d < dims.size(); ++d) flat = flat * dims[d] + idx.index[d];
      ASSERT_EQ(flat, buffer[static_cast<size_t>(off)]) << s << " offset " << off;
      ASSERT_EQ(*m.LinearIndex(idx.index), off) << s;
    }
    for (const Tile& t : s.layout().tiles()) combined += t.has_combined_dimension();
    long_tiles += !s.layout().tiles().empty() && s.layout().tiles()[0].rank() > dims.size();
    multi += s.layout().tiles().size() > 1;
    padded +=
        m.padded_elements() > static_cast<int64_t>(std::count_if(buffer.begin(), buffer.end(),
                                                                 [](int64_t v) { return v >= 0; }));
  }
  // The draws cover the interesting cases.
  EXPECT_GT(combined, 20);
  EXPECT_GT(long_tiles, 20);
  EXPECT_GT(multi, 50);
  EXPECT_GT(padded, 100);
}

}  // namespace
}  // namespace tiling_test
}  // namespace axe::xla

namespace axe::xla {
namespace tiling_test {
namespace {

// A level records only the suffix its tile covers: rank 20000 under 20000 levels stores
// 20000 + 20000 sizes, not 20000 x 20000 (which took gigabytes), and maps still round-trip.
TEST(Tiling, ManyLevelsOnAHighRankShapeStayLinear) {
  constexpr int kRank = 20000, kLevels = 20000;
  std::string text = "f32[";
  std::string m2m;
  for (int i = 0; i < kRank; ++i) {
    text += i == 0 ? "1" : ",1";
    absl::StrAppend(&m2m, i == 0 ? "" : ",", kRank - 1 - i);
  }
  absl::StrAppend(&text, "]{", m2m, ":T");
  for (int i = 0; i < kLevels; ++i) text += i % 2 == 0 ? "(1)" : "(1,1)";
  text += "}";
  Shape s = S(text);
  TilingMap m = *TilingMap::Create(s);
  size_t stored = 0;
  for (const TilingLevel& l : m.levels()) {
    stored += l.covered.size() + l.counts.size() + l.bounds.size();
  }
  EXPECT_EQ(m.levels().size(), static_cast<size_t>(kLevels));
  EXPECT_LE(stored, static_cast<size_t>(3 * (kLevels + kLevels / 2)));
  // Each level adds one or two dims of size 1.
  EXPECT_EQ(m.expanded_shape().size(),
            static_cast<size_t>(kRank + kLevels / 2 * 1 + kLevels / 2 * 2));
  std::vector<int64_t> zero(kRank, 0);
  EXPECT_EQ(*m.LinearIndex(zero), 0);
  absl::StatusOr<DelinearizedIndex> back = m.Delinearize(0);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->index, zero);
}

}  // namespace
}  // namespace tiling_test
}  // namespace axe::xla
