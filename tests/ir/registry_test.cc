// The built-ins' rules are complete the moment Builtins() returns, whatever ran before. Each
// test here is its own process under ctest (gtest_discover_tests), so each one sees a registry
// that nothing else has touched: a rule that only appeared after some other entry point ran
// (an evaluation, a JVP, a vmap) would fail here.
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_join.h"
#include "axe/ir/ad.h"
#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitive.h"
#include "axe/ir/primitives.h"
#include "axe/ir/transpose.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace registry_test {
namespace {

using ::axe::testing_support::IsOk;
using ::testing::IsEmpty;

enum class RuleKind { kImpl, kAbstractEval, kJvp, kTranspose, kBatching };

bool HasRule(const Primitive& p, RuleKind kind) {
  switch (kind) {
    case RuleKind::kImpl: return GetImplRule(p).ok();
    case RuleKind::kAbstractEval: return GetAbstractEvalRule(p).ok();
    case RuleKind::kJvp: return GetJvpRule(p).ok();
    case RuleKind::kTranspose: return GetTransposeRule(p).ok();
    case RuleKind::kBatching: return GetBatchingRule(p).ok();
  }
  return false;
}

// The built-ins documented (docs/ir.md, "Rules of the built-ins") as having no rule of a kind.
// A transpose rule exists only for primitives that are linear in some operand.
const std::map<RuleKind, std::set<std::string>>& DocumentedGaps() {
  static const auto* gaps = new std::map<RuleKind, std::set<std::string>>{
      {RuleKind::kImpl, {}},
      {RuleKind::kAbstractEval, {}},
      // JAX defines no derivative of nextafter ("Differentiation rule for 'nextafter' not
      // implemented").
      // digamma's derivative is polygamma(1, x), which axe does not model; nor the
      // derivatives of bessel_i0e, bessel_i1e, igamma and igammac yet (JAX's need
      // igamma_grad_a and random_gamma_grad).
      {RuleKind::kJvp, {"bessel_i0e", "bessel_i1e", "digamma", "igamma", "igammac", "nextafter"}},
      // Not linear in any operand (jit, closed_call, remat2 and the custom calls are inlined by
      // the transposition instead; top_k's tangent is a sort and a slice).
      {RuleKind::kTranspose,
       {"abs",
        "acos",
        "acosh",
        "and",
        "argmax",
        "argmin",
        "asin",
        "asinh",
        "atan",
        "atan2",
        "atanh",
        "axis_index",
        "bessel_i0e",
        "bessel_i1e",
        "bitcast_convert_type",
        "cbrt",
        "ceil",
        "cholesky",
        "clamp",
        "closed_call",
        "clz",
        "cos",
        "cosh",
        "cumlogsumexp",
        "cummax",
        "cummin",
        "cumprod",
        "custom_jvp_call",
        "custom_vjp_call",
        "debug_print",
        "digamma",
        "eigh",
        "eq",
        "eq_to",
        "erf",
        "erf_inv",
        "erfc",
        "exp",
        "exp2",
        "expm1",
        "floor",
        "ge",
        "gt",
        "igamma",
        "igammac",
        "integer_pow",
        "iota",
        "is_finite",
        "jit",
        "le",
        "le_to",
        "lgamma",
        "log",
        "log1p",
        "logistic",
        "lt",
        "lt_to",
        "lu",
        "max",
        "min",
        "ne",
        "nextafter",
        "not",
        "or",
        "pmax",
        "pmin",
        "platform_index",
        "population_count",
        "pow",
        "qr",
        "random_bits",
        "random_fold_in",
        "random_seed",
        "random_split",
        "random_unwrap",
        "random_wrap",
        "reduce_and",
        "reduce_max",
        "reduce_min",
        "reduce_or",
        "reduce_prod",
        "reduce_window",
        "reduce_window_max",
        "reduce_window_min",
        "reduce_xor",
        "rem",
        "remat2",
        "round",
        "rsqrt",
        "scatter-max",
        "scatter-min",
        "shift_left",
        "shift_right_arithmetic",
        "shift_right_logical",
        "sign",
        "sin",
        "sinh",
        "sqrt",
        "square",
        "stop_gradient",
        "svd",
        "tan",
        "tanh",
        "threefry2x32",
        "top_k",
        "xor"}},
      // No operands, so nothing to batch: vmap leaves them unbatched.
      {RuleKind::kBatching, {"axis_index", "iota", "platform_index"}},
  };
  return *gaps;
}

// The built-ins of `kind` that have no rule and are not on the documented list, and those on
// the list that do have one (the list must not go stale).
std::string Discrepancies(RuleKind kind) {
  const std::set<std::string>& gaps = DocumentedGaps().at(kind);
  std::vector<std::string> undocumented, stale;
  for (const Primitive* p : Primitive::All()) {
    bool has = HasRule(*p, kind);
    bool listed = gaps.count(p->name()) != 0;
    if (!has && !listed) undocumented.push_back(p->name());
    if (has && listed) stale.push_back(p->name());
  }
  if (undocumented.empty() && stale.empty()) return "";
  return "missing: " + absl::StrJoin(undocumented, " ") +
         "; listed as missing but present: " + absl::StrJoin(stale, " ");
}

TEST(RegistryTest, EveryBuiltinHasAnImplRuleInAFreshProcess) {
  EXPECT_THAT(Discrepancies(RuleKind::kImpl), IsEmpty());
}
TEST(RegistryTest, EveryBuiltinHasAnAbstractEvalRuleInAFreshProcess) {
  EXPECT_THAT(Discrepancies(RuleKind::kAbstractEval), IsEmpty());
}
TEST(RegistryTest, EveryBuiltinHasAJvpRuleInAFreshProcess) {
  EXPECT_THAT(Discrepancies(RuleKind::kJvp), IsEmpty());
}
TEST(RegistryTest, EveryLinearBuiltinHasATransposeRuleInAFreshProcess) {
  EXPECT_THAT(Discrepancies(RuleKind::kTranspose), IsEmpty());
}
TEST(RegistryTest, EveryBuiltinHasABatchingRuleInAFreshProcess) {
  EXPECT_THAT(Discrepancies(RuleKind::kBatching), IsEmpty());
}

// The first thing a process does is transpose a `transpose`: its rule must be there although
// no JVP or evaluation ran before (it used to appear only after the first Jvp).
TEST(RegistryTest, TransposeWorksAsTheFirstThingAProcessDoes) {
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(
      "{ lambda ; a:f32[2,3]. let b:f32[3,2] = transpose[permutation=(1, 0)] a in (b,) }");
  ASSERT_THAT(f, IsOk());
  EXPECT_THAT(LinearTranspose(*f, {true}), IsOk());
}

// A user's rule registered before the first evaluation is the one that runs: the built-in
// rules are all in place already and nothing overwrites them later.
TEST(RegistryTest, AnOverrideBeforeTheFirstEvaluationIsKeptAndReturnsTheBuiltin) {
  const Primitive& neg = *Builtins().neg;
  ImplRule seven = [](absl::Span<const HostArray> args, const Params&) {
    HostArray out = args[0];
    for (double& v : out.values) v = 7;
    return absl::StatusOr<std::vector<HostArray>>(std::vector<HostArray>{out});
  };
  ImplRule builtin = RegisterImpl(neg, seven);
  ASSERT_TRUE(builtin != nullptr);
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr("{ lambda ; a:f32[2]. let b:f32[2] = neg a in (b,) }");
  ASSERT_THAT(f, IsOk());
  HostArray x{ShapedArray({2}, DType::kF32), {1, 2}};
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(*f, {x});
  ASSERT_THAT(out, IsOk());
  EXPECT_THAT((*out)[0].values, ::testing::ElementsAre(7, 7));
  // Restoring the returned rule gives the built-in back; the override comes back out.
  ImplRule mine = RegisterImpl(neg, builtin);
  EXPECT_TRUE(mine != nullptr);
  out = EvalJaxpr(*f, {x});
  ASSERT_THAT(out, IsOk());
  EXPECT_THAT((*out)[0].values, ::testing::ElementsAre(-1, -2));
}

// Registering a rule on a primitive that had none returns an empty rule.
TEST(RegistryTest, RegisteringTheFirstRuleReturnsAnEmptyOne) {
  Primitive::Options o;
  o.name = "registry_test_fresh";
  absl::StatusOr<const Primitive*> p = Primitive::Define(std::move(o));
  ASSERT_THAT(p, IsOk());
  EXPECT_TRUE(RegisterJvp(**p, nullptr) == nullptr);
}

}  // namespace
}  // namespace registry_test
}  // namespace axe::ir
