// The runtime part of `axe tour`: the relayout engine on a transpose and on XLA's TPU tiling,
// with the bandwidth measured as the tour runs (relayout::BenchmarkRelayout). The results the
// text claims are checked: a mismatch fails the tour instead of being printed.
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/relayout/relayout_plan.h"
#include "axe/runtime/array.h"
#include "axe/runtime/client.h"
#include "axe/runtime/reshard.h"
#include "axe/runtime/reshard_plan.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/named_sharding.h"
#include "axe/sharding/partition_spec.h"
#include "axe/xla/text.h"
#include "axe/xla/to_axe.h"
#include "relayout/relayout_benchmark.h"
#include "tour.h"

namespace axe::cli {
namespace tour_runtime {
namespace {

// A tour self-check: the text states what the run shows; a run that shows something else
// fails the tour (an internal error).
absl::Status SelfCheck(bool holds, absl::string_view claim) {
  if (holds) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("tour self-check failed: ", claim));
}

// Best-of-5 bandwidth of `plan` next to memcpy of the same bytes on the same threads.
absl::StatusOr<relayout::BenchmarkResult> Measure(const relayout::RelayoutPlan& plan,
                                                  const Layout& src, const Layout& dst) {
  relayout::BenchmarkOptions options;
  options.runs = 5;
  return relayout::BenchmarkRelayout(plan, src, dst, options);
}

// True when `samples` random elements of the box agree with ApplyBase on both layouts.
template <typename T>
bool SpotCheck(const Layout& src_l, const Layout& dst_l, const std::vector<int64_t>& shape,
               const std::vector<T>& src, const std::vector<T>& dst, int samples) {
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

std::string Percent(const relayout::BenchmarkResult& r) {
  return absl::StrFormat("%.1f GB/s, memcpy %.1f GB/s (%.0f%%)", r.gbps, r.memcpy_gbps,
                         100 * r.gbps / r.memcpy_gbps);
}

absl::Status Transpose(std::ostream& os) {
  const int64_t n = 2048;
  AXE_ASSIGN_OR_RETURN(Layout row_major, Layout::RowMajor({n, n}));
  AXE_ASSIGN_OR_RETURN(Layout col_major,
                       Layout::Create({Iter{n, 1, Axis::Memory()}, Iter{n, n, Axis::Memory()}}));
  relayout::RelayoutOptions one_thread;
  one_thread.threads = 1;
  AXE_ASSIGN_OR_RETURN(relayout::RelayoutPlan plan,
                       relayout::PlanRelayout(row_major, col_major, {n, n}, 4, one_thread));
  std::vector<float> src(static_cast<size_t>(n * n)), dst(src.size());
  for (size_t k = 0; k < src.size(); ++k) src[k] = static_cast<float>(k);
  AXE_RETURN_IF_ERROR(plan.Execute(src.data(), dst.data()));
  AXE_RETURN_IF_ERROR(SelfCheck(SpotCheck(row_major, col_major, {n, n}, src, dst, 1000),
                                "the transposed elements equal apply_base's"));
  AXE_ASSIGN_OR_RETURN(relayout::BenchmarkResult t, Measure(plan, row_major, col_major));
  os << "The relayout engine copies a tensor between any two memory layouts. It plans once:\n"
        "each side is grouped by the logical shape, dimensions contiguous on both sides fuse,\n"
        "loops are ordered, and the innermost two get a kernel (here a cache-blocked LxL\n"
        "register transpose, SIMD via Highway's runtime dispatch). A "
     << n << "x" << n
     << " f32 transpose,\n"
        "row-major -> column-major, on one thread:\n\n  "
     << row_major << "  ->  " << col_major << "\n\n"
     << plan << "\n\n"
     << "  " << Percent(t) << " (bytes read + written)\n"
     << "  1000 random elements checked against apply_base on both layouts: equal\n";
  return absl::OkStatus();
}

absl::Status Tiling(std::ostream& os) {
  // XLA's TPU layout for bf16: 8x128 tiles, pairs of rows interleaved inside each tile.
  const int64_t rows = 2048, cols = 2048;
  AXE_ASSIGN_OR_RETURN(xla::AxeForm form, xla::ToAxe("bf16[2048,2048]{1,0:T(8,128)(2,1)}"));
  const Layout tiled = form.layout;
  AXE_ASSIGN_OR_RETURN(Layout row_major, Layout::RowMajor({rows, cols}));
  relayout::RelayoutOptions one_thread;
  one_thread.threads = 1;
  AXE_ASSIGN_OR_RETURN(relayout::RelayoutPlan to_tiled,
                       relayout::PlanRelayout(row_major, tiled, {rows, cols}, 2, one_thread));
  AXE_ASSIGN_OR_RETURN(relayout::RelayoutPlan back,
                       relayout::PlanRelayout(tiled, row_major, {rows, cols}, 2, one_thread));
  std::vector<uint16_t> src(static_cast<size_t>(rows * cols)), mid(src.size()), out(src.size());
  for (size_t k = 0; k < src.size(); ++k) src[k] = static_cast<uint16_t>(k * 40503u);
  AXE_RETURN_IF_ERROR(to_tiled.Execute(src.data(), mid.data()));
  AXE_RETURN_IF_ERROR(back.Execute(mid.data(), out.data()));
  AXE_RETURN_IF_ERROR(SelfCheck(out == src, "the round trip equals the original"));
  AXE_RETURN_IF_ERROR(SelfCheck(SpotCheck(row_major, tiled, {rows, cols}, src, mid, 1000),
                                "the tiled elements equal apply_base's"));
  AXE_ASSIGN_OR_RETURN(relayout::BenchmarkResult t1, Measure(to_tiled, row_major, tiled));
  AXE_ASSIGN_OR_RETURN(relayout::BenchmarkResult t2, Measure(back, tiled, row_major));
  os << "XLA's TPU layout bf16[2048,2048]{1,0:T(8,128)(2,1)}, as an Axe layout (xla::ToAxe):\n\n  "
     << tiled << "\n\n"
     << "Row pairs are interleaved inside each tile, so the kernel zips two source rows:\n\n"
     << to_tiled << "\n"
     << "  row-major -> tiled: " << Percent(t1) << "\n"
     << "  tiled -> row-major: " << Percent(t2) << " [" << back.kernels()[0] << "]\n"
     << "  round trip equals the original: yes; spot check of the tiled copy: equal\n";
  return absl::OkStatus();
}

absl::StatusOr<sharding::NamedSharding> Sharded(const sharding::Mesh& mesh,
                                                absl::string_view spec) {
  AXE_ASSIGN_OR_RETURN(sharding::PartitionSpec p, sharding::PartitionSpec::Parse(spec));
  return sharding::NamedSharding::Create(mesh, p);
}

// An 8x8 f32 array on 4 in-process devices goes from row blocks to column blocks, the
// target shards column-major: the plan's V_min, what moved, and every shard checked.
absl::Status ReshardSection(std::ostream& os) {
  const std::vector<int64_t> shape = {8, 8};
  AXE_ASSIGN_OR_RETURN(sharding::Mesh mesh, sharding::Mesh::Parse("x=2,y=2"));
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding rows, Sharded(mesh, "P('x', None)"));
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding cols, Sharded(mesh, "P(None, 'y')"));
  AXE_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Client> client, runtime::Client::InProcess(4));
  std::vector<float> host(64);
  for (size_t k = 0; k < host.size(); ++k) host[k] = static_cast<float>(k);
  const auto* bytes = reinterpret_cast<const uint8_t*>(host.data());
  AXE_ASSIGN_OR_RETURN(sharding::Format from, runtime::MakeArrayFormat(rows));
  AXE_ASSIGN_OR_RETURN(
      runtime::Array a,
      runtime::Array::DevicePut(*client, {bytes, host.size() * 4}, shape, DType::kF32, from));
  AXE_ASSIGN_OR_RETURN(runtime::ReshardPlan plan, runtime::PlanReshard(shape, 4, rows, cols));
  AXE_ASSIGN_OR_RETURN(xla::Layout column_major, xla::ParseLayout("{0,1}"));
  AXE_ASSIGN_OR_RETURN(sharding::Format to, runtime::MakeArrayFormat(cols, column_major));
  runtime::ReshardStats stats;
  AXE_ASSIGN_OR_RETURN(runtime::Array b, runtime::ExecuteReshard(a, to, plan, {}, &stats));
  AXE_RETURN_IF_ERROR(SelfCheck(stats.bytes_moved == plan.v_min_bytes && plan.v_min_bytes == 256,
                                "the reshard moves V_min = 256 bytes"));
  AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> back, b.ToHost());
  AXE_RETURN_IF_ERROR(SelfCheck(std::memcmp(back.data(), bytes, back.size()) == 0,
                                "the resharded array gathers back to the original"));
  // Device 0 holds rows 0..3 and wants columns 0..3: it keeps a 4x4 quarter and receives
  // the other quarter (rows 4..7) from device 2.
  AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> shard0, b.ShardToHost(0));
  float first_received = 0;
  std::memcpy(&first_received, shard0.data() + (4 * 4) * 4, 4);
  AXE_RETURN_IF_ERROR(SelfCheck(first_received == 32.0f, "device 0's row 4 starts with 32"));
  os << "Resharding an 8x8 f32 array on 4 in-process devices (mesh x=2,y=2) from row blocks\n"
        "P('x', None) to column blocks P(None, 'y'), the target shards column-major {0,1}.\n"
        "Each device keeps what it already holds (D(d) ∩ S(d), a local relayout) and receives\n"
        "only what it lacks, so V_min = sum over d of |D(d) \\ S(d)| is all that moves:\n\n"
     << plan << "\n"
     << absl::StrFormat(
            "  moved %d bytes in %d messages (V_min %d), kept %d bytes locally; the gathered\n"
            "  array equals the original, and device 0's shard holds column block 0 with rows\n"
            "  4..7 (32, 40, ...) received from device 2\n",
            stats.bytes_moved, stats.messages, plan.v_min_bytes, stats.local_bytes);
  return absl::OkStatus();
}

std::vector<TourSection> RuntimeTour() {
  return {{"runtime", "Relayout: a transpose at memory bandwidth", Transpose},
          {"runtime", "Relayout: XLA's TPU tiling and back", Tiling},
          {"runtime", "Reshard: only the missing elements move (V_min)", ReshardSection}};
}

AXE_TOUR_PART(60, RuntimeTour);

}  // namespace
}  // namespace tour_runtime
}  // namespace axe::cli
