// End-to-end tests of `axe collective` on the threads backend (small shapes only); the MPI
// backend's runs under mpirun are ctest entries of tests/runtime (runtime.mpi.cli_*).
#include <string>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace collective_cli_test {
namespace {

using ::testing::HasSubstr;
using testing::RunAxe;

TEST(CollectiveCli, EveryOpChecksAgainstTheHostReference) {
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "permute"}) {
    auto r = RunAxe({"collective", "--op", op, "--mesh", "x=2,y=2", "--axes", "y,x", "--shape",
                     "8,6", "--dtype", "bf16", "--repeat", "2", "--check", "--json"});
    ASSERT_EQ(r.exit_code, 0) << op << ": " << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["op"], op);
    EXPECT_EQ(j["check"], "passed") << op;
    EXPECT_EQ(j["group_size"], 4);
    EXPECT_EQ(j["backend"], "threads");
    EXPECT_EQ(j["runs"], 2);
    EXPECT_GT(j["busbw_gbps"].get<double>(), 0);
    EXPECT_GT(j["baseline_busbw_gbps"].get<double>(), 0);
  }
}

TEST(CollectiveCli, ShapesAndBusFactorsFollowTheOp) {
  auto gather = RunAxe({"collective", "--op", "all_gather", "--mesh", "x=4", "--axes", "x",
                        "--shape", "8,2", "--json", "--repeat", "1"});
  ASSERT_EQ(gather.exit_code, 0) << gather.err;
  nlohmann::json g = nlohmann::json::parse(gather.out);
  EXPECT_EQ(g["output_shape"], nlohmann::json::parse("[32, 2]"));
  EXPECT_EQ(g["size_bytes"], 32 * 2 * 4);  // S of all_gather: the output
  EXPECT_DOUBLE_EQ(g["bus_factor"].get<double>(), 0.75);
  auto reduce = RunAxe({"collective", "--op", "all_reduce", "--mesh", "x=4", "--axes", "x",
                        "--shape", "8,2", "--json", "--repeat", "1"});
  ASSERT_EQ(reduce.exit_code, 0) << reduce.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(reduce.out)["bus_factor"].get<double>(), 1.5);
}

TEST(CollectiveCli, TextOutputNamesTheBaseline) {
  auto r = RunAxe({"collective", "--op", "all_to_all", "--mesh", "x=2", "--axes", "x", "--shape",
                   "4,4", "--repeat", "1", "--check"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("all_to_all of f32[4,4] per device over (x) of Mesh('x': 2)"));
  EXPECT_THAT(r.out, HasSubstr("memcpy of each device's result bytes"));
  EXPECT_THAT(r.out, HasSubstr("check     passed"));
}

TEST(CollectiveCli, ErrorsAreOneLineExitTwo) {
  auto bad_op =
      RunAxe({"collective", "--op", "bogus", "--mesh", "x=4", "--axes", "x", "--shape", "8"});
  EXPECT_EQ(bad_op.exit_code, 2);
  EXPECT_THAT(bad_op.err, HasSubstr("--op: unknown collective 'bogus'"));
  auto axis =
      RunAxe({"collective", "--op", "all_gather", "--mesh", "x=4", "--axes", "z", "--shape", "8"});
  EXPECT_EQ(axis.exit_code, 2);
  EXPECT_THAT(axis.err, HasSubstr("unbound axis name: z"));
  auto divisible = RunAxe(
      {"collective", "--op", "reduce_scatter", "--mesh", "x=4", "--axes", "x", "--shape", "6"});
  EXPECT_EQ(divisible.exit_code, 2);
  EXPECT_THAT(divisible.err, HasSubstr("scatter dimension size 6 must be divisible by "
                                       "shard_count 4"));
  auto backend = RunAxe({"collective", "--op", "permute", "--mesh", "x=2", "--axes", "x", "--shape",
                         "8", "--backend", "gpu"});
  EXPECT_EQ(backend.exit_code, 2);
  EXPECT_THAT(backend.err, HasSubstr("--backend: expected threads or mpi, got 'gpu'"));
  auto repeat = RunAxe({"collective", "--op", "permute", "--mesh", "x=2", "--axes", "x", "--shape",
                        "8", "--repeat", "0"});
  EXPECT_EQ(repeat.exit_code, 2);
  EXPECT_THAT(repeat.err, HasSubstr("--repeat: must be between 1 and 1000, got 0"));
}

}  // namespace
}  // namespace collective_cli_test
}  // namespace axe
