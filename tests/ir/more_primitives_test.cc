// The primitives beyond axe's first set (primitives.h, "more") against the real JAX
// (testdata/jax_more, written by testdata/generate_more.py): JAX's printouts of common
// functions and of their gradients round-trip exactly and type-check; evaluation gives JAX's
// numbers for the function, for JAX's gradient text and for axe's own Grad; axe's Jvp agrees
// with finite differences and its Vmap with a loop.
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ad_test_util.h"
#include "axe/base/python_error.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitive.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace more_primitives_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Read(const std::string& file) {
  return testing_support::ReadIrTestdata("jax_more/" + file);
}

// The cases: every <name>.values.txt.
std::vector<std::string> CaseNames() { return testing_support::IrTestdataCases("jax_more"); }

struct Values {
  std::vector<HostArray> args, outs, grads;
};

Values ReadValues(const std::string& name) {
  std::map<std::string, std::vector<HostArray>> by_kind =
      ad_test::ReadTestdataValues("jax_more/" + name + ".values.txt");
  return Values{by_kind["arg"], by_kind["out"], by_kind["grad"]};
}

ClosedJaxpr Parse(const std::string& text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  EXPECT_THAT(j, IsOk());
  return j.ok() ? *j : ClosedJaxpr{};
}

bool IsFloat(const HostArray& a) { return IsFloatingPoint(a.aval.dtype()); }

// Equal types and values within rtol (relative) / atol; NaNs match NaNs.
void ExpectClose(const HostArray& got, const HostArray& want, double rtol, double atol,
                 const std::string& what) {
  ASSERT_EQ(got.aval.shape(), want.aval.shape()) << what;
  ASSERT_EQ(got.aval.dtype(), want.aval.dtype()) << what;
  for (size_t i = 0; i < want.values.size(); ++i) {
    double g = got.values[i], w = want.values[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << what << " element " << i;
      continue;
    }
    EXPECT_NEAR(g, w, atol + rtol * std::fabs(w)) << what << " element " << i;
  }
}

std::vector<HostArray> Eval(const ClosedJaxpr& j, const std::vector<HostArray>& args) {
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(j, args);
  EXPECT_THAT(out, IsOk());
  return out.ok() ? *out : std::vector<HostArray>{};
}

// Cases whose derivatives axe does not take: a custom_vjp_call's rule is a Python function
// that the printed jaxpr does not carry, so axe refuses to differentiate it (kinks_test.cc);
// JAX's own gradient text of it is still checked.
const std::set<std::string> kNoGrad = {"custom_vjp"};

// Texts that axe cannot read yet, with the error expected (empty since JAX's shared-jaxpr
// prelude, `let name = { ... } in`, is read).
const std::map<std::string, std::string> kUnreadable = {};

bool Readable(const std::string& file) { return kUnreadable.count(file) == 0; }

TEST(MorePrimitivesTest, JaxTextsRoundTripExactlyAndTypeCheck) {
  int texts = 0;
  for (const std::string& name : CaseNames()) {
    for (const char* suffix : {".txt", ".loss.txt", ".grad.txt"}) {
      std::string file = name + suffix;
      if (!std::filesystem::exists(std::string(AXE_IR_TESTDATA_DIR) + "/jax_more/" + file)) {
        continue;
      }
      SCOPED_TRACE(file);
      std::string text = Read(file);
      if (!Readable(file)) {
        EXPECT_THAT(ParseJaxpr(text).status(),
                    StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(kUnreadable.at(file))))
            << "it parses now: take it off kUnreadable";
        continue;
      }
      absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
      ASSERT_THAT(j, IsOk());
      EXPECT_EQ(PrintJaxpr(*j) + "\n", text);
      EXPECT_THAT(CheckJaxpr(*j), IsOk());
      ++texts;
    }
  }
  EXPECT_GE(texts, 55);
}

TEST(MorePrimitivesTest, EvaluationGivesJaxsValues) {
  for (const std::string& name : CaseNames()) {
    if (!Readable(name + ".txt")) continue;
    SCOPED_TRACE(name);
    Values v = ReadValues(name);
    std::vector<HostArray> outs = Eval(Parse(Read(name + ".txt")), v.args);
    ASSERT_EQ(outs.size(), v.outs.size());
    for (size_t i = 0; i < outs.size(); ++i) {
      ExpectClose(outs[i], v.outs[i], 2e-6, 1e-6, "out " + std::to_string(i));
    }
  }
}

