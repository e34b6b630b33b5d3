// JAX's shared-jaxpr prelude (`let name = { lambda ... } in`, core.pp_toplevel_jaxpr): JAX's
// printouts in testdata/jax_shared (generate.py there) read, re-print byte for byte, type-check
// and evaluate to JAX's values; the printer's rule for what goes to the prelude; bad preludes.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ad_test_util.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace shared_jaxpr_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

std::string Read(const std::string& file) {
  return testing_support::ReadIrTestdata("jax_shared/" + file);
}

std::vector<std::string> CaseNames() { return testing_support::IrTestdataCases("jax_shared"); }

TEST(SharedJaxprTest, JaxTextsRoundTripTypeCheckAndEvaluateToJaxsValues) {
  std::vector<std::string> names = CaseNames();
  ASSERT_GE(names.size(), 9u);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    std::string text = Read(name + ".txt");
    ASSERT_THAT(text, HasSubstr("let "));
    absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
    ASSERT_THAT(j, IsOk());
    EXPECT_EQ(PrintJaxpr(*j) + "\n", text);
    EXPECT_THAT(CheckJaxpr(*j), IsOk());
    std::map<std::string, std::vector<HostArray>> values =
        ad_test::ReadTestdataValues("jax_shared/" + name + ".values.txt");
    const std::vector<HostArray>& args = values["arg"];
    const std::vector<HostArray>& outs = values["out"];
    ASSERT_FALSE(outs.empty());
    absl::StatusOr<std::vector<HostArray>> got = EvalJaxpr(*j, args);
    ASSERT_THAT(got, IsOk());
    ASSERT_EQ(got->size(), outs.size());
    for (size_t i = 0; i < outs.size(); ++i) {
      ASSERT_EQ((*got)[i].aval.shape(), outs[i].aval.shape());
      ASSERT_EQ((*got)[i].aval.dtype(), outs[i].aval.dtype());
      for (size_t k = 0; k < outs[i].values.size(); ++k) {
        double want = outs[i].values[k];
        EXPECT_NEAR((*got)[i].values[k], want, 1e-6 + 2e-6 * std::fabs(want))
            << "out " << i << " element " << k;
      }
    }
  }
}

TEST(SharedJaxprTest, UsesOfOneNameAreOneJaxpr) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(Read("jit_twice.txt"));
  ASSERT_THAT(j, IsOk());
  ASSERT_GE(j->jaxpr.eqns.size(), 3u);
  const Param& first = j->jaxpr.eqns[0].params.at("jaxpr");
  const Param& second = j->jaxpr.eqns[1].params.at("jaxpr");
  ASSERT_EQ(first.kind(), Param::Kind::kJaxpr);
  EXPECT_EQ(first.jaxpr().get(), second.jaxpr().get());
  // `name=g` stays a name.
  EXPECT_EQ(j->jaxpr.eqns[0].params.at("name").kind(), Param::Kind::kSymbol);
}

// A jit body of `n` equations (negations of its operand).
std::string JitOf(int n) {
  std::string body;
  std::string last = "a";
  for (int i = 0; i < n; ++i) {
    std::string v = absl::StrCat("t", i);
    absl::StrAppend(&body, v, ":f32[] = neg ", last, "; ");
    last = v;
  }
  return absl::StrCat("{ lambda ; x:f32[]. let y:f32[] = jit[name=f jaxpr={ lambda ; a:f32[]. let ",
                      body, "in (", last, ",) }] x in (y,) }");
}

