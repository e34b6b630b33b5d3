// The replay driver's mutation mode: the dictionary reader and the mutator's determinism
// (a CI failure is reproduced from its seed and execution index alone).
#include "mutator.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "dictionary.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::fuzz {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::vector<std::string> kCorpus = {"S[4, 8] : 1@m, 4@m", "(i, j) -> (i + 1, j % 3)",
                                          "f32[128,256]{1,0}", ""};
const std::vector<std::string> kTokens = {"S[", "->", "@gpuid", "%", "//"};

TEST(MutatorTest, SameSeedAndIndexGiveTheSameInput) {
  const uint64_t seed = axe::testing_support::TestSeed(20261123);
  const Mutator a(kCorpus, kTokens, 256);
  const Mutator b(kCorpus, kTokens, 256);
  for (uint64_t index = 0; index < 2000; ++index) {
    ASSERT_EQ(a.Input(seed, index), b.Input(seed, index)) << "index " << index;
  }
  // Any index, in any order: input 1234 does not depend on the executions before it.
  EXPECT_EQ(a.Input(seed, 1234), b.Input(seed, 1234));
}

TEST(MutatorTest, GoldenInputsAreStableAcrossPlatforms) {
  // The generator is ours (splitmix64), not the standard library's distributions, so a seed
  // printed by one machine's CI reproduces on another. If the mutator changes on purpose,
  // update these.
  const Mutator m(kCorpus, kTokens, 256);
  EXPECT_EQ(m.Input(1, 0), "f32[128,256\x1d{1,0}//");
  EXPECT_EQ(m.Input(1, 1), "(i, j) -> (i + 1, j % 33");
  EXPECT_EQ(m.Input(1, 5), "(i, j) -> (i + 1,@gpuid)");
  EXPECT_EQ(Random(0).Next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(Random(1).Next(), 0x910a2dec89025cc1ULL);
}

TEST(MutatorTest, DifferentSeedsAndIndicesExplore) {
  const uint64_t seed = axe::testing_support::TestSeed(7);
  const Mutator m(kCorpus, kTokens, 256);
  std::set<std::string> distinct;
  for (uint64_t index = 0; index < 1000; ++index) distinct.insert(m.Input(seed, index));
  EXPECT_GT(distinct.size(), 800u);
  int differ = 0;
  for (uint64_t index = 0; index < 100; ++index)
    differ += m.Input(seed, index) != m.Input(seed + 1, index);
  EXPECT_GT(differ, 90);
}

TEST(MutatorTest, InputsRespectTheLengthBound) {
  const uint64_t seed = axe::testing_support::TestSeed(99);
  const Mutator m({std::string(100, '['), "1"}, kTokens, 64);
  for (uint64_t index = 0; index < 5000; ++index) {
    ASSERT_LE(m.Input(seed, index).size(), 64u) << "index " << index;
  }
}

TEST(MutatorTest, EmptyCorpusAndDictionaryStillGenerate) {
  const Mutator m({}, {}, 32);
  std::set<std::string> distinct;
  for (uint64_t index = 0; index < 100; ++index) distinct.insert(m.Input(3, index));
  EXPECT_GT(distinct.size(), 50u);
}

TEST(MutatorTest, NumbersAndSignsAreTweaked) {
  const uint64_t seed = axe::testing_support::TestSeed(5);
  const Mutator m({"x 41 y"}, {}, 64);
  bool saw_neighbour = false, saw_sign = false, saw_edge = false;
  for (uint64_t index = 0; index < 5000; ++index) {
    const std::string input = m.Input(seed, index);
    saw_neighbour = saw_neighbour || input == "x 42 y" || input == "x 40 y";
    saw_sign = saw_sign || input == "x -41 y";
    saw_edge = saw_edge || input.find("9223372036854775807") != std::string::npos;
  }
  EXPECT_TRUE(saw_neighbour);
  EXPECT_TRUE(saw_sign);
  EXPECT_TRUE(saw_edge);
}

TEST(DictionaryTest, ReadsLibFuzzerFormat) {
  EXPECT_THAT(ParseDictionary("# tokens\n\"S[\"\nkw=\"->\"\n\n  \"a\\\\b\\\"c\\x41\"  \n"),
              IsOkAndHolds(ElementsAre("S[", "->", "a\\b\"cA")));
}

TEST(DictionaryTest, RejectsMalformedLinesNamingThem) {
  EXPECT_THAT(ParseDictionary("\"ok\"\nno quotes"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 2, column 1")));
  EXPECT_THAT(ParseDictionary("\"open"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("end with '\"'")));
  EXPECT_THAT(ParseDictionary("\"\\x4\""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("two hexadecimal")));
  EXPECT_THAT(ParseDictionary("\"\\n\""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown escape")));
  EXPECT_THAT(ParseDictionary("\"\""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty token")));
}

}  // namespace
}  // namespace axe::fuzz
