// ProgramWindow: a program's block window as an Axe layout over its operand, checked against
// what the interpreter actually hands the kernel.
#include "axe/pallas/block_window.h"

#include <random>
#include <vector>

#include "axe/layout/apply.h"
#include "axe/pallas/pallas_call.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::pallas {
namespace block_window_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_support::StatusIs;

TEST(ProgramWindow, SliceOfTheRowMajorLayout) {
  BlockSpec spec({2, 3}, [](int64_t i, int64_t j) { return std::pair{i, j}; });
  absl::StatusOr<BlockWindow> w = ProgramWindow(spec, {DType::kS32, {8, 6}}, Grid{4, 2}, {1, 1});
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_THAT(w->start, ElementsAre(2, 3));
  EXPECT_THAT(w->region, ElementsAre(Interval{2, 4}, Interval{3, 6}));
  ASSERT_TRUE(w->layout.has_value());
  EXPECT_EQ(w->layout->ToString(), "S[(2,3):(6,1)] + 15");
}

TEST(ProgramWindow, PaddingAndClampingLeaveTheArrayPart) {
  // Element padding: the window starts one row before the array.
  BlockSpec padded({Element(2, {1, 0}), Element(3, {2, 0})}, [](int64_t i, int64_t j) {
    return std::pair{2 * i, 3 * j};
  });
  absl::StatusOr<BlockWindow> w = ProgramWindow(padded, {DType::kS32, {7, 7}}, Grid{4, 3}, {0, 0});
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_THAT(w->start, ElementsAre(-1, -2));
  EXPECT_THAT(w->region, ElementsAre(Interval{0, 1}, Interval{0, 1}));
  // Clamped onto the last block: 12 elements in blocks of 4, i -> 4 * i.
  BlockSpec offsets({4}, [](int64_t i) { return 4 * i; });
  w = ProgramWindow(offsets, {DType::kF32, {12}}, Grid{3}, {2});
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_THAT(w->region, ElementsAre(Interval{8, 12}));
  // A window entirely in the padding has no layout.
  BlockSpec beyond({Element(2, {0, 4})}, [](int64_t) { return 4; });
  w = ProgramWindow(beyond, {DType::kF32, {3}}, Grid{1}, {0});
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_FALSE(w->layout.has_value());
  EXPECT_THAT(ProgramWindow(offsets, {DType::kF32, {12}}, Grid{3}, {3}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("grid point (3,) is outside the grid (3,) on axis 0")));
  EXPECT_THAT(ProgramWindow(offsets, {DType::kF32, {12, 2}}, Grid{3}, {0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must have the same number of dimensions")));
}

// Random 2-D windows (Blocked and padded Element dims, clamped starts): every element the
// kernel reads inside the array is at the memory offset the window's layout gives.
TEST(ProgramWindow, MatchesWhatTheInterpreterReads) {
  std::mt19937 rng(static_cast<uint32_t>(testing_support::TestSeed(17)));
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int64_t compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const std::vector<int64_t> shape = {uniform(1, 9), uniform(1, 9)};
    std::vector<BlockDim> block;
    for (int d = 0; d < 2; ++d) {
      const int64_t size = uniform(1, shape[static_cast<size_t>(d)] + 1);
      block.push_back(uniform(0, 1) == 0 ? BlockDim(Blocked(size))
                                         : Element(size, {uniform(0, 2), uniform(0, 2)}));
    }
    const int64_t a = uniform(-1, 2), b = uniform(-2, 2), c = uniform(-1, 2), e = uniform(-2, 2);
    BlockSpec spec(block, [=](int64_t i, int64_t j) { return std::pair{a * i + b, c * j + e}; });
    const Grid grid{uniform(1, 3), uniform(1, 3)};
    // Each program copies its input block out, in program order.
    std::vector<std::vector<int32_t>> seen;
    auto kernel = [&seen](Ref<const int32_t> x, Ref<int32_t>) {
      std::vector<int32_t> block_values;
      for (int64_t r = 0; r < x.shape(0); ++r) {
        for (int64_t s = 0; s < x.shape(1); ++s) block_values.push_back(x(r, s));
      }
      seen.push_back(std::move(block_values));
    };
    auto call = PallasCall(kernel, OutShape<int32_t>{{1}},
                           {.grid = grid, .in_specs = {spec}, .out_specs = {BlockSpec()}});
    absl::StatusOr<Array<int32_t>> x = Array<int32_t>::Iota(shape);
    ASSERT_TRUE(x.ok());
    ASSERT_TRUE(call(*x).ok());
    std::vector<int64_t> point = {0, 0};
    for (const std::vector<int32_t>& values : seen) {
      absl::StatusOr<BlockWindow> w = ProgramWindow(spec, {DType::kS32, shape}, grid, point);
      ASSERT_TRUE(w.ok()) << w.status();
      if (w->layout.has_value()) {
        const std::vector<int64_t> extent = {w->region[0].size(), w->region[1].size()};
        for (int64_t u = 0; u < extent[0]; ++u) {
          for (int64_t v = 0; v < extent[1]; ++v) {
            absl::StatusOr<PhysCoord> p = ApplyBase(*w->layout, extent, {u, v});
            ASSERT_TRUE(p.ok()) << p.status();
            const int64_t r = w->region[0].begin - w->start[0] + u;
            const int64_t s = w->region[1].begin - w->start[1] + v;
            ASSERT_EQ(values[static_cast<size_t>(r * w->size[1] + s)], p->get(Axis::Memory()))
                << "trial " << trial << " program (" << point[0] << ", " << point[1] << ")";
            ++compared;
          }
        }
      }
      if (++point[1] == grid.size(1)) {
        point[1] = 0;
        ++point[0];
      }
    }
  }
  EXPECT_GT(compared, 500);  // the windows are not all padding
}

}  // namespace
}  // namespace block_window_test
}  // namespace axe::pallas
