// The algebra part of `axe tour`: tile, tile-of, slice, swizzles, and the layouts of real
// hardware built with them (a warp fragment tiled into a CTA, a local tile on a device mesh).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"
#include "axe/layout/nvidia.h"
#include "axe/layout/properties.h"
#include "axe/layout/render.h"
#include "axe/layout/slice.h"
#include "axe/layout/swizzle.h"
#include "axe/layout/tile.h"
#include "axe/layout/tile_of.h"
#include "axe/layout/tmem.h"
#include "axe/layout/trainium.h"
#include "tour.h"

namespace axe::cli {
namespace tour_algebra {
namespace {

absl::StatusOr<Layout> L(absl::string_view text) { return Layout::Parse(text); }

absl::Status Tiling(std::ostream& os) {
  AXE_ASSIGN_OR_RETURN(Layout outer, L("S[(8,8):(8,1)]"));
  AXE_ASSIGN_OR_RETURN(Layout inner, L("S[(2,3):(3,1)]"));
  AXE_ASSIGN_OR_RETURN(Layout t, Tile(outer, {8, 8}, inner, {2, 3}));
  os << "tile(A, B) is the paper's Kronecker product: B lays out one tile, A lays out the tiles.\n"
        "A's strides (and replicas and offset) are scaled per axis by B's span, so the tiles\n"
        "sit side by side. A 16x24 matrix as an 8x8 grid of 2x3 tiles (Example 47):\n\n"
     << "  tile(" << outer << " on (8,8), " << inner << " on (2,3))\n    = " << t
     << "   (span of B = " << inner.span(Axis::Memory()) << ")\n\n";
  AXE_ASSIGN_OR_RETURN(Layout small_outer, L("S[(2,2):(2,1)]"));
  AXE_ASSIGN_OR_RETURN(Layout small, Tile(small_outer, {2, 2}, inner, {2, 3}));
  AXE_ASSIGN_OR_RETURN(std::string grid, RenderGrid(small, 4, 6));
  os << "The same with a 2x2 grid of tiles, " << small << ", as a 4x6 picture:\n" << grid;
  AXE_ASSIGN_OR_RETURN(Layout o2, L("S[2:1] + 1"));
  AXE_ASSIGN_OR_RETURN(Layout i2, L("S[4:1] + 2"));
  AXE_ASSIGN_OR_RETURN(Layout t2, Tile(o2, {2}, i2, {4}));
  os << "\nOffsets are scaled too (paper semantics, Example 49a): tile(" << o2 << ", " << i2
     << ") = " << t2 << "\n";
  return absl::OkStatus();
}

absl::Status WarpToCta(std::ostream& os) {
  const Layout atom = MmaM8N8Fragment();
  const Layout acc = MmaM16N8K16Accumulator();
  AXE_ASSIGN_OR_RETURN(Layout along_m, L("S[2:1@reg]"));
  AXE_ASSIGN_OR_RETURN(Layout tiled, Tile(along_m, {2, 1}, atom, {8, 8}));
  AXE_ASSIGN_OR_RETURN(bool same, Equivalent(tiled, acc));
  os << "The ldmatrix/mma m8n8 fragment, " << atom << ", tiled along M by " << along_m
     << "\nis the mma.m16n8k16 accumulator (" << (same ? "equivalent" : "NOT equivalent")
     << "):\n  " << acc << "\n";
  AXE_ASSIGN_OR_RETURN(std::string grid, RenderGrid(acc, 16, 8));
  os << grid;
  AXE_ASSIGN_OR_RETURN(Layout warps, L("S[(2,2):(2@warpid,1@warpid)]"));
  AXE_ASSIGN_OR_RETURN(Layout cta, Tile(warps, {2, 2}, acc, {16, 8}));
  os << "\nTiling it by the 2x2 warp layout " << warps << " gives the 32x16 CTA tile:\n  " << cta
     << "\n  (the warp axis is not used by the fragment, so its strides are not scaled)\n";
  for (std::vector<int64_t> c : {std::vector<int64_t>{0, 0}, {5, 9}, {20, 3}, {31, 15}}) {
    AXE_ASSIGN_OR_RETURN(PhysCoord p, ApplyBase(cta, {32, 16}, c));
    os << "  " << FormatTuple(c) << " -> {warpid:" << p.get(Axis::Get("warpid"))
       << ", laneid:" << p.get(Axis::Get("laneid")) << ", reg:" << p.get(RegisterAxis()) << "}\n";
  }
  AXE_ASSIGN_OR_RETURN(MaybeLayout back, TileOfInner(cta, {32, 16}, acc, {16, 8}));
  os << "tile-of recovers the warp layout from the CTA layout and the fragment: " << back.ToString()
     << " (canonical form of " << warps << ")\n";
  return absl::OkStatus();
}

absl::Status Mesh(std::ostream& os) {
  AXE_ASSIGN_OR_RETURN(Layout mesh_layout, L("S[(2,2):(1@gpuid,2@gpuid)]"));
  AXE_ASSIGN_OR_RETURN(Layout local, L("S[(4,4):(4,1)]"));
  AXE_ASSIGN_OR_RETURN(Layout global, Tile(mesh_layout, {2, 2}, local, {4, 4}));
  os << "A device mesh is a layout on a device axis. Tiling a local 4x4 layout by the 2x2 mesh\n"
     << mesh_layout << " (devices numbered column-major, as in the paper's figure) shards\n"
     << "an 8x8 tensor, each device holding a compact 4x4 block:\n\n  " << global << "\n";
  AXE_ASSIGN_OR_RETURN(std::string grid, RenderGrid(global, 8, 8));
  os << grid << "storage() on every device: " << Storage(global) << "\n";
  // Alpa's S0R: rows split over mesh dimension 0, every block copied over dimension 1. The
  // mesh part keeps dimension 0 as a shard iter and dimension 1 as a replica.
  AXE_ASSIGN_OR_RETURN(Layout rows_only, L("S[(2,1):(1@gpuid,1@gpuid)] + R[2:2@gpuid]"));
  AXE_ASSIGN_OR_RETURN(Layout rows_local, L("S[(4,8):(8,1)]"));
  AXE_ASSIGN_OR_RETURN(Layout tiled, Tile(rows_only, {2, 1}, rows_local, {4, 8}));
  AXE_ASSIGN_OR_RETURN(Grouped by_dims, Group(tiled, {8, 8}));  // each dimension's iters apart
  const Layout& s0r = by_dims.layout;
  os << "\nSharded over mesh dimension 0 only and replicated over dimension 1 (Alpa S0R): tile\n"
     << "a local 4x8 layout by " << rows_only << ", dimension 1 as a replica:\n  " << s0r << "\n";
  AXE_ASSIGN_OR_RETURN(std::vector<PhysCoord> pts, Apply(s0r, {8, 8}, {5, 2}));
  os << "  (5, 2) ->";
  for (const PhysCoord& p : pts) os << " " << p;
  os << "\n";
  return absl::OkStatus();
}

absl::Status SliceAndTileOf(std::ostream& os) {
  os << "slice gives the layout of a box sub-tensor when one of the paper's two sufficient forms\n"
        "applies (a run of one digit, or a symmetric single wrap); otherwise it says why not:\n\n";
  struct Case {
    const char* layout;
    std::vector<int64_t> shape;
    const char* region;
  };
  for (const Case& c : {Case{"S[(2,8,3,8):(192,8,64,1)]", {16, 24}, "0:8,8:24"},
                        Case{"S[(4,4,4,4):(64,4,16,1)]", {16, 16}, "2:3,6:10"},
                        Case{"S[(4,4):(1,4)]", {16}, "3:6"}}) {
    AXE_ASSIGN_OR_RETURN(Layout l, L(c.layout));
    AXE_ASSIGN_OR_RETURN(std::vector<Interval> region, ParseBox(c.region));
    AXE_ASSIGN_OR_RETURN(MaybeLayout s, Slice(l, c.shape, region));
    os << "  " << c.layout << " on " << FormatTuple(c.shape) << ", region " << c.region
       << "\n    -> " << s.ToString() << "\n";
  }
  AXE_ASSIGN_OR_RETURN(Layout a, L("S[16:1]"));
  AXE_ASSIGN_OR_RETURN(Layout b, L("S[(2,2):(4,1)]"));
  AXE_ASSIGN_OR_RETURN(MaybeLayout c, TileOfInner(a, {4, 4}, b, {2, 2}));
  os << "\nS[16:1] is the direct sum of S[(2,2):(8,2)] and " << b
     << " (Example 51), but not a tile:\n  tile-of -> " << c.ToString() << "\n";
  return absl::OkStatus();
}

absl::Status Swizzles(std::ostream& os) {
  AXE_ASSIGN_OR_RETURN(SwizzledLayout atom, SharedMemorySwizzleAtom(16, SmemSwizzle::k128B));
  os << "Shared memory swizzles wrap a memory layout: " << atom
     << " is the fp16 128-byte\nswizzle atom (CuTe Swizzle<3,3,3>). The 16-byte chunk each (row, "
        "chunk) lands in:\n\n"
     << "       ";
  for (int64_t j = 0; j < 8; ++j) os << absl::StrFormat("%3d", j);
  os << "\n";
  for (int64_t i = 0; i < 8; ++i) {
    os << absl::StrFormat("  row %d", i);
    for (int64_t j = 0; j < 8; ++j) {
      AXE_ASSIGN_OR_RETURN(PhysCoord p, atom.ApplyBase({8, 64}, {i, 8 * j}));
      os << absl::StrFormat("%3d", p.get(Axis::Memory()) % 64 / 8);
    }
    os << "\n";
  }
  AXE_ASSIGN_OR_RETURN(SwizzledLayout tile,
                       SharedMemorySwizzleLayout(16, SmemSwizzle::k128B, 64, 256));
  os << "Every column of chunks hits 8 different bank groups. A 64x256 tile of such atoms:\n  "
     << tile << "\n";
  return absl::OkStatus();
}

absl::Status Hardware(std::ostream& os) {
  os << "More layouts of real hardware, all built by axe's constructors:\n";
  AXE_ASSIGN_OR_RETURN(Layout wgmma, WgmmaM64Accumulator(64));
  AXE_ASSIGN_OR_RETURN(Layout tmem, TmemDatapathF(64, 1));
  AXE_ASSIGN_OR_RETURN(Layout sf, TmemScaleFactors(128, 4));
  AXE_ASSIGN_OR_RETURN(Layout stages, TmemStagedAccumulator(2, 112));
  AXE_ASSIGN_OR_RETURN(Layout sbuf, Trainium("PF", {256, 512}));
  AXE_ASSIGN_OR_RETURN(Layout f, L("S[(1024,8):(1@F,1@P)]"));
  AXE_ASSIGN_OR_RETURN(Layout psum, ToPsum(f));
  os << "  wgmma m64n64k16 accumulator  " << wgmma << "\n"
     << "  TMEM datapath F, upper half  " << tmem << "\n"
     << "  TMEM scale factors (.warpx4) " << sf << "\n"
     << "  TMEM, 2 stages of 112 cols   " << stages << "\n"
     << "  Trainium SBUF, 256x512       " << sbuf << "\n"
     << "  to PSUM banks                " << f << " -> " << psum << "\n"
     << "\nTry: axe layout tile --outer 'S[(8,8):(8,1)]' --outer-shape 8,8 --inner "
        "'S[(2,3):(3,1)]' --inner-shape 2,3\n";
  return absl::OkStatus();
}

std::vector<TourSection> AlgebraTour() {
  return {
      {"algebra", "Tile: a matrix of tiles", Tiling},
      {"algebra", "From a warp fragment to a CTA tile", WarpToCta},
      {"algebra", "A local tile on a 2x2 device mesh", Mesh},
      {"algebra", "Slice and tile-of: answers, and reasons when there are none", SliceAndTileOf},
      {"algebra", "Swizzled shared memory", Swizzles},
      {"algebra", "A library of hardware layouts", Hardware},
  };
}

AXE_TOUR_PART(15, AlgebraTour);

}  // namespace
}  // namespace tour_algebra
}  // namespace axe::cli
