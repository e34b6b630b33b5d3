// The nested tiled layout of an XLA array: the full linear index (XLA's
// LinearIndexForNestedTiling; the spec's `nested_linear_index`) and its inverse (the spec's
// `nested_delinearize`), including tiles of a different rank than the shape and combined `*`
// dims, which XLA's own linear-index code does not handle. See docs/xla.md, "Tiling".
//
// The map, level by level, starting from the PHYSICAL dims (major -> minor,
// phys[p] = dims[Major(layout, p)]):
//   1. a tile longer than the current shape left-pads it with size-1 dims (index 0);
//   2. each `*` merges its dim into the next more-minor one (d' = d_i·d_{i+1},
//      e' = e_i·d_{i+1} + e_{i+1}); chains fold repeatedly;
//   3. the tile's k bounds tile the k most minor dims: the output (expanded) shape is
//      prefix + ceil(d_i/t_i) + t_i, the index prefix + floor(e_i/t_i) + e_i mod t_i.
// The final expanded shape is linearised row-major. The inverse reports padding when, at
// any level, a reconstructed index is not below that level's size (or the offset lies in
// the tail padding of L).
//
//   TilingMap m = *TilingMap::Create(*ParseShape("f32[3,5]{1,0:T(2,2)}"));
//   m.LinearIndex({2, 3});   // 17
//   m.Delinearize(17);       // index {2, 3};  m.Delinearize(9) -> padding
#ifndef AXE_XLA_TILING_H_
#define AXE_XLA_TILING_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/xla/shape.h"
#include "axe/xla/tile.h"

namespace axe::xla {

// One tile level applied to a concrete shape. A level changes only the suffix of the
// shape that its tile covers, so it records that suffix alone: the whole map costs memory
// and time linear in rank + the total tile length, however many levels there are.
struct TilingLevel {
  Tile tile;
  size_t input_rank = 0;    // rank of the level's input (the previous expanded shape)
  size_t left_padding = 0;  // size-1 dims prepended because the tile is longer
  size_t prefix = 0;        // leading (padded) input dims the tile does not reach
  // The tile.rank() padded input dims the tile covers (most major first): positions
  // prefix .. prefix + tile.rank() - 1 of the padded input.
  std::vector<int64_t> covered;
  // For each non-`*` tile bound j: the covered dims it folds (indices into `covered`: the
  // `*` dims folded into it, then its own), most major first.
  std::vector<std::vector<size_t>> groups;
  std::vector<int64_t> folded;  // per group: the product of its dims' sizes
  std::vector<int64_t> bounds;  // per group: its tile bound
  std::vector<int64_t> counts;  // per group: ceil(folded / bounds), the number of tiles
  // The output (expanded) shape is the first `prefix` padded input dims, then `counts`,
  // then `bounds`; its rank is output_rank().
  size_t output_rank() const { return prefix + counts.size() + bounds.size(); }
};

// The inverse of the tiled map at one offset: a logical index, or padding.
struct DelinearizedIndex {
  bool padding = false;
  std::vector<int64_t> index;  // empty for padding

  static DelinearizedIndex Padding() { return {true, {}}; }
  friend bool operator==(const DelinearizedIndex&, const DelinearizedIndex&) = default;
};

// Where an element falls at one level.
struct LevelPosition {
  std::vector<int64_t> tile_index;  // floor(e/t) per group: which tile
  std::vector<int64_t> within;      // e mod t per group: where inside the tile
};

class TilingMap {
 public:
  // Errors: `shape` is not a valid array with a layout, has an unbounded dim, a tile ends
  // with `*` (no more-minor dim to combine into), or a size overflows int64. `max_levels`
  // (>= 0) uses only the first tile levels.
  static absl::StatusOr<TilingMap> Create(const Shape& shape, int max_levels = -1);

  absl::Span<const int64_t> dimensions() const { return dims_; }
  // Major(layout, p) for p = 0 .. rank-1 (most major first).
  absl::Span<const int64_t> physical_order() const { return order_; }
  // dims in physical order.
  absl::Span<const int64_t> physical_dimensions() const { return physical_; }
  absl::Span<const TilingLevel> levels() const { return levels_; }
  // The final expanded shape (the physical dims when there are no tiles).
  absl::Span<const int64_t> expanded_shape() const { return expanded_; }
  int64_t expanded_elements() const { return expanded_elements_; }
  // expanded_elements rounded up to a multiple of L: the nested padded size.
  int64_t padded_elements() const { return padded_elements_; }

  // The offset of a logical index (in elements). Errors: wrong rank or out of bounds.
  absl::StatusOr<int64_t> LinearIndex(absl::Span<const int64_t> index) const;
  // The logical index at an offset in [0, padded_elements()), or padding. Errors: the offset
  // is outside that range.
  absl::StatusOr<DelinearizedIndex> Delinearize(int64_t linear) const;
  // Per level, which tile the element falls in and where inside it.
  absl::StatusOr<std::vector<LevelPosition>> Locate(absl::Span<const int64_t> index) const;

 private:
  // The index after every level (the last one is the final expanded index).
  void Forward(std::vector<int64_t>& idx, std::vector<LevelPosition>* trace) const;

  std::vector<int64_t> dims_;
  std::vector<int64_t> order_;
  std::vector<int64_t> physical_;
  std::vector<TilingLevel> levels_;
  std::vector<int64_t> expanded_;
  int64_t expanded_elements_ = 1;
  int64_t padded_elements_ = 1;
};

// TilingMap::Create(shape) then LinearIndex / Delinearize.
absl::StatusOr<int64_t> NestedLinearIndex(const Shape& shape, absl::Span<const int64_t> index);
absl::StatusOr<DelinearizedIndex> NestedDelinearize(const Shape& shape, int64_t linear);

}  // namespace axe::xla

#endif  // AXE_XLA_TILING_H_
