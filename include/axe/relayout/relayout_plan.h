// The relayout engine: copies a tensor from one memory layout to another.
//
// Both sides are Axe layouts on one memory axis (usually `m`), given as BufferLayouts (a
// layout over a possibly padded domain, see buffer_layout.h): permutations, tiled and
// nested-tiled layouts, negative strides, sub-blocks of larger buffers (offsets and
// gaps), padding. Element x of the tensor (a point of the box [0, shape)) is read from
// `src + (f_D(x) + O) * element_bytes` and written to every destination copy of x.
//
// PlanRelayout does all the analysis once and returns an immutable plan; Execute runs it
// on any pair of buffers. How the plan is built:
//  - each side is grouped by its domain (L||S) and every logical dimension is split into
//    a common mixed radix of both sides (tiles, sub-tiles); padding splits a dimension into
//    a few boxes, so a relayout is a few strided copies ("pieces");
//  - in each piece, dimensions contiguous on both sides are fused, and the loops are
//    ordered by destination stride;
//  - the innermost loops get a kernel: `copy` (the innermost dimension does not move:
//    rows copied like memcpy), `transpose LxL` (a register-transpose micro-kernel over
//    cache-blocked tiles, SIMD through Highway with runtime dispatch), `interleave k` /
//    `deinterleave k` (k = 2 or 4 rows zipped, e.g. XLA's (2,1) sub-tiles), or `strided`;
//    layouts whose address cannot be split per dimension use the exact `generic` path;
//  - destinations that are large and written whole get non-temporal (streaming) stores;
//  - the outer loops are cut into chunks run on the thread pool (small copies run on the
//    calling thread).
// No inner loop divides: indices advance like odometers.
//
//   absl::StatusOr<RelayoutPlan> plan = PlanRelayout(
//       *Layout::Parse("S[(8192,8192):(8192,1)]"), *Layout::Parse("S[(8192,8192):(1,8192)]"),
//       {8192, 8192}, /*element_bytes=*/4);
//   AXE_RETURN_IF_ERROR(plan->Execute(src, dst));
//   std::cout << *plan;   // fused dims, loop order, kernel, threads
#ifndef AXE_RELAYOUT_RELAYOUT_PLAN_H_
#define AXE_RELAYOUT_RELAYOUT_PLAN_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/base/thread_pool.h"
#include "axe/layout/layout.h"
#include "axe/relayout/buffer_layout.h"

namespace axe::relayout {

// How a plan is chosen.
enum class PlanSearch {
  kEstimate,  // from the layouts alone (default; no buffers touched)
  kMeasure,   // time candidate plans on scratch buffers, within measure_seconds
};

enum class StoreMode {
  kAuto,  // streaming stores when the destination is large and written whole
  kRegular,
  kStreaming,  // whenever the kernel can (aligned destination)
};

enum class LoopOrder {
  kAuto,         // by destination stride (writes stream), or what kMeasure finds best
  kDestination,  // outer loops by destination stride, outermost = largest
  kSource,       // outer loops by source stride
};

struct RelayoutOptions {
  // Threads for large copies: 0 = every thread of `pool` (the machine's cores for the
  // default pool). Copies of fewer than min_parallel_bytes (read + written) run on the
  // calling thread.
  int threads = 0;
  ThreadPool* pool = nullptr;  // nullptr: ThreadPool::Default()
  int64_t min_parallel_bytes = int64_t{2} << 20;

  // Destination padding (domain points outside the tensor's box): left untouched when
  // unset, otherwise every padding element is set to these element_bytes bytes.
  std::optional<std::vector<uint8_t>> padding_value;

  PlanSearch search = PlanSearch::kEstimate;
  double measure_seconds = 0.25;                 // kMeasure: total time budget
  int64_t measure_max_bytes = int64_t{1} << 30;  // kMeasure: scratch limit (else estimate)

