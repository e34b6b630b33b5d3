#include <cmath>
#include <functional>
#include <optional>
#include <random>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/pallas/index_map_expr.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::pallas {
namespace index_map_expr_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_support::IsOkAndHolds;
using testing_support::StatusIs;

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
            "(i, j) -> ((i + 1) * 2 - j // 2 % 3, -(i - j), --i, i - (j - 1))");
  EXPECT_EQ(P("(i)->i*(2*3)").ToString(), "(i) -> (i * (2 * 3))");
  EXPECT_EQ(IndexMapExpr::Identity(3).ToString(), "(i, j, k) -> (i, j, k)");
  EXPECT_EQ(IndexMapExpr::Identity(7).ToString(),
            "(a0, a1, a2, a3, a4, a5, a6) -> (a0, a1, a2, a3, a4, a5, a6)");
}

TEST(IndexMapExpr, EvaluatesWithPythonFloorSemantics) {
  IndexMapExpr e = P("(i, j) -> (i // j, i % j, -i // 2, i * j - 3, i - -j)");
  for (int64_t i = -7; i <= 7; ++i) {
    for (int64_t j = -4; j <= 4; ++j) {
      if (j == 0) {
        EXPECT_THAT(e.Evaluate({i, j}), StatusIs(absl::StatusCode::kInvalidArgument,
                                                 HasSubstr("integer division or modulo by zero")));
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
  EXPECT_THAT(P("(i)->(i // -1)").Evaluate({INT64_MIN}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("int64 overflow")));
  EXPECT_THAT(P("(i)->i * 4611686018427387904").Evaluate({2}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("int64 overflow")));
  EXPECT_THAT(P("(i)->i").Evaluate({1, 2}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("takes 1 values, got 2")));
}

TEST(IndexMapExpr, ErrorsNamePositions) {
  EXPECT_EQ(Err("(i,j)->(i,k)"),
            "position 10: unknown variable 'k'; the grid variables are (i, j) in \"(i,j)->(i,k)\"");
  auto fails = [](absl::string_view text, absl::string_view message) {
    EXPECT_THAT(IndexMapExpr::Parse(text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(std::string(message))))
        << text;
  };
  fails("(i)->i/2", "position 6: '/' is not an index-map operator; use '//'");
  fails("(i,i)->i", "position 3: variable 'i' is repeated");
  fails("(i)=>i", "position 3: expected '->'");
  fails("(i)->", "position 5: expected the index map's results");
  fails("(i)->(i+)", "position 8: expected an integer, a variable or '('");
  fails("(i)->(i, j", "unknown variable 'j'");
  fails("(i)->(i, i", "position 10: expected ')'");
  fails("(i)->(i, i) + 1", "position 5: a tuple can only be the whole result");
  fails("(i)->i i", "position 7: expected an operator, ',' or end of input");
  fails("(i)->99999999999999999999", "integer does not fit in int64");
}

// The acceptance run crashed the parser (SIGSEGV) with each of these; now they are errors
// naming the position, and the accepted extremes print and evaluate without recursion.
TEST(IndexMapExpr, DeepAndLongInputsAreBounded) {
  const int over = IndexMapExpr::kMaxDepth + 1;
  // The first '(' of the results is free (the canonical text always has it).
  std::string parens = "(i)->" + std::string(20000, '(') + "i" + std::string(20000, ')');
  EXPECT_THAT(IndexMapExpr::Parse(parens),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(absl::StrCat("position ", 5 + IndexMapExpr::kMaxDepth + 1,
                                              ": the index map nests parentheses and unary signs "
                                              "more than 256 levels deep"))));
  std::string minus = "(i)->" + std::string(60000, '-') + "i";
  EXPECT_THAT(IndexMapExpr::Parse(minus),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(absl::StrCat("position ", 5 + IndexMapExpr::kMaxDepth, ": "))));
  std::string sum = "(i)->i";
  for (int t = 1; t < 40000; ++t) sum += "+i";
  // Node 65536 (0-based) is the '+' before operand 32769, at 4 + 2 * 32768.
  EXPECT_THAT(IndexMapExpr::Parse(sum),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 65540: the index map has more than 65536 operands "
                                 "and operators")));
  // Just inside the limits.
  // The deepest chain, written without the parentheses the canonical text puts around it.
  std::string deepest = "i->" + std::string(IndexMapExpr::kMaxDepth, '-') + "i";
  IndexMapExpr e = P(deepest);
  EXPECT_EQ(e.ToString(), "(i) -> (" + std::string(IndexMapExpr::kMaxDepth, '-') + "i)");
  EXPECT_THAT(e.Evaluate({5}), IsOkAndHolds(ElementsAre(5)));
  EXPECT_EQ(P(e.ToString()), e);
  std::string nested = "(i)->" + std::string(IndexMapExpr::kMaxDepth, '(') + "i" +
                       std::string(IndexMapExpr::kMaxDepth, ')');
  EXPECT_EQ(P(nested).ToString(), "(i) -> (i)");
  EXPECT_EQ(P("(i)->(" + nested.substr(5) + ")").ToString(), "(i) -> (i)");  // outermost: free
  EXPECT_THAT(IndexMapExpr::Parse("(i)->" + std::string(over / 2, '-') + "(" +
                                  std::string(over - over / 2 - 1, '-') + "i)"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("levels deep")));
  // The longest sum: 32768 operands and 32767 operators. Its canonical text is twice as long
  // (spaces) and still parses: the limit counts terms, not characters.
  std::string long_sum = "i->i";
  const int64_t terms = IndexMapExpr::kMaxTerms / 2;
  for (int64_t t = 1; t < terms; ++t) long_sum += "+i";
  IndexMapExpr s = P(long_sum);
  EXPECT_THAT(IndexMapExpr::Parse(long_sum + "+i"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("operands and operators")));
  EXPECT_THAT(s.Evaluate({3}), IsOkAndHolds(ElementsAre(3 * terms)));
  ASSERT_TRUE(P(s.ToString()) == s);  // (not printed on failure: 131,000 characters)
  EXPECT_THAT(s.Evaluate({INT64_MAX}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("int64 overflow")));
}

