#include "axe/layout/box.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe {
namespace box_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::axe::testing_support::TestSeed;
using ::testing::HasSubstr;

using Box = std::vector<Interval>;

TEST(BoxTest, OneTextForm) {
  EXPECT_EQ(BoxToString(Box{{0, 4}, {4, 8}}), "[[0, 4], [4, 8]]");
  EXPECT_EQ(BoxToString(Box{{2, 3}}), "[[2, 3]]");
  EXPECT_EQ(BoxToString(Box{}), "[]");
}

TEST(BoxTest, ParsesItsFormAndTheShortForm) {
  EXPECT_THAT(ParseBox("[[0, 4], [4, 8]]"), IsOkAndHolds(Box{{0, 4}, {4, 8}}));
  EXPECT_THAT(ParseBox(" [ [0,4] ,[4 , 8] ] "), IsOkAndHolds(Box{{0, 4}, {4, 8}}));
  EXPECT_THAT(ParseBox("[]"), IsOkAndHolds(Box{}));
  EXPECT_THAT(ParseBox("0:4,4:8"), IsOkAndHolds(Box{{0, 4}, {4, 8}}));
  EXPECT_THAT(ParseBox(" 3 , 0:8"), IsOkAndHolds(Box{{3, 4}, {0, 8}}));
}

TEST(BoxTest, ErrorsNameThePosition) {
  EXPECT_THAT(ParseBox(""), StatusIs(absl::StatusCode::kInvalidArgument,
                                     HasSubstr("a box such as [[0, 8], [8, 24]] or 0:8,8:24")));
  EXPECT_THAT(ParseBox("[[0, 4], [4 8]]"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected ','")));
  EXPECT_THAT(ParseBox("[[0, 4]"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected ']'")));
  EXPECT_THAT(ParseBox("0:4;4:8"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("',' or end of input")));
  EXPECT_THAT(ParseBox("9223372036854775807"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("below 2^63 - 1")));
  EXPECT_THAT(ParseBox("[[0, 4]] x"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("',' or end of input")));
}

// Every box reads back from its text.
TEST(BoxTest, RoundTrips) {
  std::mt19937_64 rng(TestSeed(29));
  std::uniform_int_distribution<int64_t> value(-1000, 1000);
  for (int trial = 0; trial < 200; ++trial) {
    Box box(static_cast<size_t>(rng() % 5));
    for (Interval& r : box) r = {value(rng), value(rng)};
    EXPECT_THAT(ParseBox(BoxToString(box)), IsOkAndHolds(box)) << BoxToString(box);
  }
}

}  // namespace
}  // namespace box_test
}  // namespace axe
