// Fuzz-style: thousands of random and mutated shape strings never crash the parser (or the
// functions that consume its output), and whatever parses prints and re-parses identically.
#include <random>
#include <string>
#include <vector>

#include "axe/xla/layout_util.h"
#include "axe/xla/sizes.h"
#include "axe/xla/text.h"
#include "axe/xla/tiling.h"
#include "axe/xla/to_axe.h"
#include "gtest/gtest.h"

namespace axe::xla {
namespace fuzz_test {
namespace {

const std::vector<std::string> kSeeds = {"f32[]",
                                         "u32[1,2]{1,0}",
                                         "f32[]{:T(256)}",
                                         "u32[]{:S(2)}",
                                         "token[]",
                                         "b(s32[3,4]{1,0})",
                                         "(opaque[], f32[], u32[1,2]{1,0}, s32[3,4]{0,1})",
                                         "bf16[2,3,4]{1,2,0:T(16,256)(2,1)}",
                                         "pred[8,8,8]{0,2,1:T(8,128)E(32)}",
                                         "bf16[2,3,1004]{2,1,0:T(2,*,128)}",
                                         "s4[123,456]{1,0:T(2,128)E(4)}",
                                         "f32[123,456]{1,0:T(16,128)M(1024)}",
                                         "pred[123,456]{1,0:T(2,128)S(3)SC(1:200)}",
                                         "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])",
                                         "f32[<=23,44,<=55]",
                                         "f32[?,784]",
                                         "f32[10,10]{1,0:D(D,C)}",
                                         "f32[2]{0:L(1)E(0)S(0)M(0)}",
                                         "f32[3,5]{1,0:T(2,2)}",
                                         "f32[4,8]{1,0:T(2,4)(2,1)}",
                                         "f32[8]{0:T(2,2)}",
                                         "f32[2]{0:D(C)#(u32)*(u16)P(f32[2]{0})}",
                                         "f32[5]{0:L(8)}",
                                         "(f32[2,3]{0,0})",
                                         "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
                                         "f32[150,200,100]{0,1,2:SC(0:30)(1:40,130)}"};

const std::vector<std::string> kTokens = {"f32",
                                          "bf16",
                                          "s4",
                                          "pred",
                                          "token",
                                          "opaque",
                                          "b",
                                          "(",
                                          ")",
                                          "[",
                                          "]",
                                          "{",
                                          "}",
                                          ",",
                                          ":",
                                          "T",
                                          "L",
                                          "E",
                                          "S",
                                          "SC",
                                          "P",
                                          "M",
                                          "D",
                                          "#",
                                          "*",
                                          "<=",
                                          "?",
                                          "0",
                                          "1",
                                          "2",
                                          "8",
                                          "128",
                                          "-1",
                                          "-2",
                                          "9223372036854775807",
                                          "99999999999999999999",
                                          "/*c*/",
                                          "//x\n",
                                          " ",
                                          "u32",
                                          "s32",
                                          "C",
                                          "+",
                                          "~",
                                          "H",
                                          "\t",
                                          "/*",
                                          "x.y-z",
                                          "\xff"};

std::string Mutate(std::string s, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    const size_t at = pick(s.size() + 1);
    switch (rng() % 4) {
      case 0:
        if (!s.empty() && at < s.size()) s.erase(at, 1 + pick(3));
        break;
      case 1: s.insert(at, kTokens[pick(kTokens.size())]); break;
      case 2:
        if (at < s.size()) s[at] = static_cast<char>(32 + pick(95));
        break;
      default: {
        const std::string& other = kSeeds[pick(kSeeds.size())];
        const size_t from = pick(other.size());
        s.insert(at, other.substr(from, pick(other.size() - from + 1)));
      }
    }
  }
  return s;
}

std::string RandomTokens(std::mt19937_64& rng) {
  std::string s;
  const int n = 1 + static_cast<int>(rng() % 12);
  for (int i = 0; i < n; ++i) s += kTokens[rng() % kTokens.size()];
  return s;
}

// Everything that consumes a parsed shape returns a status instead of crashing.
void Exercise(const Shape& s) {
  (void)ElementsIn(s);
  (void)ByteSizeOf(s, 8);
  (void)ArraySize(s);
  (void)ArrayDataSize(s);
  (void)NestedPaddedElements(s);
  (void)ToAxe(s);
  if (absl::StatusOr<TilingMap> m = TilingMap::Create(s); m.ok() && m->padded_elements() > 0) {
    (void)m->Delinearize(m->padded_elements() - 1);
    (void)m->Delinearize(0);
  }
  if (s.IsArray()) {
    std::vector<int64_t> zeros(s.dimensions().size(), 0);
    (void)NestedLinearIndex(s, zeros);
    (void)LayoutUtil::LinearIndex(s, zeros);
  }
}

TEST(Fuzz, ParsePrintReparse) {
  std::mt19937_64 rng(99);
  const ParseOptions modes[] = {{},
                                {.lenient = true},
                                {.preserve_dim_level_types = true},
                                {.lenient = true, .fill_missing_layouts = false}};
  int parsed = 0, total = 0;
  for (int n = 0; n < 10000; ++n) {
    std::string text = n % 3 == 0 ? RandomTokens(rng) : Mutate(kSeeds[rng() % kSeeds.size()], rng);
    for (const ParseOptions& mode : modes) {
      ++total;
      absl::StatusOr<Shape> s = ParseShape(text, mode);
      (void)ParseLayout(text, mode);
      if (!s.ok()) {
        ASSERT_FALSE(s.status().message().empty()) << text;
        continue;
      }
      ++parsed;
      const std::string printed = s->ToString();
      absl::StatusOr<Shape> again = ParseShape(printed, mode);
      ASSERT_TRUE(again.ok()) << "'" << text << "' printed as '" << printed
                              << "' which fails: " << again.status();
      ASSERT_EQ(*again, *s) << "'" << text << "' -> '" << printed << "'";
      ASSERT_EQ(again->ToString(), printed);
      Exercise(*s);
    }
  }
  // The corpus mixes accepted and rejected strings.
  EXPECT_GT(parsed, 1000);
  EXPECT_LT(parsed, total / 2);
}

}  // namespace
}  // namespace fuzz_test
}  // namespace axe::xla