TEST(MorePrimitivesTest, JaxsGradientTextsAndAxesGradGiveJaxsGradients) {
  for (const std::string& name : CaseNames()) {
    Values v = ReadValues(name);
    if (v.grads.empty()) continue;
    SCOPED_TRACE(name);
    if (Readable(name + ".grad.txt")) {
      std::vector<HostArray> g = Eval(Parse(Read(name + ".grad.txt")), v.args);
      ASSERT_EQ(g.size(), v.grads.size());
      for (size_t i = 0; i < g.size(); ++i) ExpectClose(g[i], v.grads[i], 1e-5, 1e-6, "jax grad");
    }
    if (kNoGrad.count(name) || !Readable(name + ".loss.txt")) continue;
    std::vector<int64_t> argnums;
    for (size_t i = 0; i < v.args.size(); ++i) argnums.push_back(static_cast<int64_t>(i));
    absl::StatusOr<ClosedJaxpr> grad = Grad(Parse(Read(name + ".loss.txt")), argnums);
    ASSERT_THAT(grad, IsOk());
    std::vector<HostArray> g = Eval(*grad, v.args);
    ASSERT_EQ(g.size(), v.grads.size());
    for (size_t i = 0; i < g.size(); ++i) ExpectClose(g[i], v.grads[i], 1e-5, 1e-6, "axe grad");
  }
}

// The program in f64 (literals and dtype params too), for finite differences.
ClosedJaxpr InF64(const std::string& text) {
  return Parse(absl::StrReplaceAll(text, {{"f32", "f64"}, {"float32", "float64"}}));
}

HostArray ToF64(HostArray a) {
  if (a.aval.dtype() == DType::kF32) a.aval = a.aval.WithDType(DType::kF64);
  return a;
}

// Jvp of `file` (in f64) at `args` against central differences.
void CheckJvpAgainstFiniteDifferences(const std::string& file, const std::vector<HostArray>& args) {
  SCOPED_TRACE(file);
  ClosedJaxpr f = InF64(Read(file));
  std::vector<bool> with_tangent;
  std::vector<HostArray> primals, tangents;
  for (const HostArray& a : args) {
    primals.push_back(ToF64(a));
    with_tangent.push_back(IsFloat(a));
    if (!IsFloat(a)) continue;
    HostArray t = ToF64(a);
    for (size_t i = 0; i < t.values.size(); ++i) t.values[i] = 0.3 + 0.1 * (i % 5);
    tangents.push_back(t);
  }
  if (tangents.empty()) return;
  absl::StatusOr<ClosedJaxpr> jvp = Jvp(f, with_tangent);
  ASSERT_THAT(jvp, IsOk());
  std::vector<HostArray> in = primals;
  in.insert(in.end(), tangents.begin(), tangents.end());
  std::vector<HostArray> out = Eval(*jvp, in);
  const double eps = 1e-6;
  std::vector<HostArray> plus = primals, minus = primals;
  for (size_t k = 0, t = 0; k < primals.size(); ++k) {
    if (!with_tangent[k]) continue;
    for (size_t i = 0; i < plus[k].values.size(); ++i) {
      plus[k].values[i] += eps * tangents[t].values[i];
      minus[k].values[i] -= eps * tangents[t].values[i];
    }
    ++t;
  }
  std::vector<HostArray> hi = Eval(f, plus), lo = Eval(f, minus);
  size_t n = f.jaxpr.outvars.size();
  ASSERT_EQ(out.size(), 2 * n);
  for (size_t k = 0; k < n; ++k) {
    if (!IsFloatingPoint(out[k].aval.dtype())) continue;
    HostArray fd = hi[k];
    for (size_t i = 0; i < fd.values.size(); ++i) {
      fd.values[i] = (hi[k].values[i] - lo[k].values[i]) / (2 * eps);
    }
    ExpectClose(out[n + k], fd, 1e-5, 1e-5, "tangent " + std::to_string(k));
  }
}

TEST(MorePrimitivesTest, JvpMatchesFiniteDifferences) {
  // astype rounds through f16 (steps, not a slope); stop_gradient's tangent is zero by design
  // (JAX's gradient of it is checked above).
  // clamp_ties sits on clamp's kinks on purpose (JAX's one-sided choice is checked above).
  const std::set<std::string> skip = {"astype", "stop_gradient", "clamp_ties"};
  for (const std::string& name : CaseNames()) {
    if (kNoGrad.count(name) || skip.count(name) || !Readable(name + ".txt")) continue;
    CheckJvpAgainstFiniteDifferences(name + ".txt", ReadValues(name).args);
  }
  // JAX's gradient texts of the cumulative reductions (rev, split and pad differentiated) and
  // of prod (slice, pad, mul and reshape[dimensions=...]): second derivatives.
  for (const char* name : {"cumulative", "cumlogsumexp", "prod", "prod_zeros"}) {
    CheckJvpAgainstFiniteDifferences(std::string(name) + ".grad.txt", ReadValues(name).args);
  }
}

