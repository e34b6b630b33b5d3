// xla::Layout: how an XLA array is laid out in memory (docs/xla.md). Distinct from
// axe::Layout, the Axe layout; axe::xla::ToAxe (to_axe.h) converts the former to the latter.
//
// Fields (text attribute, default): minor_to_major (`{a,b,c`), tiles (`T(..)(..)`, none),
// tail padding alignment (`L(n)`, 1), index / pointer primitive types (`#(t)`, `*(t)`, unset;
// sparse arrays only), element size in bits (`E(n)`, 0 = natural width), memory space
// (`S(n)`, 0; stored as int64, unlike XLA's int8), split configs (`SC(d:i,..)`, none),
// physical shape (`P(shape)`, absent; sparse arrays only), dynamic-shape metadata prefix
// bytes (`M(n)`, 0). Dim level types (`D(..)`) are parsed and dropped like current XLA unless
// the parser's preserve_dim_level_types option keeps them.
//
// A Layout is an immutable value: With*() return modified copies. operator== and the hash
// compare EVERY field (M included); XlaEqual (equal.h) reproduces XLA's Layout::Equal.
//
//   Layout l = Layout({1, 0}, {Tile({8, 128}), Tile({2, 1})}).WithMemorySpace(1);
//   l.ToString();   // "{1,0:T(8,128)(2,1)S(1)}"
#ifndef AXE_XLA_LAYOUT_H_
#define AXE_XLA_LAYOUT_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "axe/xla/primitive_type.h"
#include "axe/xla/split_config.h"
#include "axe/xla/tile.h"

namespace axe::xla {

class Shape;

namespace internal {
// absl::Hash of a shape (defined in layout.cc, where Shape is complete).
size_t HashOfShape(const Shape& shape);
}  // namespace internal

// A pre-2025 sparse dim level type: D(ense), C(ompressed), S(ingleton), H (loose
// compressed); `+` marks non-unique, `~` non-ordered.
struct DimLevel {
  enum Type : uint8_t { kDense, kCompressed, kSingleton, kLooseCompressed };
  Type type = kDense;
  bool unique = true;
  bool ordered = true;

  std::string ToString() const;  // "D", "C+", "S~", "H+~"
  friend bool operator==(const DimLevel&, const DimLevel&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const DimLevel& d) {
    return H::combine(std::move(h), d.type, d.unique, d.ordered);
  }
};

class Layout {
 public:
  static constexpr int64_t kDefaultMemorySpace = 0;
  static constexpr int64_t kGenericFastMemorySpace = 1;
  static constexpr int64_t kHostMemorySpace = 5;
  static constexpr int64_t kUnpinnedHostMemorySpace = 6;

  // The empty layout `{}`.
  Layout() = default;
  explicit Layout(std::vector<int64_t> minor_to_major, std::vector<Tile> tiles = {})
      : minor_to_major_(std::move(minor_to_major)), tiles_(std::move(tiles)) {}

  absl::Span<const int64_t> minor_to_major() const { return minor_to_major_; }
  int64_t minor_to_major(size_t i) const { return minor_to_major_[i]; }
  absl::Span<const Tile> tiles() const { return tiles_; }
  int64_t tail_padding_alignment_in_elements() const { return tail_padding_alignment_; }
  PrimitiveType index_primitive_type() const { return index_type_; }
  PrimitiveType pointer_primitive_type() const { return pointer_type_; }
  int64_t element_size_in_bits() const { return element_size_in_bits_; }
  int64_t memory_space() const { return memory_space_; }
  absl::Span<const SplitConfig> split_configs() const { return split_configs_; }
  bool has_physical_shape() const { return physical_shape_ != nullptr; }
  // Requires has_physical_shape().
  const Shape& physical_shape() const { return *physical_shape_; }
  int64_t dynamic_shape_metadata_prefix_bytes() const { return metadata_prefix_bytes_; }
  absl::Span<const DimLevel> dim_levels() const { return dim_levels_; }
  // True when some dim level type is not dense (a pre-2025 sparse array layout).
  bool is_sparse() const;

  Layout WithMinorToMajor(std::vector<int64_t> minor_to_major) const;
  Layout WithTiles(std::vector<Tile> tiles) const;
  Layout WithTailPaddingAlignmentInElements(int64_t n) const;
  Layout WithIndexPrimitiveType(PrimitiveType t) const;
  Layout WithPointerPrimitiveType(PrimitiveType t) const;
  Layout WithElementSizeInBits(int64_t bits) const;
  Layout WithMemorySpace(int64_t space) const;
  Layout WithSplitConfigs(std::vector<SplitConfig> configs) const;
  Layout WithPhysicalShape(Shape shape) const;
  Layout WithoutPhysicalShape() const;
  Layout WithDynamicShapeMetadataPrefixBytes(int64_t bytes) const;
  Layout WithDimLevels(std::vector<DimLevel> levels) const;

  // True when the text form has a ':' part (some field differs from its default).
  bool has_attributes() const;

  // The HLO text form `{m2m:attrs}` (text.cc; attribute order T L # * E S SC P M, D first
  // when dim levels are present). Layout().ToString() is "{}".
  std::string ToString() const;

  friend bool operator==(const Layout& a, const Layout& b);
  template <typename H>
  friend H AbslHashValue(H h, const Layout& l) {
    return H::combine(
        std::move(h), l.minor_to_major_, l.tiles_, l.tail_padding_alignment_, l.index_type_,
        l.pointer_type_, l.element_size_in_bits_, l.memory_space_, l.split_configs_,
        l.physical_shape_ != nullptr, l.metadata_prefix_bytes_, l.dim_levels_,
        l.physical_shape_ == nullptr ? size_t{0} : internal::HashOfShape(*l.physical_shape_));
  }
  friend std::ostream& operator<<(std::ostream& os, const Layout& l) { return os << l.ToString(); }

 private:
  // A copy with one field replaced.
  template <typename T>
  Layout With(T Layout::*field, T value) const {
    Layout l = *this;
    l.*field = std::move(value);
    return l;
  }

  std::vector<int64_t> minor_to_major_;
  std::vector<Tile> tiles_;
  int64_t tail_padding_alignment_ = 1;
  PrimitiveType index_type_ = PrimitiveType::kInvalid;
  PrimitiveType pointer_type_ = PrimitiveType::kInvalid;
  int64_t element_size_in_bits_ = 0;
  int64_t memory_space_ = 0;
  std::vector<SplitConfig> split_configs_;
  std::shared_ptr<const Shape> physical_shape_;  // shared: the value is immutable
  int64_t metadata_prefix_bytes_ = 0;
  std::vector<DimLevel> dim_levels_;
};

}  // namespace axe::xla

#endif  // AXE_XLA_LAYOUT_H_
