// SVG pictures of an XLA array's tiled layout (`axe xla explain --svg`): the plane of its two
// most minor physical dimensions (the other dimensions at index 0; the legend says how often
// the plane repeats) cut into the tiles of the first tile level, each tile numbered by its
// place in memory and coloured by it, the padding of edge tiles shaded, and — when a second
// tile level subdivides the tile, as in T(8,128)(2,1) — one tile drawn again with its
// sub-tiles numbered in memory order. Large arrays draw a window of tiles with "…" and the
// counts of the rest.
//
//   std::string svg =
//   *TiledArraySvg(*xla::ParseShape("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"));
#ifndef AXE_PICTURE_XLA_PICTURE_H_
#define AXE_PICTURE_XLA_PICTURE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "axe/xla/shape.h"

namespace axe::picture {

struct TilePictureOptions {
  int64_t max_tile_rows = 8, max_tile_cols = 8;         // tiles drawn at most per direction
  int64_t max_subtile_rows = 4, max_subtile_cols = 16;  // sub-tiles of the one tile drawn
};

// Errors: the shape is not an array with a layout (or a tiling TilingMap rejects), it has
// rank 0, a first-level tile combines one of the two drawn dimensions with `*` (not drawn),
// a non-positive window.
absl::StatusOr<std::string> TiledArraySvg(const xla::Shape& shape,
                                          const TilePictureOptions& options = {});

}  // namespace axe::picture

#endif  // AXE_PICTURE_XLA_PICTURE_H_
