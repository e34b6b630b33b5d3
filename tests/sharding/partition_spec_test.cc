#include "axe/sharding/partition_spec.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "test_util.h"

namespace axe::sharding {
namespace partition_spec_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

TEST(PartitionSpecTest, PrintsAsPython) {
  EXPECT_EQ(Spec({{"x"}}).ToString(), "P('x',)");
  EXPECT_EQ(Spec({}).ToString(), "P()");
  EXPECT_EQ(Spec({{}, {"y"}}).ToString(), "P(None, 'y')");
  EXPECT_EQ(Spec({{"x", "y"}}).ToString(), "P(('x', 'y'),)");
  EXPECT_EQ(Spec({{"x"}, {}}).ToString(), "P('x', None)");
  EXPECT_EQ(Spec({{}}).ToString(), "P(None,)");
}

TEST(PartitionSpecTest, ParsesPrintedAndTypedForms) {
  for (const PartitionSpec& p : {Spec({{"x"}}), Spec({}), Spec({{}, {"y"}}), Spec({{"x", "y"}}),
                                 Spec({{"x"}, {}}), Spec({{}})}) {
    EXPECT_THAT(PartitionSpec::Parse(p.ToString()), IsOkAndHolds(p)) << p;
  }
  EXPECT_THAT(PartitionSpec::Parse("P('x')"), IsOkAndHolds(Spec({{"x"}})));
  EXPECT_THAT(PartitionSpec::Parse("P((\"x\",\"y\"))"), IsOkAndHolds(Spec({{"x", "y"}})));
  EXPECT_THAT(PartitionSpec::Parse("PartitionSpec('x', None)"), IsOkAndHolds(Spec({{"x"}, {}})));
  // As in JAX: a one-name tuple is the name, an empty tuple is None.
  EXPECT_THAT(PartitionSpec::Parse("P(('x',), ())"), IsOkAndHolds(Spec({{"x"}, {}})));
  EXPECT_THAT(PartitionSpec::Parse(" P ( 'x' , ) "), IsOkAndHolds(Spec({{"x"}})));
}

TEST(PartitionSpecTest, ParseErrorsNamePositions) {
  EXPECT_THAT(PartitionSpec::Parse("P(x)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 2: expected None, a quoted mesh axis name or a tuple, "
                                 "found the bare word x")));
  EXPECT_THAT(
      PartitionSpec::Parse("P('x'"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 5: expected ',' or ')'")));
  EXPECT_THAT(PartitionSpec::Parse("P('x"), StatusIs(absl::StatusCode::kInvalidArgument,
                                                     HasSubstr("position 2: unterminated string")));
  EXPECT_THAT(PartitionSpec::Parse("P((('x',),))"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 3: expected a quoted mesh axis name or ')'")));
  EXPECT_THAT(PartitionSpec::Parse("Q('x')"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 0: expected P( or PartitionSpec(")));
  EXPECT_THAT(
      PartitionSpec::Parse("P('x') y"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 7: expected end of input")));
  EXPECT_THAT(PartitionSpec::Parse("P('1x')"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 3: '1x' is not an identifier")));
  EXPECT_THAT(PartitionSpec::Parse(std::string((size_t{1} << 20) + 1, '(')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("(at most 1048576)")));
  std::string many = "P(";
  for (int i = 0; i < 65; ++i) many += "None,";
  many += ")";
  EXPECT_THAT(PartitionSpec::Parse(many),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than 64 entries")));
}

TEST(PartitionSpecTest, CreateValidatesNames) {
  EXPECT_THAT(PartitionSpec::Create({{}, {"a-b"}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("entry 1 names 'a-b', which is not an identifier")));
}

TEST(PartitionSpecTest, EntryBeyondTheWrittenOnesIsNone) {
  const PartitionSpec p = Spec({{"x"}});
  EXPECT_TRUE(p.entry(3).empty());
  EXPECT_EQ(p.entry(0), PartitionSpec::Entry{"x"});
}

// Found by the fuzzer: a spec whose text was within the old 4096-character limit printed
// longer than it (", " after every comma), so its printed text did not parse back. The
// bounds are now on the value (entries, names, name length); every value prints parseably.
TEST(PartitionSpecTest, EveryAcceptedSpecPrintsParseably) {
  std::string text = "P(";
  for (int i = 0; i < 64; ++i) {
    text += "('";
    for (int k = 0; k < 4; ++k) text += (k ? "','" : "") + std::string(200, 'a' + k);
    text += "'),";
  }
  text += ")";
  absl::StatusOr<PartitionSpec> p = PartitionSpec::Parse(text);
  ASSERT_OK(p);
  EXPECT_THAT(PartitionSpec::Parse(p->ToString()), IsOkAndHolds(*p));
  EXPECT_THAT(PartitionSpec::Parse("P('" + std::string(257, 'x') + "')"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 3: axis name of 257 characters (at most 256)")));
  std::string many = "P((";
  for (int i = 0; i < 257; ++i) many += "'x',";
  many += "),)";
  EXPECT_THAT(PartitionSpec::Parse(many),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than 256 names")));
}

}  // namespace
}  // namespace partition_spec_test
}  // namespace axe::sharding
