// Internal representation of a relayout plan, shared by the planner (relayout_plan*.cc) and
// the per-target kernels (kernels.cc).
#ifndef AXE_SRC_RELAYOUT_PLAN_DATA_H_
#define AXE_SRC_RELAYOUT_PLAN_DATA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "axe/base/thread_pool.h"

namespace axe::relayout::internal {

// One loop of a strided copy: `extent` iterations, each moving the source and the
// destination by `src_stride` and `dst_stride` elements.
struct Loop {
  int64_t extent = 1;
  int64_t src_stride = 0;
  int64_t dst_stride = 0;
};

// The innermost two loops of a nest, I and J, are run by a kernel over cache blocks
// (s_I, d_I: source and destination strides of loop I, likewise for J):
//   kCopy          dst[i + j*d_J]     = src[i + j*s_J]          (s_I = d_I = 1: rows)
//   kTranspose     dst[i + j*d_J]     = src[i*s_I + j]          (d_I = s_J = 1)
//   kInterleave    dst[i + j*lanes]   = src[i*s_I + j]          (I has lanes = 2 or 4)
//   kDeinterleave  dst[i + j*d_J]     = src[i*lanes + j]        (J has lanes = 2 or 4)
//   kStrided       dst[i*d_I + j*d_J] = src[i*s_I + j*s_J]
//   kFill          dst[i*d_I + j*d_J] = padding value
// (indices in elements).
enum class KernelKind : uint8_t { kCopy, kTranspose, kInterleave, kDeinterleave, kStrided, kFill };

// One loop over the units (kernel calls) of a nest: its next iteration moves the source and
// destination by their strides (elements) and the origin of the kernel's block within
// loops I and J by block_i_step and block_j_step.
struct UnitLoop {
  int64_t extent = 1;
  int64_t src_stride = 0;
  int64_t dst_stride = 0;
  int64_t block_i_step = 0;
  int64_t block_j_step = 0;
};

// One strided copy (or fill): the loops of a piece after fusion, split into the kernel
// loops I, J and the unit loops around them.
struct Nest {
  KernelKind kind = KernelKind::kCopy;
  int64_t src_offset = 0;  // elements, relative to the source base pointer
  int64_t dst_offset = 0;
  Loop loop_i;                       // the kernel's inner loop I
  Loop loop_j;                       // the kernel's outer loop J
  int64_t block_i = 1, block_j = 1;  // cache block (elements of I and J per kernel call)
  int lanes = 0;                     // transpose tile edge, or the interleave factor
  bool stream = false;  // streaming stores allowed (if the destination base is aligned)
  bool staged = false;  // transpose: blocks go through a cache buffer (see kernels.cc)
  // Staged: loop I has one spare block so that blocks can be shifted at run time to start
  // destination runs on cache lines (every other destination stride keeps line alignment).
  bool align_runs = false;
  // Grouped transpose (kernels.cc): each kernel call also covers i2_extent values of a loop
  // I2 that continues I in the destination (destination stride = loop_i.extent) and
  // j2_extent values of a loop J2 that continues J in the source (source stride =
  // loop_j.extent), so that short I and J (high-rank permutations) still read and write
  // long runs. Both 1: the plain transpose.
  int64_t i2_extent = 1, i2_src_stride = 0;
  int64_t j2_extent = 1, j2_dst_stride = 0;
  int64_t stream_align = 64;    // bytes the destination base must be aligned to for them
  std::vector<UnitLoop> units;  // outermost first
  int64_t num_units = 1;
  int64_t elements = 0;  // elements written per run
  // Description: the fused loops, outermost first, before blocking.
  std::vector<Loop> fused_loops;
  std::string unit_order;  // how the unit loops are ordered, for ToString
};

// A contiguous range of units of one nest, run by one thread.
struct Chunk {
  int32_t nest = 0;
  int64_t begin = 0;
  int64_t end = 0;
};

// The exact fallback for layouts whose address does not split per dimension: one side's
// map as the canonical shard digits over its domain (row-major), plus the offsets of its
// copies (the destination's replica points; just O otherwise).
struct GenericSide {
  std::vector<int64_t> extents;  // shard digits, most significant first
  std::vector<int64_t> strides;
  std::vector<int64_t> domain;
  std::vector<int64_t> copy_offsets;  // O, or O + every replica point
};

struct PlanData {
  int element_bytes = 4;
  std::vector<int64_t> shape;
  std::string src_text, dst_text;  // the buffer layouts, for ToString
  int64_t elements = 0;
  int64_t elements_written = 0;
  int64_t src_begin = 0, src_end = 0, dst_begin = 0, dst_end = 0;
  int threads = 1;
  ThreadPool* pool = nullptr;
  std::vector<uint8_t> padding_value;  // empty: padding untouched
  int pieces = 0;                      // copy pieces (nests that copy)

  std::vector<Nest> nests;
  std::vector<Chunk> chunks;

  bool generic = false;
  GenericSide generic_src, generic_dst;
  int64_t generic_rows = 0;  // box rows (all dims but the last)
  int64_t generic_rows_per_chunk = 1;
  std::string note;  // why the generic path was taken / search notes
};

// Largest staged transpose block, bytes.
inline constexpr int64_t kMaxStagedBlockBytes = int64_t{512} << 10;

// Runs a plan on a pair of buffers (RelayoutPlan::Execute; the measured search).
absl::Status ExecutePlan(const PlanData& plan, const void* src, void* dst);

// Runs units [begin, end) of `nest` on the best SIMD target of this CPU.
void RunNestChunk(const Nest& nest, int element_bytes, const uint8_t* src, uint8_t* dst,
                  int64_t begin, int64_t end, bool stream, const uint8_t* fill_value);
// Widest SIMD vector in bytes and the name of the target RunNestChunk dispatches to.
int MaxVectorBytes();
const char* SimdTargetName();

}  // namespace axe::relayout::internal

#endif  // AXE_SRC_RELAYOUT_PLAN_DATA_H_
