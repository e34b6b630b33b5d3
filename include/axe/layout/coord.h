// Physical coordinates: a sparse map axis -> int64 such as {warp:6, lane:8, reg:1}.
// Entries with value 0 are dropped, so two coordinates are equal iff they agree on every
// axis. Entries are kept sorted by axis name; sets of coordinates (apply's result) are
// ordered lexicographically over the axes in name order.
//
//   PhysCoord p = {{Axis::Get("warp"), 6}, {Axis::Get("lane"), 8}};
//   p.get(Axis::Get("lane"));   // 8
#ifndef AXE_LAYOUT_COORD_H_
#define AXE_LAYOUT_COORD_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include "absl/strings/string_view.h"

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/axis.h"
#include "axe/layout/axis_catalog.h"

namespace axe {

class PhysCoord {
 public:
  using Entry = std::pair<Axis, int64_t>;

  PhysCoord() = default;
  // Values on a repeated axis add up (unchecked: the caller's values must not overflow).
  PhysCoord(std::initializer_list<Entry> entries);

  // Parses "warp=6,lane=8,reg=1" or "{warp:6, lane:8}"; a repeated axis is an error. Names
  // take their kinds from `catalog` (to read a point of a layout, pass
  // AxisCatalog::Standard().With(layout.axes())).
  static absl::StatusOr<PhysCoord> Parse(absl::string_view text,
                                         const AxisCatalog& catalog = AxisCatalog::Standard());

  int64_t get(Axis a) const;
  void set(Axis a, int64_t value);
  // Adds `value` on `a`. The caller guarantees no overflow (layouts validate their range).
  void add(Axis a, int64_t value);

  absl::Span<const Entry> entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

  // "{lane:8, reg:1, warp:6}" ("{}" when all zero), axes in name order.
  std::string ToString() const;

  friend bool operator==(const PhysCoord& a, const PhysCoord& b) {
    return a.entries_ == b.entries_;
  }
  // Lexicographic over the union of both axes sorted by name, a missing entry counting as 0.
  friend bool operator<(const PhysCoord& a, const PhysCoord& b);
  template <typename H>
  friend H AbslHashValue(H h, const PhysCoord& c) {
    for (const Entry& e : c.entries_) h = H::combine(std::move(h), e.first, e.second);
    return H::combine(std::move(h), c.entries_.size());
  }
  friend std::ostream& operator<<(std::ostream& os, const PhysCoord& c) {
    return os << c.ToString();
  }

 private:
  absl::InlinedVector<Entry, 4> entries_;
};

// a - b, or nullopt when a component overflows int64.
std::optional<PhysCoord> CheckedDifference(const PhysCoord& a, const PhysCoord& b);

}  // namespace axe

#endif  // AXE_LAYOUT_COORD_H_
