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
  EXPECT_THAT(backend.err, HasSubstr("--backend: unknown backend 'gpu'; this axe has threads"));
  auto repeat = RunAxe({"collective", "--op", "permute", "--mesh", "x=2", "--axes", "x", "--shape",
                        "8", "--repeat", "0"});
  EXPECT_EQ(repeat.exit_code, 2);
  EXPECT_THAT(repeat.err, HasSubstr("--repeat: must be between 1 and 1000, got 0"));
}

TEST(CollectiveCli, RefusesWhatExceedsTheMemoryBudgetBeforeAllocating) {
  // 64 devices gathering 64 MiB each: 4 GiB of result per device.
  auto gather = RunAxe({"--memory-limit", "64M", "collective", "--op", "all_gather", "--mesh",
                        "x=64", "--axes", "x", "--shape", "4096,4096"});
  EXPECT_EQ(gather.exit_code, 2);
  EXPECT_THAT(gather.err, HasSubstr("the all_gather of f32[4096,4096] on 64 devices of this "
                                    "process needs about 1.3 TiB"));
  EXPECT_THAT(gather.err, HasSubstr("the memory budget is 64.0 MiB (67108864 bytes), from "
                                    "--memory-limit"));
  // 2^40 elements per device: refused by the default budget, not by std::bad_alloc.
  auto reduce = RunAxe({"collective", "--op", "all_reduce", "--mesh", "x=2", "--axes", "x",
                        "--shape", "1048576,1048576"});
  EXPECT_EQ(reduce.exit_code, 2);
  EXPECT_THAT(reduce.err, HasSubstr("the all_reduce of f32[1048576,1048576] on 2 devices of this "
                                    "process needs about 56.0 TiB"));
  // The MPI backend checks a rank's share before MPI starts.
  auto mpi = RunAxe({"collective", "--op", "all_gather", "--mesh", "x=64", "--axes", "x", "--shape",
                     "4096,4096", "--backend", "mpi", "--memory-limit", "64M"});
  EXPECT_EQ(mpi.exit_code, 2);
  EXPECT_THAT(mpi.err, ::testing::AnyOf(HasSubstr("on 1 device of this process needs about "
                                                  "20.1 GiB"),
                                        HasSubstr("unknown backend 'mpi'; this axe has threads")));
  for (const auto* r : {&gather, &reduce, &mpi}) {
    EXPECT_EQ(r->err.find('\n'), r->err.size() - 1) << r->err;
  }
  // Within the budget it runs.
  auto small = RunAxe({"--memory-limit", "1M", "collective", "--op", "all_gather", "--mesh", "x=2",
                       "--axes", "x", "--shape", "64", "--check"});
  EXPECT_EQ(small.exit_code, 0) << small.err;
}

}  // namespace
}  // namespace collective_cli_test
}  // namespace axe

namespace axe {
namespace collective_cli_test {
namespace {

TEST(CollectiveCli, AMeshOnDevicesFourToSevenRunsEveryOp) {
  // Sub-meshes (pipeline stages): the client has devices 0-7, the collective uses 4-7 (in a
  // permuted order, too) and checks every result against the host reference.
  for (const char* devices : {"devices=[4,5,6,7]", "devices=[7,5,6,4]"}) {
    for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "permute"}) {
      auto r = testing::RunAxe({"collective", "--op", op, "--mesh",
                                std::string("x=2,y=2,") + devices, "--axes", "y,x", "--shape",
                                "8,6", "--repeat", "2", "--check", "--json"});
      ASSERT_EQ(r.exit_code, 0) << op << " " << devices << ": " << r.err;
      EXPECT_EQ(nlohmann::json::parse(r.out)["check"], "passed") << op << " " << devices;
    }
  }
}

}  // namespace
}  // namespace collective_cli_test
}  // namespace axe
