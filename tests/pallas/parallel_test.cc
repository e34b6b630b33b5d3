// Parallel mode: the write-conflict check, errors, and a blocked matmul against a naive one.
#include <random>

#include "axe/pallas/pallas_call.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::pallas {
namespace parallel_test {
namespace {

using testing_support::StatusIs;

using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::Status RunFill(Grid grid, std::vector<DimensionSemantics> sem, BlockSpec out,
                     std::vector<int64_t> shape, bool check = true) {
  auto call = PallasCall([](Ref<int32_t> o) { o.Fill(static_cast<int32_t>(ProgramId(0))); },
                         OutShape<int32_t>{std::move(shape)},
                         {.grid = std::move(grid),
                          .out_specs = {std::move(out)},
                          .options = {.mode = Mode::kParallel,
                                      .dimension_semantics = std::move(sem),
                                      .num_threads = 1,
                                      .check_parallel_writes = check}});
  return call().status();
}

TEST(Parallel, RevisitsAcrossParallelSlicesAreRejected) {
  // The output block depends only on the arbitrary axis j: slices i = 0 and i = 1 collide.
  EXPECT_THAT(
      RunFill({2, 3}, {kParallel, kArbitrary}, BlockSpec({2}, [](int64_t, int64_t j) { return j; }),
              {6}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Parallel mode: outputs[0] is written at [0:2] by grid point (0, 0) and at [0:2] by "
               "grid point (1, 0), "
               "which lie in different parallel slices; programs that differ on a \"parallel\" "
               "axis must write "
               "disjoint output windows (mark the axis \"arbitrary\" to revisit an output block)"));
  // The same program with the axis marked arbitrary is fine (accumulation order is kept).
  EXPECT_TRUE(RunFill({2, 3}, {kArbitrary, kArbitrary},
                      BlockSpec({2}, [](int64_t, int64_t j) { return j; }), {6})
                  .ok());
  // Revisits along an arbitrary axis within one parallel slice are fine.
  EXPECT_TRUE(RunFill({3, 4}, {kParallel, kArbitrary},
                      BlockSpec({2}, [](int64_t i, int64_t) { return i; }), {6})
                  .ok());
  // Clamping can make two parallel programs collide.
  EXPECT_THAT(RunFill({4}, {kParallel}, BlockSpec({2}, [](int64_t i) { return i; }), {6}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("outputs[0] is written at [4:6] by grid point (2,) and at [4:6] "
                                 "by grid point (3,)")));
  // Partial overlaps of Element windows.
  EXPECT_THAT(
      RunFill({3}, {kParallel}, BlockSpec({Element(4)}, [](int64_t i) { return 2 * i; }), {8}),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          HasSubstr("is written at [0:4] by grid point (0,) and at [2:6] by grid point (1,)")));
  EXPECT_TRUE(
      RunFill({2}, {kParallel}, BlockSpec({Element(4)}, [](int64_t i) { return 4 * i; }), {8})
          .ok());
  EXPECT_TRUE(RunFill({3}, {kParallel}, BlockSpec({Element(4)}, [](int64_t i) { return 2 * i; }),
                      {8}, /*check=*/false)
                  .ok());
}

TEST(Parallel, ErrorsArePropagated) {
  ThreadPool pool(3);
  auto call = PallasCall(
      [](Ref<int32_t>) -> absl::Status {
        return ProgramId(0) >= 5 ? absl::InternalError("bad program") : absl::OkStatus();
      },
      OutShape<int32_t>{{16}},
      {.grid = {16},
       .out_specs = {BlockSpec({1}, [](int64_t i) { return i; })},
       .options = {.mode = Mode::kParallel, .dimension_semantics = {kParallel}, .pool = &pool}});
  absl::Status s = call().status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal, HasSubstr("bad program")));
}

TEST(Parallel, ZeroProgramsAndDefaultSemantics) {
  auto call = PallasCall([](Ref<int32_t> o) { o.Fill(1); }, OutShape<int32_t>{{2}},
                         {.grid = {0, 3}, .options = {.mode = Mode::kParallel}});
  absl::StatusOr<Array<int32_t>> out = call();
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(out->values(), ElementsAre(INT32_MIN, INT32_MIN));
}

// C[i, j] = sum_k A[i, k] B[k, j], blocked, k last and arbitrary.
TEST(Parallel, BlockedMatmulMatchesNaive) {
  const int64_t m = 48, n = 40, k = 56, bm = 16, bn = 8, bk = 8;
  Array<float> a = *Array<float>::Zeros({m, k});
  Array<float> b = *Array<float>::Zeros({k, n});
  std::mt19937 rng(static_cast<uint32_t>(testing_support::TestSeed(5)));
  for (int64_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<float>(rng() % 7) - 3;
  for (int64_t i = 0; i < b.size(); ++i) b.data()[i] = static_cast<float>(rng() % 5) - 2;
  auto kernel = [](Ref<const float> x, Ref<const float> y, Ref<float> o) {
    if (ProgramId(2) == 0) o.Fill(0.0f);
    for (int64_t i = 0; i < o.shape(0); ++i) {
      for (int64_t kk = 0; kk < x.shape(1); ++kk) {
        for (int64_t j = 0; j < o.shape(1); ++j) o(i, j) += x(i, kk) * y(kk, j);
      }
    }
  };
  ThreadPool pool(2);
  for (Mode mode : {Mode::kInterpret, Mode::kParallel}) {
    auto call = PallasCall(kernel, OutShape<float>{{m, n}},
                           {.grid = {m / bm, n / bn, k / bk},
                            .in_specs = {BlockSpec({bm, bk},
                                                   [](int64_t i, int64_t, int64_t kk) {
                                                     return std::pair{i, kk};
                                                   }),
                                         BlockSpec({bk, bn},
                                                   [](int64_t, int64_t j, int64_t kk) {
                                                     return std::pair{kk, j};
                                                   })},
                            .out_specs = {BlockSpec({bm, bn},
                                                    [](int64_t i, int64_t j, int64_t) {
                                                      return std::pair{i, j};
                                                    })},
                            .options = {.mode = mode,
                                        .dimension_semantics = {kParallel, kParallel, kArbitrary},
                                        .pool = &pool}});
    absl::StatusOr<Array<float>> c = call(a, b);
    ASSERT_TRUE(c.ok()) << c.status();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float want = 0;
        for (int64_t kk = 0; kk < k; ++kk) want += a(i, kk) * b(kk, j);
        ASSERT_EQ((*c)(i, j), want) << i << "," << j;
      }
    }
  }
}

}  // namespace
}  // namespace parallel_test
}  // namespace axe::pallas