// Vmap of `file` over 3 shifted copies of `inputs` against evaluating each copy.
void CheckVmapAgainstALoop(const std::string& file, const std::vector<HostArray>& inputs) {
  SCOPED_TRACE(file);
  constexpr int64_t kBatch = 3;
  ClosedJaxpr f = Parse(Read(file));
  VmapOptions options;
  options.axis_size = kBatch;
  absl::StatusOr<ClosedJaxpr> batched = Vmap(f, options);
  ASSERT_THAT(batched, IsOk());
  std::vector<std::vector<HostArray>> per_b;
  std::vector<HostArray> stacked;
  for (const HostArray& a : inputs) {
    std::vector<int64_t> shape = a.aval.shape();
    shape.insert(shape.begin(), kBatch);
    stacked.push_back(HostArray{a.aval.WithShape(shape), {}});
  }
  for (int64_t b = 0; b < kBatch; ++b) {
    std::vector<HostArray> args = inputs;
    for (size_t k = 0; k < args.size(); ++k) {
      for (double& x : args[k].values) {
        x = RoundToDType(x + (IsFloat(args[k]) ? 0.25 : 1.0) * b, args[k].aval.dtype());
      }
      stacked[k].values.insert(stacked[k].values.end(), args[k].values.begin(),
                               args[k].values.end());
    }
    per_b.push_back(Eval(f, args));
  }
  std::vector<HostArray> out = Eval(*batched, stacked);
  ASSERT_EQ(out.size(), per_b[0].size());
  for (size_t k = 0; k < out.size(); ++k) {
    size_t n = per_b[0][k].values.size();
    ASSERT_EQ(out[k].values.size(), kBatch * n);
    for (int64_t b = 0; b < kBatch; ++b) {
      HostArray slice{per_b[b][k].aval, std::vector<double>(out[k].values.begin() + b * n,
                                                            out[k].values.begin() + (b + 1) * n)};
      ExpectClose(slice, per_b[b][k], 1e-6, 1e-7, "batch " + std::to_string(b));
    }
  }
}

TEST(MorePrimitivesTest, VmapMatchesALoop) {
  for (const std::string& name : CaseNames()) {
    if (Readable(name + ".txt")) CheckVmapAgainstALoop(name + ".txt", ReadValues(name).args);
  }
  // JAX's gradient texts: the cumulative reductions' scans, and prod's reshape[dimensions=...].
  for (const char* name : {"cumulative", "cumlogsumexp", "prod", "prod_zeros"}) {
    CheckVmapAgainstALoop(std::string(name) + ".grad.txt", ReadValues(name).args);
  }
}

// The transposes of pad (cropping and interior padding, and its padding value), rev and split:
// axe's Grad against central differences.
TEST(MorePrimitivesTest, RevSplitPadTransposesMatchFiniteDifferences) {
  const std::string text =
      "{ lambda ; a:f64[2,3] p:f64[]. let\n"
      "    b:f64[2,6] = pad[padding_config=((0, 0, 0), (-1, 2, 1))] a p\n"
      "    c:f64[2,6] = rev[dimensions=(1,)] b\n"
      "    d:f64[2,2] e:f64[2,4] = split[axis=1 sizes=(2, 4)] c\n"
      "    f:f64[2,2] = sin d\n"
      "    g:f64[2,4] = cos e\n"
      "    h:f64[] = reduce_sum[axes=(0, 1)] f\n"
      "    i:f64[] = reduce_sum[axes=(0, 1)] g\n"
      "    j:f64[] = add h i\n"
      "  in (j,) }";
  ClosedJaxpr f = Parse(text);
  ASSERT_THAT(CheckJaxpr(f), IsOk());
  absl::StatusOr<ClosedJaxpr> grad = Grad(f, {0, 1});
  ASSERT_THAT(grad, IsOk());
  std::vector<HostArray> args = {
      HostArray{*ShapedArray::ParseShort("f64[2,3]"), {0.1, 0.7, -0.4, 1.2, 0.3, -0.9}},
      HostArray{*ShapedArray::ParseShort("f64[]"), {0.25}}};
  std::vector<HostArray> g = Eval(*grad, args);
  ASSERT_EQ(g.size(), 2u);
  const double eps = 1e-6;
  for (size_t k = 0; k < 2; ++k) {
    for (size_t i = 0; i < args[k].values.size(); ++i) {
      std::vector<HostArray> plus = args, minus = args;
      plus[k].values[i] += eps;
      minus[k].values[i] -= eps;
      double fd = (Eval(f, plus)[0].values[0] - Eval(f, minus)[0].values[0]) / (2 * eps);
      EXPECT_NEAR(g[k].values[i], fd, 1e-6) << "argument " << k << " element " << i;
    }
  }
}