// Printing used to parenthesize every nested negation ("---i" printed as "-(-(-i))"), so a
// chain that parsed printed to text deeper than the parser accepts.
TEST(IndexMapExpr, NegationChainsPrintFlat) {
  EXPECT_EQ(P("(i)->---i").ToString(), "(i) -> (---i)");
  EXPECT_EQ(P("(i)->-(-(-i))").ToString(), "(i) -> (---i)");
  EXPECT_EQ(P("(i)->- + -i").ToString(), "(i) -> (--i)");
  EXPECT_EQ(P("(i)->-(i*2) - -i").ToString(), "(i) -> (-(i * 2) - -i)");
  EXPECT_EQ(P("(i)->(-i) * 2").ToString(), "(i) -> (-i * 2)");
}

// Evaluation is never undefined behaviour: INT64_MIN operands, % and // by -1, overflow.
TEST(IndexMapExpr, ExtremeValuesAreErrorsNotUndefinedBehaviour) {
  EXPECT_THAT(P("() -> (-9223372036854775807 - 1) % 3").Evaluate({}), IsOkAndHolds(ElementsAre(1)));
  EXPECT_THAT(P("() -> (-9223372036854775807 - 1) // 3").Evaluate({}),
              IsOkAndHolds(ElementsAre(-3074457345618258603)));
  EXPECT_THAT(P("() -> (-9223372036854775807 - 1) % -3").Evaluate({}),
              IsOkAndHolds(ElementsAre(-2)));
  IndexMapExpr e = P("(i, j) -> (i % j, i // j, i % -1, i % 7)");
  EXPECT_THAT(e.Evaluate({INT64_MIN, INT64_MIN}),
              IsOkAndHolds(ElementsAre(0, 1, 0, FloorMod(INT64_MIN, 7))));
  EXPECT_THAT(e.Evaluate({INT64_MIN, INT64_MAX}),
              IsOkAndHolds(ElementsAre(INT64_MAX - 1, -2, 0, FloorMod(INT64_MIN, 7))));
  EXPECT_THAT(e.Evaluate({INT64_MIN, -1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("int64 overflow in -9223372036854775808 // -1")));
  EXPECT_THAT(P("(i) -> -i").Evaluate({INT64_MIN}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("int64 overflow in -(-9223372036854775808)")));
  EXPECT_THAT(P("(i) -> i + 1").Evaluate({INT64_MAX}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("int64 overflow in 9223372036854775807 + 1")));
  EXPECT_THAT(P("(i) -> i - 1").Evaluate({INT64_MIN}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("int64 overflow")));
  EXPECT_THAT(P("(i) -> i * -1").Evaluate({INT64_MIN}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("int64 overflow")));
  EXPECT_THAT(P("(i) -> i % 0").Evaluate({INT64_MIN}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("integer division or modulo by zero")));
}

__extension__ typedef __int128 I128;  // (__extension__: no -Wpedantic warning)

// A random expression tree, its text with every operation parenthesized, and its value
// computed here in 128-bit arithmetic (nullopt: division by zero or an int64 overflow).
struct RandomExpr {
  std::string text;
  std::function<std::optional<I128>(int64_t, int64_t)> eval;
};

RandomExpr RandomTree(std::mt19937_64& rng, int depth) {
  using V = std::optional<I128>;
  auto fits = [](V v) -> V {
    if (!v || *v < INT64_MIN || *v > INT64_MAX) return std::nullopt;
    return v;
  };
  if (depth == 0 || rng() % 4 == 0) {
    switch (rng() % 4) {
      case 0: {
        int64_t c = static_cast<int64_t>(rng() % 12);
        return {absl::StrCat(c), [c](int64_t, int64_t) { return V(c); }};
      }
      case 1: {
        int64_t c = INT64_MAX - static_cast<int64_t>(rng() % 3);
        return {absl::StrCat(c), [c](int64_t, int64_t) { return V(c); }};
      }
      case 2: return {"i", [](int64_t i, int64_t) { return V(i); }};
      default: return {"j", [](int64_t, int64_t j) { return V(j); }};
    }
  }
  if (rng() % 4 == 0) {
    RandomExpr a = RandomTree(rng, depth - 1);
    const size_t count = 1 + rng() % 2;
    return {absl::StrCat(std::string(count, '-'), "(", a.text, ")"),
            [a, count, fits](int64_t i, int64_t j) -> V {
              V v = a.eval(i, j);
              // "--x" is two negations, each checked: --INT64_MIN overflows.
              for (size_t k = 0; k < count && v; ++k) v = fits(-*v);
              return v;
            }};
  }
  static constexpr absl::string_view kOps[] = {"+", "-", "*", "//", "%"};
  const size_t op = rng() % 5;
  RandomExpr a = RandomTree(rng, depth - 1), b = RandomTree(rng, depth - 1);
  return {absl::StrCat("(", a.text, " ", kOps[op], " ", b.text, ")"),
          [a, b, op, fits](int64_t i, int64_t j) -> V {
            V x = a.eval(i, j);
            if (!x) return x;
            V y = b.eval(i, j);
            if (!y) return y;
            switch (op) {
              case 0: return fits(*x + *y);
              case 1: return fits(*x - *y);
              case 2: return fits(*x * *y);
              default: {
                if (*y == 0) return std::nullopt;
                I128 q = *x / *y, r = *x % *y;
                if (r != 0 && ((r < 0) != (*y < 0))) {
                  --q;
                  r += *y;
                }
                return fits(op == 3 ? q : r);
              }
            }
          }};
}

// Random expressions, including INT64 extremes: the parsed expression evaluates as the tree
// it came from, its canonical text parses back to an expression with the same text and the
// same values, so parse(print(x)) == x.
TEST(IndexMapExpr, RandomRoundTrips) {
  std::mt19937_64 rng(testing_support::TestSeed(11));
  const int64_t points[] = {INT64_MIN, INT64_MIN + 1, -7, -2, -1, 0, 1, 3, INT64_MAX};
  for (int t = 0; t < 400; ++t) {
    RandomExpr r = RandomTree(rng, 5);
    std::string text = absl::StrCat("(i, j) -> ", r.text);
    IndexMapExpr e = P(text);
    IndexMapExpr back = P(e.ToString());
    ASSERT_EQ(back.ToString(), e.ToString()) << text;
    for (int64_t i : points) {
      for (int64_t j : points) {
        std::optional<I128> want = r.eval(i, j);
        for (const IndexMapExpr* x : {&e, &back}) {
          absl::StatusOr<BlockIndices> got = x->Evaluate({i, j});
          ASSERT_EQ(got.ok(), want.has_value()) << text << " at " << i << ", " << j;
          if (got.ok()) {
            ASSERT_EQ((*got)[0], static_cast<int64_t>(*want)) << text << " at " << i << ", " << j;
          }
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
}  // namespace index_map_expr_test
}  // namespace axe::pallas
