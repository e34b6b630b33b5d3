// The `while` primitive against the real JAX (testdata/jax_while, written by
// testdata/generate_while.py): JAX's printouts of lax.while_loop / fori_loop, of their jvp and of
// their vmap round-trip exactly, type-check and evaluate to JAX's numbers; axe's own Jvp and
// Vmap of the loops give JAX's jvp and vmap values; reverse mode is JAX's error; a loop that
// never ends is stopped by the evaluation budget.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ad_test_util.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace while_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Read(const std::string& file) {
  return testing_support::ReadIrTestdata("jax_while/" + file);
}

struct Values {
  std::vector<HostArray> args, outs;
};

Values ReadValues(const std::string& name) {
  std::map<std::string, std::vector<HostArray>> v =
      ad_test::ReadTestdataValues("jax_while/" + name + ".values.txt");
  return Values{v["arg"], v["out"]};
}

ClosedJaxpr Parse(const std::string& text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  EXPECT_THAT(j, IsOk());
  return j.ok() ? *j : ClosedJaxpr{};
}

void ExpectJaxsValues(const std::vector<HostArray>& got, const std::vector<HostArray>& want,
                      const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t k = 0; k < want.size(); ++k) {
    ASSERT_EQ(got[k].aval.shape(), want[k].aval.shape()) << what << " output " << k;
    ASSERT_EQ(got[k].aval.dtype(), want[k].aval.dtype()) << what << " output " << k;
    for (size_t i = 0; i < want[k].values.size(); ++i) {
      const double w = want[k].values[i];
      EXPECT_NEAR(got[k].values[i], w, 1e-6 + 2e-6 * std::fabs(w))
          << what << " output " << k << " element " << i;
    }
  }
}

std::vector<HostArray> Eval(const ClosedJaxpr& j, const std::vector<HostArray>& args) {
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(j, args);
  EXPECT_THAT(out, IsOk());
  return out.ok() ? *out : std::vector<HostArray>{};
}

TEST(WhileTest, JaxTextsRoundTripExactlyTypeCheckAndGiveJaxsValues) {
  int cases = 0;
  for (const std::string& name : testing_support::IrTestdataCases("jax_while")) {
    SCOPED_TRACE(name);
    std::string text = Read(name + ".txt");
    ClosedJaxpr j = Parse(text);
    EXPECT_EQ(PrintJaxpr(j) + "\n", text);
    EXPECT_THAT(CheckJaxpr(j), IsOk());
    Values v = ReadValues(name);
    ExpectJaxsValues(Eval(j, v.args), v.outs, name);
    ++cases;
  }
  EXPECT_GE(cases, 14);
}

// axe's Jvp of JAX's loop against jax.jvp's values (the jvp case's arguments are the primals,
// then the tangents of the float ones).
TEST(WhileTest, JvpGivesJaxsTangents) {
  struct Case {
    std::string primal, jvp;
    std::vector<bool> with_tangent;
  };
  for (const Case& c :
       {Case{"doubling", "jvp_doubling", {true}}, Case{"fori_traced", "jvp_fori", {true, false}}}) {
    SCOPED_TRACE(c.primal);
    absl::StatusOr<ClosedJaxpr> jvp = Jvp(Parse(Read(c.primal + ".txt")), c.with_tangent);
    ASSERT_THAT(jvp, IsOk());
    EXPECT_THAT(CheckJaxpr(*jvp), IsOk());
    Values v = ReadValues(c.jvp);
    ExpectJaxsValues(Eval(*jvp, v.args), v.outs, c.jvp);
  }
}

