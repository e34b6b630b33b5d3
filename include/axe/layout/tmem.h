// Layouts of Blackwell tensor memory (TMEM): 128 lanes (`TLane`) x 512 columns (`TCol`),
// both memory axes. TCol strides count buffer elements (for 8-bit data four elements share
// a 32-bit column). The datapath layouts are the logical (M, N) tiles an MMA reads or
// writes, named after the PTX ISA's tcgen05 data-path layouts; each is verified in tests
// against the ISA's lane/column formula over the whole tile.
//
//   TmemDatapathD(64)   // S[(128,64):(1@TLane,1@TCol)]: row r -> lane r, column c -> column c
#ifndef AXE_LAYOUT_TMEM_H_
#define AXE_LAYOUT_TMEM_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "axe/layout/axis.h"
#include "axe/layout/axis_catalog.h"
#include "axe/layout/layout.h"
#include "axe/layout/nvidia.h"

namespace axe {

// The axis names of Blackwell tensor memory in the standard catalogue: the memory axes
// TLane and TCol (TMEM lane and column) and their short forms Lane and Col.
absl::Span<const AxisCatalogEntry> TmemAxisNames();

inline constexpr int64_t kTmemLanes = 128;

Axis TmemLaneAxis();    // TLane
Axis TmemColumnAxis();  // TCol

// Layout D (M = 128): (r, c) of a 128 x N tile -> {TLane: r, TCol: c}. Errors: N < 1.
absl::StatusOr<Layout> TmemDatapathD(int64_t n);
// Layout F (M = 64): (r, c) of a 64 x N tile -> {TLane: 32 (r / 16) + r % 16 + 16 sub_slab,
// TCol: c}: each warp's 32-lane quarter holds 16 rows, sub_slab (0 or 1) picks the half.
// Errors: N < 1, sub_slab not 0 or 1.
absl::StatusOr<Layout> TmemDatapathF(int64_t n, int sub_slab = 0);
// Layouts B and E (M = 64, two column halves stacked on lanes): (r, c) of a 64 x N tile ->
// {TLane: r + 64 (c / (N/2)), TCol: c % (N/2)}. Errors: N not even and >= 2.
absl::StatusOr<Layout> TmemDatapathBE(int64_t n);
// Layout G (M = 32, four column quarters stacked on lanes): (r, c) of a 32 x N tile ->
// {TLane: r + 32 (c / (N/4)), TCol: c % (N/4)}. Errors: N not a positive multiple of 4.
absl::StatusOr<Layout> TmemDatapathG(int64_t n);

// The register side of the tcgen05.ld/st 32x32b shape for a warpgroup: (r, k) of a
// 128 x K tile -> thread tid_in_wg = r, register slot k: S[(128,K):(1@tid_in_wg,1@reg)].
// Errors: K < 1.
absl::StatusOr<Layout> Tmem32x32bAtom(int64_t k, Axis reg = RegisterAxis());

// Block-scaled MMA scale factors in TMEM with the .warpx4 multicast: (r, j) of a rows x sf
// tile (rows a multiple of 32; sf scale factors per row) -> TCol sf (r / 32) + j on lane
// r % 32, replicated to all four 32-lane quarters:
//   S[(rows/32, 32, sf):(sf@TCol, 1@TLane, 1@TCol)] + R[4:32@TLane]
// (rows = 32: S[(32,sf):(1@TLane,1@TCol)] + R[4:32@TLane]). Errors: rows not a positive
// multiple of 32, sf < 1.
absl::StatusOr<Layout> TmemScaleFactors(int64_t rows, int64_t sf);

// `stages` accumulators of 128 x N side by side in the columns (N need not be a power of
// two, e.g. 112): (s, r, c) -> {lane: r, col: N s + c}, i.e.
// S[(stages,128,N):(N@col,1@lane,1@col)]. The blog's example uses the axes Lane/Col:
// TmemStagedAccumulator(2, 112, Axis::Get("Lane"), Axis::Get("Col")). Errors: stages or
// N < 1, or stages * N > 512 columns.
absl::StatusOr<Layout> TmemStagedAccumulator(int64_t stages, int64_t n, Axis lane = TmemLaneAxis(),
                                             Axis col = TmemColumnAxis());

}  // namespace axe

#endif  // AXE_LAYOUT_TMEM_H_
