// JAX's derivative rules exactly AT their ties and kinks (testdata/jax_kinks, written by
// testdata/generate_kinks.py): axe's Jvp (tangents of ones) and Vjp (cotangents of ones, the
// gradient of the sum) against the numbers JAX printed, one test per rule; custom_vjp_call,
// whose rule a printed jaxpr does not carry, is refused; a shard_map body calling jax.nn.relu
// runs; LinearTranspose has the linear rules that Grad uses.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "ad_test_util.h"
#include "axe/ir/ad.h"
#include "axe/ir/eval.h"
#include "axe/ir/transpose.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace kinks_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

using Values = std::map<std::string, std::vector<HostArray>>;

Values ReadValues(const std::string& name) {
  return ad_test::ReadTestdataValues("jax_kinks/" + name + ".values.txt");
}

// Equal types and values; NaNs match NaNs and infinities match exactly.
void ExpectSame(const HostArray& got, const HostArray& want, const std::string& what) {
  ASSERT_EQ(got.aval.shape(), want.aval.shape()) << what;
  ASSERT_EQ(got.aval.dtype(), want.aval.dtype()) << what;
  for (size_t i = 0; i < want.values.size(); ++i) {
    double g = got.values[i], w = want.values[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << what << " element " << i << ": " << g;
    } else if (std::isinf(w)) {
      EXPECT_EQ(g, w) << what << " element " << i;
    } else {
      EXPECT_NEAR(g, w, 1e-6 + 1e-6 * std::fabs(w)) << what << " element " << i;
    }
  }
}

std::vector<HostArray> Eval(const ClosedJaxpr& j, const std::vector<HostArray>& args) {
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(j, args);
  EXPECT_THAT(out, IsOk());
  return out.ok() ? *out : std::vector<HostArray>{};
}

HostArray Ones(const HostArray& like) {
  return HostArray{like.aval, std::vector<double>(like.values.size(), 1.0)};
}

bool IsFloat(const HostArray& a) { return IsFloatingPoint(a.aval.dtype()); }

// axe's Jvp at JAX's arguments, with tangents of ones for the float ones, against JAX's jvp.
void CheckJvp(const std::string& name) {
  SCOPED_TRACE(name + " jvp");
  ClosedJaxpr f = ad_test::LoadJax(name, "jax_kinks");
  Values v = ReadValues(name);
  std::vector<bool> with_tangent;
  std::vector<HostArray> in = v["arg"];
  for (const HostArray& a : v["arg"]) {
    with_tangent.push_back(IsFloat(a));
    if (IsFloat(a)) in.push_back(Ones(a));
  }
  absl::StatusOr<ClosedJaxpr> jvp = Jvp(f, with_tangent);
  ASSERT_THAT(jvp, IsOk());
  std::vector<HostArray> out = Eval(*jvp, in);
  ASSERT_EQ(out.size(), 2u);
  ExpectSame(out[0], v["out"][0], "out");
  ExpectSame(out[1], v["jvp"][0], "tangent");
}

// axe's Vjp with a cotangent of ones (the gradient of the sum) against jax.grad of the sum.
void CheckGrad(const std::string& name) {
  SCOPED_TRACE(name + " grad");
  ClosedJaxpr f = ad_test::LoadJax(name, "jax_kinks");
  Values v = ReadValues(name);
  absl::StatusOr<ClosedJaxpr> vjp = Vjp(f);
  ASSERT_THAT(vjp, IsOk());
  std::vector<HostArray> in = v["arg"];
  in.push_back(Ones(v["out"][0]));
  std::vector<HostArray> cts = Eval(*vjp, in);
  ASSERT_EQ(cts.size(), v["arg"].size());
  size_t g = 0;
  for (size_t i = 0; i < cts.size(); ++i) {
    if (!IsFloat(v["arg"][i])) continue;
    ASSERT_LT(g, v["grad"].size());
    ExpectSame(cts[i], v["grad"][g++], "gradient of argument " + std::to_string(i));
  }
  EXPECT_EQ(g, v["grad"].size());
}

void CheckRule(const std::string& name) {
  CheckJvp(name);
  CheckGrad(name);
}

TEST(KinksTest, MaxSplitsTiesInHalves) {
  CheckRule("max_tie");
  CheckRule("maximum_literal_tie");
}

TEST(KinksTest, MinSplitsTiesInHalves) { CheckRule("min_tie"); }

TEST(KinksTest, AbsAtZeroPassesTheTangent) { CheckRule("abs_zero"); }

TEST(KinksTest, ClipAtItsBoundsHalvesTheGradient) { CheckRule("clip_bounds"); }

TEST(KinksTest, ClampAtItsBoundsPassesNoTangent) { CheckRule("clamp_bounds"); }

TEST(KinksTest, ReluAndRelu6AtTheirKinksHaveZeroGradients) {
  CheckRule("relu_zero");
  CheckRule("relu6_bounds");
}

TEST(KinksTest, SignHasAZeroTangent) { CheckRule("sign_zero"); }