// The transpose of a strided slice spreads the cotangent out with pad (stride - 1 zeros
// between elements, and the ends): axe's Grad against central differences, with a dimension
// whose last stride overshoots the limit and one that keeps every element.
TEST(MorePrimitivesTest, StridedSliceTransposeMatchesFiniteDifferences) {
  ClosedJaxpr f = Parse(
      "{ lambda ; a:f64[7,3]. let\n"
      "    b:f64[3,3] = slice[limit_indices=(7, 3) start_indices=(1, 0) strides=(2, 1)] a\n"
      "    c:f64[3,3] = sin b\n"
      "    d:f64[2,2] = slice[limit_indices=(3, 3) start_indices=(0, 0) strides=(2, 2)] c\n"
      "    e:f64[] = reduce_sum[axes=(0, 1)] d\n"
      "    g:f64[] = reduce_sum[axes=(0, 1)] c\n"
      "    h:f64[] = mul e g\n"
      "  in (h,) }");
  ASSERT_THAT(CheckJaxpr(f), IsOk());
  absl::StatusOr<ClosedJaxpr> grad = Grad(f, {0});
  ASSERT_THAT(grad, IsOk());
  HostArray x{*ShapedArray::ParseShort("f64[7,3]"), std::vector<double>(21)};
  for (size_t i = 0; i < x.values.size(); ++i) x.values[i] = 0.1 * static_cast<double>(i) - 0.7;
  std::vector<HostArray> g = Eval(*grad, {x});
  ASSERT_EQ(g.size(), 1u);
  const double eps = 1e-6;
  int nonzero = 0;
  for (size_t i = 0; i < x.values.size(); ++i) {
    HostArray plus = x, minus = x;
    plus.values[i] += eps;
    minus.values[i] -= eps;
    double fd = (Eval(f, {plus})[0].values[0] - Eval(f, {minus})[0].values[0]) / (2 * eps);
    EXPECT_NEAR(g[0].values[i], fd, 1e-6) << "element " << i;
    nonzero += g[0].values[i] != 0;
  }
  EXPECT_EQ(nonzero, 9);  // rows 1, 3, 5 of a
}

