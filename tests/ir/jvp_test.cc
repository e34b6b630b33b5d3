// Forward mode (ad.h): the JVP of every JAX-printed corpus program against central finite
// differences on seeded random inputs, the structure of some rules, and the missing-rule
// error.
#include "ad_test_util.h"
#include "axe/ir/ad.h"
#include "axe/ir/check.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::ir {
namespace jvp_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;
using namespace ad_test;  // NOLINT

class JvpCorpusTest : public ::testing::TestWithParam<const char*> {};

TEST_P(JvpCorpusTest, MatchesFiniteDifferences) {
  ClosedJaxpr f = LoadJax(GetParam());
  absl::StatusOr<ClosedJaxpr> jvp = Jvp(f);
  ASSERT_THAT(jvp, IsOk());
  EXPECT_THAT(CheckJaxpr(*jvp), IsOk()) << PrintJaxpr(*jvp);
  std::mt19937_64 rng(testing_support::TestSeed(1201));
  std::vector<ShapedArray> in = f.jaxpr.in_avals();
  std::vector<HostArray> x, t;
  for (const ShapedArray& a : in) x.push_back(Random(a, rng));
  for (const ShapedArray& a : in) t.push_back(IsFloat(a) ? Random(a, rng) : Zeros(a));
  std::vector<HostArray> args = x;
  args.insert(args.end(), t.begin(), t.end());
  std::vector<HostArray> got = Eval(*jvp, args);
  const double eps = 1e-3;
  std::vector<HostArray> plus, minus;
  for (size_t i = 0; i < x.size(); ++i) plus.push_back(Step(x[i], t[i], eps));
  for (size_t i = 0; i < x.size(); ++i) minus.push_back(Step(x[i], t[i], -eps));
  std::vector<HostArray> fp = Eval(f, plus), fm = Eval(f, minus), f0 = Eval(f, x);
  size_t m = f.jaxpr.outvars.size();
  ASSERT_EQ(got.size(), 2 * m);
  for (size_t k = 0; k < m; ++k) {
    ExpectNear(got[k], f0[k], 0, absl::StrCat(GetParam(), " primal out ", k));
    if (!IsFloat(fp[k].aval)) continue;
    HostArray fd = fp[k];
    for (size_t e = 0; e < fd.values.size(); ++e) {
      fd.values[e] = (fp[k].values[e] - fm[k].values[e]) / (2 * eps);
    }
    ExpectNear(got[m + k], fd, 2e-2, absl::StrCat(GetParam(), " tangent out ", k));
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, JvpCorpusTest,
                         ::testing::Values("sin_cos", "cond_jp2", "elementwise", "convert",
                                           "broadcast_reshape", "squeeze_expand", "transpose",
                                           "reduce", "dot", "slice", "dynamic_slice",
                                           "dynamic_update_slice", "concatenate", "select", "iota",
                                           "jit_call", "scan", "shmap_psum", "shmap_2d",
                                           "shmap_all_gather", "shmap_collectives",
                                           "shmap_identity_pvary"));

TEST(JvpTest, SinMulStructure) {
  ClosedJaxpr f = LoadJax("sin_cos");
  absl::StatusOr<ClosedJaxpr> jvp = Jvp(f);
  ASSERT_THAT(jvp, IsOk());
  EXPECT_EQ(PrintJaxpr(*jvp),
            "{ lambda ; a:f32[8] b:f32[8]. let\n"
            "    c:f32[8] = sin a\n"
            "    d:f32[8] = cos a\n"
            "    e:f32[8] = mul b d\n"
            "    f:f32[8] = cos a\n"
            "    g:f32[8] = sin a\n"
            "    h:f32[8] = neg g\n"
            "    i:f32[8] = mul b h\n"
            "    j:f32[8] = mul c f\n"
            "    k:f32[8] = mul e f\n"
            "    l:f32[8] = mul c i\n"
            "    m:f32[8] = add k l\n"
            "  in (j, m) }");
}

TEST(JvpTest, ComparisonsHaveZeroTangents) {
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(
      "{ lambda ; a:f32[3] b:f32[3]. let c:bool[3] = lt a b; "
      "d:f32[3] = select_n c a b in (d,) }");
  ASSERT_THAT(f, IsOk());
  absl::StatusOr<ClosedJaxpr> jvp = Jvp(*f, {true, false});
  ASSERT_THAT(jvp, IsOk());
  // The tangent of b is held at zero: select_n picks between a's tangent and zeros.
  EXPECT_EQ(PrintJaxpr(*jvp),
            "{ lambda ; a:f32[3] b:f32[3] c:f32[3]. let\n"
            "    d:bool[3] = lt a b\n"
            "    e:f32[3] = select_n d a b\n"
            "    f:f32[3] = broadcast_in_dim 0.0:f32[]\n"
            "    g:f32[3] = select_n d c f\n"
            "  in (e, g) }");
}

TEST(JvpTest, MissingRuleIsJaxsError) {
  Primitive::Options options;
  options.name = "jvp_test_opaque";
  absl::StatusOr<const Primitive*> p = Primitive::Define(options);
  ASSERT_THAT(p, IsOk());
  RegisterAbstractEval(**p, [](absl::Span<const ShapedArray> avals, const Params&) {
    return absl::StatusOr<std::vector<ShapedArray>>(std::vector<ShapedArray>{avals[0]});
  });
  Builder b;
  Tracer x = b.Arg(ShapedArray({2}, DType::kF32));
  absl::StatusOr<Tracer> y = b.Bind1(**p, {x});
  ASSERT_THAT(y, IsOk());
  absl::StatusOr<ClosedJaxpr> f = b.Build({*y});
  ASSERT_THAT(f, IsOk());
  EXPECT_THAT(Jvp(*f), StatusIs(absl::StatusCode::kUnimplemented,
                                HasSubstr("Differentiation rule for 'jvp_test_opaque' not "
                                          "implemented")));
  // Without a tangent the rule is not needed.
  EXPECT_THAT(Jvp(*f, {false}), IsOk());
}

}  // namespace
}  // namespace jvp_test
}  // namespace axe::ir
