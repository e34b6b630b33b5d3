// A JAX PartitionSpec (spec jax-layout-format.md §8.2): one entry per leading array
// dimension, each None (not sharded), a mesh axis name, or a tuple of names (the dimension
// is split over all of them, the first major).
//
// As in JAX, entries are canonical on construction: a one-name tuple is that name and an
// empty tuple is None, so P(('x',)) == P('x'). Printing follows Python's repr:
//
//   P('x',)   P()   P(None, 'y')   P(('x', 'y'),)   P('x', None)
//
// Parse() reads that text back and the forms users type: P('x', None), P(("x","y")),
// PartitionSpec('x'), with single or double quotes; errors name the character position.
#ifndef AXE_SHARDING_PARTITION_SPEC_H_
#define AXE_SHARDING_PARTITION_SPEC_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace axe::sharding {

class PartitionSpec {
 public:
  // The names of one entry: empty = None, one = a name, more = a tuple (major first).
  using Entry = std::vector<std::string>;

  // Bounds on a value (entries, names in all entries together, each name at most 256
  // characters), and on the text Parse reads; every value within the bounds prints within
  // the text limit, so parse(print(p)) == p always holds.
  static constexpr size_t kMaxEntries = 64;
  static constexpr size_t kMaxNames = 256;
  static constexpr size_t kMaxTextLength = size_t{1} << 20;

  // P().
  PartitionSpec() = default;
  // Validates (InvalidArgument): at most kMaxEntries entries and kMaxNames names; names are
  // identifiers of at most 256 characters.
  // Duplicates and unknown names are the business of a mesh (NamedSharding).
  static absl::StatusOr<PartitionSpec> Create(std::vector<Entry> entries);
  static absl::StatusOr<PartitionSpec> Parse(absl::string_view text);

  const std::vector<Entry>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  // The entry for dimension i (None beyond the written entries).
  const Entry& entry(size_t i) const;

  // Python's repr, e.g. "P('x', None)".
  std::string ToString() const;
  // Python's repr of one entry: None, 'x' or ('x', 'y').
  static std::string EntryToString(const Entry& entry);

  friend bool operator==(const PartitionSpec&, const PartitionSpec&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const PartitionSpec& p) {
    return H::combine(std::move(h), p.entries_);
  }
  friend std::ostream& operator<<(std::ostream& os, const PartitionSpec& p) {
    return os << p.ToString();
  }

 private:
  explicit PartitionSpec(std::vector<Entry> entries) : entries_(std::move(entries)) {}
  std::vector<Entry> entries_;
};

}  // namespace axe::sharding

#endif  // AXE_SHARDING_PARTITION_SPEC_H_