// cummax / cummin tangents at ties, JAX's values (jax.jvp of lax.cummax): a tie halves
// between the running tangent and the new one. (From four tied elements on, JAX's
// associative tree pairs them differently: docs/ir.md.)
TEST(MorePrimitivesTest, CumulativeExtremaSplitTangentsAtTies) {
  auto jvp = [](const std::string& prim, std::vector<double> x, std::vector<double> t) {
    const std::string type = "f32[" + std::to_string(x.size()) + "]";
    ClosedJaxpr f = Parse("{ lambda ; a:" + type + ". let b:" + type + " = " + prim +
                          "[axis=0 reverse=False] a in (b,) }");
    absl::StatusOr<ClosedJaxpr> j = Jvp(f);
    EXPECT_THAT(j, IsOk());
    if (!j.ok()) return std::vector<double>{};
    ShapedArray aval = *ShapedArray::ParseShort(type);
    std::vector<HostArray> out = Eval(*j, {HostArray{aval, x}, HostArray{aval, t}});
    return out.size() == 2 ? out[1].values : std::vector<double>{};
  };
  EXPECT_THAT(jvp("cummax", {1, 1, 1}, {1, 0, 0}), ElementsAre(1, 0.5, 0.25));
  EXPECT_THAT(jvp("cummax", {1, 1, 1}, {0, 1, 0}), ElementsAre(0, 0.5, 0.25));
  EXPECT_THAT(jvp("cummax", {1, 1, 1}, {0, 0, 1}), ElementsAre(0, 0, 0.5));
  EXPECT_THAT(jvp("cummax", {3, 1, 3, 2}, {1, 0, 0, 0}), ElementsAre(1, 1, 0.5, 0.5));
  EXPECT_THAT(jvp("cummax", {3, 1, 3, 2}, {0, 1, 0, 0}), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(jvp("cummin", {-3, -1, -3, -2}, {0, 0, 1, 0}), ElementsAre(0, 0, 0.5, 0.5));
  EXPECT_THAT(jvp("cummin", {2, 1, 4}, {1, 2, 3}), ElementsAre(1, 2, 2));
  // cumprod through a zero: d(x0 x1 x2)/dx1 = x0 x2 although x1 = 0.
  EXPECT_THAT(jvp("cumprod", {2, 0, 3}, {0, 1, 0}), ElementsAre(0, 2, 6));
  EXPECT_THAT(jvp("cumprod", {2, 0, 3}, {1, 0, 1}), ElementsAre(1, 0, 0));
  EXPECT_THAT(jvp("cumprod", {5}, {2}), ElementsAre(2));
}

TEST(MorePrimitivesTest, NewPrimitivesHaveEveryRule) {
  for (const char* name : {"rem", "add_any", "integer_pow", "square", "rsqrt", "log1p", "logistic",
                           "clamp", "reduce_min", "cumsum", "cumlogsumexp", "stop_gradient",
                           "reduce_or", "reduce_and", "reduce_xor", "reduce_prod"}) {
    const Primitive* p = Primitive::Find(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_THAT(GetImplRule(*p).status(), IsOk()) << name;
    EXPECT_THAT(GetAbstractEvalRule(*p).status(), IsOk()) << name;
  }
  for (const char* name : {"add_any", "cumsum"}) {
    EXPECT_THAT(GetTransposeRule(*Primitive::Find(name)).status(), IsOk()) << name;
  }
}

absl::Status CheckText(const std::string& text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  if (!j.ok()) return j.status();
  return CheckJaxpr(*j);
}

TEST(MorePrimitivesTest, TypingErrorsUseJaxsWords) {
  EXPECT_THAT(CheckText("{ lambda ; a:f32[2,3]. let b:f32[2,3] = cumsum[axis=2 reverse=False] a "
                        "in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("axis 2 is out of bounds for array of shape (2, 3)")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[2] b:f32[3]. let c:f32[2] = rem a b in (c,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rem got incompatible shapes for broadcasting: (2,), (3,).")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[2]. let b:f32[2] = and a a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("and does not accept dtype")));
  // pow: a float base with an integer exponent is typed (the base's dtype), as in JAX 0.10.
  EXPECT_THAT(CheckText("{ lambda ; a:f32[2] b:i32[2]. let c:f32[2] = pow a b in (c,) }"), IsOk());
  EXPECT_THAT(CheckText("{ lambda ; a:i32[2] b:f32[2]. let c:f32[2] = pow a b in (c,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("pow does not accept dtype int32 at position 0. Accepted dtypes "
                                 "at position 0 are subtypes of floating, complexfloating.")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[2] b:f16[2]. let c:f32[2] = pow a b in (c,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the first argument to pow must have an inexact dtype (float or "
                                 "complex), and the second argument must have an inexact or "
                                 "integer dtype, and two inexact dtypes must match, but got "
                                 "float32 and float16 respectively.")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[2]. let b:f32[] = reduce_or[axes=(0,)] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("logical reduction requires operand dtype bool or int, got "
                                 "float32.")));
}

// The logical reductions check their axes as reduce_sum does (JAX's own rule drops them with
// np.delete, so its message for an axis out of range is numpy's IndexError), and their result
// is never weak.
TEST(MorePrimitivesTest, LogicalReductionsCheckTheirAxesAndDropWeakTypes) {
  EXPECT_THAT(CheckText("{ lambda ; a:bool[2]. let b:bool[] = reduce_xor[axes=(1,)] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("reduction axes (1,) contains out-of-bounds indices")));
  EXPECT_THAT(CheckText("{ lambda ; a:i32[2]. let b:i32[] = reduce_or[axes=(0, 0)] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("duplicate value in 'axes'")));
  absl::StatusOr<AbstractEvalRule> rule = GetAbstractEvalRule(*Primitive::Find("reduce_and"));
  ASSERT_THAT(rule, IsOk());
  const ShapedArray weak = ShapedArray::ParseShort("i32[3]")->WithWeakType(true);
  absl::StatusOr<std::vector<ShapedArray>> out = (*rule)({weak}, {{"axes", Param::Ints({0})}});
  ASSERT_THAT(out, IsOk());
  EXPECT_FALSE(out->at(0).weak_type());
  EXPECT_EQ(out->at(0).shape(), std::vector<int64_t>{});
}

// One equation `eqn` (binding b from a:in_type) evaluated on `values`.
std::vector<double> RunOne(const std::string& in_type, const std::string& eqn,
                           std::vector<double> values) {
  ClosedJaxpr j = Parse("{ lambda ; a:" + in_type + ". let b:" + eqn + " a in (b,) }");
  std::vector<HostArray> out = Eval(j, {HostArray{*ShapedArray::ParseShort(in_type), values}});
  return out.empty() ? std::vector<double>{} : out[0].values;
}

// Bits JAX's test case (logical_reduce) does not reach: unsigned and narrow types, whose
// results keep only their own bits, and empty reductions, which give the identity.
TEST(MorePrimitivesTest, LogicalReductionsOverEveryIntegerWidth) {
  auto run = [](const std::string& prim, const std::string& type, const std::string& out_type,
                std::vector<double> values) {
    return RunOne(type, out_type + " = " + prim + "[axes=(0,)]", std::move(values));
  };
  EXPECT_THAT(run("reduce_or", "u8[2]", "u8[]", {200, 100}), ElementsAre(236));
  EXPECT_THAT(run("reduce_xor", "u8[2]", "u8[]", {255, 15}), ElementsAre(240));
  EXPECT_THAT(run("reduce_and", "i8[2]", "i8[]", {-1, -128}), ElementsAre(-128));
  EXPECT_THAT(run("reduce_xor", "i16[3]", "i16[]", {-1, 1, 2}), ElementsAre(-4));
  EXPECT_THAT(run("reduce_and", "u32[0]", "u32[]", {}), ElementsAre(4294967295.0));
  EXPECT_THAT(run("reduce_and", "i32[0]", "i32[]", {}), ElementsAre(-1));
  EXPECT_THAT(run("reduce_and", "bool[0]", "bool[]", {}), ElementsAre(1));
  EXPECT_THAT(run("reduce_or", "bool[0]", "bool[]", {}), ElementsAre(0));
  EXPECT_THAT(run("reduce_xor", "bool[3,2]", "bool[2]", {1, 0, 1, 1, 1, 0}), ElementsAre(1, 1));
}

// reduce_prod's integers wrap around at every width as XLA's multiply does (JAX's values,
// with x64 for i64); an empty product is 1 and a NaN propagates.
TEST(MorePrimitivesTest, ReduceProdWrapsIntegersAtEveryWidth) {
  const std::string prod = "reduce_prod[axes=(0,)]";
  EXPECT_THAT(RunOne("i8[2]", "i8[] = " + prod, {100, 3}), ElementsAre(44));
  EXPECT_THAT(RunOne("u8[2]", "u8[] = " + prod, {200, 2}), ElementsAre(144));
  EXPECT_THAT(RunOne("i16[2]", "i16[] = " + prod, {-300, 300}), ElementsAre(-24464));
  EXPECT_THAT(RunOne("i32[2]", "i32[] = " + prod, {65537, 65537}), ElementsAre(131073));
  EXPECT_THAT(RunOne("u16[2]", "u16[] = " + prod, {300, 300}), ElementsAre(24464));
  EXPECT_THAT(RunOne("u32[2]", "u32[] = " + prod, {65537, 65537}), ElementsAre(131073));
  EXPECT_THAT(RunOne("i64[2]", "i64[] = " + prod, {0x1p40, 0x1p30}), ElementsAre(0));
  EXPECT_THAT(RunOne("i64[3]", "i64[] = " + prod, {-0x1p31, 0x1p31, 3}), ElementsAre(0x1p62));
  EXPECT_THAT(RunOne("u64[2]", "u64[] = " + prod, {0x1p63, 3}), ElementsAre(0x1p63));
  // 2^63 - 1 (JAX's value) is not a double: it stays just below 2^63, positive, not -2^63.
  EXPECT_THAT(RunOne("i64[2]", "i64[] = " + prod, {153092023, 60247241209}),
              ElementsAre(std::nextafter(0x1p63, 0.0)));
  // Floats round after every multiplication: f16 overflows on the way (JAX: inf).
  EXPECT_THAT(RunOne("f16[3]", "f16[] = " + prod, {300, 300, 0.001}), ElementsAre(HUGE_VAL));
  EXPECT_THAT(RunOne("f32[3]", "f32[] = " + prod, {1e30, 1e30, 1e-30}), ElementsAre(HUGE_VAL));
  EXPECT_THAT(RunOne("i32[0]", "i32[] = " + prod, {}), ElementsAre(1));
  EXPECT_THAT(RunOne("f32[2,0]", "f32[0] = " + prod, {}), ElementsAre());
  EXPECT_THAT(RunOne("f32[0,2]", "f32[2] = " + prod, {}), ElementsAre(1, 1));
  EXPECT_THAT(RunOne("f32[2]", "f32[] = " + prod, {2, NAN}), ElementsAre(::testing::IsNan()));
}

// reduce_sum: exact 64-bit accumulators for integers (a sum past 2^63 - 512 stays positive,
// JAX's value rounded down to a double), and float sums rounded after every addition (JAX's
// values: an f16 sum overflows on the way, and 1 + 2^-11 + 2^-11 is 1 in f16).
TEST(MorePrimitivesTest, ReduceSumWrapsIntegersAndRoundsFloatsPerStep) {
  const std::string sum = "reduce_sum[axes=(0,) out_sharding=None]";
  EXPECT_THAT(RunOne("i64[2]", "i64[] = " + sum, {0x1p62, 0x1p62 - 512}),
              ElementsAre(std::nextafter(0x1p63, 0.0)));
  EXPECT_THAT(RunOne("u64[2]", "u64[] = " + sum, {0x1p63, 0x1p63 - 1024}),
              ElementsAre(std::nextafter(0x1p64, 0.0)));
  EXPECT_THAT(RunOne("i64[2]", "i64[] = " + sum, {0x1p62, 0x1p62}), ElementsAre(-0x1p63));
  EXPECT_THAT(RunOne("i8[3]", "i8[] = " + sum, {100, 100, -1}), ElementsAre(-57));
  EXPECT_THAT(RunOne("f16[3]", "f16[] = " + sum, {60000, 60000, -60000}), ElementsAre(HUGE_VAL));
  EXPECT_THAT(RunOne("f16[3]", "f16[] = " + sum, {1, 0x1p-11, 0x1p-11}), ElementsAre(1));
}

// cumsum and cumprod over integers wrap exactly: (2^31 - 1)^2 is past 2^53, where a product
// taken in double would lose the low bits (JAX's values).
TEST(MorePrimitivesTest, CumulativeIntegerSumsAndProductsWrapExactly) {
  EXPECT_THAT(RunOne("i32[2]", "i32[2] = cumprod[axis=0 reverse=False]", {2147483647, 2147483647}),
              ElementsAre(2147483647, 1));
  EXPECT_THAT(
      RunOne("i32[3]", "i32[3] = cumsum[axis=0 reverse=False]", {2147483647, 2147483647, 5}),
      ElementsAre(2147483647, -2, 3));
  EXPECT_THAT(RunOne("u8[3]", "u8[3] = cumsum[axis=0 reverse=True]", {200, 100, 7}),
              ElementsAre(51, 107, 7));
  // Past 2^53 in i64: the running sum stays exact between steps (JAX's values rounded to
  // doubles: 2^63 - 512, not -2^63).
  EXPECT_THAT(RunOne("i64[3]", "i64[3] = cumsum[axis=0 reverse=False]", {0x1p62, 0x1p62 - 512, 0}),
              ElementsAre(0x1p62, std::nextafter(0x1p63, 0.0), std::nextafter(0x1p63, 0.0)));
}

// reduce_sum, reduce_prod and the cumulative reductions take numbers only (JAX's words).
TEST(MorePrimitivesTest, NumberReductionsRefuseBool) {
  for (const char* prim : {"reduce_sum", "reduce_prod"}) {
    absl::Status s = CheckText(
        absl::StrCat("{ lambda ; a:bool[3]. let b:bool[] = ", prim, "[axes=(0,)] a in (b,) }"));
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                            HasSubstr(absl::StrCat(prim,
                                                   " does not accept dtype bool. Accepted "
                                                   "dtypes are subtypes of number."))));
  }
  for (const char* prim : {"cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"}) {
    EXPECT_THAT(CheckText(absl::StrCat("{ lambda ; a:bool[3]. let b:bool[3] = ", prim,
                                       "[axis=0 reverse=False] a in (b,) }")),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(absl::StrCat(prim,
                                                " does not accept dtype bool. Accepted "
                                                "dtypes are subtypes of number."))));
  }
  // The shape is checked first, as JAX's standard rules do.
  for (const char* prim : {"reduce_sum", "reduce_prod"}) {
    EXPECT_THAT(CheckText(absl::StrCat("{ lambda ; a:bool[3]. let b:bool[] = ", prim,
                                       "[axes=(1,)] a in (b,) }")),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("out-of-bounds indices")));
  }
  EXPECT_THAT(
      CheckText("{ lambda ; a:bool[3]. let b:bool[3] = cumsum[axis=1 reverse=False] a in (b,) }"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("axis 1 is out of bounds")));
}

// reshape[dimensions=...] reads the operand in that order of its dimensions (what JAX's
// reduce_prod gradient prints): evaluation, typing, transposition and batching.
TEST(MorePrimitivesTest, ReshapeWithDimensionsTransposesFirst) {
  const std::string reshape = "reshape[dimensions=(1, 0) new_sizes=(3, 2) sharding=None]";
  EXPECT_THAT(RunOne("i32[2,3]", "i32[3,2] = " + reshape, {0, 1, 2, 3, 4, 5}),
              ElementsAre(0, 3, 1, 4, 2, 5));
  EXPECT_THAT(RunOne("i32[2,3]", "i32[2,3] = reshape[dimensions=None new_sizes=(2, 3)]",
                     {0, 1, 2, 3, 4, 5}),
              ElementsAre(0, 1, 2, 3, 4, 5));
  for (const char* dims : {"(0, 0)", "(0, 2)", "(1,)"}) {
    absl::Status s =
        CheckText(absl::StrCat("{ lambda ; a:f32[2,3]. let b:f32[6] = reshape[dimensions=", dims,
                               " new_sizes=(6,)] a in (b,) }"));
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                            HasSubstr(absl::StrCat("reshape dimensions must be a permutation of "
                                                   "operand dimensions, got dimensions ",
                                                   dims, " for shape (2, 3)."))));
  }
  // d loss / d a[r, c] = w[2 * c + r]: the flat cotangent reshaped to (3, 2) and transposed
  // back.
  ClosedJaxpr loss = Parse(
      "{ lambda ; a:f32[2,3] w:f32[6]. let\n"
      "    b:f32[6] = reshape[dimensions=(1, 0) new_sizes=(6,) sharding=None] a\n"
      "    c:f32[6] = mul b w\n    d:f32[] = reduce_sum[axes=(0,)] c\n  in (d,) }");
  absl::StatusOr<ClosedJaxpr> grad = Grad(loss, {0});
  ASSERT_THAT(grad, IsOk());
  std::vector<HostArray> g =
      Eval(*grad, {HostArray{*ShapedArray::ParseShort("f32[2,3]"), std::vector<double>(6, 1.0)},
                   HostArray{*ShapedArray::ParseShort("f32[6]"), {0, 1, 2, 3, 4, 5}}});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_THAT(g[0].values, ElementsAre(0, 2, 4, 1, 3, 5));
}

