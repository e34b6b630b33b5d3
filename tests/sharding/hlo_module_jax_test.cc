// axe hlo's reading of real modules against JAX 0.10.2: testdata/hlo_modules holds modules
// compiled on 8 CPU devices (compiled.as_text(), and some before partitioning) with what
// compiled.memory_analysis() said and the collectives the text holds
// (testdata/hlo_modules/generate.py regenerates them).
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "axe/sharding/hlo_module.h"
#include "axe/sharding/hlo_module_summary.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe::sharding {
namespace hlo_module_jax_test {
namespace {

using nlohmann::json;

std::string Dir() { return std::string(AXE_SHARDING_TESTDATA_DIR) + "/hlo_modules/"; }

std::string Read(const std::string& name) {
  std::ifstream in(Dir() + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::StatusOr<HloModuleSummary> Summary(const std::string& file) {
  absl::StatusOr<HloModuleText> m = ParseHloModule(Read(file));
  if (!m.ok()) return m.status();
  return SummarizeHloModule(*m, {.top = 0});
}

TEST(HloModuleJaxTest, ParameterAndOutputBytesAreMemoryAnalysis) {
  const json data = json::parse(Read("expected.json"), nullptr, false);
  ASSERT_TRUE(data.is_object()) << "cannot read " << Dir();
  ASSERT_GE(data["programs"].size(), 10u);
  for (const json& program : data["programs"]) {
    const std::string name = program["name"];
    SCOPED_TRACE(name);
    absl::StatusOr<HloModuleSummary> s = Summary(name + ".hlo");
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_TRUE(s->partitioning.partitioned);
    EXPECT_EQ(s->num_devices, program["num_devices"].get<int64_t>());
    EXPECT_EQ(s->memory.parameter_bytes, program["argument_size_in_bytes"].get<int64_t>());
    EXPECT_EQ(s->memory.output_bytes, program["output_size_in_bytes"].get<int64_t>());
  }
}

TEST(HloModuleJaxTest, CollectivesAreTheModulesOwn) {
  const json data = json::parse(Read("expected.json"), nullptr, false);
  ASSERT_TRUE(data.is_object()) << "cannot read " << Dir();
  for (const json& program : data["programs"]) {
    const std::string name = program["name"];
    SCOPED_TRACE(name);
    absl::StatusOr<HloModuleSummary> s = Summary(name + ".hlo");
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_EQ(s->collective_count, program["collectives"].size());
    // The summary sorts by bytes; compare as sorted (opcode, shape) lists.
    std::vector<std::string> expected, got;
    for (const json& c : program["collectives"]) {
      expected.push_back(c["opcode"].get<std::string>() + " " + c["shape"].get<std::string>());
    }
    for (const CollectiveSummary& c : s->collectives) {
      got.push_back(c.opcode + " " + c.result_shape);
      EXPECT_GT(c.devices, 0);
      EXPECT_GT(c.total_bytes, 0);
    }
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, expected);
  }
}

// Before partitioning the shapes are global: the same arrays' global dims either way.
TEST(HloModuleJaxTest, UnpartitionedModulesGiveTheSameGlobalShapes) {
  const json data = json::parse(Read("expected.json"), nullptr, false);
  ASSERT_TRUE(data.is_object()) << "cannot read " << Dir();
  int checked = 0;
  for (const json& program : data["programs"]) {
    if (!program.contains("unpartitioned")) continue;
    const std::string name = program["name"];
    SCOPED_TRACE(name);
    absl::StatusOr<HloModuleSummary> before = Summary(program["unpartitioned"]);
    absl::StatusOr<HloModuleSummary> after = Summary(name + ".hlo");
    ASSERT_TRUE(before.ok()) << before.status();
    ASSERT_TRUE(after.ok()) << after.status();
    EXPECT_FALSE(before->partitioning.partitioned);
    EXPECT_THAT(before->partitioning.evidence,
                ::testing::Contains(::testing::HasSubstr(
                    "1 sharding custom-call(s) (Sharding, SPMDFullToShardShape, xla.sdy.*)")));
    EXPECT_THAT(after->partitioning.evidence,
                ::testing::Not(::testing::Contains(::testing::HasSubstr("custom-call"))));
    EXPECT_EQ(before->num_devices, 8);
    // The parameters: per device bytes before = the partitioned module's parameter bytes.
    ASSERT_EQ(before->memory.parameter_bytes_per_device.size(), 8u);
    for (int64_t bytes : before->memory.parameter_bytes_per_device) {
      EXPECT_EQ(bytes, program["argument_size_in_bytes"].get<int64_t>());
    }
    for (const ShardedValue& v : after->sharded) {
      if (v.opcode != "parameter") continue;
      bool found = false;
      for (const ShardedValue& w : before->sharded) {
        if (w.opcode == "parameter" && w.sharding == v.sharding && w.global == v.global) {
          found = true;
        }
      }
      EXPECT_TRUE(found) << v.instruction;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace hlo_module_jax_test
}  // namespace axe::sharding
