#include "runtime/reshard_benchmark.h"

#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/dist_test_util.h"
#include "sharding/test_util.h"
#include "support/status_matchers.h"

namespace axe::runtime {

using relayout::CheckOutcome;

namespace reshard_benchmark_test {
namespace {

using ::axe::sharding::test_util::Named;
using ::axe::sharding::test_util::XlaLayout;
using ::axe::testing_support::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(ReshardBenchmarkTest, MeasuresAndChecks) {
  std::unique_ptr<Client> client = *Client::InProcess(4);
  ReshardBenchmarkOptions options;
  options.runs = 3;
  options.check = true;
  std::vector<int64_t> reported;  // the progress callback: after every timed run
  options.on_run = [&reported](int64_t done) { reported.push_back(done); };
  absl::StatusOr<ReshardBenchmarkResult> r = BenchmarkReshard(
      *client, {32, 16}, DType::kBF16, test_util::FormatOf(Named("x=4", "P('x')")),
      test_util::FormatOf(Named("x=4", "P(None, 'x')"), XlaLayout("{0,1}")), options);
  ASSERT_OK(r.status());
  EXPECT_EQ(r->check, CheckOutcome::kPassed);
  EXPECT_EQ(r->runs, 3);
  EXPECT_EQ(reported, (std::vector<int64_t>{1, 2, 3}));
  // Each device keeps an 8x4 block of its 32x4 target and receives the other 24x4.
  EXPECT_EQ(r->plan.v_min_bytes, 4 * 24 * 4 * 2);
  EXPECT_EQ(r->stats.bytes_moved, r->plan.v_min_bytes);
  EXPECT_EQ(r->bytes_written, 4 * 32 * 4 * 2);
  EXPECT_GT(r->seconds, 0);
  EXPECT_GT(r->baseline_seconds, 0);
  EXPECT_NEAR(r->gbps, static_cast<double>(r->bytes_written) / r->seconds / 1e9, 1e-9);
  // Source shard 8x16 + target shard 32x4, 2 bytes each.
  const int64_t peak = (8 * 16 + 32 * 4) * 2;
  EXPECT_EQ(r->stats.peak_bytes, (std::vector<int64_t>{peak, peak, peak, peak}));
}

TEST(ReshardBenchmarkTest, Errors) {
  std::unique_ptr<Client> client = *Client::InProcess(2);
  ReshardBenchmarkOptions options;
  options.runs = -1;
  EXPECT_THAT(
      BenchmarkReshard(*client, {8}, DType::kF32, test_util::FormatOf(Named("x=2", "P('x')")),
                       test_util::FormatOf(Named("x=2", "P()")), options)
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("runs: must be between 0")));
  options.runs = 1;
  options.memory = MemoryBudget{64, "a test"};
  EXPECT_THAT(
      BenchmarkReshard(*client, {8}, DType::kF32, test_util::FormatOf(Named("x=2", "P('x')")),
                       test_util::FormatOf(Named("x=2", "P()")), options)
          .status(),
      StatusIs(absl::StatusCode::kResourceExhausted,
               AllOf(HasSubstr("the reshard (data, both arrays, the baseline) "
                               "needs about "),
                     HasSubstr("; the memory budget is 64 bytes, from a test"))));
  options.memory = std::nullopt;
  EXPECT_THAT(
      BenchmarkReshard(*client, {7}, DType::kF32, test_util::FormatOf(Named("x=2", "P('x')")),
                       test_util::FormatOf(Named("x=2", "P()")), options)
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("its dimension 0 should be divisible by 2")));
}

}  // namespace
}  // namespace reshard_benchmark_test
}  // namespace axe::runtime
