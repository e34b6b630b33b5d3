#include "axe/sharding/local_layout.h"

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/hash/hash_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "test_util.h"

namespace axe::sharding {
namespace local_layout_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;
using ::testing::Property;

LocalLayout Make(std::vector<int64_t> m2m, std::optional<LocalLayout::Tiling> tiling = {},
                 int64_t bits = 0) {
  return ValueOrFail(LocalLayout::Create(std::move(m2m), std::move(tiling), bits),
                     "LocalLayout::Create", LocalLayout::Create({}).value());
}

LocalLayout Parsed(absl::string_view text) {
  return ValueOrFail(LocalLayout::Parse(text), std::string(text), LocalLayout::Create({}).value());
}

// [LR-1] and Python's tuple conventions.
TEST(LocalLayoutTest, ReprIsJaxs) {
  EXPECT_EQ(Make({1, 0}).ToString(),
            "Layout(major_to_minor=(1, 0), tiling=None, sub_byte_element_size_in_bits=0)");
  EXPECT_EQ(Make({0}).ToString(),
            "Layout(major_to_minor=(0,), tiling=None, sub_byte_element_size_in_bits=0)");
  EXPECT_EQ(Make({}).ToString(),
            "Layout(major_to_minor=(), tiling=None, sub_byte_element_size_in_bits=0)");
  EXPECT_EQ(Make({0, 1}, LocalLayout::Tiling{{8, 128}, {2, 1}}, 4).ToString(),
            "Layout(major_to_minor=(0, 1), tiling=((8, 128), (2, 1)), "
            "sub_byte_element_size_in_bits=4)");
  EXPECT_EQ(Make({0}, LocalLayout::Tiling{{128}}).ToString(),
            "Layout(major_to_minor=(0,), tiling=((128,),), sub_byte_element_size_in_bits=0)");
  EXPECT_EQ(Make({0}, LocalLayout::Tiling{}).ToString(),
            "Layout(major_to_minor=(0,), tiling=(), sub_byte_element_size_in_bits=0)");
  std::ostringstream os;
  os << Make({0});
  EXPECT_EQ(os.str(), Make({0}).ToString());
}

TEST(LocalLayoutTest, EqualityAndHashCoverEveryField) {
  EXPECT_NE(Make({0}), Make({0}, LocalLayout::Tiling{}));  // tiling=None != tiling=()
  EXPECT_NE(Make({0, 1}), Make({1, 0}));
  EXPECT_NE(Make({0}), Make({0}, std::nullopt, 4));
  EXPECT_EQ(Make({1, 0}, LocalLayout::Tiling{{8, 128}}), Parsed("Layout((1,0), ((8,128),))"));
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly(
      {Make({0}), Make({0}, LocalLayout::Tiling{}), Make({1, 0}), Make({0, 1}),
       Make({0}, std::nullopt, 4), Make({0}, LocalLayout::Tiling{{8}}),
       Make({0}, LocalLayout::Tiling{{8}, {}})}));
}