// vmap of reshape[dimensions=...] over a leading or a middle axis, and of a scalar's
// dimensions=(), against the unbatched evaluations.
TEST(MorePrimitivesTest, ReshapeWithDimensionsBatches) {
  auto batched = [](const std::string& text, std::optional<int64_t> in_axis,
                    const std::string& in_type, std::vector<double> in) {
    VmapOptions options;
    options.axis_size = 2;
    options.in_axes = {in_axis};
    absl::StatusOr<ClosedJaxpr> b = Vmap(Parse(text), options);
    EXPECT_THAT(b, IsOk());
    if (!b.ok()) return std::vector<double>{};
    std::vector<HostArray> out = Eval(*b, {HostArray{*ShapedArray::ParseShort(in_type), in}});
    return out.empty() ? std::vector<double>{} : out[0].values;
  };
  const std::string text =
      "{ lambda ; a:i32[2,3]. let b:i32[3,2] = reshape[dimensions=(1, 0) new_sizes=(3, 2) "
      "sharding=None] a in (b,) }";
  std::vector<double> in(12);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i);
  // Batch first: each [2, 3] block transposed.
  EXPECT_THAT(batched(text, 0, "i32[2,2,3]", in),
              ElementsAre(0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11));
  // Batch in the middle (a[i, b, j] at 6 i + 3 b + j): batch b gets a[:, b, :] transposed.
  EXPECT_THAT(batched(text, 1, "i32[2,2,3]", in),
              ElementsAre(0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11));
  EXPECT_THAT(batched("{ lambda ; a:f32[]. let b:f32[1] = reshape[dimensions=() new_sizes=(1,) "
                      "sharding=None] a in (b,) }",
                      0, "f32[2]", {1.5, -2}),
              ElementsAre(1.5, -2));
}

