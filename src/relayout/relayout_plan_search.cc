#include "relayout/relayout_plan_search.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "relayout/relayout_plan_build.h"
#include "relayout/relayout_plan_nest.h"

namespace axe::relayout::internal {
namespace {

// Times `plan` on scratch buffers: the best of `reps` runs, in seconds.
double TimePlan(const PlanData& plan, const uint8_t* src, uint8_t* dst, int reps) {
  double best = 1e30;
  for (int k = 0; k < reps; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    absl::Status s = ExecutePlan(plan, src, dst);
    auto t1 = std::chrono::steady_clock::now();
    AXE_CHECK(s.ok()) << s.message();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

// The option changes tried, one at a time.
std::vector<std::function<void(RelayoutOptions&)>> Variants(const PlanData& estimate) {
  std::vector<std::function<void(RelayoutOptions&)>> variants;
  for (StoreMode m : {StoreMode::kRegular, StoreMode::kStreaming}) {
    variants.push_back([m](RelayoutOptions& o) { o.stores = m; });
  }
  variants.push_back([](RelayoutOptions& o) { o.loop_order = LoopOrder::kSource; });
  const bool transposes =
      std::any_of(estimate.nests.begin(), estimate.nests.end(),
                  [](const Nest& n) { return n.kind == KernelKind::kTranspose; });
  if (!transposes) return variants;
  for (int64_t rows : {16, 64, 128}) {
    variants.push_back([rows](RelayoutOptions& o) { o.block_rows = rows; });
  }
  for (int64_t cols : {256, 2048}) {
    variants.push_back([cols](RelayoutOptions& o) { o.block_cols = cols; });
  }
  for (int staged : {1, -1}) {
    variants.push_back([staged](RelayoutOptions& o) { o.staged = staged; });
  }
  for (int lanes : {4, 8, 16}) {
    variants.push_back([lanes](RelayoutOptions& o) { o.tile_lanes = lanes; });
  }
  return variants;
}

}  // namespace

std::shared_ptr<PlanData> MeasureBestPlan(const BufferLayout& src, const BufferLayout& dst,
                                          const Analysis& a, const RelayoutOptions& options,
                                          std::shared_ptr<PlanData> best) {
  const int64_t b = a.element_bytes;
  const int64_t src_bytes = (best->src_end - best->src_begin) * b;
  const int64_t dst_bytes = (best->dst_end - best->dst_begin) * b;
  if (src_bytes + dst_bytes > options.measure_max_bytes) {
    best->note = "kMeasure skipped: buffers larger than measure_max_bytes";
    return best;
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(options.measure_seconds));
  // Page-aligned scratch, like the buffers callers allocate for large tensors: the plans
  // are compared as they run there (a std::vector's 16-byte-aligned heap block made every
  // streamed run of the grouped AVX2 transpose straddle lines, and the search chose plans
  // at half its speed).
  auto scratch = [](int64_t bytes, int fill) {
    std::unique_ptr<uint8_t, decltype(&std::free)> buf(
        static_cast<uint8_t*>(
            std::aligned_alloc(4096, static_cast<size_t>((bytes + 4095) / 4096 * 4096))),
        &std::free);
    AXE_CHECK(buf != nullptr) << "kMeasure: out of memory for " << bytes << " bytes of scratch";
    std::memset(buf.get(), fill, static_cast<size_t>(bytes));
    return buf;
  };
  const auto src_buf = scratch(src_bytes, 1);
  const auto dst_buf = scratch(dst_bytes, 2);
  const uint8_t* src_base = src_buf.get() - best->src_begin * b;
  uint8_t* dst_base = dst_buf.get() - best->dst_begin * b;
  double best_time = TimePlan(*best, src_base, dst_base, 2);
  int tried = 1;
  const std::vector<std::function<void(RelayoutOptions&)>> variants = Variants(*best);
  std::vector<size_t> kept;  // the variants of the best plan so far
  for (size_t v = 0; v < variants.size(); ++v) {
    if (std::chrono::steady_clock::now() >= deadline) break;
    RelayoutOptions o = options;
    for (size_t k : kept) variants[k](o);
    variants[v](o);
    absl::StatusOr<std::shared_ptr<PlanData>> candidate = BuildPlan(src, dst, a, o, TuningFrom(o));
    if (!candidate.ok() || (*candidate)->src_begin != best->src_begin ||
        (*candidate)->dst_begin != best->dst_begin) {
      continue;
    }
    const double time = TimePlan(**candidate, src_base, dst_base, 2);
    ++tried;
    if (time < best_time) {
      best_time = time;
      best = *std::move(candidate);
      kept.push_back(v);
    }
  }
  best->note = absl::StrCat("kMeasure: best of ", tried, " plans");
  return best;
}

}  // namespace axe::relayout::internal
