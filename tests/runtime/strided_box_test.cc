#include "axe/relayout/strided_box.h"

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "axe/relayout/box_copy.h"
#include "axe/runtime/array.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/dist_test_util.h"
#include "sharding/test_util.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::runtime {

using relayout::BoxElements;
using relayout::BufferLayout;
using relayout::CopyBox;
using relayout::DescribeStridedBox;
using relayout::IndexBox;
using relayout::RowMajorBuffer;
using relayout::StridedBox;
using relayout::StridedDim;
using relayout::WholeBox;

namespace strided_box_test {
namespace {

using ::axe::sharding::test_util::Named;
using ::axe::sharding::test_util::XlaLayout;
using ::axe::testing_support::StatusIs;
using ::axe::testing_support::TestSeed;
using ::testing::HasSubstr;

BufferLayout Storage(const std::vector<int64_t>& shape, std::optional<xla::Layout> local) {
  sharding::Format format = test_util::FormatOf(Named("x=1", "P()"), std::move(local));
  return MakeShardStorage(shape, DType::kF32, format).value().layout;
}

TEST(StridedBox, RowMajorHalfRowsIsOneStridedDim) {
  const BufferLayout layout = Storage({4, 8}, std::nullopt);
  std::optional<StridedBox> box = *DescribeStridedBox(layout, {4, 8}, {{0, 2}, {4, 8}}, 4);
  ASSERT_TRUE(box.has_value());
  EXPECT_EQ(box->offset_bytes, 16);
  EXPECT_EQ(box->run_bytes, 16);
  EXPECT_THAT(box->dims, ::testing::ElementsAre(StridedDim{2, 32}));
  EXPECT_FALSE(box->contiguous());
  EXPECT_EQ(box->bytes(), 32);
}

TEST(StridedBox, WholeRowsAreContiguous) {
  const BufferLayout layout = Storage({4, 8}, std::nullopt);
  std::optional<StridedBox> box = *DescribeStridedBox(layout, {4, 8}, {{1, 3}, {0, 8}}, 4);
  ASSERT_TRUE(box.has_value());
  EXPECT_TRUE(box->contiguous());
  EXPECT_EQ(box->offset_bytes, 32);
  EXPECT_EQ(box->run_bytes, 64);
}

TEST(StridedBox, ColumnMajorWalksElementByElement) {
  // Column-major: the box's row-major order jumps by a column in memory at every element.
  const BufferLayout layout = Storage({4, 8}, XlaLayout("{0,1}"));
  std::optional<StridedBox> box = *DescribeStridedBox(layout, {4, 8}, {{0, 4}, {4, 8}}, 4);
  ASSERT_TRUE(box.has_value());
  EXPECT_EQ(box->offset_bytes, 64);
  EXPECT_EQ(box->run_bytes, 4);
  EXPECT_THAT(box->dims, ::testing::ElementsAre(StridedDim{4, 4}, StridedDim{4, 16}));
}

TEST(StridedBox, BoxOutsideTheShapeIsAnError) {
  const BufferLayout layout = Storage({4, 8}, std::nullopt);
  EXPECT_THAT(DescribeStridedBox(layout, {4, 8}, {{0, 5}, {0, 8}}, 4),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dimension 0")));
}

// Reads the box through its description, run by run.
std::vector<uint8_t> Gather(const StridedBox& box, const std::vector<uint8_t>& buffer) {
  std::vector<uint8_t> out;
  std::vector<int64_t> digit(box.dims.size(), 0);
  for (;;) {
    int64_t at = box.offset_bytes;
    for (size_t j = 0; j < digit.size(); ++j) at += digit[j] * box.dims[j].stride_bytes;
    out.insert(out.end(), buffer.begin() + at, buffer.begin() + at + box.run_bytes);
    size_t j = digit.size();
    while (j > 0 && ++digit[j - 1] == box.dims[j - 1].extent) digit[--j] = 0;
    if (j == 0) return out;
  }
}

// Random shapes, local layouts (permutations, tiles) and boxes: wherever a description is
// given, reading by it gives the bytes a relayout packs (row-major over the box).
TEST(StridedBox, RandomBoxesReadWhatARelayoutPacks) {
  std::mt19937_64 rng(TestSeed(20261124));
  int described = 0, contiguous = 0;
  for (int iteration = 0; iteration < 300; ++iteration) {
    std::vector<int64_t> shape;
    const size_t rank = 1 + rng() % 3;
    for (size_t i = 0; i < rank; ++i) shape.push_back(1 + static_cast<int64_t>(rng() % 9));
    const std::optional<xla::Layout> local = test_util::RandomLocalLayout(rng, shape);
    sharding::Format format = test_util::FormatOf(Named("x=1", "P()"), local);
    const ShardStorage storage = MakeShardStorage(shape, DType::kF32, format).value();
    std::vector<uint8_t> buffer =
        test_util::RandomBytes(rng, static_cast<size_t>(storage.buffer_elements * 4));
    IndexBox box;
    for (int64_t d : shape) {
      const int64_t begin = static_cast<int64_t>(rng() % static_cast<uint64_t>(d));
      box.push_back({begin, begin + 1 + static_cast<int64_t>(rng() % (d - begin))});
    }
    SCOPED_TRACE(testing::Message() << "shape rank " << rank << " box " << BoxToString(box)
                                    << " layout " << storage.layout.ToString());
    absl::StatusOr<std::optional<StridedBox>> strided =
        DescribeStridedBox(storage.layout, storage.shape, box, 4);
    ASSERT_OK(strided.status());
    if (!strided->has_value()) continue;
    ++described;
    if ((*strided)->contiguous()) ++contiguous;
    std::vector<int64_t> extents;
    for (const Interval& r : box) extents.push_back(r.size());
    const BufferLayout dense = RowMajorBuffer(extents).value();
    std::vector<uint8_t> packed(static_cast<size_t>(*BoxElements(box) * 4));
    ASSERT_OK(CopyBox({storage.layout, storage.shape, buffer.data()}, box,
                      {dense, extents, packed.data()}, WholeBox(extents), 4));
    EXPECT_EQ((*strided)->bytes(), static_cast<int64_t>(packed.size()));
    EXPECT_EQ(Gather(**strided, buffer), packed);
  }
  EXPECT_GT(described, 100);
  EXPECT_GT(contiguous, 10);
}

}  // namespace
}  // namespace strided_box_test
}  // namespace axe::runtime
