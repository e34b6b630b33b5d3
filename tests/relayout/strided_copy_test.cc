// CopyStrided against a plain loop over the box: transposed and sub-block strides, every
// element size the engine copies, reused plans, rank 0, empty boxes and the errors.
#include "axe/relayout/strided_copy.h"

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::relayout {
namespace strided_copy_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

// The bytes a loop over the 2-d box writes into a copy of `dst`.
std::vector<uint8_t> LoopCopy(const std::vector<uint8_t>& src, std::vector<int64_t> src_strides,
                              std::vector<uint8_t> dst, std::vector<int64_t> dst_strides,
                              std::vector<int64_t> counts, int element_bytes) {
  for (int64_t i = 0; i < counts[0]; ++i) {
    for (int64_t j = 0; j < counts[1]; ++j) {
      const int64_t from = i * src_strides[0] + j * src_strides[1];
      const int64_t to = i * dst_strides[0] + j * dst_strides[1];
      std::memcpy(dst.data() + to * element_bytes, src.data() + from * element_bytes,
                  static_cast<size_t>(element_bytes));
    }
  }
  return dst;
}

TEST(CopyStrided, MatchesALoopForEveryElementSize) {
  for (int element_bytes : {1, 2, 4, 8, 16}) {
    SCOPED_TRACE(element_bytes);
    // A 5x7 block at (2, 3) of a row-major 9x12 array into a column-major 5x7 scratch with
    // a leading dimension of 6.
    std::vector<uint8_t> src(static_cast<size_t>(9 * 12 * element_bytes));
    std::iota(src.begin(), src.end(), uint8_t{1});
    std::vector<uint8_t> dst(static_cast<size_t>(6 * 7 * element_bytes), 0xee);
    const std::vector<uint8_t> expected =
        LoopCopy(std::vector<uint8_t>(src.begin() + (2 * 12 + 3) * element_bytes, src.end()),
                 {12, 1}, dst, {1, 6}, {5, 7}, element_bytes);
    ASSERT_OK(CopyStrided(src.data() + (2 * 12 + 3) * element_bytes, {12, 1}, dst.data(), {1, 6},
                          {5, 7}, element_bytes));
    EXPECT_EQ(dst, expected);
  }
}

// Plans are kept per thread for the last few blocks: the same block at other base pointers,
// and more distinct blocks than are kept, still copy the right elements.
TEST(CopyStrided, ReusedPlansCopyAtEveryBasePointer) {
  std::vector<uint8_t> src(16 * 16 * 4);
  std::iota(src.begin(), src.end(), uint8_t{3});
  for (int round = 0; round < 2; ++round) {
    for (int64_t rows = 1; rows <= 20; ++rows) {
      const int64_t r = 1 + rows % 8, offset = (rows * 5 + round) % 100;
      std::vector<uint8_t> dst(static_cast<size_t>(8 * 8 * 4), 0);
      const std::vector<uint8_t> expected =
          LoopCopy(std::vector<uint8_t>(src.begin() + offset * 4, src.end()), {16, 1}, dst, {1, 8},
                   {r, 5}, 4);
      ASSERT_OK(CopyStrided(src.data() + offset * 4, {16, 1}, dst.data(), {1, 8}, {r, 5}, 4));
      EXPECT_EQ(dst, expected) << "rows " << r << " offset " << offset;
    }
  }
}

TEST(CopyStrided, RankZeroCopiesOneElementAndAnEmptyBoxNothing) {
  const uint32_t one = 0x01020304;
  uint32_t out = 0;
  ASSERT_OK(CopyStrided(&one, {}, &out, {}, {}, 4));
  EXPECT_EQ(out, one);
  const std::vector<uint32_t> src(8, 7);
  std::vector<uint32_t> dst(8, 9);
  ASSERT_OK(CopyStrided(src.data(), {4, 1}, dst.data(), {4, 1}, {2, 0}, 4));
  EXPECT_EQ(dst, std::vector<uint32_t>(8, 9));
  ASSERT_OK(CopyStrided(nullptr, {1}, nullptr, {1}, {0}, 4));
}

TEST(CopyStrided, RejectsMismatchedRanksNegativeExtentsAndBroadcastDestinations) {
  const std::vector<uint32_t> src(16, 1);
  std::vector<uint32_t> dst(16, 0);
  EXPECT_THAT(CopyStrided(src.data(), {4, 1}, dst.data(), {1}, {4, 4}, 4),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the box has rank 2 but the source strides have rank 2 and "
                                 "the destination strides rank 1")));
  EXPECT_THAT(CopyStrided(src.data(), {4, 1}, dst.data(), {4, 1}, {4, -1}, 4),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the box's dimension 1 has a negative extent -1")));
  // Every row of the destination at the same place: not one-to-one.
  EXPECT_THAT(CopyStrided(src.data(), {4, 1}, dst.data(), {0, 1}, {4, 4}, 4),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("destination S[(4,4):(0,1)] is not injective: two elements "
                                 "would be written to the same place")));
  EXPECT_THAT(CopyStrided(src.data(), {4, 1}, dst.data(), {4, 1}, {4, 4}, 3),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("element size 3 bytes is not supported")));
}

}  // namespace
}  // namespace strided_copy_test
}  // namespace axe::relayout