TEST(LocalLayoutTest, UpdateReturnsModifiedCopies) {
  const LocalLayout l = Make({1, 0});
  EXPECT_THAT(l.WithMajorToMinor({0, 1}), IsOkAndHolds(Make({0, 1})));
  EXPECT_THAT(l.WithTiling(LocalLayout::Tiling{{8, 128}}),
              IsOkAndHolds(Make({1, 0}, LocalLayout::Tiling{{8, 128}})));
  EXPECT_EQ(l.WithSubByteElementSizeInBits(4), Make({1, 0}, std::nullopt, 4));
  EXPECT_EQ(l, Make({1, 0}));
  EXPECT_THAT(l.WithMajorToMinor(std::vector<int64_t>(65, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("major_to_minor has 65 entries (at most 64)")));
}

TEST(LocalLayoutTest, ParsesBothSpellingsAndPositionalForms) {
  const LocalLayout want = Make({1, 0}, LocalLayout::Tiling{{8, 128}, {2, 1}}, 4);
  for (const char* text : {
           "Layout(major_to_minor=(1, 0), tiling=((8, 128), (2, 1)), "
           "sub_byte_element_size_in_bits=4)",
           "Layout(major_to_minor=(1, 0), _tiling=((8, 128), (2, 1)), "
           "_sub_byte_element_size_in_bits=4)",
           "DeviceLocalLayout(major_to_minor=(1, 0), _tiling=((8, 128), (2, 1)), "
           "_sub_byte_element_size_in_bits=4)",
           "Layout((1,0),((8,128),(2,1)),4)",
           "Layout((1,0), ((8,128),(2,1)), 4)",  // docs/sharding.md
           " Layout ( [1 , 0] , [[8,128],[2,1]] , sub_byte_element_size_in_bits = 4 , ) ",
           "Layout((1, 0), sub_byte_element_size_in_bits=4, tiling=((8, 128), (2, 1)))",
       }) {
    EXPECT_THAT(LocalLayout::Parse(text), IsOkAndHolds(want)) << text;
  }
  EXPECT_THAT(LocalLayout::Parse("Layout((1, 0))"), IsOkAndHolds(Make({1, 0})));
  EXPECT_THAT(LocalLayout::Parse("Layout((0,), tiling=None)"), IsOkAndHolds(Make({0})));
  EXPECT_THAT(LocalLayout::Parse("Layout((0,), tiling=())"),
              IsOkAndHolds(Make({0}, LocalLayout::Tiling{})));
  EXPECT_THAT(LocalLayout::Parse("Layout(())"), IsOkAndHolds(Make({})));
  EXPECT_THAT(LocalLayout::Parse("Layout((1, 0), ((8, 128),))"),
              IsOkAndHolds(Make({1, 0}, LocalLayout::Tiling{{8, 128}})));
}

TEST(LocalLayoutTest, ParseErrorsNameThePosition) {
  struct Bad {
    const char* text;
    const char* message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {"Layout((1, 0)", "position 13: expected ',' or ')', found end of input"},
           {"Layout((1, 0), ((8, 128)", "position 15: '(' is never closed"},
           {"Layout((1, 0), ([8, 128)))", "position 23: ')' does not close '[' at position 16"},
           {"Layout((1, 0), tiling=None, tiling=None)",
            "position 35: Layout() got multiple values for argument 'tiling'"},
           {"Layout((1, 0), tiling=None, _tiling=None)",
            "position 36: Layout() got multiple values for argument 'tiling'"},
           {"Layout(tiling=None)",
            "position 0: Layout() missing 1 required positional argument: 'major_to_minor'"},
           {"Layout(tiling=None, (0,))",
            "position 20: positional argument follows keyword argument"},
           {"Layout((0,), None, 0, 1)", "position 22: Layout() takes at most 3 arguments"},
           {"Layout((0,), foo=1)",
            "position 17: Layout() got an unexpected keyword argument 'foo'"},
           {"Layout((1))", "position 7: a parenthesized single value is not a tuple"},
           {"Layout((1, x))", "position 11: expected an integer"},
           {"Layout((1, 0), tiling=(8, 128))", "position 23: expected a tuple of integers"},
           {"Layout((1, 0), tiling=((8, 128))", "position 32: expected ',' or ')', found end"},
           {"Layout((99999999999999999999,))", "position 8: integer does not fit in int64"},
           {"Layout((1, 0)) x", "position 15: expected the end of the text"},
           {"Tiling((1, 0))", "position 0: expected Layout(...) or DeviceLocalLayout(...)"},
           {"Layout((1, 0), 'x')", "position 15: expected None or a tuple of tiles"},
           {"", "position 0: expected a call such as Name(...)"},
       }) {
    EXPECT_THAT(LocalLayout::Parse(bad.text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(bad.message)))
        << bad.text;
  }
}

