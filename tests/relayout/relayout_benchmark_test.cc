// The benchmark harness: structure and sanity of its results (no timed assertions), the
// check against the reference, run bounds and option errors.
#include "relayout/relayout_benchmark.h"

#include <functional>
#include <memory>
#include <vector>

#include "axe/layout/layout.h"
#include "axe/relayout/relayout_plan.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::relayout {
namespace relayout_benchmark_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

struct Transpose {
  BufferLayout src{*Layout::Parse("S[(64,48):(48,1)]")};
  BufferLayout dst{*Layout::Parse("S[(64,48):(1,64)]")};
  RelayoutPlan plan = *PlanRelayout(src, dst, {64, 48}, 4);
};

TEST(RelayoutBenchmark, ResultFields) {
  Transpose t;
  BenchmarkOptions options;
  options.check = true;
  absl::StatusOr<BenchmarkResult> r = BenchmarkRelayout(t.plan, t.src, t.dst, options);
  ASSERT_OK(r);
  EXPECT_EQ(r->bytes, 2 * 64 * 48 * 4);
  EXPECT_EQ(r->threads, t.plan.threads());
  EXPECT_GE(r->runs, 3);
  EXPECT_LE(r->runs, 50);
  EXPECT_FALSE(r->stopped_by_time_limit);
  EXPECT_GT(r->seconds, 0);
  EXPECT_GT(r->memcpy_seconds, 0);
  // Bandwidths are positive and consistent with the bytes and the best times (relations,
  // not the formula: memcpy copies half the bytes, rounded down).
  EXPECT_GT(r->gbps, 0);
  EXPECT_GT(r->memcpy_gbps, 0);
  EXPECT_NEAR(r->gbps * r->seconds * 1e9, r->bytes, 1e-6 * r->bytes);
  EXPECT_NEAR(r->memcpy_gbps * r->memcpy_seconds * 1e9, r->bytes, 2 + 1e-6 * r->bytes);
  EXPECT_EQ(r->check, CheckOutcome::kPassed);
  EXPECT_EQ(CheckOutcomeName(r->check), "passed");
}

