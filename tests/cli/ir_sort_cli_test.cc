// End-to-end tests of sort, top_k, remat2 and reshard through `axe ir run`, `axe ir grad`,
// `axe ir vmap` and `axe ir check`, on JAX's printouts (tests/ir/testdata/jax_sort).
#include <string>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe {
namespace ir_sort_cli_test {
namespace {

using ::testing::HasSubstr;
using testing::RunAxe;
using testing::RunAxeWithStdin;

std::string Case(const std::string& file) {
  return std::string("@") + AXE_SOURCE_DIR + "/tests/ir/testdata/jax_sort/" + file;
}

// jnp.sort and jnp.argsort as JAX gives them: -inf first, -0.0 and 0.0 in input order, NaNs
// last.
TEST(IrSortCli, RunSortsSpecialFloatsAsJax) {
  auto r = RunAxe({"ir", "run", Case("sort_special.txt"), "--arg",
                   "f32[11]=3,-0.0,0.0,nan,-inf,1,-1,nan,0,inf,-0.0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "f32[11] [-inf, -1.0, -0.0, 0.0, 0.0, -0.0, 1.0, 3.0, inf, nan, nan]\n"
            "i32[11] [4, 6, 1, 2, 8, 10, 5, 0, 9, 3, 7]\n");
}

// The gradient of a loss of top_k at ties is jax.grad's (the values file's `grad` line).
TEST(IrSortCli, GradOfTopKAtTiesRunsToJaxsGradient) {
  auto g = RunAxe({"ir", "grad", Case("top_k_ties.loss.txt")});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  auto r = RunAxeWithStdin(
      {"ir", "run", "-", "--arg",
       "f32[2,7]=-0.75,0.75,0.25,-0.25,-0.75,0.75,0.25,-0.25,-0.75,0.75,0.25,-0.25,-0.75,0.75"},
      g.out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "f32[2,7] [[0.0, 0.73168886, 0.9689124, 0.9689124, 0.0, 0.73168886, 0.9689124], "
            "[0.9689124, 0.0, 0.73168886, 0.9689124, 0.9689124, 0.0, 0.73168886]]\n");
}

TEST(IrSortCli, VmapOfACheckpointPrintsABatchedProgram) {
  auto r = RunAxe({"ir", "vmap", Case("remat_dots.txt"), "--size", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("{ lambda ; a:f32[3,2,3] b:f32[3,3,2]. let"));
  EXPECT_THAT(r.out, HasSubstr("tanh"));
}

// Bad input: one line on stderr, exit 2, in JAX's words or at the text position.
TEST(IrSortCli, BadTopKAndShardedTypesAreOneLineErrors) {
  auto k = RunAxeWithStdin(
      {"ir", "check", "-"},
      "{ lambda ; a:f32[2,3]. let b:f32[2,5] c:i32[2,5] = top_k[axis=1 k=5] a in (b, c) }");
  EXPECT_EQ(k.exit_code, 2);
  EXPECT_THAT(k.err, HasSubstr("k argument to top_k must be no larger than size along axis; got "
                               "k=5 with shape=[2, 3] and axis=1"));
  EXPECT_EQ(k.err.find('\n'), k.err.size() - 1) << k.err;
  // Types with explicit shardings (f32[8@x,2]) are read; a malformed one is refused.
  EXPECT_EQ(RunAxe({"ir", "check", Case("explicit_reshard.txt")}).exit_code, 0);
  auto s = RunAxeWithStdin({"ir", "check", "-"}, "{ lambda ; a:f32[8@,2]. let  in (a,) }");
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_THAT(s.err, HasSubstr("expected a mesh axis name after '@'"));
  EXPECT_EQ(s.err.find('\n'), s.err.size() - 1) << s.err;
}

}  // namespace
}  // namespace ir_sort_cli_test
}  // namespace axe