TEST(LocalLayoutTest, ParseBoundsLengthNestingAndCounts) {
  EXPECT_THAT(LocalLayout::Parse(std::string(LocalLayout::kMaxTextLength + 1, ' ')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 65536")));
  EXPECT_THAT(LocalLayout::Parse("Layout(" + std::string(40, '(') + std::string(40, ')') + ")"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nested deeper than 32")));
  std::string many = "Layout((";
  for (int i = 0; i < 65; ++i) many += "0,";
  EXPECT_THAT(LocalLayout::Parse(many + "))"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than 64 integers")));
  std::string tiles = "Layout((0,), (";
  for (int i = 0; i < 17; ++i) tiles += "(1,),";
  EXPECT_THAT(LocalLayout::Parse(tiles + "))"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than 16 tiles")));
}

TEST(LocalLayoutTest, CheckCompatibleAvalUsesJaxsText) {
  EXPECT_OK(Make({1, 0}).CheckCompatibleAval({8, 8}));
  EXPECT_THAT(Make({1, 0}).CheckCompatibleAval({8}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Length of major_to_minor and the rank of the value should "
                                 "match. Got major_to_minor=(1, 0) and shape=(8,)")));
}

TEST(LocalLayoutTest, ToXla) {
  EXPECT_THAT(Make({1, 0}).ToXla(DType::kF32),
              IsOkAndHolds(Property(&xla::Layout::ToString, "{0,1}")));
  EXPECT_THAT(Make({0, 2, 1}).ToXla(DType::kF32),
              IsOkAndHolds(Property(&xla::Layout::ToString, "{1,2,0}")));
  EXPECT_THAT(Make({0, 1}, LocalLayout::Tiling{{8, 128}, {2, 1}}).ToXla(DType::kBF16),
              IsOkAndHolds(Property(&xla::Layout::ToString, "{1,0:T(8,128)(2,1)}")));
  // E: the explicit size; else, with a tiling, the width of a sub-byte integer type.
  EXPECT_THAT(Make({0}, LocalLayout::Tiling{{1024}}).ToXla(DType::kS4),
              IsOkAndHolds(Property(&xla::Layout::ToString, "{0:T(1024)E(4)}")));
  EXPECT_THAT(Make({0}, LocalLayout::Tiling{}).ToXla(DType::kU2),
              IsOkAndHolds(Property(&xla::Layout::ToString, "{0:E(2)}")));
  EXPECT_THAT(Make({0}).ToXla(DType::kS4), IsOkAndHolds(Property(&xla::Layout::ToString, "{0}")));
  EXPECT_THAT(Make({0}, LocalLayout::Tiling{{1024}}).ToXla(DType::kS8),
              IsOkAndHolds(Property(&xla::Layout::ToString, "{0:T(1024)}")));
  EXPECT_THAT(Make({0}, LocalLayout::Tiling{{1024}}).ToXla(DType::kF4E2M1FN),
              IsOkAndHolds(Property(&xla::Layout::ToString, "{0:T(1024)}")));
  EXPECT_THAT(Make({0}, std::nullopt, 4).ToXla(DType::kS4),
              IsOkAndHolds(Property(&xla::Layout::ToString, "{0:E(4)}")));
}

// The example of local_layout.h.
TEST(LocalLayoutTest, HeaderExample) {
  const LocalLayout l = Parsed("Layout((1, 0), ((8, 128),))");
  EXPECT_EQ(l.ToString(),
            "Layout(major_to_minor=(1, 0), tiling=((8, 128),), sub_byte_element_size_in_bits=0)");
  EXPECT_THAT(l.ToXla(DType::kF32),
              IsOkAndHolds(Property(&xla::Layout::ToString, "{0,1:T(8,128)}")));
}

TEST(LocalLayoutTest, ToXlaErrors) {
  EXPECT_THAT(
      Make({1, 1}).ToXla(DType::kF32),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("major_to_minor=(1, 1) is not a permutation of the dimensions "
                         "of a rank-2 value: dimension 1 appears twice (entries 0 and 1)")));
  EXPECT_THAT(Make({2, 0}).ToXla(DType::kF32),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("entry 0 is 2, not a dimension in [0, 2)")));
  EXPECT_THAT(Make({-1}).ToXla(DType::kF32),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("entry 0 is -1")));
  EXPECT_THAT(Make({0}, LocalLayout::Tiling{{8}, {0}}).ToXla(DType::kF32),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tile 1 (0,) of tiling=((8,), (0,)) has an entry 0 < 1")));
  EXPECT_THAT(Make({0}, std::nullopt, -4).ToXla(DType::kF32),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("sub_byte_element_size_in_bits=-4 is negative")));
}

TEST(LocalLayoutTest, FromXlaReadsAsJaxDoes) {
  EXPECT_THAT(LocalLayout::FromXla(XlaLayout("{0,1:T(8,128)(2,1)E(4)}")),
              IsOkAndHolds(Make({1, 0}, LocalLayout::Tiling{{8, 128}, {2, 1}}, 4)));
  // An untiled XLA layout reads as tiling=() (JAX's Layout.from_pjrt_layout).
  EXPECT_THAT(LocalLayout::FromXla(XlaLayout("{1,0}")),
              IsOkAndHolds(Make({0, 1}, LocalLayout::Tiling{})));
  EXPECT_THAT(
      LocalLayout::FromXla(xla::Layout({1, 0}, {xla::Tile({2, xla::Tile::kCombineDimension})})),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("combined (*) dimension")));
}

TEST(AutoLayoutTest, ReprAndParse) {
  EXPECT_EQ(AutoLayout{}.ToString(), "AUTO");
  for (const char* text : {"AUTO", "Layout.AUTO", " DeviceLocalLayout.AUTO "}) {
    EXPECT_THAT(AutoLayout::Parse(text), IsOkAndHolds(AutoLayout{})) << text;
  }
  EXPECT_THAT(AutoLayout::Parse("auto"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 0: expected AUTO, Layout.AUTO or "
                                 "DeviceLocalLayout.AUTO")));
}

// parse(print(x)) == x, also with the old spellings printed.
TEST(LocalLayoutTest, RandomValuesRoundTrip) {
  std::mt19937_64 rng(testing_support::TestSeed(7));
  auto value = [&]() { return static_cast<int64_t>(rng() % 2000) - 1000; };
  for (int n = 0; n < 500; ++n) {
    std::vector<int64_t> m2m(rng() % 6);
    for (int64_t& v : m2m) v = value();
    std::optional<LocalLayout::Tiling> tiling;
    if (rng() % 3 != 0) {
      tiling.emplace(rng() % 4);
      for (LocalLayout::Tile& t : *tiling) {
        t.resize(rng() % 4);
        for (int64_t& v : t) v = value();
      }
    }
    const LocalLayout l = Make(m2m, tiling, rng() % 2 ? value() : 0);
    EXPECT_THAT(LocalLayout::Parse(l.ToString()), IsOkAndHolds(l)) << l;
    std::string old = "DeviceLocal" + l.ToString();
    old.replace(old.find("tiling="), 7, "_tiling=");
    old.replace(old.find("sub_byte"), 8, "_sub_byte");
    EXPECT_THAT(LocalLayout::Parse(old), IsOkAndHolds(l)) << old;
  }
}

// FromXla(ToXla(l)) == l for valid tiled layouts (an untiled one comes back with tiling=(),
// as JAX reads it, so its major_to_minor and sub-byte size are compared).
TEST(LocalLayoutTest, RandomXlaRoundTrip) {
  std::mt19937_64 rng(testing_support::TestSeed(8));
  for (int n = 0; n < 300; ++n) {
    std::vector<int64_t> m2m(1 + rng() % 5);
    for (size_t k = 0; k < m2m.size(); ++k) m2m[k] = static_cast<int64_t>(k);
    std::shuffle(m2m.begin(), m2m.end(), rng);
    std::optional<LocalLayout::Tiling> tiling;
    if (rng() % 2) {
      tiling.emplace(1 + rng() % 2);
      for (LocalLayout::Tile& t : *tiling) {
        t.resize(1 + rng() % 2);
        for (int64_t& v : t) v = 1 + static_cast<int64_t>(rng() % 256);
      }
    }
    const LocalLayout l = Make(m2m, tiling, (rng() % 2) * 4);
    absl::StatusOr<xla::Layout> x = l.ToXla(DType::kF32);
    ASSERT_OK(x) << l;
    absl::StatusOr<LocalLayout> back = LocalLayout::FromXla(*x);
    ASSERT_OK(back) << l;
    if (tiling) {
      EXPECT_EQ(*back, l) << *x;
    } else {
      EXPECT_EQ(back->major_to_minor(), l.major_to_minor()) << *x;
      EXPECT_EQ(back->sub_byte_element_size_in_bits(), l.sub_byte_element_size_in_bits()) << *x;
      EXPECT_EQ(back->tiling(), LocalLayout::Tiling{}) << *x;
    }
  }
}

// The largest value prints within the text limit and parses back.
TEST(LocalLayoutTest, LargestValueRoundTrips) {
  const std::vector<int64_t> m2m(LocalLayout::kMaxRank, INT64_MIN);
  const LocalLayout::Tiling tiling(LocalLayout::kMaxTiles,
                                   LocalLayout::Tile(LocalLayout::kMaxTileRank, INT64_MIN));
  const LocalLayout l = Make(m2m, tiling, INT64_MIN);
  EXPECT_LE(l.ToString().size(), LocalLayout::kMaxTextLength);
  EXPECT_THAT(LocalLayout::Parse(l.ToString()), IsOkAndHolds(l));
}

}  // namespace
}  // namespace local_layout_test
}  // namespace axe::sharding
