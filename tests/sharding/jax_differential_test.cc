// axe against the real JAX: testdata/jax_shardings.json holds what jax 0.10.2 said about 160
// seeded random NamedShardings (testdata/generate_jax_shardings.py regenerates it). Every
// answer axe gives for the same mesh, device order, spec and shape must match.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "axe/sharding/device_map.h"
#include "axe/sharding/from_hlo.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/sharding/sharding.h"
#include "axe/sharding/shardy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test_util.h"

namespace axe::sharding {
namespace jax_differential_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)
using nlohmann::json;

json LoadCases() {
  std::ifstream in(std::string(AXE_SHARDING_TESTDATA_DIR) + "/jax_shardings.json");
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

NamedSharding FromCase(const json& c) {
  std::vector<MeshAxis> axes;
  for (size_t j = 0; j < c["mesh_axes"].size(); ++j) {
    axes.push_back({c["mesh_axes"][j].get<std::string>(), c["mesh_sizes"][j].get<int64_t>()});
  }
  std::vector<PartitionSpec::Entry> entries;
  for (const json& e : c["spec"]) entries.push_back(e.get<std::vector<std::string>>());
  return MakeNamed(MakeMesh(axes, c["devices"].get<std::vector<int64_t>>()), Spec(entries));
}

TEST(JaxDifferentialTest, NamedShardingsAgreeWithJax) {
  const json data = LoadCases();
  ASSERT_TRUE(data.is_object()) << "cannot read " << AXE_SHARDING_TESTDATA_DIR;
  ASSERT_EQ(data["cases"].size(), 160u);
  int shardy_cases = 0;
  for (const json& c : data["cases"]) {
    const NamedSharding named = FromCase(c);
    const std::vector<int64_t> shape = c["shape"].get<std::vector<int64_t>>();
    SCOPED_TRACE(named.ToString() + " on " + c["shape"].dump());

    // JAX's repr reads back as the same spec on a mesh with the same axes.
    absl::StatusOr<Sharding> read = Sharding::Parse(c["repr"].get<std::string>());
    ASSERT_TRUE(read.ok()) << read.status();
    ASSERT_NE(read->named(), nullptr);
    EXPECT_EQ(read->named()->spec(), named.spec());
    EXPECT_EQ(read->named()->mesh().axes(), named.mesh().axes());

    absl::StatusOr<HloSharding> hlo = NamedToHloSharding(named, shape.size());
    ASSERT_TRUE(hlo.ok()) << hlo.status();
    EXPECT_EQ(hlo->ToString(), c["hlo"].get<std::string>());

    absl::StatusOr<std::vector<int64_t>> shard_shape = named.ShardShape(shape);
    ASSERT_TRUE(shard_shape.ok()) << shard_shape.status();
    EXPECT_EQ(*shard_shape, c["shard_shape"].get<std::vector<int64_t>>());

    absl::StatusOr<std::vector<DeviceShard>> map = DevicesIndicesMap(named, shape);
    ASSERT_TRUE(map.ok()) << map.status();
    ASSERT_EQ(map->size(), c["devices_indices_map"].size());
    for (const DeviceShard& d : *map) {
      json box = json::array();
      for (const auto& [start, stop] : d.index) box.push_back({start, stop});
      EXPECT_EQ(box, c["devices_indices_map"][std::to_string(d.device)]) << "device " << d.device;
    }

    // The HLO string read back on the mesh gives the spec again (up to what HLO cannot see).
    absl::StatusOr<HloSharding> parsed = HloSharding::Parse(c["hlo"].get<std::string>());
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    absl::StatusOr<NamedSharding> back = HloToNamedSharding(*parsed, shape.size(), named.mesh());
    ASSERT_TRUE(back.ok()) << back.status();
    absl::StatusOr<std::vector<DeviceShard>> back_map = DevicesIndicesMap(*back, shape);
    ASSERT_TRUE(back_map.ok()) << back_map.status();
    EXPECT_EQ(*back_map, *map);

    if (c.contains("shardy") && !c["shardy"].is_null()) {
      ++shardy_cases;
      EXPECT_EQ(NamedToShardySharding(named, shape.size()).ToString(),
                c["shardy"].get<std::string>());
      ShardyMesh mesh = ShardyMesh::FromMesh(named.mesh(), JaxMeshName(named.mesh()));
      mesh.device_ids.clear();  // JAX lowers the order into the device assignment
      EXPECT_EQ(mesh.ToString(), c["shardy_mesh"].get<std::string>());
    }
  }
  EXPECT_EQ(shardy_cases, 40);
}

}  // namespace
}  // namespace jax_differential_test
}  // namespace axe::sharding
