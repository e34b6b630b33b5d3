// The device map of an Axe layout with device iters against a brute-force oracle written from
// the definition: element x is on every device some point of L(x) names (the Cartesian
// product over all shard and replica digits), and a device's elements must form a box.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/layout/axis_catalog.h"
#include "axe/layout/layout.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/equivalent.h"
#include "axe/sharding/mesh.h"
#include "gtest/gtest.h"
#include "support/test_seed.h"

namespace axe::sharding {
namespace device_map_test {
namespace {

struct TestIter {
  int64_t extent, stride;
  std::string axis;  // "x", "y" (device) or "m"
};

struct RandomCase {
  std::string mesh_text;            // "x=2,y=3" or "y=3,x=2"
  std::vector<int64_t> mesh_sizes;  // of x and y
  bool y_major = false;             // the mesh lists y first
  std::vector<int64_t> shape;
  std::vector<TestIter> shard, replica;
  std::vector<std::pair<std::string, int64_t>> offset;

  std::string LayoutText() const {
    auto iter = [](const TestIter& it) { return absl::StrCat(it.stride, "@", it.axis); };
    std::vector<std::string> e, s;
    for (const TestIter& it : shard) {
      e.push_back(absl::StrCat(it.extent));
      s.push_back(iter(it));
    }
    std::string out =
        absl::StrCat("S[(", absl::StrJoin(e, ","), "):(", absl::StrJoin(s, ","), ")]");
    for (const TestIter& it : replica)
      absl::StrAppend(&out, " + R[", it.extent, ":", iter(it), "]");
    for (const auto& [axis, value] : offset) absl::StrAppend(&out, " + ", value, "@", axis);
    return out;
  }
};

RandomCase Draw(std::mt19937_64& rng) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const char* const kAxes[] = {"x", "y", "m"};
  RandomCase c;
  c.mesh_sizes = {pick(1, 3), pick(1, 3)};
  c.y_major = pick(0, 1) == 1;  // mesh order unlike name order: device ids follow the mesh
  c.mesh_text = c.y_major ? absl::StrCat("y=", c.mesh_sizes[1], ",x=", c.mesh_sizes[0])
                          : absl::StrCat("x=", c.mesh_sizes[0], ",y=", c.mesh_sizes[1]);
  const int64_t rank = pick(1, 3);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t pieces = pick(1, 2);  // a dimension of one or two shard iters
    int64_t size = 1;
    for (int64_t k = 0; k < pieces; ++k) {
      const char* axis = kAxes[pick(0, 2)];
      const TestIter it{pick(1, 3), axis[0] == 'm' ? pick(-1, 3) : pick(-1, 1), axis};
      size *= it.extent;
      c.shard.push_back(it);
    }
    c.shape.push_back(size);
  }
  for (int64_t k = pick(0, 2); k > 0; --k) {
    c.replica.push_back({pick(2, 3), pick(1, 2), kAxes[pick(0, 2)]});
  }
  if (pick(0, 3) == 0) c.offset.emplace_back(kAxes[pick(0, 1)], pick(0, 2));
  return c;
}

// The oracle: per device, the elements it holds, then boxes or nullopt where one is not a box
// or a point falls outside the mesh.
std::optional<std::map<int64_t, std::vector<Interval>>> Oracle(const RandomCase& c) {
  auto axis_index = [](const std::string& a) { return a == "x" ? 0 : a == "y" ? 1 : 2; };
  std::vector<TestIter> all = c.shard;
  all.insert(all.end(), c.replica.begin(), c.replica.end());
  int64_t shard_size = 1, total = 1;
  for (const TestIter& it : c.shard) shard_size *= it.extent;
  for (const TestIter& it : all) total *= it.extent;
  std::map<int64_t, std::vector<std::vector<int64_t>>> held;  // device -> indices
  for (int64_t x = 0; x < shard_size; ++x) {
    std::vector<int64_t> index(c.shape.size());
    for (size_t d = c.shape.size(), rest = static_cast<size_t>(x); d-- > 0;) {
      index[d] = static_cast<int64_t>(rest) % c.shape[d];
      rest /= static_cast<size_t>(c.shape[d]);
    }
    std::vector<int64_t> devices;
    for (int64_t r = 0; r < total / shard_size; ++r) {
      int64_t point[3] = {0, 0, 0};
      for (const auto& [axis, value] : c.offset) point[axis_index(axis)] += value;
      int64_t digits = x * (total / shard_size) + r;  // shard digits major, replica digits minor
      for (size_t k = all.size(); k-- > 0;) {
        point[axis_index(all[k].axis)] += (digits % all[k].extent) * all[k].stride;
        digits /= all[k].extent;
      }
      if (point[0] < 0 || point[0] >= c.mesh_sizes[0] || point[1] < 0 ||
          point[1] >= c.mesh_sizes[1]) {
        return std::nullopt;
      }
      devices.push_back(c.y_major ? point[1] * c.mesh_sizes[0] + point[0]
                                  : point[0] * c.mesh_sizes[1] + point[1]);
    }
    std::sort(devices.begin(), devices.end());
    devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
    for (int64_t d : devices) held[d].push_back(index);
  }
  std::map<int64_t, std::vector<Interval>> boxes;
  for (const auto& [device, indices] : held) {
    std::vector<Interval> box;
    int64_t volume = 1;
    for (size_t d = 0; d < c.shape.size(); ++d) {
      int64_t lo = indices[0][d], hi = indices[0][d];
      for (const auto& i : indices) lo = std::min(lo, i[d]), hi = std::max(hi, i[d]);
      box.emplace_back(lo, hi + 1);
      volume *= hi + 1 - lo;
    }
    if (volume != static_cast<int64_t>(indices.size())) return std::nullopt;
    boxes[device] = box;
  }
  return boxes;
}

TEST(LayoutDeviceMapTest, AgreesWithTheOracleOnRandomLayouts) {
  std::mt19937_64 rng(testing_support::TestSeed(2311));
  absl::StatusOr<AxisCatalog> catalog =
      AxisCatalog::Standard().WithDeclarations({"x=device", "y=device"});
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  int compared = 0, refused = 0, unparsed = 0;
  for (int n = 0; n < 3000; ++n) {
    const RandomCase c = Draw(rng);
    absl::StatusOr<Mesh> mesh = Mesh::Parse(c.mesh_text);
    ASSERT_TRUE(mesh.ok()) << c.mesh_text;
    absl::StatusOr<axe::Layout> layout = axe::Layout::Parse(c.LayoutText(), *catalog);
    if (!layout.ok()) {  // every draw is a valid layout: counted, and expected to be none
      ++unparsed;
      continue;
    }
    const std::string what =
        absl::StrCat(c.LayoutText(), " on ", c.mesh_text, " shape ", absl::StrJoin(c.shape, ","));
    const auto want = Oracle(c);
    absl::StatusOr<std::vector<DeviceShard>> got = DevicesIndicesMap(*layout, c.shape, *mesh);
    ASSERT_EQ(got.ok(), want.has_value()) << what << ": " << got.status();
    if (!want) {
      ++refused;
      continue;
    }
    ++compared;
    std::map<int64_t, std::vector<Interval>> boxes;
    for (const DeviceShard& s : *got) boxes[s.device] = s.index;
    EXPECT_EQ(boxes, *want) << what;
    EXPECT_EQ(boxes.size(), got->size()) << what << ": a device listed twice";
    EXPECT_TRUE(std::is_sorted(
        got->begin(), got->end(),
        [](const DeviceShard& a, const DeviceShard& b) { return a.device < b.device; }))
        << what;
    // Replica groups: equal boxes share a group, numbered by their smallest device.
    std::map<std::vector<Interval>, int64_t> group_of;
    for (const DeviceShard& s : *got) {
      auto [it, inserted] = group_of.emplace(s.index, static_cast<int64_t>(group_of.size()));
      EXPECT_EQ(s.replica_group, it->second) << what << " device " << s.device;
    }
  }
  // The draw must exercise both outcomes, or the comparison says little.
  EXPECT_GT(compared, 500) << refused << " refused, " << unparsed << " unparsed";
  EXPECT_GT(refused, 100);
  EXPECT_EQ(unparsed, 0);
}

// Of several points outside the mesh, the error names the first in Apply's order (points
// sorted by axis name), whatever the mesh's own axis order.
TEST(LayoutDeviceMapTest, AnErrorNamesTheFirstPointOutsideTheMesh) {
  absl::StatusOr<AxisCatalog> catalog =
      AxisCatalog::Standard().WithDeclarations({"x=device", "y=device"});
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  absl::StatusOr<axe::Layout> layout = axe::Layout::Parse("S[1:1] + R[2:3@x] + R[2:3@y]", *catalog);
  ASSERT_TRUE(layout.ok()) << layout.status();
  absl::StatusOr<Mesh> mesh = Mesh::Parse("y=2,x=2");
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  absl::StatusOr<std::vector<DeviceShard>> map = DevicesIndicesMap(*layout, {1}, *mesh);
  EXPECT_EQ(map.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(map.status().message(), "mesh coordinate 3 on axis 'y' is outside [0, 2)");
}

}  // namespace
}  // namespace device_map_test
}  // namespace axe::sharding