// The JVP of JAX's consts case (a body const w with a tangent, a forwarded carry, an integer
// counter without one) against central differences in f64.
TEST(WhileTest, JvpWithBodyConstsMatchesFiniteDifferences) {
  ClosedJaxpr f = Parse(
      "{ lambda ; a:f64[3] b:f64[3]. let\n"
      "    c:f64[3] d:i32[] = while[\n"
      "      body_jaxpr={ lambda ; e:f64[3] f:f64[3] g:f64[3] h:i32[]. let\n"
      "          i:f64[3] = mul g f\n          j:f64[3] = add i e\n"
      "          k:i32[] = add h 1:i32[]\n        in (j, k) }\n"
      "      body_nconsts=2\n"
      "      cond_jaxpr={ lambda ; l:i32[] m:f64[3] n:i32[]. let\n"
      "          o:bool[] = lt n l\n        in (o,) }\n"
      "      cond_nconsts=1\n"
      "    ] 4:i32[] a b a 0:i32[]\n  in (c, d) }");
  ASSERT_THAT(CheckJaxpr(f), IsOk());
  absl::StatusOr<ClosedJaxpr> jvp = Jvp(f);
  ASSERT_THAT(jvp, IsOk());
  ShapedArray aval = *ShapedArray::ParseShort("f64[3]");
  HostArray x{aval, {0.3, -0.5, 1.1}}, w{aval, {0.9, 1.2, -0.7}};
  HostArray tx{aval, {0.2, 0.1, -0.4}}, tw{aval, {-0.3, 0.5, 0.6}};
  std::vector<HostArray> out = Eval(*jvp, {x, w, tx, tw});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_THAT(out[1].values, ElementsAre(4));
  const double eps = 1e-6;
  HostArray xp = x, xm = x, wp = w, wm = w;
  for (size_t i = 0; i < 3; ++i) {
    xp.values[i] += eps * tx.values[i];
    xm.values[i] -= eps * tx.values[i];
    wp.values[i] += eps * tw.values[i];
    wm.values[i] -= eps * tw.values[i];
  }
  HostArray hi = Eval(f, {xp, wp})[0], lo = Eval(f, {xm, wm})[0];
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(out[2].values[i], (hi.values[i] - lo.values[i]) / (2 * eps), 1e-6) << i;
  }
}

// axe's Vmap of JAX's loops against jax.vmap's values: a batched predicate (each lane stops on
// its own), an unbatched one (a shared bound), and a vmap of a vmap.
TEST(WhileTest, VmapGivesJaxsValues) {
  struct Case {
    std::string primal, vmapped;
    std::vector<std::optional<int64_t>> in_axes;
    int times = 1;
  };
  for (const Case& c :
       {Case{"doubling", "vmap_doubling", {0}}, Case{"collatz", "vmap_collatz", {0}},
        Case{"newton", "vmap_newton", {0}}, Case{"fori_traced", "vmap_fori", {0, std::nullopt}},
        Case{"doubling", "vmap_vmap_doubling", {0}, 2}}) {
    SCOPED_TRACE(c.vmapped);
    Values v = ReadValues(c.vmapped);
    ClosedJaxpr f = Parse(Read(c.primal + ".txt"));
    for (int t = 0; t < c.times; ++t) {
      VmapOptions options;
      options.axis_size = v.args[0].aval.shape()[c.times - 1 - t];
      options.in_axes = c.in_axes;
      absl::StatusOr<ClosedJaxpr> batched = Vmap(f, options);
      ASSERT_THAT(batched, IsOk());
      ASSERT_THAT(CheckJaxpr(*batched), IsOk()) << PrintJaxpr(*batched);
      f = *batched;
    }
    ExpectJaxsValues(Eval(f, v.args), v.outs, c.vmapped);
  }
}

// Vmap of JAX's own batched-predicate loop again: the predicate gets a second dimension.
TEST(WhileTest, VmapOfABatchedPredicateLoop) {
  Values v = ReadValues("vmap_vmap_doubling");
  VmapOptions options;
  options.axis_size = 2;
  absl::StatusOr<ClosedJaxpr> f = Vmap(Parse(Read("vmap_doubling.txt")), options);
  ASSERT_THAT(f, IsOk());
  ASSERT_THAT(CheckJaxpr(*f), IsOk());
  // vmap_doubling takes f32[4]; here the lanes are the 2 x 3 of vmap_vmap_doubling.
  Values small = ReadValues("vmap_doubling");
  HostArray x{*ShapedArray::ParseShort("f32[2,4]"), {}};
  for (int b = 0; b < 2; ++b) {
    for (double e : small.args[0].values) x.values.push_back(e * (b + 1));
  }
  std::vector<HostArray> out = Eval(*f, {x});
  ASSERT_EQ(out.size(), 1u);
  // Each element doubles until it reaches 10: 0.7 -> 11.2, 3 -> 12, 20 -> 20, 0.01 -> 10.24;
  // then 1.4 -> 11.2, 6 -> 12, 40 -> 40, 0.02 -> 10.24.
  EXPECT_THAT(
      out[0].values,
      ElementsAre(::testing::DoubleNear(11.2, 1e-5), 12, 20, ::testing::DoubleNear(10.24, 1e-5),
                  ::testing::DoubleNear(11.2, 1e-5), 12, 40, ::testing::DoubleNear(10.24, 1e-5)));
}