// JAX hoists a jaxpr used once when it has more than 10 equations.
TEST(SharedJaxprTest, MoreThanTenEquationsGoToThePrelude) {
  absl::StatusOr<ClosedJaxpr> ten = ParseJaxpr(JitOf(10));
  ASSERT_THAT(ten, IsOk());
  EXPECT_THAT(PrintJaxpr(*ten), ::testing::StartsWith("{ lambda ; a:f32[]. let"));
  absl::StatusOr<ClosedJaxpr> eleven = ParseJaxpr(JitOf(11));
  ASSERT_THAT(eleven, IsOk());
  std::string printed = PrintJaxpr(*eleven);
  EXPECT_THAT(printed, ::testing::StartsWith("let f = { lambda ; a:f32[]. let\n"));
  // Variable names skip the shared jaxprs' names (f here), as JAX's JaxprPpContext does.
  EXPECT_THAT(printed, HasSubstr("    e:f32[] = neg d\n    g:f32[] = neg e\n"));
  EXPECT_THAT(printed, HasSubstr("  in (m,) } in\n{ lambda ; n:f32[]. let "
                                 "o:f32[] = jit[name=f jaxpr=f] n in (o,) }"));
  absl::StatusOr<ClosedJaxpr> again = ParseJaxpr(printed);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(PrintJaxpr(*again), printed);
}

// Only keys that hold jaxprs in JAX (jaxpr=, branches=, *_jaxpr=) share them. The jaxpr fuzz
// target's fifth campaign found a body of more than 10 equations under `p=` printed as
// `p=jaxpr1` before `let jaxpr1` was read: it read back as the symbol jaxpr1. Now such a
// jaxpr is printed inline, and a bare name under such a key stays a symbol.
// Parses `text`, and checks that its print reads back to the same jaxpr.
void ExpectReadsBack(const std::string& text, const ClosedJaxpr& j) {
  const std::string printed = PrintJaxpr(j);
  absl::StatusOr<ClosedJaxpr> again = ParseJaxpr(printed);
  ASSERT_THAT(again, IsOk()) << printed;
  EXPECT_TRUE(*again == j) << text << "\nprints as\n" << printed;
}

TEST(SharedJaxprTest, OnlyJaxprKeysShareTheirJaxprs) {
  std::string body;
  for (int i = 0; i < 11; ++i) absl::StrAppend(&body, "sin ");
  const std::string text = absl::StrCat(
      "{ lambda ; . let shard_map[r={ lambda ; . let min[a={ lambda ; . let all_to_all[p={ "
      "lambda ; . let ",
      body, "in () }] in () }] in () }] in () }");
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  ASSERT_THAT(j, IsOk());
  const std::string printed = PrintJaxpr(*j);
  EXPECT_THAT(printed, ::testing::StartsWith("{ lambda ; . let"));
  EXPECT_THAT(printed, ::testing::Not(HasSubstr("let jaxpr")));
  ExpectReadsBack(text, *j);
  // The fuzzer's input, minimized: two hoisted bodies, the first naming the second under p=.
  const std::string found =
      "{lambda;.let shard_map[r={lambda;.let max min[a={lambda;.let all_to_all[p={lambda;.let "
      "max j:f32[]=min ppermute[]cos all_to_all[]slice axis_index\nsin iota broadcast_in_dim\n"
      "min in(j)}] in()}]reduce_scatter[]ppermute all_to_all[]slice axis_index sin iota "
      "broadcast_in_dim\nmin in()}]in()}";
  absl::StatusOr<ClosedJaxpr> fuzzed = ParseJaxpr(found);
  ASSERT_THAT(fuzzed, IsOk());
  ExpectReadsBack(found, *fuzzed);
  // A symbol that spells a shared jaxpr's name is still a symbol.
  const std::string symbol =
      "let f = { lambda ; a:f32[]. let b:f32[] = neg a in (b,) } in\n"
      "{ lambda ; x:f32[]. let y:f32[] = jit[name=f jaxpr=f] x "
      "z:f32[] = jit[name=f jaxpr=f] y w:f32[] = psum[axes=(f,)] z in (w,) }";
  absl::StatusOr<ClosedJaxpr> s = ParseJaxpr(symbol);
  ASSERT_THAT(s, IsOk());
  const Param& axes = s->jaxpr.eqns[2].params.at("axes");
  ASSERT_EQ(axes.kind(), Param::Kind::kTuple);
  EXPECT_EQ(axes.items()[0].kind(), Param::Kind::kSymbol);
  ExpectReadsBack(symbol, *s);
}

