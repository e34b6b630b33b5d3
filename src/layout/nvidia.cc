#include "axe/layout/nvidia.h"

#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/layout/group.h"
#include "axe/layout/tile.h"

namespace axe {

absl::Span<const AxisCatalogEntry> NvidiaAxisNames() {
  static constexpr AxisCatalogEntry kNames[] = {
      {"reg", AxisKind::kMemory},       {"bx", AxisKind::kThread},
      {"by", AxisKind::kThread},        {"bz", AxisKind::kThread},
      {"cbx", AxisKind::kThread},       {"cby", AxisKind::kThread},
      {"cbz", AxisKind::kThread},       {"tx", AxisKind::kThread},
      {"warpid", AxisKind::kThread},    {"laneid", AxisKind::kThread},
      {"wgid", AxisKind::kThread},      {"tid_in_wg", AxisKind::kThread},
      {"wid_in_wg", AxisKind::kThread}, {"lane", AxisKind::kThread},
      {"warp", AxisKind::kThread},
  };
  return kNames;
}

namespace {

Layout Make(std::vector<Iter> shard) {
  absl::StatusOr<Layout> l = Layout::Create(std::move(shard));
  AXE_CHECK(l.ok()) << l.status();
  return *std::move(l);
}

}  // namespace

Axis RegisterAxis() { return Axis::Get("reg"); }

Layout MmaM8N8Fragment(Axis reg) {
  const Axis lane = Axis::Get("laneid");
  return Make({{8, 4, lane}, {4, 1, lane}, {2, 1, reg}});
}

Layout MmaM16N8K16Accumulator(Axis reg) {
  // The m8n8 fragment (span 2 on reg) tiled by S[2:1@reg] along M, grouped by (16, 8).
  absl::StatusOr<Layout> t = Tile(Make({{2, 1, reg}}), {2, 1}, MmaM8N8Fragment(reg), {8, 8});
  AXE_CHECK(t.ok()) << t.status();
  absl::StatusOr<Grouped> g = Group(*t, {16, 8});
  AXE_CHECK(g.ok()) << g.status();
  return g->layout;
}

absl::StatusOr<Layout> WgmmaM64Accumulator(int64_t n, Axis reg) {
  if (n < 8 || n > 256 || n % 8 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("wgmma m64nNk16: N = ", n, " must be a multiple of 8 in [8, 256]"));
  }
  const Axis lane = Axis::Get("laneid"), warp = Axis::Get("wid_in_wg");
  return Layout::Create(
      {{4, 1, warp}, {2, 2, reg}, {8, 4, lane}, {n / 8, 4, reg}, {4, 1, lane}, {2, 1, reg}});
}

absl::StatusOr<Layout> CtaTile(const Layout& fragment, absl::Span<const int64_t> fragment_shape,
                               absl::Span<const int64_t> warp_grid) {
  if (warp_grid.size() != 2 || fragment_shape.size() != 2) {
    return absl::InvalidArgumentError(
        "CtaTile: the fragment shape and the warp grid must have rank 2");
  }
  AXE_ASSIGN_OR_RETURN(Layout warps, Layout::RowMajor(warp_grid, Axis::Get("warpid")));
  AXE_ASSIGN_OR_RETURN(Layout tiled, Tile(warps, warp_grid, fragment, fragment_shape));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, TiledShape(warp_grid, fragment_shape));
  AXE_ASSIGN_OR_RETURN(Grouped grouped, Group(tiled, shape));
  return grouped.layout;
}

absl::StatusOr<SwizzledLayout> SharedMemorySwizzleAtom(int dtype_bits, SmemSwizzle mode) {
  if (dtype_bits < 1 || dtype_bits > 128 || (dtype_bits & (dtype_bits - 1)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shared-memory swizzle: dtype_bits = ", dtype_bits, " must be a power of two in [1, 128]"));
  }
  int m = 0;  // log2(128 / dtype_bits): elements per 16-byte chunk
  while ((dtype_bits << m) < 128) ++m;
  const int b = static_cast<int>(mode);
  const int64_t row = int64_t{1} << (m + b);  // elements per swizzled row of 16 * 2^B bytes
  AXE_ASSIGN_OR_RETURN(Layout atom,
                       Layout::Create({{8, row, Axis::Memory()}, {row, 1, Axis::Memory()}}));
  return SwizzledLayout::Create(m, b, 3, std::move(atom));
}

absl::StatusOr<SwizzledLayout> SharedMemorySwizzleLayout(int dtype_bits, SmemSwizzle mode,
                                                         int64_t rows, int64_t cols) {
  AXE_ASSIGN_OR_RETURN(SwizzledLayout atom, SharedMemorySwizzleAtom(dtype_bits, mode));
  const int64_t atom_rows = atom.layout().shard()[0].extent,
                atom_cols = atom.layout().shard()[1].extent;
  if (rows < 1 || cols < 1 || rows % atom_rows != 0 || cols % atom_cols != 0) {
    return absl::InvalidArgumentError(absl::StrCat("shared-memory swizzle: the tile (", rows, ", ",
                                                   cols, ") is not a whole number of (", atom_rows,
                                                   ", ", atom_cols, ") atoms"));
  }
  const int64_t r = rows / atom_rows, c = cols / atom_cols;
  AXE_ASSIGN_OR_RETURN(Layout outer,
                       Layout::Create({{r, 1, Axis::Memory()}, {c, r, Axis::Memory()}}));
  return Tile(outer, {r, c}, atom, {atom_rows, atom_cols});
}

}  // namespace axe
