// vmap (batching.h): the vmapped JAX-printed corpus programs against looping the unbatched
// program over the mapped axis, on seeded random inputs; structure; JAX's error texts.
#include <limits>
#include <regex>

#include "ad_test_util.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::ir {
namespace vmap_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;
using namespace ad_test;  // NOLINT

constexpr int64_t kSize = 3;

VmapOptions Options(std::vector<std::optional<int64_t>> in_axes, std::optional<int64_t> size,
                    std::vector<ShapedArray> arg_types = {}) {
  VmapOptions o;
  o.in_axes = std::move(in_axes);
  o.axis_size = size;
  o.arg_types = std::move(arg_types);
  return o;
}

// Each float input mapped along `axis` (or its last position when axis is -1) when `mapped`
// says so; integer and bool inputs stay unmapped (batched start indices are not supported).
void CheckAgainstLoop(const char* name, bool map_all, bool last_axis) {
  ClosedJaxpr f = LoadJax(name);
  std::vector<ShapedArray> in = f.jaxpr.in_avals();
  VmapOptions o;
  o.axis_size = kSize;
  for (size_t i = 0; i < in.size(); ++i) {
    bool mapped = IsFloat(in[i]) && (map_all || i == 0);
    o.in_axes.push_back(mapped ? std::optional<int64_t>(last_axis ? -1 : 0) : std::nullopt);
  }
  absl::StatusOr<ClosedJaxpr> v = Vmap(f, o);
  ASSERT_THAT(v, IsOk()) << name;
  EXPECT_THAT(CheckJaxpr(*v), IsOk()) << PrintJaxpr(*v);
  std::mt19937_64 rng(testing_support::TestSeed(1203));
  std::vector<HostArray> args;
  for (const ShapedArray& a : v->jaxpr.in_avals()) args.push_back(Random(a, rng));
  std::vector<HostArray> got = Eval(*v, args);
  ASSERT_EQ(got.size(), f.jaxpr.outvars.size());
  for (int64_t k = 0; k < kSize; ++k) {
    std::vector<HostArray> slice;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!o.in_axes[i]) {
        slice.push_back(args[i]);
        continue;
      }
      size_t axis = last_axis ? args[i].aval.rank() - 1 : 0;
      slice.push_back(Take(args[i], axis, k));
    }
    std::vector<HostArray> want = Eval(f, slice);
    for (size_t r = 0; r < want.size(); ++r) {
      ExpectNear(Take(got[r], 0, k), want[r], 1e-6, absl::StrCat(name, " out ", r, " row ", k));
    }
  }
}

class VmapCorpusTest : public ::testing::TestWithParam<const char*> {};

TEST_P(VmapCorpusTest, AllMappedAtZero) { CheckAgainstLoop(GetParam(), true, false); }
TEST_P(VmapCorpusTest, FirstMappedAtLastAxis) { CheckAgainstLoop(GetParam(), false, true); }

INSTANTIATE_TEST_SUITE_P(Corpus, VmapCorpusTest,
                         ::testing::Values("sin_cos", "cond_jp2", "elementwise", "convert",
                                           "broadcast_reshape", "squeeze_expand", "transpose",
                                           "reduce", "dot", "slice", "dynamic_slice",
                                           "dynamic_update_slice", "concatenate", "select", "iota",
                                           "jit_call", "literals", "scan", "shmap_psum", "shmap_2d",
                                           "shmap_all_gather", "shmap_collectives",
                                           "shmap_identity_pvary"));

// JAX's jax.vmap(f) texts (testdata/generate_ad.py) compute what axe's Vmap of f computes.
class JaxVmapTest : public ::testing::TestWithParam<const char*> {};

TEST_P(JaxVmapTest, SameValuesAsJaxsVmap) {
  ClosedJaxpr f = LoadJax(absl::StrCat(GetParam(), ".fwd"), "jax_ad");
  // JAX's vmap prints some params as np.int64(1), which axe's params do not read as ints
  // yet; the plain numbers are the same values.
  std::string text = std::regex_replace(
      testing_support::ReadIrTestdata(absl::StrCat("jax_ad/", GetParam(), ".vmap.txt")),
      std::regex(R"(np\.int64\((-?[0-9]+)\))"), "$1");
  absl::StatusOr<ClosedJaxpr> parsed = ParseJaxpr(text);
  ASSERT_THAT(parsed, IsOk());
  const ClosedJaxpr& jax = *parsed;
  absl::StatusOr<ClosedJaxpr> v = Vmap(f, Options({}, kSize));
  ASSERT_THAT(v, IsOk());
  ASSERT_EQ(v->jaxpr.in_avals(), jax.jaxpr.in_avals());
  std::mt19937_64 rng(testing_support::TestSeed(1206));
  std::vector<HostArray> args;
  for (const ShapedArray& a : jax.jaxpr.in_avals()) args.push_back(Random(a, rng));
  std::vector<HostArray> got = Eval(*v, args), want = Eval(jax, args);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ExpectNear(got[k], want[k], 1e-6, absl::StrCat(GetParam(), " out ", k));
  }
}

// cond's vmap text shows stop_gradient, outside axe's primitive set.
INSTANTIATE_TEST_SUITE_P(JaxAd, JaxVmapTest,
                         ::testing::Values("tanh_dot", "exp_log_div", "max_transpose", "scan"));

