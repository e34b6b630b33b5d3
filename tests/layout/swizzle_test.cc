// Swizzled layouts: the spec's examples, agreement with the bit formula as the spec states
// it over whole domains, text round trips, tile/pack/unpack, and every failure mode.
#include "axe/layout/swizzle.h"

#include <numeric>
#include <random>

#include "axe/layout/canonical.h"
#include "axe/layout/tile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"
#include "support/test_seed.h"

namespace axe {
namespace swizzle_test {
namespace {

using ::testing::HasSubstr;

Layout P(absl::string_view text) { return testing::ParseOrFail(text); }

SwizzledLayout SW(absl::string_view text) {
  absl::StatusOr<SwizzledLayout> l = SwizzledLayout::Parse(text);
  EXPECT_TRUE(l.ok()) << l.status();
  return *l;
}

int64_t M(const PhysCoord& p) { return p.get(Axis::Memory()); }

TEST(Swizzle, Example60Fp16Swizzle128B) {
  const SwizzledLayout s = SW("Swizzled(3,3,3, S[(8,64):(64,1)])");
  for (int64_t i = 0; i < 8; ++i) {
    for (int64_t j = 0; j < 64; ++j) {
      EXPECT_EQ(M(*s.ApplyBase({8, 64}, {i, j})), 64 * i + 8 * ((j / 8) ^ i) + j % 8);
    }
  }
  std::vector<int64_t> column, banks;
  for (int64_t i = 0; i < 8; ++i) {
    column.push_back(M(*s.ApplyBase({8, 64}, {i, 0})));
    banks.push_back(column.back() / 2 % 32);  // fp16: two elements per 4-byte bank
  }
  EXPECT_EQ(column, (std::vector<int64_t>{0, 72, 144, 216, 288, 360, 432, 504}));
  EXPECT_EQ(banks, (std::vector<int64_t>{0, 4, 8, 12, 16, 20, 24, 28}));  // conflict-free
  EXPECT_EQ(M(*s.ApplyBase({8, 64}, {3, 21})), 205);
  std::vector<PhysCoord> all = *s.Apply({8, 64}, {3, 21});
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(M(all[0]), 205);
}

TEST(Swizzle, Example50aTileOfTheAtom) {
  absl::StatusOr<SwizzledLayout> t =
      Tile(P("S[(8,4):(1,8)]"), {8, 4}, SW("Swizzled(3,3,3, S[512])"), {8, 64});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->ToString(), "Swizzled(3,3,3, S[(64,4,64):(64,4096,1)])");
}

TEST(Swizzle, TextRoundTripsAndAlternativeSpellings) {
  for (const char* text :
       {"Swizzled(3,3,3, S[(64,4,64):(64,4096,1)])", "Swizzled(2,1,3, S[(8,16):(16,1)] + 32)",
        "Swizzled(0,2,2, S[4:1@reg], inner=false)"}) {
    SwizzledLayout s = SW(text);
    EXPECT_EQ(s.ToString(), text);
    EXPECT_EQ(SW(s.ToString()), s);
  }
  EXPECT_EQ(SW("ComposeLayout(3,3,3,S[(8,64):(64,1)])"), SW("Swizzled(3,3,3, S[(8,64):(64,1)])"));
  EXPECT_EQ(SW("  Swizzled ( 3 , 2 , 3 ,S[512] , inner = true ) "),
            SW("Swizzled(3,2,3, S[512:1])"));
  EXPECT_TRUE(SwizzledLayout::LooksSwizzled(" Swizzled(1,1,1, S[4])"));
  EXPECT_TRUE(SwizzledLayout::LooksSwizzled("ComposeLayout (1,1,1, S[4])"));
  EXPECT_FALSE(SwizzledLayout::LooksSwizzled("S[4:1]"));
  const SwizzledLayout a = SW("Swizzled(3,3,3, S[(8,64):(64,1)])");
  EXPECT_EQ(absl::HashOf(a), absl::HashOf(SW("ComposeLayout(3,3,3,S[(8,64):(64,1)])")));
  EXPECT_NE(a, SW("Swizzled(3,3,3, S[(8,64):(64,1)], inner=false)"));
  EXPECT_EQ(Canonicalize(a).ToString(), "Swizzled(3,3,3, S[512:1])");
  EXPECT_EQ(a.period(), 512);
  EXPECT_EQ(a.axis(), Axis::Memory());
}

TEST(Swizzle, Errors) {
  auto err = [](absl::string_view text) {
    return std::string(SwizzledLayout::Parse(text).status().message());
  };
  EXPECT_THAT(err("Swizzled(3,3,2, S[512])"), HasSubstr("needs S >= B"));
  EXPECT_THAT(err("Swizzled(3,3,3, S[(8,4):(4@laneid,1)])"), HasSubstr("single memory axis"));
  EXPECT_THAT(err("Swizzled(3,3,3, S[(8,4):(4@reg,1)])"), HasSubstr("2 axes"));
  EXPECT_THAT(err("Swizzled(3,3,3 S[512])"), HasSubstr("position 15: expected ',', found 'S'"));
  EXPECT_THAT(err("Swizzled(3,3,3, S[512)"), HasSubstr("inner layout: position"));
  EXPECT_THAT(err("Swizzled(3,3,3, S[512], inner=maybe)"), HasSubstr("'true' or 'false'"));
  EXPECT_THAT(err("Swizzled(3,3,3, S[512], outer=true)"), HasSubstr("'inner='"));
  EXPECT_THAT(err("Swizzled(3,3,3, S[512]) x"), HasSubstr("end of input"));
  EXPECT_THAT(err("Swizzled(40,3,3, S[512])"), HasSubstr("must be in [0, 32]"));
  EXPECT_THAT(err("Swizzled(20,6,7, S[512])"), HasSubstr("at most 32"));
  EXPECT_THAT(err("Swizzle(3,3,3, S[512])"), HasSubstr("expected 'Swizzled(' or 'ComposeLayout('"));
  EXPECT_THAT(std::string(SwizzledLayout::Create(-1, 0, 0, P("S[4]")).status().message()),
              HasSubstr(">= 0"));
}

// The library's bit operations agree with the spec's element-unit formula over whole domains
// of random layouts (negative strides and offsets included), in both directions.
TEST(Swizzle, AgreesWithTheBitFormula) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(60));
  testing::RandomLayoutOptions opt;
  opt.memory_only = true;
  opt.max_abs_stride = 64;
  opt.max_size = 512;
  for (int i = 0; i < 400; ++i) {
    const Layout l = testing::RandomLayout(rng, opt);
    const int b = std::uniform_int_distribution<int>(0, 3)(rng);
    const int s = std::uniform_int_distribution<int>(b, 4)(rng);
    const int m = std::uniform_int_distribution<int>(0, 3)(rng);
    const bool inner = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    absl::StatusOr<SwizzledLayout> sw = SwizzledLayout::Create(m, b, s, l, inner);
    ASSERT_TRUE(sw.ok()) << sw.status();
    for (int64_t x = 0; x < l.size(); ++x) {
      std::set<PhysCoord> want;
      for (const PhysCoord& p : testing::OracleApply(l, x)) {
        PhysCoord q;
        q.set(Axis::Memory(), testing::OracleSwizzle(M(p), m, b, s, inner));
        want.insert(q);
      }
      std::vector<PhysCoord> got = *sw->Apply(x);
      ASSERT_EQ(std::set<PhysCoord>(got.begin(), got.end()), want) << *sw << " at " << x;
      ASSERT_EQ(got.size(), want.size());
      ASSERT_TRUE(want.count(*sw->ApplyBase(x)));
    }
  }
}

