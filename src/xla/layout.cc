// xla::Layout, Tile, SplitConfig and DimLevel values (the text form is in text.cc).
#include "axe/xla/layout.h"

#include <algorithm>
#include <string>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/xla/shape.h"

namespace axe::xla {

size_t internal::HashOfShape(const Shape& shape) { return absl::HashOf(shape); }

bool Tile::has_combined_dimension() const {
  return std::find(dimensions_.begin(), dimensions_.end(), kCombineDimension) != dimensions_.end();
}

std::string Tile::ToString() const {
  return absl::StrCat("(",
                      absl::StrJoin(dimensions_, ",",
                                    [](std::string* out, int64_t d) {
                                      if (d == kCombineDimension) {
                                        out->append("*");
                                      } else {
                                        absl::StrAppend(out, d);
                                      }
                                    }),
                      ")");
}

std::string SplitConfig::ToString() const {
  return absl::StrCat("(", dimension_, ":", absl::StrJoin(split_indices_, ","), ")");
}

std::string DimLevel::ToString() const {
  static constexpr char kLetters[] = {'D', 'C', 'S', 'H'};
  std::string s(1, kLetters[type]);
  if (!unique) s += '+';
  if (!ordered) s += '~';
  return s;
}

bool Layout::is_sparse() const {
  return std::any_of(dim_levels_.begin(), dim_levels_.end(),
                     [](const DimLevel& d) { return d.type != DimLevel::kDense; });
}

Layout Layout::WithMinorToMajor(std::vector<int64_t> v) const {
  return With(&Layout::minor_to_major_, std::move(v));
}
Layout Layout::WithTiles(std::vector<Tile> v) const { return With(&Layout::tiles_, std::move(v)); }
Layout Layout::WithTailPaddingAlignmentInElements(int64_t n) const {
  return With(&Layout::tail_padding_alignment_, n);
}
Layout Layout::WithIndexPrimitiveType(PrimitiveType t) const {
  return With(&Layout::index_type_, t);
}
Layout Layout::WithPointerPrimitiveType(PrimitiveType t) const {
  return With(&Layout::pointer_type_, t);
}
Layout Layout::WithElementSizeInBits(int64_t bits) const {
  return With(&Layout::element_size_in_bits_, bits);
}
Layout Layout::WithMemorySpace(int64_t space) const { return With(&Layout::memory_space_, space); }
Layout Layout::WithSplitConfigs(std::vector<SplitConfig> v) const {
  return With(&Layout::split_configs_, std::move(v));
}
Layout Layout::WithPhysicalShape(Shape shape) const {
  return With(&Layout::physical_shape_,
              std::shared_ptr<const Shape>(std::make_shared<const Shape>(std::move(shape))));
}
Layout Layout::WithoutPhysicalShape() const {
  return With(&Layout::physical_shape_, std::shared_ptr<const Shape>());
}
Layout Layout::WithDynamicShapeMetadataPrefixBytes(int64_t bytes) const {
  return With(&Layout::metadata_prefix_bytes_, bytes);
}
Layout Layout::WithDimLevels(std::vector<DimLevel> v) const {
  return With(&Layout::dim_levels_, std::move(v));
}

bool Layout::has_attributes() const {
  return !dim_levels_.empty() || !tiles_.empty() || tail_padding_alignment_ != 1 ||
         index_type_ != PrimitiveType::kInvalid || pointer_type_ != PrimitiveType::kInvalid ||
         element_size_in_bits_ != 0 || memory_space_ != 0 || !split_configs_.empty() ||
         physical_shape_ != nullptr || metadata_prefix_bytes_ > 0;
}

bool operator==(const Layout& a, const Layout& b) {
  if (a.minor_to_major_ != b.minor_to_major_ || a.tiles_ != b.tiles_ ||
      a.tail_padding_alignment_ != b.tail_padding_alignment_ || a.index_type_ != b.index_type_ ||
      a.pointer_type_ != b.pointer_type_ || a.element_size_in_bits_ != b.element_size_in_bits_ ||
      a.memory_space_ != b.memory_space_ || a.split_configs_ != b.split_configs_ ||
      a.metadata_prefix_bytes_ != b.metadata_prefix_bytes_ || a.dim_levels_ != b.dim_levels_) {
    return false;
  }
  if ((a.physical_shape_ == nullptr) != (b.physical_shape_ == nullptr)) return false;
  return a.physical_shape_ == nullptr || *a.physical_shape_ == *b.physical_shape_;
}

}  // namespace axe::xla
