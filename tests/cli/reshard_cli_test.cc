// End-to-end tests of `axe reshard` (small shapes only).
#include <algorithm>
#include <string>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace reshard_cli_test {
namespace {

using ::testing::HasSubstr;
using testing::RunAxe;
using testing::RunAxeWithStdin;

TEST(ReshardCli, RowsToColumnsJsonWithCheck) {
  auto r = RunAxe({"reshard", "--shape", "64,32", "--dtype", "f32", "--mesh", "x=2,y=2", "--from",
                   "P('x', None)", "--to", "P(None, 'y')", "--to-layout", "{0,1}", "--check",
                   "--json", "--repeat", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  // Each of the 4 devices keeps a 32x16 quarter of its 64x16 target and receives the other.
  EXPECT_EQ(j["v_min"], 4 * 32 * 16 * 4);
  EXPECT_EQ(j["bytes_moved"], j["v_min"]);
  EXPECT_EQ(j["messages"], 4);
  EXPECT_EQ(j["local_bytes"], 4 * 32 * 16 * 4);
  // Source shard (32x32) + target shard (64x16), 4 bytes each.
  EXPECT_EQ(j["peak_bytes_per_device"], (32 * 32 + 64 * 16) * 4);
  EXPECT_EQ(j["peak_bytes"].size(), 4u);
  EXPECT_EQ(j["backend"], "threads");
  EXPECT_EQ(j["check"], "passed");
  EXPECT_EQ(j["runs"], 2);
  EXPECT_GT(j["gbps"].get<double>(), 0);
  EXPECT_GT(j["baseline_gbps"].get<double>(), 0);
  const nlohmann::json& plan = j["plan"];
  EXPECT_EQ(plan["v_min_bytes"], j["v_min"]);
  EXPECT_EQ(plan["bytes_sent"], nlohmann::json::array({2048, 2048, 2048, 2048}));
  ASSERT_EQ(plan["messages"].size(), 4u);
  EXPECT_EQ(plan["messages"][0]["dst"], 0);
  EXPECT_EQ(plan["messages"][0]["box"], nlohmann::json::parse("[[32, 64], [0, 16]]"));
  EXPECT_THAT(plan["text"].get<std::string>(), HasSubstr("V_min 8192"));
}

TEST(ReshardCli, TextOutputStagedAndReplicatedToSharded) {
  auto r = RunAxe({"reshard", "--shape", "16,16", "--dtype", "bf16", "--mesh", "x=4", "--from",
                   "P()", "--to", "P('x')", "--transport", "staged", "--staging-bytes", "64",
                   "--check", "--repeat", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("V_min 0 bytes (0 elements) in 0 messages"));
  EXPECT_THAT(r.out, HasSubstr("moved     0 bytes between devices in 0 messages"));
  EXPECT_THAT(r.out, HasSubstr("staged transport"));
  EXPECT_THAT(r.out, HasSubstr("baseline"));
  EXPECT_THAT(r.out, HasSubstr("check     passed"));
}

TEST(ReshardCli, SpecFromStdin) {
  auto r = RunAxeWithStdin({"reshard", "--shape", "8,8", "--mesh", "x=2", "--from", "-", "--to",
                            "P(None, 'x')", "--json", "--repeat", "1"},
                           "P('x')\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["v_min"], 2 * 16 * 4);
}

TEST(ReshardCli, Errors) {
  auto r =
      RunAxe({"reshard", "--shape", "7,8", "--mesh", "x=2", "--from", "P('x')", "--to", "P()"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("One of the source values was given the sharding of"));
  EXPECT_THAT(r.err, HasSubstr("its dimension 0 should be divisible by 2"));
  r = RunAxe({"reshard", "--shape", "8,8", "--mesh", "x=2", "--from", "P('z')", "--to", "P()"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--from: Resource axis: z of P('z',) is not found in mesh"));
  r = RunAxe({"reshard", "--shape", "8,8", "--mesh", "x=2", "--from", "P('x')", "--to", "P()",
              "--backend", "mpi"});
  EXPECT_EQ(r.exit_code, 2);
  // Outside mpirun one rank runs (or axe has no MPI): an error either way.
  EXPECT_THAT(r.err, ::testing::AnyOf(HasSubstr("2 devices but 1 MPI ranks run; use mpirun -n 2"),
                                      HasSubstr("unknown backend 'mpi'; this axe has threads")));
  // The MPI timeout is checked before MPI starts: one line, never a wait.
  for (const char* timeout : {"0", "-1", "nan", "1e7"}) {
    r = RunAxe({"reshard", "--shape", "8,8", "--mesh", "x=2", "--from", "P('x')", "--to", "P()",
                "--backend", "mpi", "--mpi-timeout", timeout});
    EXPECT_EQ(r.exit_code, 2) << timeout;
    EXPECT_THAT(r.err,
                ::testing::AnyOf(HasSubstr("axe: error: --mpi-timeout: the MPI timeout must be "
                                           "positive and at most 1000000 s, got "),
                                 HasSubstr("unknown backend 'mpi'; this axe has threads")))
        << timeout;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  r = RunAxe({"reshard", "--shape", "8,8", "--mesh", "x=2", "--from", "P('x')", "--to", "P()",
              "--to-layout", "{0,1,2}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("local layout Layout(major_to_minor=(2, 1, 0), tiling=(), "
                               "sub_byte_element_size_in_bits=0): Length of major_to_minor and "
                               "the rank of the value should match"));
  r = RunAxe({"reshard", "--shape", "8,8", "--mesh", "x=2", "--from", "P('x')", "--to", "P()",
              "--transport", "pigeon"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--transport: expected direct or staged, got 'pigeon'"));
  r = RunAxe({"reshard", "--shape", "8,8", "--mesh", "x=2", "--from", "P('x')", "--to", "P()",
              "--local-copies", "elsewhere"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--local-copies: expected auto, worker or caller, got 'elsewhere'"));
  r = RunAxe({"reshard", "--shape", "8,8", "--mesh", "x=2", "--from", "P('x')", "--to", "P()",
              "--transport", "staged", "--staging-bytes", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("a staging buffer of 2 bytes cannot hold one element of 4"));
  r = RunAxe(
      {"reshard", "--shape", "8,8", "--mesh", "x=2,y=1024", "--from", "P('x')", "--to", "P()"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--mesh: the threads backend runs at most 1024 devices, not 2048"));
}

TEST(ReshardCli, RefusesWhatExceedsTheMemoryBudget) {
  // 64 MiB of f32 resharded on 8 devices: far beyond 16 MiB.
  auto r = RunAxe({"--memory-limit", "16M", "reshard", "--shape", "4096,4096", "--mesh", "x=8",
                   "--from", "P('x')", "--to", "P(None, 'x')"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("the reshard (data, both arrays, the baseline) needs "
                               "about"));
  EXPECT_THAT(r.err, HasSubstr("the memory budget is 16.0 MiB (16777216 bytes), from "
                               "--memory-limit"));
  // --backend mpi: each rank's share, refused before MPI starts.
  r = RunAxe({"--memory-limit", "16M", "reshard", "--shape", "4096,4096", "--mesh", "x=8", "--from",
              "P('x')", "--to", "P(None, 'x')", "--backend", "mpi"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::AnyOf(HasSubstr("each MPI rank of the reshard needs about"),
                                      HasSubstr("unknown backend 'mpi'; this axe has threads")));
}

}  // namespace
}  // namespace reshard_cli_test
}  // namespace axe

namespace axe {
namespace reshard_cli_test {
namespace {

TEST(ReshardCli, AMeshOnDevicesFourToSeven) {
  auto r = testing::RunAxe({"reshard", "--shape", "16,8", "--mesh", "x=2,y=2,devices=[4,5,6,7]",
                            "--from", "P('x', None)", "--to", "P(None, 'y')", "--check", "--json",
                            "--repeat", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["check"], "passed");
}

}  // namespace
}  // namespace reshard_cli_test
}  // namespace axe