TEST(VmapTest, UnmappedOperandBroadcastsLikeJax) {
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(
      "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = sin a; d:f32[3] = mul c b in (d,) }");
  ASSERT_THAT(f, IsOk());
  absl::StatusOr<ClosedJaxpr> v = Vmap(*f, Options({0, std::nullopt}, 2));
  ASSERT_THAT(v, IsOk());
  // jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(x, y) shows the same equations (its
  // broadcast_dimensions print as (np.int64(1),)).
  EXPECT_EQ(PrintJaxpr(*v),
            "{ lambda ; a:f32[2,3] b:f32[3]. let\n"
            "    c:f32[2,3] = sin a\n"
            "    d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b\n"
            "    e:f32[2,3] = mul c d\n"
            "  in (e,) }");
}

TEST(VmapTest, InconsistentSizesIsJaxsError) {
  absl::StatusOr<ClosedJaxpr> f =
      ParseJaxpr("{ lambda ; a:f32[] b:f32[] c:f32[]. let d:f32[] = add a b in (d,) }");
  ASSERT_THAT(f, IsOk());
  VmapOptions o;
  o.arg_types = {ShapedArray({3}, DType::kF32), ShapedArray({4}, DType::kF32),
                 ShapedArray({3}, DType::kF32)};
  EXPECT_THAT(Vmap(*f, o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "vmap got inconsistent sizes for array axes to be mapped:\n"
                       "  * most axes (2 of them) had size 3, e.g. axis 0 of args[0] of type "
                       "f32[3];\n"
                       "  * one axis had size 4: axis 0 of args[1] of type f32[4]"));
}

TEST(VmapTest, RankTooSmallIsJaxsError) {
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr("{ lambda ; a:f32[]. let b:f32[] = neg a in (b,) }");
  ASSERT_THAT(f, IsOk());
  VmapOptions o = Options({2}, std::nullopt, {ShapedArray({3}, DType::kF32)});
  EXPECT_THAT(Vmap(*f, o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "vmap was requested to map its argument along axis 2, which implies "
                       "that its rank should be at least 3, but is only 1 (its shape is (3,))"));
  EXPECT_THAT(Vmap(*f, Options({std::nullopt}, std::nullopt)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("vmap must have at least one non-None value in in_axes")));
}

TEST(VmapTest, AxesAtTheInt64LimitsAreRankErrors) {
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr("{ lambda ; a:f32[]. let b:f32[] = neg a in (b,) }");
  ASSERT_THAT(f, IsOk());
  std::vector<ShapedArray> types = {ShapedArray({3}, DType::kF32)};
  EXPECT_THAT(Vmap(*f, Options({std::numeric_limits<int64_t>::min()}, std::nullopt, types)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rank should be at least 9223372036854775808, but is only 1")));
  EXPECT_THAT(Vmap(*f, Options({std::numeric_limits<int64_t>::max()}, std::nullopt, types)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rank should be at least 9223372036854775808, but is only 1")));
  EXPECT_THAT(Vmap(*f, Options({std::numeric_limits<int64_t>::min()}, 2)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rank should be at least")));
  absl::StatusOr<ClosedJaxpr> g = ParseJaxpr("{ lambda ; a:f32[2]. let b:f32[2] = neg a in (b,) }");
  ASSERT_THAT(g, IsOk());
  VmapOptions o = Options({0}, 2);
  o.out_axes = {std::numeric_limits<int64_t>::min()};
  EXPECT_THAT(Vmap(*g, o), StatusIs(absl::StatusCode::kInvalidArgument,
                                    HasSubstr("is out of range for an output of rank 2")));
}

TEST(VmapTest, MissingRuleIsJaxsError) {
  Primitive::Options options;
  options.name = "vmap_test_opaque";
  absl::StatusOr<const Primitive*> p = Primitive::Define(options);
  ASSERT_THAT(p, IsOk());
  RegisterAbstractEval(**p, [](absl::Span<const ShapedArray> avals, const Params&) {
    return absl::StatusOr<std::vector<ShapedArray>>(std::vector<ShapedArray>{avals[0]});
  });
  Builder b;
  Tracer x = b.Arg(ShapedArray({2}, DType::kF32));
  absl::StatusOr<ClosedJaxpr> f = b.Build({*b.Bind1(**p, {x})});
  ASSERT_THAT(f, IsOk());
  EXPECT_THAT(Vmap(*f, Options({}, 3)),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("Batching rule for 'vmap_test_opaque' not implemented")));
}

TEST(VmapTest, WrongArgumentTypeIsNamed) {
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr("{ lambda ; a:f32[2]. let b:f32[2] = neg a in (b,) }");
  ASSERT_THAT(f, IsOk());
  VmapOptions o = Options({}, std::nullopt, {ShapedArray({3, 3}, DType::kF32)});
  EXPECT_THAT(Vmap(*f, o), StatusIs(absl::StatusCode::kInvalidArgument,
                                    HasSubstr("argument 0 of type f32[3,3] mapped along axis 0 "
                                              "gives f32[3], not the function's input type "
                                              "f32[2]")));
}

}  // namespace
}  // namespace vmap_test
}  // namespace axe::ir