TEST(WhileTest, ReverseModeIsJaxsError) {
  ClosedJaxpr f = Parse(Read("doubling.txt"));
  EXPECT_THAT(Grad(f, {0}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Reverse-mode differentiation does not work for lax.while_loop or "
                                 "lax.fori_loop with dynamic start/stop values. Try using "
                                 "lax.scan, or using fori_loop with static start/stop.")));
}

// A loop whose predicate never fails, with and without equations in its jaxprs, ends with
// the evaluation budget's error.
TEST(WhileTest, EndlessLoopIsStoppedByTheBudget) {
  for (const char* text :
       {"{ lambda ; a:f32[]. let b:f32[] = while[\n"
        "  body_jaxpr={ lambda ; c:f32[]. let d:f32[] = add c 1.0:f32[] in (d,) }\n"
        "  body_nconsts=0\n"
        "  cond_jaxpr={ lambda ; e:f32[]. let f:bool[] = ge e 0.0:f32[] in (f,) }\n"
        "  cond_nconsts=0\n] a in (b,) }",
        "{ lambda ; a:bool[]. let b:bool[] = while[\n"
        "  body_jaxpr={ lambda ; c:bool[]. let  in (c,) }\n  body_nconsts=0\n"
        "  cond_jaxpr={ lambda ; e:bool[]. let  in (e,) }\n  cond_nconsts=0\n] a in (b,) }"}) {
    ClosedJaxpr f = Parse(text);
    ASSERT_THAT(CheckJaxpr(f), IsOk());
    HostArray x{f.jaxpr.in_avals()[0], {1}};
    EXPECT_THAT(EvalJaxpr(f, {x}).status(),
                StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("element operations")));
  }
}

absl::Status CheckText(const std::string& text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  if (!j.ok()) return j.status();
  return CheckJaxpr(*j);
}

std::string Loop(const std::string& body, const std::string& cond, const std::string& operands,
                 int body_nconsts = 0, int cond_nconsts = 0) {
  return absl::StrCat("{ lambda ; a:f32[] n:i32[]. let b:f32[] = while[\n  body_jaxpr=", body,
                      "\n  body_nconsts=", body_nconsts, "\n  cond_jaxpr=", cond,
                      "\n  cond_nconsts=", cond_nconsts, "\n] ", operands, " in (b,) }");
}

TEST(WhileTest, TypeErrorsUseJaxsWords) {
  const std::string body = "{ lambda ; c:f32[]. let d:f32[] = mul c 2.0:f32[] in (d,) }";
  const std::string cond = "{ lambda ; e:f32[]. let f:bool[] = lt e 10.0:f32[] in (f,) }";
  EXPECT_THAT(CheckText(Loop(body, cond, "a")), IsOk());
  EXPECT_THAT(CheckText(Loop(body, cond, "a", 0, 1)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("while_loop len(body_jaxpr.in_avals)=1 but "
                                 "len(body_consts_avals) + len(in_avals)=0")));
  EXPECT_THAT(CheckText(Loop(body, cond, "a n")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("while_loop len(cond_jaxpr.in_avals)=1 but "
                                 "len(cond_consts_avals) + len(in_avals)=2")));
  EXPECT_THAT(
      CheckText(Loop("{ lambda ; c:f32[]. let d:i32[] = convert_element_type[new_dtype=int32 "
                     "weak_type=False] c in (d,) }",
                     cond, "a")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("while_loop body function carry input and carry output must have equal "
                         "types, but they differ: carry[0] is float32[] in and int32[] out")));
  EXPECT_THAT(CheckText(Loop(body, "{ lambda ; e:f32[]. let  in (e,) }", "a")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cond_fun must return a boolean scalar, but got output type(s) "
                                 "[ShapedArray(float32[])].")));
  EXPECT_THAT(
      CheckText(Loop(body, "{ lambda ; e:i32[]. let f:bool[] = lt e 1:i32[] in (f,) }", "a")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("while_loop cond function input type error: float32[] != int32[]")));
  EXPECT_THAT(CheckText(Loop(body, cond, "a", 3, 0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("while with 1 operands cannot have cond_nconsts=0 and "
                                 "body_nconsts=3")));
}

}  // namespace
}  // namespace while_test
}  // namespace axe::ir
