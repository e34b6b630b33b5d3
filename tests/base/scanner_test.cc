#include "axe/base/scanner.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe {
namespace scanner_test {
namespace {

using ::testing::HasSubstr;

TEST(Scanner, IntegersAndLimits) {
  Scanner s("  -9223372036854775808 9223372036854775807 9223372036854775808");
  EXPECT_EQ(*s.ReadInt(), INT64_MIN);
  EXPECT_EQ(*s.ReadInt(), INT64_MAX);
  absl::StatusOr<int64_t> big = s.ReadInt();
  EXPECT_THAT(std::string(big.status().message()),
              HasSubstr("position 43: integer does not fit in int64"));
  Scanner neg("-5");
  EXPECT_FALSE(neg.ReadNonNegativeInt().ok());
  Scanner lead("007");
  EXPECT_EQ(*lead.ReadInt(), 7);
}

TEST(Scanner, IdentifiersAndTokens) {
  Scanner s("abc_1.x-y ( )");
  EXPECT_EQ(*s.TryIdent(".-"), "abc_1.x-y");
  EXPECT_TRUE(s.TryConsume('('));
  EXPECT_FALSE(s.TryConsume('('));
  EXPECT_EQ(s.Peek(), ')');
  EXPECT_TRUE(s.Expect(')').ok());
  EXPECT_TRUE(s.AtEnd());
  EXPECT_EQ(s.Peek(), '\0');
}

TEST(Scanner, Comments) {
  Scanner s("/* a */ x // rest\n y", Scanner::Options{.skip_comments = true});
  EXPECT_EQ(*s.TryIdent(), "x");
  EXPECT_EQ(*s.TryIdent(), "y");
  EXPECT_TRUE(s.AtEnd());
  Scanner plain("/* a */");
  EXPECT_FALSE(plain.AtEnd());
  Scanner open("/* never closed", Scanner::Options{.skip_comments = true});
  EXPECT_TRUE(open.AtEnd());
}

TEST(Scanner, ErrorsNamePositionFoundAndContext) {
  Scanner s("S[(8,2]");
  s.set_pos(6);
  std::string msg(s.Error("')' or ','").message());
  EXPECT_EQ(msg, "position 6: expected ')' or ',', found ']' in \"S[(8,2]\"");
  Scanner end("abc");
  end.set_pos(3);
  EXPECT_THAT(std::string(end.Error("x").message()), HasSubstr("found end of input"));
  std::string long_text(200, 'a');
  Scanner l(long_text);
  l.set_pos(150);
  EXPECT_THAT(std::string(l.Error("b").message()), HasSubstr("\"..."));
}

}  // namespace
}  // namespace scanner_test
}  // namespace axe
