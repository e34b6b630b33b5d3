// Randomized: pictures of random layouts, tiled shapes and grids are always well-formed SVG (or a
// clean error), stay small whatever the size, and are deterministic.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/pallas/index_map_expr.h"
#include "axe/picture/grid_picture.h"
#include "axe/picture/layout_picture.h"
#include "axe/picture/xla_picture.h"
#include "axe/xla/text.h"
#include "gtest/gtest.h"
#include "picture/xml_check.h"
#include "support/test_seed.h"

namespace axe::picture {
namespace random_picture_test {
namespace {

using testing::CheckXml;
using testing::CountElements;

Iter RandomIter(std::mt19937_64& rng) {
  static const char* kAxes[] = {"m", "lane", "warp", "reg"};
  std::uniform_int_distribution<int64_t> extent(1, 9), stride(-4, 40);
  std::uniform_int_distribution<size_t> axis(0, 3);
  return {extent(rng), stride(rng), Axis::Get(kAxes[axis(rng)])};
}

TEST(RandomPictures, LayoutsDrawAsWellFormedBoundedSvg) {
  std::mt19937_64 rng(axe::testing_support::TestSeed(20261124));
  int drawn = 0;
  for (int i = 0; i < 200; ++i) {
    std::vector<Iter> shard, replica;
    for (int n = std::uniform_int_distribution<int>(1, 5)(rng); n > 0; --n)
      shard.push_back(RandomIter(rng));
    if (rng() % 3 == 0) {
      Iter r = RandomIter(rng);
      if (r.stride == 0) r.stride = 1;
      replica.push_back(r);
    }
    PhysCoord offset;
    if (rng() % 2 == 0) offset.set(shard[0].axis, static_cast<int64_t>(rng() % 7));
    absl::StatusOr<Layout> l = Layout::Create(shard, replica, offset);
    if (!l.ok()) continue;
    absl::StatusOr<std::string> svg = LayoutSvg(*l, {});
    if (!svg.ok()) {
      // Only the preimage search's budget may refuse a valid layout.
      EXPECT_EQ(svg.status().code(), absl::StatusCode::kResourceExhausted) << l->ToString();
      continue;
    }
    ++drawn;
    EXPECT_EQ(CheckXml(*svg), "") << l->ToString();
    EXPECT_LT(CountElements(*svg, "rect"), 32 * 32 * 5 + 64) << l->ToString();
    EXPECT_EQ(*svg, *LayoutSvg(*l, {})) << l->ToString();
  }
  EXPECT_GT(drawn, 100);
}

TEST(RandomPictures, TiledShapesDrawAsWellFormedBoundedSvg) {
  std::mt19937_64 rng(axe::testing_support::TestSeed(41));
  std::uniform_int_distribution<int64_t> dim(1, 3000), bound(1, 300);
  int drawn = 0;
  for (int i = 0; i < 200; ++i) {
    const int rank = std::uniform_int_distribution<int>(1, 4)(rng);
    std::vector<int64_t> dims, order;
    for (int d = 0; d < rank; ++d) {
      dims.push_back(dim(rng));
      order.push_back(d);
    }
    std::shuffle(order.begin(), order.end(), rng);
    std::string tiles;
    for (int level = std::uniform_int_distribution<int>(0, 2)(rng); level > 0; --level) {
      std::vector<int64_t> t(std::uniform_int_distribution<size_t>(1, 3)(rng));
      for (int64_t& b : t) b = bound(rng);
      absl::StrAppend(&tiles, "(", absl::StrJoin(t, ","), ")");
    }
    const std::string text =
        absl::StrCat("f32[", absl::StrJoin(dims, ","), "]{", absl::StrJoin(order, ","),
                     tiles.empty() ? "" : ":T", tiles, "}");
    absl::StatusOr<xla::Shape> shape = xla::ParseShape(text);
    if (!shape.ok()) continue;
    absl::StatusOr<std::string> svg = TiledArraySvg(*shape);
    if (!svg.ok()) continue;  // e.g. a size that overflows: an error, never a crash
    ++drawn;
    EXPECT_EQ(CheckXml(*svg), "") << text;
    EXPECT_LT(CountElements(*svg, "rect"), 300) << text;
  }
  EXPECT_GT(drawn, 100);
}

}  // namespace
}  // namespace random_picture_test
}  // namespace axe::picture

namespace axe::picture {
namespace random_picture_test {
namespace {

TEST(RandomPictures, GridsDrawAsWellFormedSvgInsideThePicture) {
  std::mt19937_64 rng(axe::testing_support::TestSeed(7));
  std::uniform_int_distribution<int64_t> dim(1, 40), block(1, 9), grid(1, 6), scale(0, 3);
  int drawn = 0;
  for (int i = 0; i < 150; ++i) {
    const int rank = std::uniform_int_distribution<int>(1, 3)(rng);
    std::vector<int64_t> shape, grid_sizes;
    std::vector<pallas::BlockDim> blocks;
    std::vector<std::string> vars, results;
    for (int d = 0; d < rank; ++d) {
      shape.push_back(dim(rng));
      grid_sizes.push_back(grid(rng));
      const int64_t b = block(rng);
      blocks.push_back(*pallas::BlockDim::Parse(
          rng() % 4 == 0 ? absl::StrCat("Element(", b + 2, ",(1,1))") : absl::StrCat(b)));
      vars.push_back(absl::StrCat("v", d));
      results.push_back(absl::StrCat(scale(rng), "*v", d));
    }
    absl::StatusOr<pallas::IndexMapExpr> map = pallas::IndexMapExpr::Parse(
        absl::StrCat("(", absl::StrJoin(vars, ","), ")->(", absl::StrJoin(results, ","), ")"));
    ASSERT_TRUE(map.ok()) << map.status();
    absl::StatusOr<std::string> svg =
        GridSvg({DType::kS32, shape}, blocks, pallas::Grid(grid_sizes), map->ToIndexMap());
    if (!svg.ok()) continue;  // e.g. a window larger than the array: a clean error
    ++drawn;
    EXPECT_EQ(CheckXml(*svg), "") << absl::StrJoin(shape, ",");
    EXPECT_EQ(svg->find("x=\"-"), std::string::npos) << absl::StrJoin(shape, ",");
    EXPECT_EQ(svg->find("y=\"-"), std::string::npos) << absl::StrJoin(shape, ",");
  }
  EXPECT_GT(drawn, 50);
}

}  // namespace
}  // namespace random_picture_test
}  // namespace axe::picture
