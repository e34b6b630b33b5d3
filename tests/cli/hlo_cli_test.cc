// End-to-end tests of `axe hlo summary`, run as a user would, on a module JAX compiled.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace hlo_cli_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::RunAxe;
using testing::RunAxeWithStdin;
using ::testing::StartsWith;

const std::string kModules = std::string(AXE_SOURCE_DIR) + "/tests/sharding/testdata/hlo_modules/";

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(HloCli, SummaryTellsPartitioningShardingsCollectivesAndMemory) {
  auto r = RunAxe({"hlo", "summary", "@" + kModules + "matmul_2d.hlo"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("partitioned, 8 devices: num_partitions=8 and the entry "
                               "computation %main.0_spmd is the SPMD partitioner's"));
  EXPECT_THAT(r.out, HasSubstr("  %param = parameter, line 16: f32[16,16]{1,0} "
                               "sharding={devices=[2,4]<=[8]}\n"
                               "    global [32,64] (8192 bytes), each device's shard at most "
                               "[16,16] (1024 bytes)\n    device 0: [[0, 16], [0, 16]]\n"));
  EXPECT_THAT(r.out, HasSubstr("    replica_groups={{0,1,2,3},{4,5,6,7}}: 2 groups of 4\n"
                               "    each device: 1024 bytes in, sends 1536, receives 1536; 8 "
                               "devices send 12288 bytes in all\n"));
  EXPECT_THAT(r.out, HasSubstr("  parameters 2048 bytes, outputs 1024 bytes"));
}

TEST(HloCli, SummaryJsonHasTheStableFields) {
  auto r = RunAxe({"hlo", "summary", "@" + kModules + "shard_map_ppermute.hlo", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["partitioned"], true);
  EXPECT_EQ(j["num_devices"], 8);
  ASSERT_EQ(j["collectives"].size(), 1u);
  const json& c = j["collectives"][0];
  EXPECT_EQ(c["opcode"], "collective-permute");
  EXPECT_EQ(c["channel_id"], 1);
  EXPECT_EQ(c["operand_bytes"], 128);
  EXPECT_EQ(c["total_bytes"], 8 * 128);
  EXPECT_EQ(c["source_target_pairs"].size(), 8u);
  EXPECT_EQ(c["num_groups"], 8);
  EXPECT_EQ(j["memory"]["parameter_bytes"], 128);
  EXPECT_EQ(j["memory"]["output_bytes"], 128);
  EXPECT_EQ(j["sharded"][0]["global_dims"], json::parse("[32,8]"));
  EXPECT_EQ(j["sharded"][0]["devices"][7]["index"], json::parse("[[28,32],[0,8]]"));
}

TEST(HloCli, ExplainIsSummaryAndStdinWorks) {
  auto r = RunAxeWithStdin({"hlo", "explain", "-", "--json"},
                           Read(kModules + "matmul_1d.unpartitioned.hlo"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["partitioned"], false);
  EXPECT_EQ(j["memory"]["parameter_bytes_per_device"], json::parse("[3072,3072,3072,3072,"
                                                                   "3072,3072,3072,3072]"));
}

TEST(HloCli, TopLimitsTheLists) {
  auto r = RunAxe({"hlo", "summary", "@" + kModules + "reduce_3d.hlo", "--top", "1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["collectives"].size(), 1u);
  EXPECT_EQ(j["collective_count"], 2);
  EXPECT_EQ(j["collectives"][0]["num_groups"], 4);
  EXPECT_EQ(j["collectives"][0]["group_size"], 2);
  EXPECT_EQ(j["collectives"][0]["replica_groups"], json::parse("[[0,1],[2,3],[4,5],[6,7]]"));
  EXPECT_EQ(j["sharded"].size(), 1u);
  EXPECT_EQ(j["sharded_count"], 2);
}

TEST(HloCli, SvgDrawsTheEntryComputation) {
  const std::string svg = ::testing::TempDir() + "/hlo_module.svg";
  auto r = RunAxe({"hlo", "summary", "@" + kModules + "matmul_2d.hlo", "--svg", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = Read(svg);
  EXPECT_THAT(text, StartsWith("<?xml"));
  EXPECT_THAT(text, HasSubstr("replica_groups={{0,1,2,3},{4,5,6,7}}, channel_id=1"));
  EXPECT_THAT(text, HasSubstr("sharding={devices=[2,4]&lt;=[8]}"));
}

TEST(HloCli, BadInputIsOneLineAndExitTwo) {
  auto r = RunAxeWithStdin({"hlo", "summary", "-"},
                           "HloModule m\nENTRY %e () -> f32[] {\n  %c = f32[ constant(1)\n}\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err,
              StartsWith("axe: error: module: line 3, column 13: expected a dimension size"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  r = RunAxe({"hlo", "summary", "@" + kModules + "matmul_2d.hlo", "--top", "-1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--top: -1 is negative"));
  r = RunAxe({"hlo", "summary", "@/nonexistent/module.hlo"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(HloCli, TheMemoryBudgetIsCheckedBeforeReading) {
  auto r = RunAxe({"hlo", "summary", "@" + kModules + "matmul_2d.hlo", "--memory-limit", "4096"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("reading a module of 1465 bytes needs about 17.2 KiB"));
  EXPECT_THAT(r.err, HasSubstr("from --memory-limit"));
}

TEST(HloCli, HelpNamesTheOptions) {
  auto r = RunAxe({"hlo", "summary", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("--top"));
  EXPECT_THAT(r.out, HasSubstr("--svg"));
  EXPECT_THAT(r.out, HasSubstr("--json"));
}

}  // namespace
}  // namespace hlo_cli_test
}  // namespace axe
