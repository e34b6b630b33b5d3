// Reverse mode (ad.h): Linearize, Vjp and Grad, structure and error texts; grad of a
// data-parallel loss inside shard_map.
#include <numeric>
#include <sstream>
#include "ad_test_util.h"
#include "axe/base/status_macros.h"

#include "axe/ir/ad.h"
#include "axe/ir/check.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "axe/ir/shard_map.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::ir {
namespace grad_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

ClosedJaxpr Parse(const char* text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  EXPECT_THAT(j, IsOk());
  return j.ok() ? *j : ClosedJaxpr{};
}

TEST(GradTest, SinMulMatchesJaxStructure) {
  ClosedJaxpr f = Parse(
      "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = sin a; d:f32[3] = mul c b; "
      "e:f32[] = reduce_sum[axes=(0,) out_sharding=None] d in (e,) }");
  absl::StatusOr<ClosedJaxpr> g = Grad(f, {0});
  ASSERT_THAT(g, IsOk());
  // jax.make_jaxpr(jax.grad(f))(x, y) prints these equations after the forward pass's (sin,
  // mul, reduce_sum), which axe's dead-code elimination drops since the gradient does not
  // use them.
  EXPECT_EQ(PrintJaxpr(*g),
            "{ lambda ; a:f32[3] b:f32[3]. let\n"
            "    c:f32[3] = cos a\n"
            "    d:f32[3] = broadcast_in_dim 1.0:f32[]\n"
            "    e:f32[3] = mul d b\n"
            "    f:f32[3] = mul e c\n"
            "  in (f,) }");
  EXPECT_THAT(CheckJaxpr(*g), IsOk());
}

TEST(GradTest, LinearizeSplitsPrimalAndLinearParts) {
  ClosedJaxpr f = Parse("{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }");
  absl::StatusOr<Linearized> lin = Linearize(f);
  ASSERT_THAT(lin, IsOk());
  EXPECT_EQ(lin->num_residuals, 1u);
  EXPECT_EQ(PrintJaxpr(lin->primal),
            "{ lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = cos a in (b, c) }");
  EXPECT_EQ(PrintJaxpr(lin->linear),
            "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = mul b a in (c,) }");
}

TEST(GradTest, NonScalarOutputIsJaxsError) {
  ClosedJaxpr f = Parse("{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }");
  EXPECT_THAT(Grad(f), StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("Gradient only defined for scalar-output functions. "
                                          "Output had shape: (3,). To get the gradient, reduce "
                                          "the output to a scalar with output.sum()")));
  ClosedJaxpr one = Parse("{ lambda ; a:f32[1]. let b:f32[1] = sin a in (b,) }");
  EXPECT_THAT(Grad(one), StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("extract the scalar with output.reshape(()) or "
                                            "output[0], reduce")));
}

TEST(GradTest, IntegerInputAndOutputAreJaxsErrors) {
  ClosedJaxpr f = Parse(
      "{ lambda ; a:i32[] b:f32[]. let c:f32[] = convert_element_type[new_dtype=float32 "
      "weak_type=False] a; d:f32[] = mul c b in (d,) }");
  EXPECT_THAT(Grad(f, {0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "grad requires real- or complex-valued inputs (input dtype that is a "
                       "sub-dtype of np.inexact), but got int32. If you want to use Boolean- or "
                       "integer-valued inputs, use vjp or set allow_int to True."));
  EXPECT_THAT(Grad(f, {1}), IsOk());
  EXPECT_THAT(Grad(f, {2}), StatusIs(absl::StatusCode::kInvalidArgument,
                                     HasSubstr("argnums: 2 is out of range")));
  ClosedJaxpr g = Parse("{ lambda ; a:f32[]. let b:bool[] = lt a 0.0:f32[] in (b,) }");
  EXPECT_THAT(Grad(g), StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("grad requires real-valued outputs (output dtype that "
                                          "is a sub-dtype of np.floating), but got bool.")));
}

