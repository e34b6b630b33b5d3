// The benchmark harness: structure and sanity of its results (no timed assertions), the
// check against the reference, run bounds and option errors.
#include "axe/runtime/relayout_benchmark.h"

#include <vector>

#include "axe/layout/layout.h"
#include "axe/runtime/relayout_plan.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::runtime {
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
  EXPECT_DOUBLE_EQ(r->gbps, r->bytes / r->seconds / 1e9);
  EXPECT_DOUBLE_EQ(r->memcpy_gbps, r->bytes / r->memcpy_seconds / 1e9);
  EXPECT_EQ(r->check, CheckOutcome::kPassed);
  EXPECT_EQ(CheckOutcomeName(r->check), "passed");
}

TEST(RelayoutBenchmark, ExactRunsAndNoCheck) {
  Transpose t;
  BenchmarkOptions options;
  options.runs = 7;
  absl::StatusOr<BenchmarkResult> r = BenchmarkRelayout(t.plan, t.src, t.dst, options);
  ASSERT_OK(r);
  EXPECT_EQ(r->runs, 7);
  EXPECT_EQ(r->check, CheckOutcome::kSkipped);
}

TEST(RelayoutBenchmark, TimeLimitStopsManyRuns) {
  // A million runs of an 8 MiB copy cannot fit in 0.2 s: the limit stops them.
  const BufferLayout src{*Layout::Parse("S[(1024,1024):(1024,1)]")};
  const BufferLayout dst{*Layout::Parse("S[(1024,1024):(1,1024)]")};
  RelayoutPlan plan = *PlanRelayout(src, dst, {1024, 1024}, 4);
  BenchmarkOptions options;
  options.runs = kMaxBenchmarkRuns;
  options.max_seconds = 0.2;
  absl::StatusOr<BenchmarkResult> r = BenchmarkRelayout(plan, src, dst, options);
  ASSERT_OK(r);
  EXPECT_TRUE(r->stopped_by_time_limit);
  EXPECT_GE(r->runs, 1);
  EXPECT_LT(r->runs, kMaxBenchmarkRuns);
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
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("GB of buffers")));
}

}  // namespace
}  // namespace axe::runtime
