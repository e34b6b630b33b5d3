// Randomized: pictures of random layouts and tiled shapes are always well-formed SVG (or a
// clean error), stay small whatever the size, and are deterministic.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/picture/layout_picture.h"
#include "axe/picture/xla_picture.h"
#include "axe/xla/text.h"
#include "gtest/gtest.h"
#include "picture/xml_check.h"
#include "support/test_seed.h"

namespace axe::picture {
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
}  // namespace axe::picture