TEST(KinksTest, FloorHasAZeroTangent) { CheckRule("floor_integer"); }

TEST(KinksTest, CeilHasAZeroTangent) { CheckRule("ceil_integer"); }

TEST(KinksTest, RoundHasAZeroTangent) { CheckRule("round_half"); }

TEST(KinksTest, SelectNAtTheBoundaryTakesThePickedCase) { CheckRule("select_n_boundary"); }

TEST(KinksTest, ArgmaxHasAZeroTangent) { CheckRule("argmax_tie"); }

TEST(KinksTest, ReduceMaxSplitsTies) { CheckRule("reduce_max_tie"); }

TEST(KinksTest, PowAtZero) { CheckRule("pow_zero"); }

TEST(KinksTest, PowWithAZeroIntegerExponent) { CheckRule("pow_integer_exponent_zero"); }

TEST(KinksTest, IntegerPowAtZero) {
  CheckRule("integer_pow_zero");
  CheckRule("integer_pow_negative_zero");
}

TEST(KinksTest, SqrtAtZero) { CheckRule("sqrt_zero"); }

// JAX prints a custom_vjp_call's rule as the names of its Python functions (fwd=..., bwd=...):
// differentiating its call_jaxpr would silently give [9, -36, 1.8] where JAX's clipping rule
// gives [3, -3, 1.8], so every transformation that would need the rule refuses.
TEST(KinksTest, CustomVjpCallIsRefusedRatherThanDifferentiatedSilently) {
  ClosedJaxpr f = ad_test::LoadJax("custom_vjp_clip", "jax_kinks");
  Values v = ReadValues("custom_vjp_clip");
  ExpectSame(Eval(f, v["arg"])[0], v["out"][0], "out");
  auto refused = StatusIs(absl::StatusCode::kUnimplemented,
                          AllOf(HasSubstr("cannot differentiate custom_vjp_call "
                                          "(name=clipped_square)"),
                                HasSubstr("(fwd=<lambda>, bwd=<lambda>) is a Python function "
                                          "that the printed jaxpr does not carry")));
  EXPECT_THAT(Vjp(f), refused);
  EXPECT_THAT(Jvp(f), refused);
  EXPECT_THAT(Linearize(f), refused);
}

// A shard_map body calling jax.nn.relu: the custom_jvp_call's body holds a pvary, evaluated on
// the shard_map's mesh; its gradient uses relu's rule on each device.
TEST(KinksTest, ShardMapBodyCallingReluRunsAndDifferentiates) {
  ClosedJaxpr f = ad_test::LoadJax("shmap_relu", "jax_kinks");
  Values v = ReadValues("shmap_relu");
  std::vector<HostArray> out = Eval(f, v["arg"]);
  ASSERT_EQ(out.size(), 1u);
  ExpectSame(out[0], v["out"][0], "out");
  CheckRule("shmap_relu");
}

// A custom_jvp function whose body holds a psum, in a shard_map body: evaluated on the mesh.
TEST(KinksTest, ShardMapBodyCallingACustomJvpWithAPsumRuns) {
  ClosedJaxpr f = ad_test::LoadJax("shmap_custom_psum", "jax_kinks");
  Values v = ReadValues("shmap_custom_psum");
  std::vector<HostArray> out = Eval(f, v["arg"]);
  ASSERT_EQ(out.size(), 1u);
  ExpectSame(out[0], v["out"][0], "out");
}

// LinearTranspose of `transpose_<name>` (linear in the inputs `linear` marks) on JAX's
// cotangents against jax.linear_transpose.
void CheckTranspose(const std::string& name, const std::vector<bool>& linear) {
  SCOPED_TRACE(name);
  ClosedJaxpr f = ad_test::LoadJax("transpose_" + name, "jax_kinks");
  Values v = ReadValues("transpose_" + name);
  absl::StatusOr<ClosedJaxpr> t = LinearTranspose(f, linear);
  ASSERT_THAT(t, IsOk());
  std::vector<HostArray> in = v["arg"];
  in.insert(in.end(), v["ct"].begin(), v["ct"].end());
  std::vector<HostArray> cts = Eval(*t, in);
  ASSERT_EQ(cts.size(), v["want"].size());
  for (size_t i = 0; i < cts.size(); ++i) ExpectSame(cts[i], v["want"][i], "cotangent");
}

TEST(KinksTest, TransposeHasTheLinearRulesGradUses) {
  CheckTranspose("dot_general", {false, true});
  CheckTranspose("scan", {true});
  CheckTranspose("cond", {false, true});
  CheckTranspose("slice", {true});
  CheckTranspose("concatenate", {true});
}

TEST(KinksTest, TransposeSumsARankZeroOperandBroadcastToAnArray) {
  CheckTranspose("add_rank0", {true, true});
  CheckTranspose("sub_rank0", {true, true});
  CheckTranspose("mul_rank0", {false, true});
  CheckTranspose("div_rank0", {false, true});
}

}  // namespace
}  // namespace kinks_test
}  // namespace axe::ir
