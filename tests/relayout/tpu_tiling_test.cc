// The hand-written Axe layout of XLA's {1,0:T(8,128)(2,1)} used by the benchmark, against a
// direct formula of XLA's tiling and against xla::ToAxe, and the relayout engine on it.
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/relayout/relayout_plan.h"
#include "axe/relayout/relayout_reference.h"
#include "axe/xla/to_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "relayout_cases.h"

namespace axe::relayout {
namespace tpu_tiling_test {
namespace {

// XLA tiling, written from its definition: the tile index (row-major over the grid of
// 8x128 tiles) times the tile size, then inside the tile the (2,1) sub-tiles in row-major
// order: (row pair, column), and the row within the pair last.
int64_t XlaTiledOffset(int64_t r, int64_t c, int64_t cols) {
  const int64_t tile = (r / 8) * (cols / 128) + c / 128;
  const int64_t in_tile_row = r % 8, in_tile_col = c % 128;
  return tile * (8 * 128) + (in_tile_row / 2) * (128 * 2) + in_tile_col * 2 + in_tile_row % 2;
}

TEST(TpuTiling, HandWrittenLayoutMatchesXlaFormula) {
  for (auto [rows, cols] :
       std::vector<std::pair<int64_t, int64_t>>{{8, 128}, {16, 256}, {24, 384}}) {
    absl::StatusOr<Layout> l = Layout::Parse(bench::TpuTiledLayoutText(rows, cols));
    ASSERT_TRUE(l.ok()) << l.status().message();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        absl::StatusOr<PhysCoord> p = ApplyBase(*l, {rows, cols}, {r, c});
        ASSERT_TRUE(p.ok());
        ASSERT_EQ(p->get(Axis::Memory()), XlaTiledOffset(r, c, cols)) << r << "," << c;
      }
    }
  }
  // The benchmark's 4096 x 4096, on a strided sample.
  absl::StatusOr<Layout> l = Layout::Parse(bench::TpuTiledLayoutText(4096, 4096));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->ToString(), "S[(512,4,2,32,128):(32768,256,1,1024,2)]");
  for (int64_t r = 0; r < 4096; r += 7) {
    for (int64_t c = 0; c < 4096; c += 13) {
      ASSERT_EQ(ApplyBase(*l, {4096, 4096}, {r, c})->get(Axis::Memory()),
                XlaTiledOffset(r, c, 4096));
    }
  }
}

TEST(TpuTiling, HandWrittenLayoutIsXlaToAxe) {
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{16, 256}, {4096, 4096}}) {
    absl::StatusOr<xla::AxeForm> form =
        xla::ToAxe(absl::StrCat("bf16[", rows, ",", cols, "]{1,0:T(8,128)(2,1)}"));
    ASSERT_TRUE(form.ok()) << form.status().message();
    EXPECT_EQ(form->domain, (std::vector<int64_t>{rows, cols}));
    absl::StatusOr<bool> same =
        Equivalent(form->layout, *Layout::Parse(bench::TpuTiledLayoutText(rows, cols)));
    ASSERT_TRUE(same.ok());
    EXPECT_TRUE(*same) << form->layout << " vs " << bench::TpuTiledLayoutText(rows, cols);
  }
}

TEST(TpuTiling, RelayoutBothWays) {
  const int64_t rows = 32, cols = 512;
  const Layout row_major =
      *Layout::Parse(absl::StrCat("S[(", rows, ",", cols, "):(", cols, ",1)]"));
  const Layout tiled = *Layout::Parse(bench::TpuTiledLayoutText(rows, cols));
  std::vector<uint16_t> in(rows * cols), out(in.size()), back(in.size()), expected(in.size());
  for (size_t k = 0; k < in.size(); ++k) in[k] = static_cast<uint16_t>(k * 2654435761u >> 16);
  ASSERT_TRUE(Relayout(row_major, tiled, {rows, cols}, 2, in.data(), out.data()).ok());
  ASSERT_TRUE(
      ReferenceRelayout(row_major, tiled, {rows, cols}, 2, in.data(), expected.data()).ok());
  EXPECT_EQ(out, expected);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      ASSERT_EQ(out[static_cast<size_t>(XlaTiledOffset(r, c, cols))],
                in[static_cast<size_t>(r * cols + c)]);
    }
  }
  ASSERT_TRUE(Relayout(tiled, row_major, {rows, cols}, 2, out.data(), back.data()).ok());
  EXPECT_EQ(back, in);
}

// The benchmark's permuted destinations are derived from the permutation; these are the
// layouts that were written out by hand before.
TEST(BenchCases, PermutedLayoutTextMatchesTheHandWrittenLayouts) {
  EXPECT_EQ(bench::PermutedLayoutText({2, 3}, {1, 0}), "S[(2,3):(1,2)]");
  EXPECT_EQ(bench::PermutedLayoutText(std::vector<int64_t>(6, 16), {5, 2, 0, 4, 1, 3}),
            "S[(16,16,16,16,16,16):(4096,16,65536,1,256,1048576)]");
  EXPECT_EQ(bench::PermutedLayoutText(std::vector<int64_t>(6, 16), {2, 4, 1, 5, 3, 0}),
            "S[(16,16,16,16,16,16):(1,4096,1048576,16,65536,256)]");
  EXPECT_EQ(bench::PermutedLayoutText({2, 3, 4}, {0, 1, 2}), "S[(2,3,4):(12,4,1)]");
}

}  // namespace
}  // namespace tpu_tiling_test
}  // namespace axe::relayout
