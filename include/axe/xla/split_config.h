// A split config of an XLA layout: `(dimension:i1,i2,...)` in the SC(...) attribute.
//
// `dimension` is a PHYSICAL dimension (0 = most major); the indices are the start positions
// of the 2nd, 3rd, ... pieces along it.
//
//   SplitConfig(1, {200}).ToString();   // "(1:200)"
#ifndef AXE_XLA_SPLIT_CONFIG_H_
#define AXE_XLA_SPLIT_CONFIG_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"

namespace axe::xla {

class SplitConfig {
 public:
  SplitConfig() = default;
  SplitConfig(int64_t dimension, std::vector<int64_t> split_indices)
      : dimension_(dimension), split_indices_(std::move(split_indices)) {}

  int64_t dimension() const { return dimension_; }
  absl::Span<const int64_t> split_indices() const { return split_indices_; }

  // "(1:200,300)"; "(1:)" without indices.
  std::string ToString() const;

  friend bool operator==(const SplitConfig&, const SplitConfig&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const SplitConfig& c) {
    return H::combine(std::move(h), c.dimension_, c.split_indices_);
  }
  friend std::ostream& operator<<(std::ostream& os, const SplitConfig& c) {
    return os << c.ToString();
  }

 private:
  int64_t dimension_ = 0;
  std::vector<int64_t> split_indices_;
};

}  // namespace axe::xla

#endif  // AXE_XLA_SPLIT_CONFIG_H_
