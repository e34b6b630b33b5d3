// The grid of a Pallas call: a tuple of non-negative sizes, optionally named. The kernel
// runs once per grid point (a "program"); points are visited in row-major order, the last
// axis fastest. () is one program; a zero size means none.
//
//   Grid g = {4, 2};                                // 8 programs: (0,0) (0,1) (1,0) ...
//   Grid n = Grid::Named({{"i", 4}, {"j", 2}});
//   n.ToString();                                   // "(('i', 4), ('j', 2))"
//   *Grid::Parse("4");                              // (4,)
//
// Constructing a Grid never fails; Validate() (run by PallasCall and Create) reports
// negative sizes, bad or repeated names and a program count that overflows int64.
#ifndef AXE_PALLAS_GRID_H_
#define AXE_PALLAS_GRID_H_

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace axe::pallas {

class Grid {
 public:
  // (): one program.
  Grid() = default;
  Grid(std::initializer_list<int64_t> sizes) : sizes_(sizes) {}
  explicit Grid(std::vector<int64_t> sizes) : sizes_(std::move(sizes)) {}
  static Grid Named(std::vector<std::pair<std::string, int64_t>> axes);
  // Builds and validates.
  static absl::StatusOr<Grid> Create(std::vector<int64_t> sizes,
                                     std::vector<std::string> names = {});
  // "(4, 2)", "4,2", "4", "()", "(('i', 4), ('j', 2))" (single or double quotes).
  static absl::StatusOr<Grid> Parse(absl::string_view text);

  // "Grid must be a tuple of non-negative integers, got (4, -1)", ...
  absl::Status Validate() const;

  int rank() const { return static_cast<int>(sizes_.size()); }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  int64_t size(int axis) const { return sizes_[static_cast<size_t>(axis)]; }
  bool named() const { return !names_.empty(); }
  // One name per axis, or empty.
  const std::vector<std::string>& names() const { return names_; }
  // The axis called `name`, or -1.
  int AxisOf(absl::string_view name) const;
  // The number of programs (the product of the sizes). Requires a valid grid.
  int64_t num_programs() const;

  // Python's repr of the grid tuple: "(4, 2)", "(4,)", "()", "(('i', 4), ('j', 2))".
  std::string ToString() const;

  friend bool operator==(const Grid&, const Grid&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const Grid& g) {
    return H::combine(std::move(h), g.sizes_, g.names_);
  }
  friend std::ostream& operator<<(std::ostream& os, const Grid& g) { return os << g.ToString(); }

 private:
  std::vector<int64_t> sizes_;
  std::vector<std::string> names_;
};

// Advances `point` (one index per axis of `grid`) to the next program in row-major order,
// the last axis fastest; returns false, with `point` back at all zeros, after the last one.
bool NextGridPoint(const Grid& grid, absl::Span<int64_t> point);

}  // namespace axe::pallas

#endif  // AXE_PALLAS_GRID_H_
