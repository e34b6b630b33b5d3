// axe against the real JAX on shardings as programs have them: testdata/jax_programs.json
// holds what jax 0.10.2 printed for partitioned programs (compiled HLO with per-device
// shapes), a SingleDeviceSharding, and meshes over device ids other than 0..N-1
// (testdata/generate_jax_programs.py regenerates it).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "axe/layout/axis_catalog.h"
#include "axe/layout/layout.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/explain.h"
#include "axe/sharding/from_axe.h"
#include "axe/sharding/hlo_module_shardings.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/sharding/sharding.h"
#include "axe/sharding/to_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/status_matchers.h"
#include "test_util.h"

namespace axe::sharding {
namespace jax_programs_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)
using ::axe::testing_support::StatusIs;
using nlohmann::json;
using ::testing::HasSubstr;

json Load() {
  std::ifstream in(std::string(AXE_SHARDING_TESTDATA_DIR) + "/jax_programs.json");
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

// A device map as the fixture writes JAX's devices_indices_map.
json MapJson(const std::vector<DeviceShard>& map) {
  json out = json::object();
  for (const DeviceShard& d : map) {
    json box = json::array();
    for (const auto& [start, stop] : d.index) box.push_back({start, stop});
    out[std::to_string(d.device)] = box;
  }
  return out;
}

TEST(JaxProgramsTest, PartitionedModulesGiveGlobalShapes) {
  const json data = Load();
  ASSERT_TRUE(data.is_object()) << "cannot read " << AXE_SHARDING_TESTDATA_DIR;
  ASSERT_EQ(data["partitioned"].size(), 3u);
  for (const json& program : data["partitioned"]) {
    SCOPED_TRACE(program["name"].get<std::string>());
    const json& args = program["arguments"];
    for (const char* which : {"after", "before"}) {
      SCOPED_TRACE(which);
      absl::StatusOr<ModuleShardings> module =
          ReadModuleShardings(program[which].get<std::string>());
      ASSERT_TRUE(module.ok()) << module.status();
      const bool after = std::string(which) == "after";
      EXPECT_EQ(module->partitioning.partitioned, after) << module->partitioning.reason;
      // The parameters come first, in order.
      ASSERT_GE(module->shardings.size(), args.size());
      for (size_t i = 0; i < args.size(); ++i) {
        const ModuleSharding& s = module->shardings[i];
        const std::vector<int64_t> shape = args[i]["shape"].get<std::vector<int64_t>>();
        EXPECT_EQ(s.global, shape) << s.instruction;
        EXPECT_EQ(s.sharding.ToString(), args[i]["hlo"].get<std::string>());
        const int64_t n =
            after ? module->partitioning.num_partitions : DeviceCountNamed(s.sharding);
        absl::StatusOr<std::vector<DeviceShard>> map = DevicesIndicesMap(s.sharding, s.global, n);
        ASSERT_TRUE(map.ok()) << map.status();
        EXPECT_EQ(MapJson(*map), args[i]["devices_indices_map"]);
      }
    }
  }
}

TEST(JaxProgramsTest, ModuleRule) {
  absl::StatusOr<ModulePartitioning> p = ReadModulePartitioning(
      "HloModule m, num_partitions=4\n\nENTRY %main.0_spmd (p: f32[2]) -> f32[2] {\n}\n");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->partitioned);
  EXPECT_EQ(p->entry_name, "main.0_spmd");
  // num_partitions before partitioning (a dump before optimizations): global shapes.
  p = ReadModulePartitioning("HloModule m, num_partitions=4\nENTRY %main.3 (p: f32[2]) {\n}\n");
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->partitioned);
  EXPECT_THAT(p->reason, HasSubstr("not partitioned yet"));
  EXPECT_THAT(ReadModulePartitioning("HloModule m, num_partitions=x4\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 1: num_partitions=x4 is not a positive integer")));
  // A tuple sharding gives one array per element; a frontend attribute is no sharding.
  absl::StatusOr<ModuleShardings> m = ReadModuleShardings(
      "HloModule m, num_partitions=2\nENTRY %e_spmd () -> (f32[2], f32[4]) {\n"
      "  %c = f32[2]{0} custom-call(), frontend_attributes={xla.sdy.sharding=\"x\"}\n"
      "  ROOT %t = (f32[2]{0}, f32[4]{0}) tuple(), sharding={{devices=[2]<=[2]}, "
      "{replicated}}\n}\n");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->shardings.size(), 2u);
  EXPECT_EQ(m->shardings[0].instruction, "%t{0}");
  EXPECT_EQ(m->shardings[0].global, (std::vector<int64_t>{4}));
  EXPECT_EQ(m->shardings[1].global, (std::vector<int64_t>{4}));
}

