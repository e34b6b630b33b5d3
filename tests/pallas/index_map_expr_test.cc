#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "axe/pallas/index_map_expr.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe::pallas {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

IndexMapExpr P(absl::string_view text) {
  absl::StatusOr<IndexMapExpr> e = IndexMapExpr::Parse(text);
  EXPECT_TRUE(e.ok()) << text << ": " << e.status();
  return e.ok() ? *e : IndexMapExpr::Identity(0);
}

std::string Err(absl::string_view text) {
  absl::StatusOr<IndexMapExpr> e = IndexMapExpr::Parse(text);
  EXPECT_FALSE(e.ok()) << text << " parsed as " << *e;
  return e.ok() ? "" : std::string(e.status().message());
}

TEST(IndexMapExpr, CanonicalText) {
  EXPECT_EQ(P("(i,j)->(i,j)").ToString(), "(i, j) -> (i, j)");
  EXPECT_EQ(P("lambda i, j: (2*i, 3*j)").ToString(), "(i, j) -> (2 * i, 3 * j)");
  EXPECT_EQ(P("i -> 4*i").ToString(), "(i) -> (4 * i)");
  EXPECT_EQ(P("(i) -> (i,)").ToString(), "(i) -> (i)");
  EXPECT_EQ(P("() -> (0, 0)").ToString(), "() -> (0, 0)");
  EXPECT_EQ(P("lambda: 0").ToString(), "() -> (0)");
  EXPECT_EQ(P("(i) -> ()").ToString(), "(i) -> ()");
  EXPECT_EQ(P("(i,j,k)->i, k").ToString(), "(i, j, k) -> (i, k)");
  EXPECT_EQ(P("(i,j)->((i+1)*2 - j // 2 % 3, -(i - j), - -i, i - (j - 1))").ToString(),
            "(i, j) -> ((i + 1) * 2 - j // 2 % 3, -(i - j), -(-i), i - (j - 1))");
  EXPECT_EQ(P("(i)->i*(2*3)").ToString(), "(i) -> (i * (2 * 3))");
  EXPECT_EQ(IndexMapExpr::Identity(3).ToString(), "(i, j, k) -> (i, j, k)");
  EXPECT_EQ(IndexMapExpr::Identity(7).ToString(), "(a0, a1, a2, a3, a4, a5, a6) -> (a0, a1, a2, a3, a4, a5, a6)");
}

TEST(IndexMapExpr, EvaluatesWithPythonFloorSemantics) {
  IndexMapExpr e = P("(i, j) -> (i // j, i % j, -i // 2, i * j - 3, i - -j)");
  for (int64_t i = -7; i <= 7; ++i) {
    for (int64_t j = -4; j <= 4; ++j) {
      if (j == 0) {
        EXPECT_THAT(std::string(e.Evaluate({i, j}).status().message()),
                    HasSubstr("integer division or modulo by zero"));
        continue;
      }
      int64_t q = static_cast<int64_t>(std::floor(static_cast<double>(i) / static_cast<double>(j)));
      int64_t h = static_cast<int64_t>(std::floor(static_cast<double>(-i) / 2.0));
      absl::StatusOr<BlockIndices> v = e.Evaluate({i, j});
      ASSERT_TRUE(v.ok()) << v.status();
      EXPECT_THAT(*v, ElementsAre(q, i - q * j, h, i * j - 3, i + j)) << i << " " << j;
    }
  }
  EXPECT_THAT(*P("(i)->(i // -1, i % -1)").Evaluate({INT64_MIN + 1}), ElementsAre(INT64_MAX, 0));
  EXPECT_THAT(std::string(P("(i)->(i // -1)").Evaluate({INT64_MIN}).status().message()), HasSubstr("int64 overflow"));
  EXPECT_THAT(std::string(P("(i)->i * 4611686018427387904").Evaluate({2}).status().message()),
              HasSubstr("int64 overflow"));
  EXPECT_THAT(std::string(P("(i)->i").Evaluate({1, 2}).status().message()), HasSubstr("takes 1 values, got 2"));
}

TEST(IndexMapExpr, ErrorsNamePositions) {
  EXPECT_EQ(Err("(i,j)->(i,k)"), "position 10: unknown variable 'k'; the grid variables are (i, j) in \"(i,j)->(i,k)\"");
  EXPECT_THAT(Err("(i)->i/2"), HasSubstr("position 6: '/' is not an index-map operator; use '//'"));
  EXPECT_THAT(Err("(i,i)->i"), HasSubstr("position 3: variable 'i' is repeated"));
  EXPECT_THAT(Err("(i)=>i"), HasSubstr("position 3: expected '->'"));
  EXPECT_THAT(Err("(i)->"), HasSubstr("position 5: expected the index map's results"));
  EXPECT_THAT(Err("(i)->(i+)"), HasSubstr("position 8: expected an integer, a variable or '('"));
  EXPECT_THAT(Err("(i)->(i, j"), HasSubstr("unknown variable 'j'"));
  EXPECT_THAT(Err("(i)->(i, i"), HasSubstr("position 10: expected ')'"));
  EXPECT_THAT(Err("(i)->(i, i) + 1"), HasSubstr("position 5: a tuple can only be the whole result"));
  EXPECT_THAT(Err("(i)->i i"), HasSubstr("position 7: expected an operator, ',' or end of input"));
  EXPECT_THAT(Err("(i)->99999999999999999999"), HasSubstr("integer does not fit in int64"));
}

// Random expressions print, parse back to the same text, and evaluate the same.
TEST(IndexMapExpr, RandomRoundTrips) {
  std::mt19937 rng(11);
  std::function<std::string(int)> gen = [&](int depth) -> std::string {
    if (depth == 0 || rng() % 3 == 0) {
      switch (rng() % 3) {
        case 0: return absl::StrCat(rng() % 10);
        case 1: return "i";
        default: return "j";
      }
    }
    static const char* ops[] = {" + ", " - ", " * ", " // ", " % "};
    if (rng() % 6 == 0) return absl::StrCat("-(", gen(depth - 1), ")");
    return absl::StrCat("(", gen(depth - 1), ops[rng() % 5], gen(depth - 1), ")");
  };
  for (int t = 0; t < 300; ++t) {
    std::string text = absl::StrCat("(i, j) -> (", gen(4), ", ", gen(3), ")");
    IndexMapExpr e = P(text);
    IndexMapExpr back = P(e.ToString());
    EXPECT_EQ(back.ToString(), e.ToString()) << text;
    EXPECT_EQ(back, e);
    for (int64_t i : {-3, 0, 5}) {
      for (int64_t j : {-2, 1, 7}) {
        absl::StatusOr<BlockIndices> a = e.Evaluate({i, j}), b = back.Evaluate({i, j});
        ASSERT_EQ(a.ok(), b.ok()) << text;
        if (a.ok()) {
          EXPECT_EQ(*a, *b) << text;
        }
      }
    }
  }
}

TEST(IndexMapExpr, AsIndexMap) {
  IndexMap m = P("(i, j) -> (2 * i, j // 2)").ToIndexMap();
  EXPECT_EQ(m.arity(), 2);
  EXPECT_EQ(m.Describe(), "(i, j) -> (2 * i, j // 2)");
  BlockIndices out;
  ASSERT_TRUE(m.Evaluate({3, 5}, 2, &out).ok());
  EXPECT_THAT(out, ElementsAre(6, 2));
}

}  // namespace
}  // namespace axe::pallas
