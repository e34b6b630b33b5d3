#include "relayout/relayout_plan_nest.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"

namespace axe::relayout::internal {
namespace {

// Bytes (one side) a copy / strided kernel call handles.
constexpr int64_t kCopyUnitBytes = int64_t{256} << 10;
constexpr int64_t kSmallUnitBytes = int64_t{64} << 10;
constexpr int64_t kTransposeBlockBytes = 4096;  // of each source row
constexpr int64_t kTransposeBlockRows = 32;
constexpr int64_t kStageBytes = int64_t{256} << 10;
// Streaming stores want runs of at least this many bytes of a destination row.
constexpr int64_t kMinStreamRunBytes = 256;
// Grouped transposes aim at runs of about this many bytes on both sides: with AVX2's 8x8
// tiles a block that stays in the L1 cache (64x64 f32) pays more than long runs; with
// AVX-512 a 128x128 f32 block. Measured on the 16^6 f32 permutations (fraction of memcpy,
// 1 / 2 threads): AVX2 0.89-0.96 with 256-byte runs, 0.62-0.80 with 512, 0.64-0.76 with
// 1024; AVX-512 0.91-1.21 with 256, 1.00-1.13 with 512, 0.98-1.06 with 1024.
int64_t GroupedRunBytes(const Tuning& t) { return t.max_vector_bytes >= 64 ? 512 : 256; }

int FloorPow2(int64_t v) {
  int p = 1;
  while (p * 2 <= v && p < (1 << 20)) p *= 2;
  return p;
}

// Drops loops of extent 1, makes every destination stride non-negative (moving the bases),
// orders the loops by destination stride, outermost first, and fuses neighbours that are
// contiguous on both sides.
std::vector<Loop> FuseLoops(const std::vector<Loop>& loops, bool fill, int64_t& src_base,
                            int64_t& dst_base) {
  std::vector<Loop> kept;
  for (Loop l : loops) {
    if (l.extent == 1) continue;
    if (fill) l.src_stride = 0;
    if (l.dst_stride < 0 || (l.dst_stride == 0 && l.src_stride < 0)) {
      src_base += (l.extent - 1) * l.src_stride;
      dst_base += (l.extent - 1) * l.dst_stride;
      l.src_stride = -l.src_stride;
      l.dst_stride = -l.dst_stride;
    }
    kept.push_back(l);
  }
  std::stable_sort(kept.begin(), kept.end(), [](const Loop& x, const Loop& y) {
    if (x.dst_stride != y.dst_stride) return x.dst_stride > y.dst_stride;
    return std::abs(x.src_stride) > std::abs(y.src_stride);
  });
  std::vector<Loop> fused;
  for (const Loop& l : kept) {
    if (!fused.empty()) {
      const std::optional<int64_t> dst_span = CheckedMul(l.extent, l.dst_stride);
      const std::optional<int64_t> src_span = CheckedMul(l.extent, l.src_stride);
      Loop& outer = fused.back();
      if (dst_span && src_span && outer.dst_stride == *dst_span && outer.src_stride == *src_span) {
        outer = Loop{outer.extent * l.extent, l.src_stride, l.dst_stride};
        continue;
      }
    }
    fused.push_back(l);
  }
  return fused;
}

// The fused loops the kernel runs (indices; -1: none).
struct KernelLoops {
  int i = -1;
  int j = -1;
  int i2 = -1;  // grouped transpose: the loop continuing I in the destination
  int j2 = -1;  // and the one continuing J in the source
};

// Picks the kernel of a nest over the fused loops `f` (outermost first): sets n.kind,
// n.lanes (interleave factors), n.loop_i and n.loop_j.
KernelLoops ChooseKernel(const std::vector<Loop>& f, bool fill, int element_bytes, Nest& n) {
  KernelLoops k;
  const int last = static_cast<int>(f.size()) - 1;
  n.kind = fill ? KernelKind::kFill : KernelKind::kCopy;
  if (!f.empty()) {
    k.i = last;
    k.j = last - 1;  // -1 when there is a single loop
    const Loop& I = f[static_cast<size_t>(k.i)];
    if (!fill && !(I.dst_stride == 1 && I.src_stride == 1)) {
      n.kind = KernelKind::kStrided;
      if (I.dst_stride == 1) {
        for (int c = last - 1; c >= 0; --c) {
          if (f[static_cast<size_t>(c)].src_stride == 1) {
            k.j = c;
            n.kind = KernelKind::kTranspose;
            break;
          }
        }
        if (n.kind == KernelKind::kTranspose && element_bytes <= 8) {
          const Loop& J = f[static_cast<size_t>(k.j)];
          if ((I.extent == 2 || I.extent == 4) && J.dst_stride == I.extent) {
            n.kind = KernelKind::kInterleave;
            n.lanes = static_cast<int>(I.extent);
          } else if ((J.extent == 2 || J.extent == 4) && I.src_stride == J.extent) {
            n.kind = KernelKind::kDeinterleave;
            n.lanes = static_cast<int>(J.extent);
          }
        }
      }
    }
  }
  n.loop_i = k.i >= 0 ? f[static_cast<size_t>(k.i)] : Loop{1, 1, 1};
  n.loop_j = k.j >= 0 ? f[static_cast<size_t>(k.j)] : Loop{1, 0, 0};
  return k;
}

// Transpose: the tile edge and the cache blocks, in multiples of the tile edge. Direct: 32
// source rows of about a page each. Staged (large destinations, see kernels.cc): enough
// source rows for 256-byte destination runs, a page of each, within a 256 KiB buffer.
void ChooseTransposeBlocks(Nest& n, int element_bytes, const Tuning& t) {
  const int64_t b = element_bytes;
  const int min_lanes = element_bytes == 16 ? 2 : 16 / element_bytes;
  const int max_lanes = element_bytes == 16
                            ? 4
                            : std::max(min_lanes, std::min(16, t.max_vector_bytes / element_bytes));
  int lanes =
      t.tile_lanes > 0 ? std::clamp(FloorPow2(t.tile_lanes), min_lanes, max_lanes) : max_lanes;
  if (t.tile_lanes <= 0) {
    while (lanes > min_lanes && (lanes > n.loop_i.extent || lanes > n.loop_j.extent)) lanes /= 2;
  }
  n.lanes = lanes;
  // The blocks of a loop are balanced (8000 in blocks of 1008, not 7 x 1024 + 832).
  auto edge = [&](int64_t want, int64_t extent) {
    const int64_t e = std::min(extent, std::max<int64_t>(lanes, want / lanes * lanes));
    const int64_t blocks = (extent + e - 1) / e;
    return std::min(e, ((extent + blocks - 1) / blocks + lanes - 1) / lanes * lanes);
  };
  const int64_t staged_rows =
      edge(std::max<int64_t>(kMinStreamRunBytes / b, lanes), n.loop_i.extent);
  n.staged = t.staged > 0 || (t.staged == 0 && t.stream && staged_rows * b >= kMinStreamRunBytes);
  if (n.staged) {
    // Source rows packed next to each other (the block is one contiguous source run,
    // e.g. a 3-D permutation fused into 2-D): reads are cheap, so longer destination
    // runs pay (measured on 256^3 (2,0,1): 0.68 -> 0.84 of memcpy with 512-byte runs).
    const bool packed =
        n.loop_i.src_stride * b <= kTransposeBlockBytes && n.loop_i.src_stride <= n.loop_j.extent;
    const int64_t rows =
        packed ? edge(std::max<int64_t>(2 * kMinStreamRunBytes / b, lanes), n.loop_i.extent)
               : staged_rows;
    n.block_i = edge(t.block_rows > 0 ? t.block_rows : rows, n.loop_i.extent);
    const int64_t cols = std::min(kTransposeBlockBytes / b, kStageBytes / (n.block_i * b));
    n.block_j = edge(t.block_cols > 0 ? t.block_cols : cols, n.loop_j.extent);
    n.staged = n.block_i * n.block_j * b <= kMaxStagedBlockBytes;
  }
  if (!n.staged) {
    n.block_i = edge(t.block_rows > 0 ? t.block_rows : kTransposeBlockRows, n.loop_i.extent);
    n.block_j = edge(t.block_cols > 0 ? t.block_cols : kTransposeBlockBytes / b, n.loop_j.extent);
  }
}

// The cache blocks (elements of I and J per kernel call) of the nest's kernel.
void ChooseBlocks(Nest& n, int element_bytes, const Tuning& t) {
  const int64_t b = element_bytes;
  const int64_t ni = n.loop_i.extent, nj = n.loop_j.extent;
  switch (n.kind) {
    case KernelKind::kCopy:
      n.block_i = std::min(ni, std::max<int64_t>(1, kCopyUnitBytes / b));
      n.block_j = std::min(nj, std::max<int64_t>(1, kCopyUnitBytes / b / n.block_i));
      break;
    case KernelKind::kTranspose: ChooseTransposeBlocks(n, element_bytes, t); break;
    case KernelKind::kInterleave:
      n.block_i = ni;
      n.block_j = std::min(nj, std::max<int64_t>(1, kSmallUnitBytes / (b * ni)));
      break;
    case KernelKind::kDeinterleave:
      n.block_j = nj;
      n.block_i = std::min(ni, std::max<int64_t>(1, kSmallUnitBytes / (b * nj)));
      break;
    case KernelKind::kStrided:
    case KernelKind::kFill:
      n.block_i = std::min(ni, std::max<int64_t>(1, kSmallUnitBytes / b));
      n.block_j = std::min(nj, std::max<int64_t>(1, kSmallUnitBytes / b / n.block_i));
      break;
  }
}

// Staged transposes whose destination strides keep 64-byte alignment get one spare block
// of I, so that the kernel can start destination runs on cache lines; returns the number of
// blocks of I.
int64_t BlocksOfI(Nest& n, const std::vector<Loop>& f, KernelLoops k, int element_bytes) {
  const int64_t b = element_bytes;
  const int64_t blocks = (n.loop_i.extent + n.block_i - 1) / n.block_i;
  if (n.kind != KernelKind::kTranspose || !n.staged || n.loop_i.dst_stride != 1 ||
      (n.block_i * b) % 64 != 0 || (n.loop_j.dst_stride * b) % 64 != 0 || blocks <= 1) {
    return blocks;
  }
  for (int c = 0; c < static_cast<int>(f.size()); ++c) {
    if (c != k.i && c != k.j && (f[static_cast<size_t>(c)].dst_stride * b) % 64 != 0) {
      return blocks;
    }
  }
  n.align_runs = true;
  return n.loop_i.extent / n.block_i + 1;
}

// The largest divisor of `extent` that is at most `limit` (at least 1).
int64_t LargestDivisorAtMost(int64_t extent, int64_t limit) {
  for (int64_t e = std::min(extent, limit); e > 1; --e) {
    if (extent % e == 0) return e;
  }
  return 1;
}

// Grouped transpose (kernels.cc): a transpose whose loop I is too short for 256-byte
// destination runs (high-rank permutations: 16^6 f32 has 64-byte I and J) takes into each
// kernel call some values of a loop I2 that continues I in the destination (destination
// stride = extent of I) and, when J is short too, of a loop J2 that continues J in the
// source, so that both sides move runs of GroupedRunBytes through a staged block (see
// docs/performance.md: on the 16^6 f32 permutations, 0.92-0.96 of HPTT before, 1.0-1.3
// after on AVX-512; 0.2-0.4 before, about 1.0-1.4 after on AVX2).
void GroupShortTranspose(Nest& n, const std::vector<Loop>& f, KernelLoops& k, int element_bytes,
                         const Tuning& t) {
  const int64_t b = element_bytes;
  const int64_t ni = n.loop_i.extent, nj = n.loop_j.extent;
  const int64_t run_bytes = GroupedRunBytes(t);
  if (n.kind != KernelKind::kTranspose || n.staged || t.staged < 0 || !t.stream ||
      ni * b >= kMinStreamRunBytes || ni < n.lanes || nj < n.lanes) {
    return;
  }
  for (int c = 0; c < static_cast<int>(f.size()) && k.i2 < 0; ++c) {
    if (c != k.i && c != k.j && f[static_cast<size_t>(c)].dst_stride == ni) k.i2 = c;
  }
  if (k.i2 < 0) return;
  for (int c = 0; c < static_cast<int>(f.size()) && k.j2 < 0 && nj * b < run_bytes; ++c) {
    if (c != k.i && c != k.j && c != k.i2 && f[static_cast<size_t>(c)].src_stride == nj) k.j2 = c;
  }
  const Loop& i2 = f[static_cast<size_t>(k.i2)];
  n.i2_extent = LargestDivisorAtMost(i2.extent, std::max<int64_t>(1, run_bytes / (ni * b)));
  n.i2_src_stride = i2.src_stride;
  if (n.i2_extent == 1) {
    k.i2 = k.j2 = -1;
    return;
  }
  n.block_i = ni;
  n.block_j = nj;
  if (k.j2 >= 0) {
    const Loop& j2 = f[static_cast<size_t>(k.j2)];
    const int64_t rows = kStageBytes / (ni * n.i2_extent * b);  // of the block, at most
    n.j2_extent = LargestDivisorAtMost(j2.extent, std::min(run_bytes / b, rows) / nj);
    n.j2_dst_stride = j2.dst_stride;
    if (n.j2_extent == 1) k.j2 = -1;
  } else {
    const int64_t cols = kStageBytes / (ni * n.i2_extent * b);
    n.block_j = std::min(nj, std::max<int64_t>(n.lanes, cols / n.lanes * n.lanes));
  }
  n.staged = true;
}

// The unit loops: the fused loops other than I and J plus the block loops of I and J,
// ordered; and their description.
void BuildUnitLoops(Nest& n, const std::vector<Loop>& f, KernelLoops k, int element_bytes,
                    const Tuning& t) {
  struct Named {
    UnitLoop loop;
    std::string name;
  };
  std::vector<Named> units;
  for (int c = 0; c < static_cast<int>(f.size()); ++c) {
    if (c == k.i || c == k.j) continue;
    const Loop& l = f[static_cast<size_t>(c)];
    // Grouped: I2 and J2 go by their blocks of i2_extent and j2_extent.
    const int64_t per_call = c == k.i2 ? n.i2_extent : c == k.j2 ? n.j2_extent : 1;
    if (l.extent == per_call) continue;
    units.push_back(
        {UnitLoop{l.extent / per_call, per_call * l.src_stride, per_call * l.dst_stride, 0, 0},
         per_call == 1 ? absl::StrCat("d", c) : absl::StrCat("d", c, "/", per_call)});
  }
  const int64_t blocks_i = BlocksOfI(n, f, k, element_bytes);
  const int64_t blocks_j = (n.loop_j.extent + n.block_j - 1) / n.block_j;
  if (blocks_j > 1) {
    units.push_back({UnitLoop{blocks_j, n.block_j * n.loop_j.src_stride,
                              n.block_j * n.loop_j.dst_stride, 0, n.block_j},
                     absl::StrCat("J/", n.block_j)});
  }
  if (blocks_i > 1) {
    units.push_back({UnitLoop{blocks_i, n.block_i * n.loop_i.src_stride,
                              n.block_i * n.loop_i.dst_stride, n.block_i, 0},
                     absl::StrCat("I/", n.block_i)});
  }
  // By destination stride (writes stream), except where a kernel call reads one
  // contiguous source run (deinterleave): then by source stride, so that consecutive calls
  // read the source sequentially (measured: XLA's tiled -> row-major 0.69 -> 0.88 of memcpy).
  const bool by_source = t.loop_order == LoopOrder::kSource ||
                         (t.loop_order == LoopOrder::kAuto && n.kind == KernelKind::kDeinterleave);
  std::stable_sort(units.begin(), units.end(), [by_source](const Named& x, const Named& y) {
    if (by_source) return std::abs(x.loop.src_stride) > std::abs(y.loop.src_stride);
    return x.loop.dst_stride > y.loop.dst_stride;
  });
  n.num_units = 1;
  std::vector<std::string> names;
  for (const Named& x : units) {
    n.units.push_back(x.loop);
    n.num_units *= x.loop.extent;
    names.push_back(x.name);
  }
  AXE_CHECK(n.units.size() <= 64) << "too many unit loops: " << n.units.size();
  n.unit_order = names.empty() ? "single block" : absl::StrJoin(names, " > ");
  if (k.i >= 0) {
    absl::StrAppend(&n.unit_order, ", I = d", k.i, k.j >= 0 ? absl::StrCat(", J = d", k.j) : "");
  }
  if (k.i2 >= 0) absl::StrAppend(&n.unit_order, ", I2 = d", k.i2);
  if (k.j2 >= 0) absl::StrAppend(&n.unit_order, ", J2 = d", k.j2);
}

}  // namespace

Tuning TuningFrom(const RelayoutOptions& o) {
  Tuning t;
  t.max_vector_bytes = MaxVectorBytes();
  t.tile_lanes = o.tile_lanes;
  t.block_rows = o.block_rows;
  t.block_cols = o.block_cols;
  t.staged = o.staged;
  t.loop_order = o.loop_order;
  return t;
}

std::string KernelName(const Nest& n) {
  switch (n.kind) {
    case KernelKind::kCopy: return "copy";
    case KernelKind::kTranspose:
      if (n.i2_extent > 1 || n.j2_extent > 1) {
        return absl::StrCat("transpose ", n.lanes, "x", n.lanes, " grouped (", n.i2_extent,
                            " x I, ", n.j2_extent, " x J per block)");
      }
      return absl::StrCat("transpose ", n.lanes, "x", n.lanes);
    case KernelKind::kInterleave: return absl::StrCat("interleave ", n.lanes);
    case KernelKind::kDeinterleave: return absl::StrCat("deinterleave ", n.lanes);
    case KernelKind::kStrided: return "strided";
    case KernelKind::kFill: return "fill";
  }
  return "?";
}

Nest PlanNest(const std::vector<Loop>& loops, int64_t src_base, int64_t dst_base, bool fill,
              int element_bytes, const Tuning& tuning) {
  Nest n;
  const std::vector<Loop> fused = FuseLoops(loops, fill, src_base, dst_base);
  n.src_offset = src_base;
  n.dst_offset = dst_base;
  n.elements = 1;
  for (const Loop& l : fused) n.elements *= l.extent;
  n.fused_loops = fused;
  KernelLoops kernel_loops = ChooseKernel(fused, fill, element_bytes, n);
  ChooseBlocks(n, element_bytes, tuning);
  GroupShortTranspose(n, fused, kernel_loops, element_bytes, tuning);
  BuildUnitLoops(n, fused, kernel_loops, element_bytes, tuning);
  return n;
}

void SetStreaming(Nest& n, int element_bytes, bool want) {
  n.stream = false;
  if (!want) return;
  if (n.kind == KernelKind::kCopy) {
    n.stream = true;
    n.stream_align = 1;
    return;
  }
  if (n.kind == KernelKind::kInterleave || n.kind == KernelKind::kDeinterleave) {
    n.stream = element_bytes <= 8;  // through a small stage and CopyBytes, which aligns itself
    n.stream_align = 1;
    return;
  }
  if (n.kind != KernelKind::kTranspose) return;
  if (n.staged) {  // runs are written by CopyBytes, which aligns them itself
    n.stream = true;
    n.stream_align = 1;
    return;
  }
  // Direct tiles store lanes x element_bytes per destination row: streamed, anything short of
  // a cache line leaves partial write-combining lines (measured on AVX2, 8x8 f32 tiles of 32
  // bytes: 0.2-0.3 of memcpy streamed against 0.7-0.9 with regular stores).
  if (int64_t{n.lanes} * element_bytes < 64) return;
  const int64_t align = element_bytes == 16 ? 16 : int64_t{n.lanes} * element_bytes;
  if ((n.loop_j.dst_stride * element_bytes) % align != 0) return;
  for (const UnitLoop& u : n.units) {
    if ((u.dst_stride * element_bytes) % align != 0) return;
  }
  n.stream = true;
  n.stream_align = align;
}

}  // namespace axe::relayout::internal