// reduce_prod's JVP against central differences where JAX's case does not go: unsorted axes,
// a scalar, a zero-size operand, and zeros in the operand.
TEST(MorePrimitivesTest, ReduceProdJvpMatchesFiniteDifferences) {
  struct Case {
    std::string type, out_type, axes;
  };
  for (const Case& c : {Case{"f64[3,2,5]", "f64[2]", "(2, 0)"}, Case{"f64[]", "f64[]", "()"},
                        Case{"f64[7]", "f64[]", "(0,)"}, Case{"f64[0,3]", "f64[3]", "(0,)"},
                        Case{"f64[2,3]", "f64[2,3]", "()"}}) {
    SCOPED_TRACE(c.type + " over " + c.axes);
    ClosedJaxpr f = Parse("{ lambda ; a:" + c.type + ". let b:" + c.out_type +
                          " = reduce_prod[axes=" + c.axes + "] a in (b,) }");
    ASSERT_THAT(CheckJaxpr(f), IsOk());
    absl::StatusOr<ClosedJaxpr> jvp = Jvp(f);
    ASSERT_THAT(jvp, IsOk());
    ShapedArray aval = *ShapedArray::ParseShort(c.type);
    HostArray x{aval, std::vector<double>(static_cast<size_t>(*aval.NumElements()))};
    HostArray t = x;
    for (size_t i = 0; i < x.values.size(); ++i) {
      x.values[i] = i % 6 == 4 ? 0.0 : 0.6 + 0.15 * static_cast<double>(i % 5);
      t.values[i] = 0.3 - 0.1 * static_cast<double>(i % 4);
    }
    std::vector<HostArray> out = Eval(*jvp, {x, t});
    ASSERT_EQ(out.size(), 2u);
    const double eps = 1e-6;
    HostArray plus = x, minus = x;
    for (size_t i = 0; i < x.values.size(); ++i) {
      plus.values[i] += eps * t.values[i];
      minus.values[i] -= eps * t.values[i];
    }
    HostArray hi = Eval(f, {plus})[0], lo = Eval(f, {minus})[0];
    ASSERT_EQ(out[1].values.size(), hi.values.size());
    for (size_t i = 0; i < hi.values.size(); ++i) {
      EXPECT_NEAR(out[1].values[i], (hi.values[i] - lo.values[i]) / (2 * eps), 1e-6) << i;
    }
  }
}

