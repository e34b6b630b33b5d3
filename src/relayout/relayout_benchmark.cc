#include "relayout/relayout_benchmark.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/relayout_reference.h"

namespace axe::relayout {
namespace {

using Clock = std::chrono::steady_clock;

// The element offsets a side's storage spans: [begin, end) widened to include offset 0, so
// that the base pointer Execute takes (element offset 0) lies inside the allocation or one
// past its end, never outside it. A positive begin costs begin unused elements.
int64_t SpannedElements(int64_t begin, int64_t end) {
  return std::max<int64_t>(end, 0) - std::min<int64_t>(begin, 0);
}

// 64-byte aligned storage for the element offsets [begin, end) of a plan's side.
struct Buffer {
  std::unique_ptr<uint8_t, decltype(&std::free)> storage{nullptr, &std::free};
  uint8_t* base = nullptr;  // element offset 0, inside the storage (or one past its end)
  int64_t first = 0;        // byte offset in the storage of element offset `begin`
  int64_t bytes = 0;        // of the elements [begin, end)
  // Errors (ResourceExhausted) when the allocation fails or its size overflows; `what`
  // names the buffer.
  absl::Status Allocate(int64_t begin, int64_t end, int element_bytes, absl::string_view what) {
    const std::optional<int64_t> spanned = CheckedMul(SpannedElements(begin, end), element_bytes);
    const std::optional<int64_t> size =
        spanned ? CheckedMul(CeilDiv(std::max<int64_t>(1, *spanned), 64), 64) : std::nullopt;
    if (!size) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the ", what, " spans more bytes than a 64-bit size holds"));
    }
    bytes = std::max<int64_t>(1, (end - begin) * element_bytes);  // the plan checked the range
    storage.reset(static_cast<uint8_t*>(std::aligned_alloc(64, static_cast<size_t>(*size))));
    if (storage == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat("cannot allocate ", *size, " bytes for the ", what));
    }
    const int64_t zero = -std::min<int64_t>(begin, 0) * element_bytes;  // offset 0's byte
    base = storage.get() + zero;
    first = zero + begin * element_bytes;
    return absl::OkStatus();
  }
  uint8_t* data() { return storage.get() + first; }
};

void FillPattern(uint8_t* p, int64_t bytes, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  int64_t k = 0;
  for (; k + 8 <= bytes; k += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(p + k, &x, 8);
  }
  for (; k < bytes; ++k) p[k] = static_cast<uint8_t>(k);
}

absl::Status CheckOptions(const BenchmarkOptions& o) {
  if (o.runs < 0 || o.runs > kMaxBenchmarkRuns) {
    return absl::InvalidArgumentError(absl::StrCat("runs must be between 1 and ", kMaxBenchmarkRuns,
                                                   " (0: automatic), got ", o.runs));
  }
  if (!(o.target_seconds >= 0 && o.target_seconds <= 3600)) {
    return absl::InvalidArgumentError(
        absl::StrCat("target_seconds must be between 0 and 3600, got ", o.target_seconds));
  }
  if (!(o.max_seconds > 0 && o.max_seconds <= 3600)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_seconds must be in (0, 3600], got ", o.max_seconds));
  }
  return absl::OkStatus();
}

// Refuses up front what cannot fit in the memory budget (instead of being killed mid-run):
// source, destination, two memcpy buffers and, with check, the expected result.
absl::Status CheckMemory(const RelayoutPlan& plan, int64_t copy_bytes, const BenchmarkOptions& o) {
  const int64_t b = plan.element_bytes();
  std::optional<int64_t> src = CheckedMul(SpannedElements(plan.src_begin(), plan.src_end()), b);
  std::optional<int64_t> dst = CheckedMul(SpannedElements(plan.dst_begin(), plan.dst_end()), b);
  std::optional<int64_t> needed = src && dst ? CheckedMul(*dst, o.check ? 2 : 1) : std::nullopt;
  if (needed) needed = CheckedAdd(*needed, *src);
  if (needed) needed = CheckedAdd(*needed, 2 * copy_bytes);
  AXE_ASSIGN_OR_RETURN(MemoryBudget budget, GivenOrCurrentBudget(o.memory));
  return budget.Check(needed, absl::StrCat("the relayout (source, destination, memcpy "
                                           "baseline",
                                           o.check ? ", expected result" : "", ")"));
}

