#include "axe/base/int_list.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe {
namespace int_list_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(IntList, Parses) {
  EXPECT_THAT(*ParseIntList("8,16"), ElementsAre(8, 16));
  EXPECT_THAT(*ParseIntList(" ( 8 , -16 ) "), ElementsAre(8, -16));
  EXPECT_THAT(*ParseIntList("[2,9]"), ElementsAre(2, 9));
  EXPECT_THAT(*ParseIntList("(8,)"), ElementsAre(8));
  EXPECT_THAT(*ParseIntList(""), IsEmpty());
  EXPECT_THAT(*ParseIntList("()"), IsEmpty());
}

TEST(IntList, Errors) {
  EXPECT_THAT(std::string(ParseIntList("8,,16").status().message()),
              HasSubstr("position 2: expected an integer"));
  EXPECT_THAT(std::string(ParseIntList("8 16").status().message()),
              HasSubstr("position 2: expected ',' or end"));
  EXPECT_THAT(std::string(ParseIntList("(8,16").status().message()), HasSubstr("expected ')'"));
  EXPECT_THAT(std::string(ParseIntList("8,x").status().message()), HasSubstr("found 'x'"));
}

TEST(IntList, Formats) {
  EXPECT_EQ(FormatTuple({8, 16}), "(8, 16)");
  EXPECT_EQ(FormatTuple({8}), "(8)");
  EXPECT_EQ(FormatTuple({8}, /*python_tuple=*/true), "(8,)");
  EXPECT_EQ(FormatTuple({}), "()");
}

}  // namespace
}  // namespace int_list_test
}  // namespace axe