// A nested jaxpr read from text has constvars without values: Jvp and Vmap refuse it (they
// used to read a missing value), while evaluating the branch that does not use it works.
TEST(MorePrimitivesTest, NestedConstvarsWithoutValuesAreRefused) {
  ClosedJaxpr f = Parse(
      "{ lambda ; p:i32[] x:f32[3]. let\n"
      "    y:f32[3] = cond[\n"
      "      branches=(\n"
      "        { lambda ; a:f32[3]. let  in (a,) }\n"
      "        { lambda c:f32[3]; a:f32[3]. let b:f32[3] = mul a c in (b,) }\n"
      "      )\n"
      "    ] p x\n"
      "  in (y,) }");
  ASSERT_THAT(CheckJaxpr(f), IsOk());
  std::vector<HostArray> out = Eval(f, {HostArray{*ShapedArray::ParseShort("i32[]"), {0}},
                                        HostArray{*ShapedArray::ParseShort("f32[3]"), {1, 2, 3}}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].values, ElementsAre(1, 2, 3));
  EXPECT_THAT(Jvp(f).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("constant values")));
  VmapOptions options;
  options.axis_size = 2;
  EXPECT_THAT(Vmap(f, options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("constant values")));
}

// JAX raises JaxprTypeError (a TypeError) for a binder typed unlike its equation's result;
// axe marks CheckJaxpr's own findings so that the Python binding raises TypeError too.
TEST(MorePrimitivesTest, CheckMarksItsOwnFindingsAsTypeErrors) {
  absl::Status s = CheckText("{ lambda ; a:f32[3]. let b:f32[4] = sin a in (b,) }");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("Value for variable 'b' inconsistently typed as f32[3]")));
  EXPECT_TRUE(IsTypeError(s));
  // A primitive's typing rule keeps its kind (shard_map's psum errors are ValueErrors in JAX).
  EXPECT_FALSE(
      IsTypeError(CheckText("{ lambda ; a:f32[3] b:f32[4]. let c:f32[3] = add a b in (c,) }")));
}

}  // namespace
}  // namespace more_primitives_test
}  // namespace axe::ir
