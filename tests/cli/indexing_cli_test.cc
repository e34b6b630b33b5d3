// End-to-end tests of gather and scatter-add through `axe ir run` and `axe ir grad`: modes
// for out-of-bounds indices, the gradient of an embedding lookup, and bad input as one line
// with exit code 2.
#include <string>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe {
namespace indexing_cli_test {
namespace {

using ::testing::HasSubstr;
using testing::RunAxe;

std::string Gather(const std::string& mode, const std::string& slice_sizes) {
  return "{ lambda ; a:f32[4] b:i32[3,1]. let c:f32[3,2] = gather["
         "dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(), "
         "start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=()) "
         "fill_value=None indices_are_sorted=False mode=GatherScatterMode." +
         mode + " slice_sizes=" + slice_sizes + " unique_indices=False] a b in (c,) }";
}

TEST(IndexingCli, OutOfBoundsGathersClampOrFill) {
  for (const char* mode : {"CLIP", "PROMISE_IN_BOUNDS"}) {
    auto r = RunAxe({"ir", "run", Gather(mode, "(2,)"), "--arg", "f32[4]=10,11,12,13", "--arg",
                     "i32[3,1]=1,3,-5"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "f32[3,2] [[11.0, 12.0], [12.0, 13.0], [10.0, 11.0]]\n") << mode;
  }
  auto fill = RunAxe({"ir", "run", Gather("FILL_OR_DROP", "(2,)"), "--arg", "f32[4]=10,11,12,13",
                      "--arg", "i32[3,1]=1,3,-5"});
  ASSERT_EQ(fill.exit_code, 0) << fill.err;
  EXPECT_EQ(fill.out, "f32[3,2] [[11.0, 12.0], [nan, nan], [nan, nan]]\n");
}

TEST(IndexingCli, ABadSliceSizeIsOneLineAndExitCode2) {
  auto r = RunAxe(
      {"ir", "run", Gather("CLIP", "(5,)"), "--arg", "f32[4]=iota", "--arg", "i32[3,1]=iota"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("Slice size at index 0 in gather op is out of range, must be "
                               "within [0, 4 + 1), got 5."));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

// jax.grad of sum(table[ids]): a scatter-add of ones, repeated ids accumulating.
TEST(IndexingCli, GradOfAnEmbeddingLookupAccumulatesRepeatedIds) {
  const std::string loss =
      "{ lambda ; a:f32[4,2] b:i32[3]. let\n"
      "    c:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,) shape=(3, 1) sharding=None] b\n"
      "    d:f32[3,2] = gather[dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), "
      "collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), "
      "start_indices_batching_dims=()) fill_value=None indices_are_sorted=False "
      "mode=GatherScatterMode.PROMISE_IN_BOUNDS slice_sizes=(1, 2) unique_indices=False] a c\n"
      "    e:f32[] = reduce_sum[axes=(0, 1)] d\n"
      "  in (e,) }";
  auto grad = RunAxe({"ir", "grad", loss, "--argnums", "0"});
  ASSERT_EQ(grad.exit_code, 0) << grad.err;
  EXPECT_THAT(grad.out, HasSubstr("scatter-add["));
  auto run = RunAxe({"ir", "run", grad.out, "--arg", "f32[4,2]=iota", "--arg", "i32[3]=2,0,2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "f32[4,2] [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0], [0.0, 0.0]]\n");
}

}  // namespace
}  // namespace indexing_cli_test
}  // namespace axe
