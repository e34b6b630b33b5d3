// End-to-end tests of `axe ir grad` and `axe ir vmap`: the printed jaxprs, --json, and the
// one-line errors (exit 2).
#include <string>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace ir_ad_cli_test {
namespace {

using ::testing::HasSubstr;
using testing::RunAxe;
using testing::RunAxeWithStdin;

const char kSinMulSum[] =
    "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = sin a; d:f32[3] = mul c b; "
    "e:f32[] = reduce_sum[axes=(0,) out_sharding=None] d in (e,) }";

const char kSinMul[] =
    "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = sin a; d:f32[3] = mul c b in (d,) }";

TEST(IrAdCli, GradPrintsTheGradientJaxpr) {
  auto r = RunAxe({"ir", "grad", kSinMulSum});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{ lambda ; a:f32[3] b:f32[3]. let\n"
            "    c:f32[3] = cos a\n"
            "    d:f32[3] = broadcast_in_dim 1.0:f32[]\n"
            "    e:f32[3] = mul d b\n"
            "    f:f32[3] = mul e c\n"
            "  in (f,) }\n");
  auto j = RunAxeWithStdin({"ir", "grad", "-", "--argnums", "0,1", "--json"}, kSinMulSum);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json out = nlohmann::json::parse(j.out);
  EXPECT_EQ(out["argnums"], nlohmann::json::parse("[0, 1]"));
  EXPECT_EQ(out["out_avals"], nlohmann::json::parse(R"(["f32[3]", "f32[3]"])"));
  EXPECT_THAT(out["jaxpr"].get<std::string>(), HasSubstr("in (h, f) }"));
}

TEST(IrAdCli, GradOfANonScalarOutputIsJaxsErrorOnOneLine) {
  auto r = RunAxe({"ir", "grad", kSinMul});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("Gradient only defined for scalar-output functions. Output had "
                               "shape: (3,)."));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  auto bad = RunAxe({"ir", "grad", kSinMulSum, "--argnums", "5"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("argnums: 5 is out of range"));
}

std::string Kinks(const std::string& name) {
  return std::string("@") + AXE_SOURCE_DIR + "/tests/ir/testdata/jax_kinks/" + name + ".txt";
}

// A JAX-printed custom_vjp_call names its rule (fwd=<lambda>, bwd=<lambda>) without carrying
// it: grad refuses on one line rather than differentiating the call_jaxpr.
TEST(IrAdCli, GradOfACustomVjpCallIsRefusedOnOneLine) {
  auto r = RunAxe(
      {"ir", "grad",
       std::string("@") + AXE_SOURCE_DIR + "/tests/ir/testdata/jax_more/custom_vjp.loss.txt"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("cannot differentiate custom_vjp_call (name=sin_with_vjp): its "
                               "custom rule (fwd=<lambda>, bwd=<lambda>) is a Python function"));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

// jax.nn.relu at 0 has gradient 0 (its custom rule), max at a tie 0.5 for each operand.
TEST(IrAdCli, GradAtKinksIsJaxs) {
  auto relu = RunAxe({"ir", "grad",
                      "{ lambda ; a:f32[]. let b:f32[] = custom_jvp_call[name=relu "
                      "call_jaxpr={ lambda ; c:f32[]. let d:f32[] = max c 0.0:f32[] in (d,) } "
                      "jvp=jvp symbolic_zeros=False] a in (b,) }"});
  ASSERT_EQ(relu.exit_code, 0) << relu.err;
  auto at0 = RunAxeWithStdin({"ir", "run", "-", "--arg", "f32[]=0"}, relu.out);
  ASSERT_EQ(at0.exit_code, 0) << at0.err;
  EXPECT_EQ(at0.out, "f32[] 0.0\n");
  auto max = RunAxe({"ir", "grad", "--argnums", "0,1",
                     "{ lambda ; a:f32[] b:f32[]. let c:f32[] = max a b in (c,) }"});
  ASSERT_EQ(max.exit_code, 0) << max.err;
  auto tie = RunAxeWithStdin({"ir", "run", "-", "--arg", "f32[]=1", "--arg", "f32[]=1"}, max.out);
  ASSERT_EQ(tie.exit_code, 0) << tie.err;
  EXPECT_EQ(tie.out, "f32[] 0.5\nf32[] 0.5\n");
}

// `axe ir transpose` of add with a rank-0 operand broadcast to f32[3]: the cotangent summed.
TEST(IrAdCli, TransposeOfARankZeroBroadcastOperand) {
  auto t = RunAxe({"ir", "transpose", Kinks("transpose_add_rank0")});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  auto r = RunAxeWithStdin({"ir", "run", "-", "--arg", "f32[3]=iota"}, t.out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "f32[] 3.0\nf32[3] [0.0, 1.0, 2.0]\n");
}

TEST(IrAdCli, VmapPrintsTheBatchedJaxpr) {
  auto r = RunAxe({"ir", "vmap", kSinMul, "--size", "2", "--in-axes", "0,none"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{ lambda ; a:f32[2,3] b:f32[3]. let\n"
            "    c:f32[2,3] = sin a\n"
            "    d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b\n"
            "    e:f32[2,3] = mul c d\n"
            "  in (e,) }\n");
  auto j = RunAxe({"ir", "vmap", kSinMul, "--size", "4", "--axis", "1", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json out = nlohmann::json::parse(j.out);
  EXPECT_EQ(out["in_avals"], nlohmann::json::parse(R"(["f32[3,4]", "f32[3,4]"])"));
  EXPECT_EQ(out["out_avals"], nlohmann::json::parse(R"(["f32[3,4]"])"));
  EXPECT_EQ(out["in_axes"], nlohmann::json::parse("[1, 1]"));
  EXPECT_EQ(out["out_axes"], nlohmann::json::parse("[1]"));
  EXPECT_EQ(out["axis_size"], 4);
}

TEST(IrAdCli, VmapErrorsAreOneLine) {
  auto r = RunAxe({"ir", "vmap", kSinMul, "--size", "2", "--in-axes", "0,x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--in-axes: 'x' is neither an integer nor none"));
  auto rank = RunAxe({"ir", "vmap", kSinMul, "--size", "2", "--axis", "3"});
  EXPECT_EQ(rank.exit_code, 2);
  EXPECT_THAT(rank.err, HasSubstr("vmap was requested to map its argument along axis 3"));
  auto none = RunAxe({"ir", "vmap", kSinMul, "--size", "2", "--in-axes", "none,none"});
  EXPECT_EQ(none.exit_code, 0) << none.err;  // axis_size given: outputs broadcast
}

}  // namespace
}  // namespace ir_ad_cli_test
}  // namespace axe