TEST(GradTest, MissingTransposeRuleIsJaxsError) {
  // A third-party primitive with a JVP rule (it says it is linear) but no transpose rule.
  Primitive::Options options;
  options.name = "grad_test_twice";
  absl::StatusOr<const Primitive*> p = Primitive::Define(options);
  ASSERT_THAT(p, IsOk());
  const Primitive* twice = *p;
  RegisterAbstractEval(*twice, [](absl::Span<const ShapedArray> avals, const Params&) {
    return absl::StatusOr<std::vector<ShapedArray>>(std::vector<ShapedArray>{avals[0]});
  });
  RegisterJvp(*twice,
              [twice](Builder& b, absl::Span<const Tracer> primals,
                      absl::Span<const std::optional<Tracer>> tangents,
                      const Params&) -> absl::StatusOr<JvpResult> {
                AXE_ASSIGN_OR_RETURN(Tracer out, b.Bind1(*twice, primals));
                AXE_ASSIGN_OR_RETURN(Tracer t, b.Bind1(*twice, {*tangents[0]}));
                return JvpResult{{out}, {t}};
              });
  Builder b;
  Tracer x = b.Arg(ShapedArray({}, DType::kF32));
  absl::StatusOr<ClosedJaxpr> f = b.Build({*b.Bind1(*twice, {x})});
  ASSERT_THAT(f, IsOk());
  EXPECT_THAT(Jvp(*f), IsOk());
  EXPECT_THAT(Grad(*f), StatusIs(absl::StatusCode::kUnimplemented,
                                 HasSubstr("Transpose rule (for reverse-mode differentiation) "
                                           "for 'grad_test_twice' not implemented")));
}

// loss(args) = sum_k sum(out_k * w_k) over f's float outputs, w_k seeded random constants.
ClosedJaxpr WeightedLoss(const ClosedJaxpr& f, std::mt19937_64& rng) {
  Builder b;
  std::vector<Tracer> args;
  for (const ShapedArray& a : f.jaxpr.in_avals()) args.push_back(b.Arg(a));
  absl::StatusOr<std::vector<Tracer>> outs = Jit(std::make_shared<const ClosedJaxpr>(f), args, "f");
  EXPECT_THAT(outs, IsOk());
  std::optional<Tracer> total;
  for (const Tracer& o : *outs) {
    if (!ad_test::IsFloat(o.aval)) continue;
    Tracer w = b.Const(ad_test::Random(o.aval.WithVma({}), rng));
    std::vector<int64_t> axes(o.aval.rank());
    std::iota(axes.begin(), axes.end(), 0);
    Tracer term = *ReduceSum(*Mul(o, w), axes);
    total = total ? *Add(*total, term) : term;
  }
  return *b.Build({*total});
}

class GradCorpusTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GradCorpusTest, MatchesFiniteDifferences) {
  std::mt19937_64 rng(testing_support::TestSeed(1202));
  ClosedJaxpr loss = WeightedLoss(ad_test::LoadJax(GetParam()), rng);
  std::vector<ShapedArray> in = loss.jaxpr.in_avals();
  std::vector<int64_t> argnums;
  for (size_t i = 0; i < in.size(); ++i) {
    if (ad_test::IsFloat(in[i])) argnums.push_back(static_cast<int64_t>(i));
  }
  absl::StatusOr<ClosedJaxpr> g = Grad(loss, argnums);
  ASSERT_THAT(g, IsOk());
  EXPECT_THAT(CheckJaxpr(*g), IsOk()) << PrintJaxpr(*g);
  std::vector<HostArray> x;
  for (const ShapedArray& a : in) x.push_back(ad_test::Random(a, rng));
  std::vector<HostArray> grads = ad_test::Eval(*g, x);
  ASSERT_EQ(grads.size(), argnums.size());
  const double eps = 1e-3;
  for (size_t k = 0; k < argnums.size(); ++k) {
    HostArray fd = grads[k];
    for (size_t e = 0; e < fd.values.size(); ++e) {
      std::vector<HostArray> plus = x, minus = x;
      plus[argnums[k]].values[e] += eps;
      minus[argnums[k]].values[e] -= eps;
      fd.values[e] =
          (ad_test::Eval(loss, plus)[0].values[0] - ad_test::Eval(loss, minus)[0].values[0]) /
          (2 * eps);
    }
    ad_test::ExpectNear(grads[k], fd, 2e-2, absl::StrCat(GetParam(), " grad ", argnums[k]));
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, GradCorpusTest,
                         ::testing::Values("sin_cos", "cond_jp2", "elementwise",
                                           "broadcast_reshape", "squeeze_expand", "transpose",
                                           "reduce", "dot", "slice", "dynamic_slice",
                                           "dynamic_update_slice", "concatenate", "select", "iota",
                                           "jit_call", "scan", "shmap_psum", "shmap_2d",
                                           "shmap_all_gather", "shmap_collectives",
                                           "shmap_identity_pvary"));

ShapedArray F32(std::vector<int64_t> shape) { return ShapedArray(std::move(shape), DType::kF32); }

// loss(w, x) = sum over devices of sum((x_local . w)^2): w replicated, x split by rows over
// mesh (4,) axis x.
ClosedJaxpr DataParallelLoss() {
  Builder b;
  Tracer w = b.Arg(F32({4}));
  Tracer x = b.Arg(F32({16, 4}));
  using P = sharding::PartitionSpec;
  ShardMapSpec spec{*sharding::Mesh::Create({{"x", 4}}), {P(), *P::Create({{"x"}})}, {P()}};
  absl::StatusOr<std::vector<Tracer>> out = ShardMap(
      {w, x}, spec,
      [](Builder&, absl::Span<const Tracer> a) -> absl::StatusOr<std::vector<Tracer>> {
        AXE_ASSIGN_OR_RETURN(
            std::vector<Tracer> y,
            BindWithAutoPvary(*Builtins().dot_general, {a[1], a[0]},
                              {{"dimension_numbers",
                                Param::Tuple({Param::Tuple({Param::Ints({1}), Param::Ints({0})}),
                                              Param::Tuple({Param::Ints({}), Param::Ints({})})})},
                               {"preferred_element_type", Param::OfDType(DType::kF32)}}));
        AXE_ASSIGN_OR_RETURN(Tracer sq, Mul(y[0], y[0]));
        AXE_ASSIGN_OR_RETURN(Tracer l, ReduceSum(sq, {0}));
        AXE_ASSIGN_OR_RETURN(Tracer s, Psum(l, {"x"}));
        return std::vector<Tracer>{s};
      });
  EXPECT_THAT(out, IsOk());
  return *b.Build(*out);
}

// A loss that reads only one output of a shard_map with several: the other outputs'
// cotangents are symbolic zeros the transpose must materialize at their global shapes (it
// used to make them at the body's per-device shape, which the transposed shard_map refused
// as not evenly divisible).
TEST(GradTest, ShardMapOutputsTheLossIgnores) {
  ClosedJaxpr f = ad_test::LoadJax("shmap_collectives");
  Builder b;
  Tracer x = b.Arg(ShapedArray({16}, DType::kF32));
  absl::StatusOr<std::vector<Tracer>> outs = Jit(std::make_shared<const ClosedJaxpr>(f), {x}, "f");
  ASSERT_THAT(outs, IsOk());
  absl::StatusOr<ClosedJaxpr> loss = b.Build({*ReduceSum((*outs)[3], {0})});
  ASSERT_THAT(loss, IsOk());
  absl::StatusOr<ClosedJaxpr> g = Grad(*loss);
  ASSERT_THAT(g, IsOk());
  EXPECT_THAT(CheckJaxpr(*g), IsOk()) << PrintJaxpr(*g);
  // ppermute moves every element once: the gradient of the sum is all ones.
  std::vector<HostArray> got = ad_test::Eval(*g, {ad_test::Zeros(ShapedArray({16}, DType::kF32))});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].values, std::vector<double>(16, 1.0));
}

// JAX's gradient values (testdata/generate_ad.py) at its fixed arguments.
class JaxGradValuesTest : public ::testing::TestWithParam<const char*> {};

TEST_P(JaxGradValuesTest, GradEqualsJaxs) {
  ClosedJaxpr f = ad_test::LoadJax(absl::StrCat(GetParam(), ".fwd"), "jax_ad");
  std::vector<HostArray> args;
  int k = 0;
  for (const ShapedArray& a : f.jaxpr.in_avals()) {
    HostArray h = ad_test::Zeros(a);
    for (size_t i = 0; i < h.values.size(); ++i) {
      h.values[i] = RoundToDType(0.5 + static_cast<double>((7 * i + 3 * k) % 11) / 8, a.dtype());
    }
    args.push_back(std::move(h));
    ++k;
  }
  std::vector<int64_t> argnums(args.size());
  std::iota(argnums.begin(), argnums.end(), 0);
  absl::StatusOr<ClosedJaxpr> g = Grad(f, argnums);
  ASSERT_THAT(g, IsOk());
  EXPECT_THAT(CheckJaxpr(*g), IsOk()) << PrintJaxpr(*g);
  std::vector<HostArray> got = ad_test::Eval(*g, args);
  std::istringstream want(
      testing_support::ReadIrTestdata(absl::StrCat("jax_ad/", GetParam(), ".grad_values.txt")));
  ASSERT_EQ(got.size(), args.size());
  for (size_t n = 0; n < got.size(); ++n) {
    std::string line;
    ASSERT_TRUE(std::getline(want, line)) << GetParam();
    std::istringstream values(line);
    HostArray expected = got[n];
    for (double& v : expected.values) ASSERT_TRUE(values >> v) << GetParam() << " grad " << n;
    ad_test::ExpectNear(got[n], expected, 1e-5, absl::StrCat(GetParam(), " grad ", n));
  }
}

