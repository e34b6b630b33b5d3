#include "axe/xla/sizes.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/xla/layout_util.h"
#include "axe/xla/tiling.h"
#include "checks.h"

namespace axe::xla {
namespace {

absl::Status Overflow(const Shape& shape, absl::string_view what) {
  return absl::OutOfRangeError(
      absl::StrCat("the ", what, " of ", shape.ToString(), " overflows int64"));
}

}  // namespace

absl::StatusOr<int64_t> ElementsIn(const Shape& shape_in) {
  const Shape& shape = shape_in.array_shape();
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ElementsIn needs an array shape, got ", shape.ToString()));
  }
  for (size_t i = 0; i < shape.dimensions().size(); ++i) {
    if (shape.is_unbounded_dynamic_dimension(i)) {
      return absl::InvalidArgumentError(absl::StrCat("ElementsIn: dimension ", i, " of ",
                                                     shape.ToString(), " is unbounded ('?')"));
    }
    if (shape.dimensions(i) < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("ElementsIn: dimension ", i, " of ", shape.ToString(), " is negative"));
    }
  }
  for (int64_t d : shape.dimensions()) {
    if (d == 0) return 0;
  }
  std::optional<int64_t> n = CheckedProduct(shape.dimensions());
  if (!n) return Overflow(shape, "element count");
  return *n;
}

absl::StatusOr<int64_t> ElementsToBytes(const Shape& shape_in, int64_t elements) {
  const Shape& shape = shape_in.array_shape();
  const int64_t e = shape.has_layout() ? shape.layout().element_size_in_bits() : 0;
  if (e < 0)
    return absl::InvalidArgumentError(
        absl::StrCat("negative element size E(", e, ") in ", shape.ToString()));
  std::optional<int64_t> bytes;
  if (e != 0) {
    std::optional<int64_t> bits = CheckedMul(elements, e);
    if (bits) bytes = *bits / 8 + (*bits % 8 != 0 ? 1 : 0);
  } else {
    bytes = CheckedMul(elements, ByteWidth(shape.element_type()));
  }
  if (!bytes) return Overflow(shape, "byte size");
  return *bytes;
}

absl::StatusOr<int64_t> ByteSizeOf(const Shape& shape, int64_t pointer_size) {
  auto need_pointer = [&]() -> absl::Status {
    if (pointer_size > 0) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "ByteSizeOf(", shape.ToString(), ") needs a pointer size > 0, got ", pointer_size));
  };
  switch (shape.kind()) {
    case ShapeKind::kToken: return 0;
    case ShapeKind::kOpaque: AXE_RETURN_IF_ERROR(need_pointer()); return pointer_size;
    case ShapeKind::kTuple: {
      AXE_RETURN_IF_ERROR(need_pointer());
      std::optional<int64_t> n =
          CheckedMul(pointer_size, static_cast<int64_t>(shape.tuple_shapes().size()));
      if (!n) return Overflow(shape, "byte size");
      return *n;
    }
    case ShapeKind::kBuffer:
    case ShapeKind::kArray: break;
  }
  AXE_ASSIGN_OR_RETURN(int64_t n, ElementsIn(shape));
  return ElementsToBytes(shape, n);
}

absl::StatusOr<int64_t> ByteSizeOfElementsRecursive(const Shape& shape) {
  if (shape.IsArray() || shape.IsBuffer()) return ByteSizeOf(shape);
  int64_t total = 0;
  for (const Shape& e : shape.tuple_shapes()) {
    AXE_ASSIGN_OR_RETURN(int64_t n, ByteSizeOfElementsRecursive(e));
    std::optional<int64_t> sum = CheckedAdd(total, n);
    if (!sum) return Overflow(shape, "byte size");
    total = *sum;
  }
  return total;
}

absl::StatusOr<int64_t> ArraySizeElements(const Shape& shape_in) {
  const Shape& shape = shape_in.array_shape();
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(shape, "ArraySize"));
  const Layout& layout = shape.layout();
  // XLA's ShapeUtil::ArraySize: without tiles it is ByteSizeOfElements, which ignores L and
  // split configs.
  if (layout.tiles().empty()) return internal::DenseElements(shape);
  const Tile& tile = layout.tiles()[0];
  // XLA rounds each dim up by its tile bound with RoundUpTo(d, bound); for a `*` bound
  // (kCombineDimension, INT64_MIN) that is CeilOfRatio(d, INT64_MIN) * INT64_MIN = 0, so
  // the whole product is 0.
  for (int64_t b : tile.dimensions()) {
    if (b == Tile::kCombineDimension) return 0;
  }
  // Physical sizes (major -> minor), each dim its largest split piece, left-padded with 1s
  // when the tile is longer; the tile rounds up the most minor ones.
  const std::vector<int64_t> pieces = internal::MaxSplitSizes(shape);  // one pass, not per dim
  std::vector<int64_t> sizes;
  for (int64_t d : internal::MajorToMinor(shape)) sizes.push_back(pieces[static_cast<size_t>(d)]);
  if (tile.rank() > sizes.size()) sizes.insert(sizes.begin(), tile.rank() - sizes.size(), 1);
  const size_t prefix = sizes.size() - tile.rank();
  for (size_t i = 0; i < tile.rank(); ++i) {
    const int64_t b = tile.dimension(i);
    int64_t& s = sizes[prefix + i];
    const int64_t rem = s % b;
    std::optional<int64_t> rounded = rem == 0 ? std::optional<int64_t>(s) : CheckedAdd(s, b - rem);
    if (!rounded) return Overflow(shape, "array size");
    s = *rounded;
  }
  for (int64_t s : sizes) {
    if (s == 0) return 0;
  }
  std::optional<int64_t> count = CheckedProduct(sizes);
  if (!count) return Overflow(shape, "array size");
  const int64_t align = layout.tail_padding_alignment_in_elements();
  const int64_t rem = *count % align;
  if (rem != 0) count = CheckedAdd(*count, align - rem);
  if (!count) return Overflow(shape, "array size");
  return *count;
}

absl::StatusOr<int64_t> ArraySize(const Shape& shape) {
  AXE_ASSIGN_OR_RETURN(int64_t n, ArraySizeElements(shape));
  return ElementsToBytes(shape, n);
}

absl::StatusOr<int64_t> ArrayDataSize(const Shape& shape_in) {
  const Shape& shape = shape_in.array_shape();
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(shape, "ArrayDataSize"));
  AXE_ASSIGN_OR_RETURN(int64_t n, ElementsIn(shape));
  if (n == 0) return 0;
  std::vector<int64_t> last;
  for (int64_t d : shape.dimensions()) last.push_back(d - 1);
  AXE_ASSIGN_OR_RETURN(int64_t linear, LayoutUtil::LinearIndex(shape, last));
  return ElementsToBytes(shape, linear + 1);
}

absl::StatusOr<int64_t> NestedPaddedElements(const Shape& shape) {
  AXE_ASSIGN_OR_RETURN(TilingMap m, TilingMap::Create(shape.array_shape()));
  return m.padded_elements();
}

}  // namespace axe::xla