TEST(Swizzle, SwizzleIsAPermutationOfEachPeriodAndItsOwnInverse) {
  for (bool inner : {true, false}) {
    const SwizzledLayout s = *SwizzledLayout::Create(2, 2, 3, P("S[1024:1]"), inner);
    for (int64_t a = -2048; a < 2048; ++a) ASSERT_EQ(s.Swizzle(s.Swizzle(a)), a);
    std::vector<int64_t> image;
    for (int64_t x = 0; x < 1024; ++x) image.push_back(M(*s.ApplyBase(x)));
    for (size_t block = 0; block < 1024; block += 128) {
      std::vector<int64_t> part(image.begin() + static_cast<std::ptrdiff_t>(block),
                                image.begin() + static_cast<std::ptrdiff_t>(block + 128));
      std::sort(part.begin(), part.end());
      std::vector<int64_t> want(128);
      std::iota(want.begin(), want.end(), static_cast<int64_t>(block));
      EXPECT_EQ(part, want);
    }
  }
}

// tile(outer, swizzled B)(x, y) == Σ ⊙ outer(x) + swizzled B(y) when the scaled outer strides
// are multiples of the period.
TEST(Swizzle, TileRepeatsTheAtom) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(50));
  testing::RandomLayoutOptions opt;
  opt.memory_only = true;
  opt.max_size = 32;
  opt.max_replica_iters = 0;
  for (int i = 0; i < 150; ++i) {
    const Layout b = testing::RandomLayout(rng, opt);
    const SwizzledLayout atom = *SwizzledLayout::Create(1, 1, 2, b);
    const int64_t period = atom.period(), span = b.span(Axis::Memory());
    const int64_t k = period / std::gcd(period, span);
    const Layout raw = testing::RandomLayout(rng, opt);
    std::vector<Iter> shard;
    for (const Iter& it : raw.shard()) shard.push_back(Iter{it.extent, it.stride * k, it.axis});
    PhysCoord offset;
    offset.set(Axis::Memory(), raw.offset().get(Axis::Memory()) * k);
    const Layout outer = *Layout::Create(shard, {}, offset);
    const std::vector<int64_t> sa = testing::RandomGroupingShape(outer, 2, rng),
                               sb = testing::RandomGroupingShape(b, 2, rng);
    absl::StatusOr<SwizzledLayout> t = Tile(outer, sa, atom, sb);
    ASSERT_TRUE(t.ok()) << t.status();
    for (int64_t x = 0; x < outer.size(); ++x) {
      for (int64_t y = 0; y < b.size(); ++y) {
        const int64_t want =
            M(*testing::OracleApply(outer, x).begin()) * span +
            testing::OracleSwizzle(M(*testing::OracleApply(b, y).begin()), 1, 1, 2);
        ASSERT_EQ(M(*t->ApplyBase(testing::OracleTiledIndex(sa, sb, x, y))), want)
            << outer << " x " << atom;
      }
    }
  }
}

