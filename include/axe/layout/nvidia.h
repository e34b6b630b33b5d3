// Layouts of NVIDIA GPU hardware: register fragments of mma/wgmma and shared-memory swizzles.
//
// Register fragments map a logical tile to (lane, register slot). Register slots live on the
// memory axis `reg` by default; pass Axis::Memory() to get TVM's spelling with `m` (the
// register-scoped buffer). Results are grouped by their logical shape (each dimension's
// iters side by side, as the PTX ISA describes them) rather than canonical; Canonicalize()
// gives the canonical form. Each constructor is verified in tests against the PTX ISA's
// description of the fragment (row/column as a function of lane and register index).
//
//   MmaM8N8Fragment()          // S[(8,4,2):(4@laneid,1@laneid,1@reg)]       (8 x 8)
//   MmaM16N8K16Accumulator()   // S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)] (16 x 8)
//   WgmmaM64Accumulator(64)    // (64 x 64) per warpgroup, on wid_in_wg, laneid, reg
#ifndef AXE_LAYOUT_NVIDIA_H_
#define AXE_LAYOUT_NVIDIA_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/axis.h"
#include "axe/layout/axis_catalog.h"
#include "axe/layout/layout.h"
#include "axe/layout/swizzle.h"

namespace axe {

// The axis names of NVIDIA GPUs in the standard catalogue: `reg` (registers, memory); the
// thread axes bx, by, bz (block index), cbx, cby, cbz (cluster block index), tx, laneid,
// warpid, lane, warp, wgid (warpgroup), tid_in_wg, wid_in_wg.
absl::Span<const AxisCatalogEntry> NvidiaAxisNames();

// The register axis `reg`.
Axis RegisterAxis();

// The ldmatrix / mma m8n8 .b16 fragment of an 8x8 tile: lane 4r + c/2 holds (r, c) in
// register slot c % 2 (PTX: row = groupID = laneid >> 2, col = 2 * (laneid % 4) + i).
Layout MmaM8N8Fragment(Axis reg = RegisterAxis());

// The mma.m16n8k16 fp32 C/D fragment of a 16x8 tile: the m8n8 fragment tiled along M
// (PTX: row = groupID + 8 * (i >= 2), col = 2 * (laneid % 4) + (i % 2), i in [0, 4)).
Layout MmaM16N8K16Accumulator(Axis reg = RegisterAxis());

// The wgmma .m64nNk16 fp32 D fragment of a 64xN tile held by one warpgroup:
//   S[(4,2,8,N/8,4,2):(1@wid_in_wg,2@reg,4@laneid,4@reg,1@laneid,1@reg)]
// (PTX: row = 16 * warp + groupID + 8 * ((i >> 1) % 2), col = 8 * (i >> 2) + 2 * (laneid % 4)
// + (i % 2), i in [0, N/2)). Errors: N not a multiple of 8 in [8, 256].
absl::StatusOr<Layout> WgmmaM64Accumulator(int64_t n, Axis reg = RegisterAxis());

// A CTA-level layout: `fragment` (on fragment_shape, rank 2) tiled by the row-major grid of
// warps warp_grid (rank 2) on `warpid`, grouped by the CTA tile's shape:
//   CtaTile(MmaM16N8K16Accumulator(), {16, 8}, {2, 2})  // 32x16 on 4 warps
absl::StatusOr<Layout> CtaTile(const Layout& fragment, absl::Span<const int64_t> fragment_shape,
                               absl::Span<const int64_t> warp_grid);

// Shared-memory swizzle modes: the swizzle spans rows of 32, 64 or 128 bytes.
enum class SmemSwizzle { k32B = 1, k64B = 2, k128B = 3 };

// The swizzle atom for elements of `dtype_bits` bits: (M, B, S) = (log2(128 / dtype_bits),
// B, 3) with B = 1, 2, 3 for 32B, 64B, 128B, over the row-major atom of 8 rows of 16 * 2^B
// bytes: Swizzled(M,B,3, S[(8, 2^(M+B)):(2^(M+B), 1)]). fp16, 128B: Swizzled(3,3,3,
// S[(8,64):(64,1)]). Errors: dtype_bits not a power of two in [1, 128].
absl::StatusOr<SwizzledLayout> SharedMemorySwizzleAtom(int dtype_bits, SmemSwizzle mode);

// A (rows, cols) tile of such atoms, the atoms ordered column-major (TVM's
// mma_shared_layout): Tile(S[(R,C):(1,R)], (R, C), atom, atom shape) with R = rows / 8 and
// C = cols / atom cols. fp16, 128B, (64, 256): Swizzled(3,3,3, S[(64,4,64):(64,4096,1)]).
// Errors: as the atom, or rows/cols not multiples of the atom's.
absl::StatusOr<SwizzledLayout> SharedMemorySwizzleLayout(int dtype_bits, SmemSwizzle mode,
                                                         int64_t rows, int64_t cols);

}  // namespace axe

#endif  // AXE_LAYOUT_NVIDIA_H_
