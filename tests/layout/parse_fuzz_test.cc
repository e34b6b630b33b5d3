// Fuzz-style robustness: random and mutated layout texts never crash the parser, and
// whatever parses prints back to a string that parses to the same value.
#include <random>
#include <string>

#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/coord.h"
#include "axe/layout/inverse.h"
#include "axe/layout/properties.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"
#include "support/test_seed.h"

namespace axe {
namespace parse_fuzz_test {
namespace {

// Characters and fragments the grammar uses, plus a few it does not.
const char* const kPieces[] = {"S[",
                               "R[",
                               "O[",
                               "(",
                               ")",
                               "[",
                               "]",
                               ":",
                               ",",
                               "@",
                               "+",
                               "-",
                               "{",
                               "}",
                               " ",
                               "0",
                               "1",
                               "7",
                               "64",
                               "9223372036854775807",
                               "9223372036854775808",
                               "-9223372036854775808",
                               "m",
                               "lane",
                               "warp",
                               "x",
                               "@m",
                               "\n",
                               "#",
                               "."};

std::string Mutate(std::string s, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> op(0, 3);
  int edits = std::uniform_int_distribution<int>(1, 2)(rng);
  for (int e = 0; e < edits; ++e) {
    size_t at = s.empty() ? 0 : std::uniform_int_distribution<size_t>(0, s.size())(rng);
    const char* piece =
        kPieces[std::uniform_int_distribution<size_t>(0, std::size(kPieces) - 1)(rng)];
    switch (op(rng)) {
      case 0: s.insert(at, piece); break;
      case 1:
        if (at < s.size()) s.erase(at, std::uniform_int_distribution<size_t>(1, 4)(rng));
        break;
      case 2:
        if (at < s.size()) s[at] = piece[0];
        break;
      default: s = s.substr(0, at); break;
    }
  }
  return s;
}

// Exercises the operations on a parsed layout: they must answer or fail cleanly.
void Exercise(const Layout& l) {
  (void)Canonicalize(l);
  (void)Storage(l);
  (void)IsInjective(l);
  (void)ApplyBase(l, l.size() - 1);
  (void)Apply(l, 0);
  absl::StatusOr<PhysCoord> p = ApplyBase(l, 0);
  if (p.ok()) (void)InverseFlat(l, *p);
}

TEST(LayoutParseFuzz, NeverCrashesAndRoundTrips) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(424242));
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    if (i % 3 == 0) {
      // Random concatenation of grammar pieces.
      int n = std::uniform_int_distribution<int>(1, 20)(rng);
      for (int k = 0; k < n; ++k)
        text += kPieces[std::uniform_int_distribution<size_t>(0, std::size(kPieces) - 1)(rng)];
    } else {
      text = Mutate(testing::RandomLayout(rng).ToString(), rng);
    }
    absl::StatusOr<Layout> l = Layout::Parse(text);
    if (!l.ok()) {
      EXPECT_FALSE(l.status().message().empty()) << text;
      continue;
    }
    ++parsed;
    absl::StatusOr<Layout> back = Layout::Parse(l->ToString());
    ASSERT_TRUE(back.ok()) << text << " -> " << *l << ": " << back.status();
    EXPECT_EQ(*back, *l) << text;
    if (l->size() <= 4096) Exercise(*l);
  }
  EXPECT_GT(parsed, 500);  // the mutations must leave many valid layouts to check
}

TEST(LayoutParseFuzz, PointsAndLists) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(7));
  for (int i = 0; i < 3000; ++i) {
    std::string text = Mutate("warp=6,lane=8,reg=-1", rng);
    absl::StatusOr<PhysCoord> p = PhysCoord::Parse(text);
    if (p.ok()) {
      EXPECT_EQ(*PhysCoord::Parse(p->ToString()), *p) << text;
    }
  }
}

}  // namespace
}  // namespace parse_fuzz_test
}  // namespace axe