TEST(JaxProgramsTest, SingleDeviceShardingIsOneDevice) {
  const json data = Load();
  ASSERT_TRUE(data.is_object());
  const json& c = data["single_device"];
  absl::StatusOr<Sharding> s = Sharding::Parse(c["repr"].get<std::string>());
  ASSERT_TRUE(s.ok()) << s.status();
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{4, 4}, std::vector<int64_t>{}}) {
    absl::StatusOr<ShardingExplanation> e = ExplainSharding(shape, *s, ExplainOptions{});
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ(e->num_devices, c["num_devices"].get<int64_t>());
    EXPECT_EQ(MapJson(e->devices),
              c[shape.empty() ? "scalar_devices_indices_map" : "devices_indices_map"]);
    EXPECT_EQ(e->shardy_mesh, c["shardy_mesh"].get<std::string>());
    ASSERT_TRUE(e->axe.text.has_value()) << e->axe.reason;
  }
  absl::StatusOr<ShardingExplanation> e = ExplainSharding({4, 4}, *s, ExplainOptions{});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->shardy.text.value_or(""), c["shardy"].get<std::string>());
}

TEST(JaxProgramsTest, ScalarsHaveAnAxeFormThatReadsBack) {
  for (const char* text : {"S[1:1] + R[2:1@gpuid]", "S[1:1]", "S[1:1] + 3@gpuid"}) {
    SCOPED_TRACE(text);
    absl::StatusOr<axe::Layout> layout = axe::Layout::Parse(text, AxisCatalog::Standard());
    ASSERT_TRUE(layout.ok()) << layout.status();
    absl::StatusOr<ShardingOfLayout> found = ShardingFromAxe(*layout, {}, std::nullopt);
    ASSERT_TRUE(found.ok()) << found.status();
    absl::StatusOr<ShardingExplanation> e = ExplainSharding({}, found->sharding, ExplainOptions{});
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ(e->axe.text.value_or(e->axe.reason), text);
  }
}

TEST(JaxProgramsTest, MeshesOverAnyDeviceIds) {
  const json data = Load();
  ASSERT_TRUE(data.is_object());
  ASSERT_EQ(data["device_meshes"].size(), 5u);
  for (const json& c : data["device_meshes"]) {
    std::vector<MeshAxis> axes;
    for (size_t j = 0; j < c["mesh_axes"].size(); ++j) {
      axes.push_back({c["mesh_axes"][j].get<std::string>(), c["mesh_sizes"][j].get<int64_t>()});
    }
    absl::StatusOr<Mesh> mesh = Mesh::Create(axes, c["devices"].get<std::vector<int64_t>>());
    ASSERT_TRUE(mesh.ok()) << mesh.status();
    SCOPED_TRACE(mesh->ToString());
    std::vector<PartitionSpec::Entry> entries;
    for (const json& e : c["spec"]) entries.push_back(e.get<std::vector<std::string>>());
    const NamedSharding named = MakeNamed(*mesh, Spec(entries));
    const std::vector<int64_t> shape = c["shape"].get<std::vector<int64_t>>();
    absl::StatusOr<std::vector<DeviceShard>> map = DevicesIndicesMap(named, shape);
    ASSERT_TRUE(map.ok()) << map.status();
    EXPECT_EQ(MapJson(*map), c["devices_indices_map"]);
    absl::StatusOr<HloSharding> hlo = NamedToHloSharding(named, shape.size());
    ASSERT_TRUE(hlo.ok()) << hlo.status();
    EXPECT_EQ(hlo->ToString(), c["hlo"].get<std::string>());
    absl::StatusOr<ShardingExplanation> e = ExplainNamedSharding(shape, named, ExplainOptions{});
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ(MapJson(e->devices), c["devices_indices_map"]);
    // The mesh's text reads back.
    absl::StatusOr<Mesh> back = Mesh::Parse(mesh->ToString());
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, *mesh);
  }
  const Mesh on_567 = MakeMesh({{"x", 3}}, {5, 6, 7});
  EXPECT_EQ(on_567.PositionOf(6).value_or(-1), 1);
  EXPECT_THAT(on_567.PositionOf(0),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("device id 0 is not in")));
  EXPECT_THAT(Mesh::Create({{"x", 2}}, {5, 5}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("device id 5 appears twice")));
  EXPECT_THAT(Mesh::Create({{"x", 2}}, {-1, 5}), StatusIs(absl::StatusCode::kInvalidArgument,
                                                          HasSubstr("device id -1 at position 0")));
}

}  // namespace
}  // namespace jax_programs_test
}  // namespace axe::sharding