INSTANTIATE_TEST_SUITE_P(JaxAd, JaxGradValuesTest,
                         ::testing::Values("tanh_dot", "exp_log_div", "max_transpose", "cond",
                                           "scan", "shmap_dp_loss"));

// The same loss without shard_map.
ClosedJaxpr UnshardedLoss() {
  Builder b;
  Tracer w = b.Arg(F32({4}));
  Tracer x = b.Arg(F32({16, 4}));
  Tracer y = *DotGeneral(x, w, {1}, {0});
  return *b.Build({*ReduceSum(*Mul(y, y), {0})});
}

TEST(GradTest, DataParallelLossInsideShardMap) {
  ClosedJaxpr f = DataParallelLoss();
  absl::StatusOr<ClosedJaxpr> g = Grad(f, {0});
  ASSERT_THAT(g, IsOk());
  EXPECT_THAT(CheckJaxpr(*g), IsOk()) << PrintJaxpr(*g);
  // The replicated w's gradient is summed over the devices: pvary transposes to one
  // psum_invariant of the per-device gradient (an all-reduce), no other collective.
  std::string text = PrintJaxpr(*g);
  EXPECT_THAT(text, HasSubstr("= psum_invariant[axes=('x',)]"));
  size_t psums = 0;
  for (size_t at = text.find("psum_invariant"); at != std::string::npos;
       at = text.find("psum_invariant", at + 1)) {
    ++psums;
  }
  EXPECT_EQ(psums, 1u) << text;  // the forward loss's psum is dead code
  absl::StatusOr<ClosedJaxpr> unsharded = Grad(UnshardedLoss(), {0});
  ASSERT_THAT(unsharded, IsOk());
  std::mt19937_64 rng(testing_support::TestSeed(1204));
  std::vector<HostArray> args = {ad_test::Random(F32({4}), rng),
                                 ad_test::Random(F32({16, 4}), rng)};
  std::vector<HostArray> got = ad_test::Eval(*g, args);
  std::vector<HostArray> want = ad_test::Eval(*unsharded, args);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(want.size(), 1u);
  ad_test::ExpectNear(got[0], want[0], 1e-5, "data-parallel gradient");
}

// <ct, jvp(x; t)> == <vjp(x; ct), t> on every corpus program with float inputs only.
TEST(GradTest, VjpIsTheAdjointOfJvp) {
  std::mt19937_64 rng(testing_support::TestSeed(1205));
  for (const char* name : {"sin_cos", "cond_jp2", "scan", "elementwise", "dot", "reduce",
                           "concatenate", "slice", "shmap_2d", "shmap_all_gather", "transpose"}) {
    ClosedJaxpr f = ad_test::LoadJax(name);
    absl::StatusOr<ClosedJaxpr> jvp = Jvp(f);
    absl::StatusOr<ClosedJaxpr> vjp = Vjp(f);
    ASSERT_THAT(jvp, IsOk());
    ASSERT_THAT(vjp, IsOk());
    EXPECT_THAT(CheckJaxpr(*vjp), IsOk()) << PrintJaxpr(*vjp);
    std::vector<HostArray> x, t, ct;
    for (const ShapedArray& a : f.jaxpr.in_avals()) x.push_back(ad_test::Random(a, rng));
    for (const ShapedArray& a : f.jaxpr.in_avals()) t.push_back(ad_test::Random(a, rng));
    for (const ShapedArray& a : f.jaxpr.out_avals()) {
      ct.push_back(ad_test::IsFloat(a) ? ad_test::Random(a, rng) : ad_test::Zeros(a));
    }
    std::vector<HostArray> jargs = x, vargs = x;
    jargs.insert(jargs.end(), t.begin(), t.end());
    vargs.insert(vargs.end(), ct.begin(), ct.end());
    std::vector<HostArray> jout = ad_test::Eval(*jvp, jargs), vout = ad_test::Eval(*vjp, vargs);
    ASSERT_EQ(vout.size(), t.size()) << name;
    double lhs = 0, rhs = 0;
    for (size_t k = 0; k < ct.size(); ++k) {
      const HostArray& tangent = jout[f.jaxpr.outvars.size() + k];
      for (size_t e = 0; e < ct[k].values.size(); ++e) lhs += ct[k].values[e] * tangent.values[e];
    }
    for (size_t i = 0; i < t.size(); ++i) {
      for (size_t e = 0; e < t[i].values.size(); ++e) rhs += vout[i].values[e] * t[i].values[e];
    }
    EXPECT_NEAR(lhs, rhs, 1e-4 * (1 + std::abs(lhs))) << name;
  }
}

}  // namespace
}  // namespace grad_test
}  // namespace axe::ir
