// The runtime part of `axe tour`: the relayout engine on a transpose and on XLA's TPU tiling,
// with the bandwidth measured as the tour runs.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <vector>

#include "absl/strings/str_format.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/runtime/relayout_plan.h"
#include "axe/xla/to_axe.h"
#include "tour.h"

namespace axe::cli {
namespace {

// Best-of-`runs` bandwidth (bytes read + written per second) of a plan and of memcpy of
// the same bytes, interleaved.
struct Timing {
  double gbps, memcpy_gbps;
};

absl::StatusOr<Timing> Measure(const runtime::RelayoutPlan& plan, const void* src, void* dst, int runs) {
  const size_t half = static_cast<size_t>(plan.bytes_moved() / 2);
  std::vector<uint8_t> a(half, 1), b(half, 2);
  double best = 1e30, best_memcpy = 1e30;
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    std::memcpy(b.data(), a.data(), half);
    auto t1 = std::chrono::steady_clock::now();
    AXE_RETURN_IF_ERROR(plan.Execute(src, dst));
    auto t2 = std::chrono::steady_clock::now();
    best_memcpy = std::min(best_memcpy, std::chrono::duration<double>(t1 - t0).count());
    best = std::min(best, std::chrono::duration<double>(t2 - t1).count());
  }
  return Timing{static_cast<double>(plan.bytes_moved()) / std::max(best, 1e-9) / 1e9,
                static_cast<double>(2 * half) / std::max(best_memcpy, 1e-9) / 1e9};
}

// Checks `samples` random elements of the box against ApplyBase on both layouts.
template <typename T>
bool SpotCheck(const Layout& src_l, const Layout& dst_l, const std::vector<int64_t>& shape, const std::vector<T>& src,
               const std::vector<T>& dst, int samples) {
  std::mt19937_64 rng(42);
  for (int k = 0; k < samples; ++k) {
    std::vector<int64_t> c;
    for (int64_t e : shape) c.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(e)));
    const int64_t from = ApplyBase(src_l, shape, c)->get(Axis::Memory());
    const int64_t to = ApplyBase(dst_l, shape, c)->get(Axis::Memory());
    if (dst[static_cast<size_t>(to)] != src[static_cast<size_t>(from)]) return false;
  }
  return true;
}

absl::Status Transpose(std::ostream& os) {
  const int64_t n = 2048;
  AXE_ASSIGN_OR_RETURN(Layout row_major, Layout::RowMajor({n, n}));
  AXE_ASSIGN_OR_RETURN(Layout col_major, Layout::Create({Iter{n, 1, Axis::Memory()}, Iter{n, n, Axis::Memory()}}));
  runtime::RelayoutOptions one_thread;
  one_thread.threads = 1;
  AXE_ASSIGN_OR_RETURN(runtime::RelayoutPlan plan, runtime::PlanRelayout(row_major, col_major, {n, n}, 4, one_thread));
  std::vector<float> src(static_cast<size_t>(n * n)), dst(src.size());
  for (size_t k = 0; k < src.size(); ++k) src[k] = static_cast<float>(k);
  AXE_ASSIGN_OR_RETURN(Timing t, Measure(plan, src.data(), dst.data(), 5));
  os << "The relayout engine copies a tensor between any two memory layouts. It plans once:\n"
        "each side is grouped by the logical shape, dimensions contiguous on both sides fuse,\n"
        "loops are ordered, and the innermost two get a kernel (here a cache-blocked LxL\n"
        "register transpose, SIMD via Highway's runtime dispatch). A "
     << n << "x" << n << " f32 transpose,\n"
        "row-major -> column-major, on one thread:\n\n  "
     << row_major << "  ->  " << col_major << "\n\n"
     << plan << "\n\n"
     << absl::StrFormat("  %.1f GB/s (bytes read + written); memcpy of the same bytes: %.1f GB/s (%.0f%%)\n", t.gbps,
                        t.memcpy_gbps, 100 * t.gbps / t.memcpy_gbps)
     << "  1000 random elements checked against apply_base on both layouts: "
     << (SpotCheck(row_major, col_major, {n, n}, src, dst, 1000) ? "equal" : "DIFFERENT") << "\n";
  return absl::OkStatus();
}

absl::Status Tiling(std::ostream& os) {
  // XLA's TPU layout for bf16: 8x128 tiles, pairs of rows interleaved inside each tile.
  const int64_t rows = 2048, cols = 2048;
  AXE_ASSIGN_OR_RETURN(xla::AxeForm form, xla::ToAxe("bf16[2048,2048]{1,0:T(8,128)(2,1)}"));
  const Layout tiled = form.layout;
  AXE_ASSIGN_OR_RETURN(Layout row_major, Layout::RowMajor({rows, cols}));
  runtime::RelayoutOptions one_thread;
  one_thread.threads = 1;
  AXE_ASSIGN_OR_RETURN(runtime::RelayoutPlan to_tiled, runtime::PlanRelayout(row_major, tiled, {rows, cols}, 2, one_thread));
  AXE_ASSIGN_OR_RETURN(runtime::RelayoutPlan back, runtime::PlanRelayout(tiled, row_major, {rows, cols}, 2, one_thread));
  std::vector<uint16_t> src(static_cast<size_t>(rows * cols)), mid(src.size()), out(src.size());
  for (size_t k = 0; k < src.size(); ++k) src[k] = static_cast<uint16_t>(k * 40503u);
  AXE_ASSIGN_OR_RETURN(Timing t1, Measure(to_tiled, src.data(), mid.data(), 5));
  AXE_ASSIGN_OR_RETURN(Timing t2, Measure(back, mid.data(), out.data(), 5));
  os << "XLA's TPU layout bf16[2048,2048]{1,0:T(8,128)(2,1)}, as an Axe layout (xla::ToAxe):\n\n  "
     << tiled << "\n\n"
     << "Row pairs are interleaved inside each tile, so the kernel zips two source rows:\n\n"
     << to_tiled << "\n"
     << absl::StrFormat("  row-major -> tiled: %.1f GB/s, memcpy %.1f GB/s (%.0f%%)\n", t1.gbps, t1.memcpy_gbps,
                        100 * t1.gbps / t1.memcpy_gbps)
     << absl::StrFormat("  tiled -> row-major: %.1f GB/s, memcpy %.1f GB/s (%.0f%%) [%s]\n", t2.gbps, t2.memcpy_gbps,
                        100 * t2.gbps / t2.memcpy_gbps, back.kernels()[0])
     << "  round trip equals the original: " << (out == src ? "yes" : "NO") << "; spot check of the tiled copy: "
     << (SpotCheck(row_major, tiled, {rows, cols}, src, mid, 1000) ? "equal" : "DIFFERENT") << "\n";
  return absl::OkStatus();
}

std::vector<TourSection> RuntimeTour() {
  return {{"runtime", "Relayout: a transpose at memory bandwidth", Transpose},
          {"runtime", "Relayout: XLA's TPU tiling and back", Tiling}};
}

AXE_TOUR_PART(60, RuntimeTour);

}  // namespace
}  // namespace axe::cli