// memcpy of `bytes` bytes split over `threads` threads.
void ParallelMemcpy(uint8_t* dst, const uint8_t* src, int64_t bytes, int threads,
                    ThreadPool& pool) {
  if (threads <= 1) {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    return;
  }
  const int64_t part = (bytes / threads + 63) / 64 * 64;
  pool.ParallelFor(
      threads,
      [&](int64_t t) {
        const int64_t lo = std::min(bytes, t * part), hi = std::min(bytes, lo + part);
        std::memcpy(dst + lo, src + lo, static_cast<size_t>(hi - lo));
      },
      threads);
}

}  // namespace

absl::string_view CheckOutcomeName(CheckOutcome outcome) {
  switch (outcome) {
    case CheckOutcome::kSkipped: return "skipped";
    case CheckOutcome::kPassed: return "passed";
    case CheckOutcome::kFailed: return "failed";
  }
  return "?";
}

absl::StatusOr<BenchmarkResult> BenchmarkRelayout(const RelayoutPlan& plan,
                                                  const BufferLayout& src_layout,
                                                  const BufferLayout& dst_layout,
                                                  const BenchmarkOptions& options) {
  AXE_RETURN_IF_ERROR(CheckOptions(options));
  const int bytes = plan.element_bytes();
  const int64_t copy_bytes = std::max<int64_t>(1, plan.bytes_moved() / 2);
  AXE_RETURN_IF_ERROR(CheckMemory(plan, copy_bytes, options));
  Buffer src, dst, memcpy_src, memcpy_dst;
  AXE_RETURN_IF_ERROR(src.Allocate(plan.src_begin(), plan.src_end(), bytes, "source"));
  AXE_RETURN_IF_ERROR(dst.Allocate(plan.dst_begin(), plan.dst_end(), bytes, "destination"));
  AXE_RETURN_IF_ERROR(memcpy_src.Allocate(0, copy_bytes, 1, "memcpy source"));
  AXE_RETURN_IF_ERROR(memcpy_dst.Allocate(0, copy_bytes, 1, "memcpy destination"));
  FillPattern(src.data(), src.bytes, 1);
  std::memset(dst.data(), 0xA5, static_cast<size_t>(dst.bytes));
  FillPattern(memcpy_src.data(), copy_bytes, 2);
  std::memset(memcpy_dst.data(), 0, static_cast<size_t>(copy_bytes));

  ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
  BenchmarkResult r;
  r.threads = plan.threads();
  r.bytes = plan.bytes_moved();
  auto memcpy_once = [&] {
    ParallelMemcpy(memcpy_dst.data(), memcpy_src.data(), copy_bytes, r.threads, pool);
  };
  AXE_RETURN_IF_ERROR(plan.Execute(src.base, dst.base));  // warm-up
  memcpy_once();
  double best = 1e30, best_memcpy = 1e30, spent = 0;
  const int64_t max_runs = options.runs > 0 ? options.runs : 50;
  const Clock::time_point start = Clock::now();
  auto now = [&] {
    return options.clock ? options.clock()
                         : std::chrono::duration<double>(Clock::now() - start).count();
  };
  while (r.runs < max_runs) {
    const double t0 = now();
    memcpy_once();
    const double t1 = now();
    AXE_RETURN_IF_ERROR(plan.Execute(src.base, dst.base));
    const double t2 = now();
    ++r.runs;
    if (options.on_run) options.on_run(r.runs);
    best_memcpy = std::min(best_memcpy, t1 - t0);
    best = std::min(best, t2 - t1);
    spent += t2 - t0;
    if (options.runs == 0 && r.runs >= 3 && spent > options.target_seconds) break;
    if (spent > options.max_seconds && r.runs < max_runs) {
      r.stopped_by_time_limit = options.runs > 0;
      break;
    }
  }
  r.seconds = std::max(best, 1e-9);
  r.memcpy_seconds = std::max(best_memcpy, 1e-9);
  r.gbps = static_cast<double>(r.bytes) / r.seconds / 1e9;
  r.memcpy_gbps = 2.0 * static_cast<double>(copy_bytes) / r.memcpy_seconds / 1e9;

  if (options.check) {
    Buffer expected;
    AXE_RETURN_IF_ERROR(
        expected.Allocate(plan.dst_begin(), plan.dst_end(), bytes, "expected result"));
    std::memset(expected.data(), 0xA5, static_cast<size_t>(expected.bytes));
    AXE_RETURN_IF_ERROR(ReferenceRelayout(src_layout, dst_layout, plan.shape(), bytes, src.base,
                                          expected.base, options.padding_value, &pool));
    r.check = std::memcmp(expected.data(), dst.data(), static_cast<size_t>(dst.bytes)) == 0
                  ? CheckOutcome::kPassed
                  : CheckOutcome::kFailed;
  }
  return r;
}

}  // namespace axe::relayout