TEST(RelayoutBenchmark, ExactRunsAndNoCheck) {
  Transpose t;
  BenchmarkOptions options;
  options.runs = 7;
  std::vector<int64_t> reported;  // the progress callback: after every timed run
  options.on_run = [&reported](int64_t done) { reported.push_back(done); };
  absl::StatusOr<BenchmarkResult> r = BenchmarkRelayout(t.plan, t.src, t.dst, options);
  ASSERT_OK(r);
  EXPECT_EQ(r->runs, 7);
  EXPECT_EQ(reported, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(r->check, CheckOutcome::kSkipped);
}

// A clock that reads 3i, 3i + 1, 3i + 3 around run i: every memcpy takes 1 s and every
// plan run 2 s, so run counts, times and bandwidths are exact.
std::function<double()> FakeClock() {
  auto calls = std::make_shared<int64_t>(0);
  return [calls] {
    const int64_t k = (*calls)++;
    return static_cast<double>(3 * (k / 3) + (k % 3 == 2 ? 3 : k % 3));
  };
}

TEST(RelayoutBenchmark, TimeLimitStopsManyRuns) {
  // 3 s per run: the 7.5 s budget stops a million runs after the third.
  Transpose t;
  BenchmarkOptions options;
  options.runs = kMaxBenchmarkRuns;
  options.max_seconds = 7.5;
  options.clock = FakeClock();
  absl::StatusOr<BenchmarkResult> r = BenchmarkRelayout(t.plan, t.src, t.dst, options);
  ASSERT_OK(r);
  EXPECT_TRUE(r->stopped_by_time_limit);
  EXPECT_EQ(r->runs, 3);
  EXPECT_EQ(r->seconds, 2);
  EXPECT_EQ(r->memcpy_seconds, 1);
  EXPECT_DOUBLE_EQ(r->gbps, r->bytes / 2.0 / 1e9);
  EXPECT_NEAR(r->memcpy_gbps, r->bytes / 1e9, 2 / 1e9);
}

TEST(RelayoutBenchmark, AutomaticRunsStopAtTheTarget) {
  // runs = 0: at least 3 runs, then stop once target_seconds is spent (3 s per run).
  Transpose t;
  BenchmarkOptions options;
  options.target_seconds = 10;
  options.clock = FakeClock();
  absl::StatusOr<BenchmarkResult> r = BenchmarkRelayout(t.plan, t.src, t.dst, options);
  ASSERT_OK(r);
  EXPECT_EQ(r->runs, 4);
  EXPECT_FALSE(r->stopped_by_time_limit);
  options.target_seconds = 0;
  options.clock = FakeClock();
  r = BenchmarkRelayout(t.plan, t.src, t.dst, options);
  ASSERT_OK(r);
  EXPECT_EQ(r->runs, 3);
}

TEST(RelayoutBenchmark, BuffersWithOffsets) {
  // Element offsets [100, 100 + 64*48) and negative ones: the buffers cover them (Execute's
  // base pointer stays inside the allocation), and the result checks out.
  for (const char* from : {"S[(64,48):(48,1)] + 100", "S[(64,48):(-48,-1)]"}) {
    const BufferLayout src{*Layout::Parse(from)};
    const BufferLayout dst{*Layout::Parse("S[(64,48):(1,64)] + 7")};
    absl::StatusOr<RelayoutPlan> plan = PlanRelayout(src, dst, {64, 48}, 4);
    ASSERT_OK(plan);
    EXPECT_NE(plan->src_begin(), 0) << from;
    EXPECT_EQ(plan->dst_begin(), 7);
    BenchmarkOptions options;
    options.runs = 1;
    options.check = true;
    absl::StatusOr<BenchmarkResult> r = BenchmarkRelayout(*plan, src, dst, options);
    ASSERT_OK(r);
    EXPECT_EQ(r->check, CheckOutcome::kPassed) << from;
  }
}

TEST(RelayoutBenchmark, PaddingFillChecked) {
  const BufferLayout src{*Layout::Parse("S[(5,6):(6,1)]")};
  const BufferLayout dst{*Layout::Parse("S[(2,3,2,3):(18,3,9,1)]"), {6, 6}};
  RelayoutOptions plan_options;
  plan_options.padding_value = ElementValue<int32_t>(7);
  RelayoutPlan plan = *PlanRelayout(src, dst, {5, 6}, 4, plan_options);
  BenchmarkOptions options;
  options.runs = 1;
  options.check = true;
  options.padding_value = plan_options.padding_value;
  absl::StatusOr<BenchmarkResult> r = BenchmarkRelayout(plan, src, dst, options);
  ASSERT_OK(r);
  EXPECT_EQ(r->check, CheckOutcome::kPassed);
  // A different padding value than the plan's: the check fails.
  options.padding_value = ElementValue<int32_t>(8);
  r = BenchmarkRelayout(plan, src, dst, options);
  ASSERT_OK(r);
  EXPECT_EQ(r->check, CheckOutcome::kFailed);
}

TEST(RelayoutBenchmark, Errors) {
  Transpose t;
  BenchmarkOptions options;
  for (int64_t runs : {int64_t{-1}, kMaxBenchmarkRuns + 1}) {
    options.runs = runs;
    EXPECT_THAT(BenchmarkRelayout(t.plan, t.src, t.dst, options),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("runs must be between 1 and 1000000")));
  }
  options = {};
  options.max_seconds = 0;
  EXPECT_THAT(BenchmarkRelayout(t.plan, t.src, t.dst, options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("max_seconds")));
  options = {};
  options.target_seconds = -1;
  EXPECT_THAT(BenchmarkRelayout(t.plan, t.src, t.dst, options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("target_seconds")));
  // Buffers beyond the memory limit: refused before any allocation.
  const BufferLayout big_src{*Layout::Parse("S[(1000000,1000000):(1000000,1)]")};
  const BufferLayout big_dst{*Layout::Parse("S[(1000000,1000000):(1,1000000)]")};
  absl::StatusOr<RelayoutPlan> big = PlanRelayout(big_src, big_dst, {1000000, 1000000}, 4);
  ASSERT_OK(big);
  EXPECT_THAT(BenchmarkRelayout(*big, big_src, big_dst),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("the relayout (source, destination, memcpy baseline) "
                                 "needs about 14.6 TiB")));
  // A small explicit budget refuses a small run, naming the budget's source.
  options = {};
  options.memory = MemoryBudget{1024, "a test"};
  EXPECT_THAT(BenchmarkRelayout(t.plan, t.src, t.dst, options),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("the memory budget is 1.0 KiB (1024 bytes), from a test")));
}

}  // namespace
}  // namespace relayout_benchmark_test
}  // namespace axe::relayout
