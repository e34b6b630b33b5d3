// One level of an XLA tiled layout: bounds listed major -> minor that tile a suffix of the
// physical dims of whatever they are applied to (docs/xla.md, "Tiling").
//
// A bound is > 0, or Tile::kCombineDimension (INT64_MIN, written `*`): "merge this dim into
// the next more-minor dim before tiling".
//
//   Tile({8, 128}).ToString();                          // "(8,128)"
//   Tile({2, Tile::kCombineDimension, 128}).ToString(); // "(2,*,128)"
#ifndef AXE_XLA_TILE_H_
#define AXE_XLA_TILE_H_

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"

namespace axe::xla {

class Tile {
 public:
  static constexpr int64_t kCombineDimension = std::numeric_limits<int64_t>::min();

  Tile() = default;
  explicit Tile(std::vector<int64_t> dimensions) : dimensions_(std::move(dimensions)) {}

  absl::Span<const int64_t> dimensions() const { return dimensions_; }
  int64_t dimension(size_t i) const { return dimensions_[i]; }
  size_t rank() const { return dimensions_.size(); }
  // True if some bound is kCombineDimension.
  bool has_combined_dimension() const;

  // "(8,128)"; `*` for kCombineDimension; any other non-positive bound prints as its value.
  std::string ToString() const;

  friend bool operator==(const Tile&, const Tile&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const Tile& t) {
    return H::combine(std::move(h), t.dimensions_);
  }
  friend std::ostream& operator<<(std::ostream& os, const Tile& t) { return os << t.ToString(); }

 private:
  std::vector<int64_t> dimensions_;
};

}  // namespace axe::xla

#endif  // AXE_XLA_TILE_H_