  // Tuning (0 / kAuto: chosen by the planner; tests and kMeasure set these).
  StoreMode stores = StoreMode::kAuto;
  LoopOrder loop_order = LoopOrder::kAuto;
  int tile_lanes = 0;  // transpose micro-kernel tile edge L (power of two)
  // Transpose cache blocks: source rows x source columns (elements) per kernel call.
  int64_t block_rows = 0;
  int64_t block_cols = 0;
  // Transpose blocks staged through a per-thread cache buffer, then written out in long
  // destination runs (0 auto, 1 always when possible, -1 never).
  int staged = 0;
};

// The bytes of one element of type T, for RelayoutOptions::padding_value.
template <typename T>
std::vector<uint8_t> ElementValue(const T& value) {
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  return std::vector<uint8_t>(p, p + sizeof(T));
}

namespace internal {
struct PlanData;
}

// A plan's parts, as RelayoutPlan::ToString prints them (RelayoutPlan::Info).
struct PlanLoopInfo {
  int64_t extent = 1;
  int64_t src_stride = 0;  // elements
  int64_t dst_stride = 0;
};

// One piece: a strided copy of a box of the tensor, or a fill of destination padding.
struct PlanPieceInfo {
  bool fill = false;
  std::vector<PlanLoopInfo> loops;  // the fused loops, outermost first
  // The loops around the kernel calls, outermost first ("d0 > J/1008 > I/64"; "J/b" and
  // "I/b" are the block loops of the kernel's loops), and which fused loops are I and J.
  std::string loop_order;
  std::string kernel;                // e.g. "transpose 16x16", "copy", "fill"
  int64_t block_i = 1, block_j = 1;  // elements of loops I and J per kernel call
  bool staged = false;               // transpose blocks go through a cache buffer
  bool streaming_stores = false;
};

struct PlanInfo {
  std::vector<int64_t> shape;
  int element_bytes = 0;
  std::string src, dst;  // the buffer layouts
  bool generic = false;
  std::string generic_reason;         // why the generic path was taken (empty otherwise)
  std::vector<PlanPieceInfo> pieces;  // copies, then padding fills (every one)
  int threads = 1;
  int64_t chunks = 0;       // units of work handed to the threads (0 on the generic path)
  std::string simd_target;  // e.g. "AVX2", "AVX3"
  std::string note;         // e.g. the measured search's "kMeasure: best of 14 plans"
};

// An immutable, copyable relayout plan. Element offsets are relative to the base pointers
// given to Execute (byte address = base + offset * element_bytes); they may be negative
// for layouts with negative strides or offsets, and the buffers must cover
// [src_begin(), src_end()) and [dst_begin(), dst_end()).
class RelayoutPlan {
 public:
  // Copies the tensor from `src` to `dst` (and fills the destination padding if asked).
  // Errors: a null pointer while there is something to copy, or overlapping source and
  // destination ranges (a relayout is not in place).
  absl::Status Execute(const void* src, void* dst) const;

  int element_bytes() const;
  const std::vector<int64_t>& shape() const;
  // Elements of the tensor (the box), and destination elements written in all (every
  // replica copy, plus the filled padding).
  int64_t elements() const;
  int64_t elements_written() const;
  // Bytes read plus bytes written by one Execute (tensor elements only, replicas and
  // padding fill counted as written).
  int64_t bytes_moved() const;
  // The element-offset ranges touched: [begin, end) (empty ranges are [0, 0)).
  int64_t src_begin() const;
  int64_t src_end() const;
  int64_t dst_begin() const;
  int64_t dst_end() const;
  // Threads one Execute uses, and the number of pieces (strided copies) and chunks.
  int threads() const;
  int pieces() const;
  // True when the plan uses the exact per-element fallback for layouts that do not split
  // per dimension.
  bool generic() const;
  // Kernels used, e.g. {"transpose 16x16"}.
  std::vector<std::string> kernels() const;

  // The plan's parts: tensor, fused loops per piece with their strides, loop order,
  // kernel, blocks, stores, threads and SIMD target.
  PlanInfo Info() const;
  // A readable description of Info(): one line per piece (the first 8 pieces).
  std::string ToString() const;
  friend std::ostream& operator<<(std::ostream& os, const RelayoutPlan& p) {
    return os << p.ToString();
  }

 private:
  friend absl::StatusOr<RelayoutPlan> PlanRelayout(const BufferLayout&, const BufferLayout&,
                                                   absl::Span<const int64_t>, int,
                                                   const RelayoutOptions&);
  explicit RelayoutPlan(std::shared_ptr<const internal::PlanData> data) : data_(std::move(data)) {}
  std::shared_ptr<const internal::PlanData> data_;
};

// Plans the copy of a tensor of `shape` with elements of `element_bytes` bytes from the
// `src` buffer layout to the `dst` one.
// Errors (InvalidArgument unless said otherwise):
//  - element_bytes not 1, 2, 4, 8 or 16 (sub-byte packed types are not supported yet);
//  - a negative shape extent; a domain of the wrong rank, smaller than the shape in some
//    dimension, or whose product is not the layout's size (names the dimension);
//  - an iter or offset on a non-memory axis (thread, device: take Storage() first), or on
//    two different memory axes;
//  - destination replicas that overlap (no gap condition), or a destination that is not
//    injective over the tensor's box (over its whole domain when padding is filled);
//  - padding_value not element_bytes long;
//  - an address range that overflows int64 bytes.
// Source replicas are fine: every copy holds the same value and the base copy is read.
absl::StatusOr<RelayoutPlan> PlanRelayout(const BufferLayout& src, const BufferLayout& dst,
                                          absl::Span<const int64_t> shape, int element_bytes,
                                          const RelayoutOptions& options = {});

// One shot: PlanRelayout then Execute.
absl::Status Relayout(const BufferLayout& src, const BufferLayout& dst,
                      absl::Span<const int64_t> shape, int element_bytes, const void* src_ptr,
                      void* dst_ptr, const RelayoutOptions& options = {});

}  // namespace axe::relayout

#endif  // AXE_RELAYOUT_RELAYOUT_PLAN_H_
