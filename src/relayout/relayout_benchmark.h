// Timing a relayout plan on generated data, next to memcpy of the same bytes on the same
// number of threads (the two interleaved, the best run of each), and optionally checking
// the result against the element-by-element reference (relayout_reference.h).
//
//   absl::StatusOr<BenchmarkResult> r = BenchmarkRelayout(plan, src, dst, {});
//   r->gbps / r->memcpy_gbps;   // the fraction of memcpy's bandwidth
#ifndef AXE_RELAYOUT_RELAYOUT_BENCHMARK_H_
#define AXE_RELAYOUT_RELAYOUT_BENCHMARK_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/base/memory_budget.h"
#include "axe/base/thread_pool.h"
#include "axe/relayout/buffer_layout.h"
#include "axe/relayout/relayout_plan.h"

namespace axe::relayout {

// The most timed runs a benchmark takes.
inline constexpr int64_t kMaxBenchmarkRuns = 1000000;

struct BenchmarkOptions {
  // Timed runs: exactly this many when > 0 (1 to kMaxBenchmarkRuns), unless max_seconds
  // runs out first; 0: as many as fit in about target_seconds (3 to 50).
  int64_t runs = 0;
  double target_seconds = 0.3;
  // Timing stops once this much time has been spent, whatever `runs` says (> 0).
  double max_seconds = 60;
  // The time in seconds, read before and after each timed memcpy and plan run; empty: a
  // steady clock. Tests give a fake clock to make the run count and timings exact.
  std::function<double()> clock;
  // Compare the destination with ReferenceRelayout's (which needs one more destination
  // buffer). `padding_value` must then be the plan's (RelayoutOptions::padding_value).
  bool check = false;
  std::optional<std::vector<uint8_t>> padding_value;
  ThreadPool* pool = nullptr;  // for memcpy and the reference; nullptr: ThreadPool::Default()
  // Refuse runs whose buffers exceed this budget; nullopt: the budget when the run starts
  // (ResolveMemoryBudget: AXE_MEMORY_LIMIT, else the cgroup limit or MemAvailable).
  std::optional<MemoryBudget> memory;
  // Called after each timed run with the runs done so far (a progress report); may be empty.
  std::function<void(int64_t runs_done)> on_run;
};

enum class CheckOutcome { kSkipped, kPassed, kFailed };
// "skipped", "passed", "failed".
absl::string_view CheckOutcomeName(CheckOutcome outcome);

struct BenchmarkResult {
  double seconds = 0;                  // the best run of the plan
  double memcpy_seconds = 0;           // the best memcpy of bytes / 2 bytes on `threads` threads
  double gbps = 0;                     // bytes / seconds / 1e9
  double memcpy_gbps = 0;              // bytes / memcpy_seconds / 1e9
  int64_t bytes = 0;                   // read + written per run (RelayoutPlan::bytes_moved)
  int threads = 1;                     // of the plan, and of memcpy
  int64_t runs = 0;                    // timed runs done (each: one memcpy, one plan run)
  bool stopped_by_time_limit = false;  // fewer runs than asked: max_seconds ran out
  CheckOutcome check = CheckOutcome::kSkipped;
};

// Runs `plan` (planned from `src` to `dst`) on generated data. Errors: InvalidArgument for
// options out of range (naming the field); ResourceExhausted when the buffers (source,
// destination, the memcpy pair and, with check, the expected result) would exceed the
// memory budget, or an allocation fails; errors of Execute
// and ReferenceRelayout.
absl::StatusOr<BenchmarkResult> BenchmarkRelayout(const RelayoutPlan& plan, const BufferLayout& src,
                                                  const BufferLayout& dst,
                                                  const BenchmarkOptions& options = {});

}  // namespace axe::relayout

#endif  // AXE_RELAYOUT_RELAYOUT_BENCHMARK_H_