TEST(Swizzle, TileRejectsOuterStridesOffThePeriod) {
  const SwizzledLayout atom = SW("Swizzled(3,3,3, S[(8,64):(64,1)])");
  EXPECT_THAT(
      std::string(Tile(P("S[2:1]"), {2}, SW("Swizzled(3,3,3, S[256])"), {256}).status().message()),
      HasSubstr("not a multiple of the swizzle period 512"));
  EXPECT_THAT(
      std::string(
          Tile(P("S[2:2] + 1"), {2}, SW("Swizzled(3,3,3, S[256])"), {256}).status().message()),
      HasSubstr("the outer offset scaled by the inner span 256"));
  EXPECT_TRUE(Tile(P("S[2:2] + 2"), {2}, SW("Swizzled(3,3,3, S[256])"), {256}).ok());
  EXPECT_THAT(std::string(Tile(P("S[2:1@warp]"), {2}, atom, {512}).status().message()),
              HasSubstr("uses axis warp"));
  EXPECT_THAT(std::string(Tile(P("S[2:1]"), {2}, atom, {8, 64}).status().message()),
              HasSubstr("rank"));
}

TEST(Swizzle, UnpackAndPack) {
  const SwizzledLayout s = SW("Swizzled(3,3,3, S[(8,64):(64,1)])");
  absl::StatusOr<SwizzledLayout> u = Unpack(s, 2);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->ToString(), "Swizzled(4,3,3, S[1024:1])");
  for (int64_t x = 0; x < 512; ++x) {
    for (int64_t t = 0; t < 2; ++t)
      EXPECT_EQ(M(*u->ApplyBase(2 * x + t)), 2 * M(*s.ApplyBase(x)) + t);
  }
  EXPECT_EQ(*Pack(*u, 2), Canonicalize(s));
  EXPECT_EQ(Pack(s, 8)->ToString(), "Swizzled(0,3,3, S[64:1])");
  EXPECT_THAT(std::string(Unpack(s, 3).status().message()), HasSubstr("not a power of two"));
  EXPECT_THAT(std::string(Pack(s, 16).status().message()), HasSubstr("at most 2^M = 8"));
  EXPECT_THAT(std::string(Pack(SW("Swizzled(3,3,3, S[(8,64):(65,1)])"), 2).status().message()),
              HasSubstr("not divisible by 2"));
}

}  // namespace
}  // namespace swizzle_test
}  // namespace axe