// JAX's check_jaxpr messages print the equation without the prelude (pp_jaxpr, not
// pp_toplevel_jaxpr): found by a 12-equation shard_map body in the JAX vectors.
TEST(SharedJaxprTest, PrintEqnKeepsTheBodyInline) {
  absl::StatusOr<ClosedJaxpr> eleven = ParseJaxpr(JitOf(11));
  ASSERT_THAT(eleven, IsOk());
  std::string eqn = PrintEqn(eleven->jaxpr, 0);
  EXPECT_THAT(
      eqn, ::testing::StartsWith("b:f32[] = jit[\n    name=f\n    jaxpr={ lambda ; a:f32[]. let"));
  EXPECT_THAT(eqn, ::testing::Not(HasSubstr("jaxpr=f")));
  EXPECT_EQ(PrintedVarNames(eleven->jaxpr)[0], "a");
}

constexpr char kBody[] = "{ lambda ; a:f32[]. let b:f32[] = neg a in (b,) }";

std::string Use(const std::string& name) {
  return absl::StrCat("{ lambda ; x:f32[]. let y:f32[] = jit[name=f jaxpr=", name, "] x in (y,) }");
}

TEST(SharedJaxprTest, BadPreludesAreErrorsWithPositions) {
  EXPECT_THAT(ParseJaxpr(Use("g")).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 1, column 52: jaxpr 'g' is not defined")));
  EXPECT_THAT(ParseJaxpr(absl::StrCat("let f = ", kBody, " in\nlet f = ", kBody, " in\n", Use("f")))
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 2, column 5: shared jaxpr 'f' defined twice (first at "
                                 "line 1, column 5)")));
  // Used in the prelude but never defined.
  std::string uses_h = "{ lambda ; a:f32[]. let b:f32[] = jit[name=h jaxpr=h] a in (b,) }";
  EXPECT_THAT(ParseJaxpr(absl::StrCat("let f = ", uses_h, " in\n", Use("f"))).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 1, column 60: jaxpr 'h' is not defined")));
  // A cycle, and a jaxpr that uses itself.
  std::string uses_f = "{ lambda ; a:f32[]. let b:f32[] = jit[name=f jaxpr=f] a in (b,) }";
  EXPECT_THAT(
      ParseJaxpr(absl::StrCat("let f = ", uses_h, " in\nlet h = ", uses_f, " in\n", Use("f")))
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("' uses itself")));
  EXPECT_THAT(ParseJaxpr(absl::StrCat("let f = ", uses_f, " in\n", Use("f"))).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 1, column 5: shared jaxpr 'f' uses itself")));
  EXPECT_THAT(ParseJaxpr(absl::StrCat("let = ", kBody, " in ", Use("f"))).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected the name of a shared jaxpr, found '='")));
  EXPECT_THAT(ParseJaxpr(absl::StrCat("let f = ", kBody, " ", Use("f"))).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected 'in'")));
}

// Each level uses the one before twice: level i inlines 3 * 2^i - 2 equations.
TEST(SharedJaxprTest, SharingCannotHideAnExponentialProgram) {
  std::string text = absl::StrCat("let j0 = ", kBody, " in\n");
  for (int i = 1; i <= 30; ++i) {
    absl::StrAppend(&text, "let j", i, " = { lambda ; a:f32[]. let b:f32[] = jit[name=f jaxpr=j",
                    i - 1, "] a; c:f32[] = jit[name=f jaxpr=j", i - 1, "] b in (c,) } in\n");
  }
  std::string twenty = text.substr(0, text.find("let j21 "));
  EXPECT_THAT(ParseJaxpr(absl::StrCat(twenty, Use("j20"))), IsOk());
  EXPECT_THAT(ParseJaxpr(absl::StrCat(text, Use("j30"))).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 22, column 5: shared jaxpr 'j21' expands to more than "
                                 "4194304 equations")));
}

}  // namespace
}  // namespace shared_jaxpr_test
}  // namespace axe::ir
