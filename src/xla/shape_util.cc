#include "axe/xla/shape_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/xla/equal.h"
#include "axe/xla/index_util.h"
#include "axe/xla/layout_util.h"
#include "axe/xla/permutation.h"
#include "axe/xla/sizes.h"
#include "axe/xla/validate.h"
#include "checks.h"

namespace axe::xla {
namespace {

// A valid array, its layout optional.
absl::Status CheckArray(const Shape& shape, absl::string_view op) {
  if (!shape.IsArray())
    return absl::InvalidArgumentError(
        absl::StrCat(op, " needs an array shape, got ", shape.ToString()));
  if (absl::Status st = ValidateShape(shape, {.allow_missing_layouts = true}); !st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", st.message()));
  }
  return absl::OkStatus();
}

absl::Status CheckPermutation(absl::Span<const int64_t> p, const Shape& shape,
                              absl::string_view op) {
  if (static_cast<int64_t>(p.size()) != shape.rank() || !IsPermutation(p)) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", FormatTuple(p),
                                                   " is not a permutation of the ", shape.rank(),
                                                   " dims of ", shape.ToString()));
  }
  return absl::OkStatus();
}

std::vector<int64_t> Dims(const Shape& s) { return {s.dimensions().begin(), s.dimensions().end()}; }
std::vector<int64_t> M2m(const Shape& s) {
  return {s.layout().minor_to_major().begin(), s.layout().minor_to_major().end()};
}

std::vector<bool> PermuteFlags(const std::vector<bool>& flags, absl::Span<const int64_t> p) {
  std::vector<bool> out;
  for (int64_t i : p) out.push_back(flags[static_cast<size_t>(i)]);
  return out;
}

bool SameElementType(const Shape& a, const Shape& b) {
  return a.element_type() == b.element_type();
}

}  // namespace

absl::StatusOr<Shape> ShapeUtil::MakeShape(PrimitiveType type, absl::Span<const int64_t> dims) {
  return MakeShapeWithDescendingLayout(type, dims);
}

absl::StatusOr<Shape> ShapeUtil::MakeShapeWithDescendingLayout(PrimitiveType type,
                                                               absl::Span<const int64_t> dims) {
  Shape s = Shape::Array(type, {dims.begin(), dims.end()}, {},
                         LayoutUtil::MakeDescendingLayout(static_cast<int64_t>(dims.size())));
  AXE_RETURN_IF_ERROR(ValidateShape(s));
  return s;
}

absl::StatusOr<Shape> ShapeUtil::MakeShapeWithDenseLayout(
    PrimitiveType type, absl::Span<const int64_t> dims, absl::Span<const int64_t> minor_to_major,
    std::vector<Tile> tiles, int64_t tail_padding_alignment_in_elements,
    int64_t element_size_in_bits, int64_t memory_space, std::vector<SplitConfig> split_configs) {
  if (element_size_in_bits == BitWidth(type)) element_size_in_bits = 0;
  Layout layout = Layout({minor_to_major.begin(), minor_to_major.end()}, std::move(tiles))
                      .WithTailPaddingAlignmentInElements(tail_padding_alignment_in_elements)
                      .WithElementSizeInBits(element_size_in_bits)
                      .WithMemorySpace(memory_space)
                      .WithSplitConfigs(std::move(split_configs));
  Shape s = Shape::Array(type, {dims.begin(), dims.end()}, {}, std::move(layout));
  AXE_RETURN_IF_ERROR(ValidateShape(s));
  return s;
}

int64_t ShapeUtil::TrueNumDimensions(const Shape& shape) {
  return std::count_if(shape.dimensions().begin(), shape.dimensions().end(),
                       [](int64_t d) { return d > 1; });
}

absl::StatusOr<Shape> ShapeUtil::PermuteDimensions(absl::Span<const int64_t> permutation,
                                                   const Shape& shape) {
  AXE_RETURN_IF_ERROR(CheckArray(shape, "PermuteDimensions"));
  AXE_RETURN_IF_ERROR(CheckPermutation(permutation, shape, "PermuteDimensions"));
  const std::vector<int64_t> dims = Dims(shape);
  Shape out = Shape::Array(shape.element_type(), PermuteValues<int64_t>(dims, permutation),
                           PermuteFlags(shape.dynamic_dimensions(), permutation));
  if (!shape.has_layout()) return out;
  const std::vector<int64_t> m2m = M2m(shape);
  return out.WithLayout(
      shape.layout().WithMinorToMajor(ComposePermutations(InversePermutation(permutation), m2m)));
}

absl::StatusOr<Shape> ShapeUtil::PermuteDimensionsIgnoringLayout(
    absl::Span<const int64_t> permutation, const Shape& shape) {
  AXE_RETURN_IF_ERROR(CheckArray(shape, "PermuteDimensionsIgnoringLayout"));
  AXE_RETURN_IF_ERROR(CheckPermutation(permutation, shape, "PermuteDimensionsIgnoringLayout"));
  Shape out = Shape::Array(shape.element_type(), PermuteValues<int64_t>(Dims(shape), permutation),
                           PermuteFlags(shape.dynamic_dimensions(), permutation));
  return shape.has_layout() ? out.WithLayout(shape.layout()) : out;
}

absl::StatusOr<Shape> ShapeUtil::ReorderLogicalDimensions(const Shape& shape,
                                                          absl::Span<const int64_t> permutation) {
  return PermuteDimensions(permutation, shape);
}

absl::StatusOr<bool> ShapeUtil::TransposeIsBitcast(const Shape& input, const Shape& output,
                                                   absl::Span<const int64_t> dimension_mapping,
                                                   bool ignore_element_type) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(input, "TransposeIsBitcast"));
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(output, "TransposeIsBitcast"));
  AXE_RETURN_IF_ERROR(CheckPermutation(dimension_mapping, output, "TransposeIsBitcast"));
  if (input.rank() != output.rank()) return false;
  if (!ignore_element_type && !SameElementType(input, output)) return false;
  return ComposePermutations(dimension_mapping, output.layout().minor_to_major()) == M2m(input);
}

absl::StatusOr<std::optional<std::vector<int64_t>>> ShapeUtil::DeduceTransposeDimensionsForBitcast(
    const Shape& input, const Shape& output) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(input, "DeduceTransposeDimensionsForBitcast"));
  AXE_RETURN_IF_ERROR(
      internal::CheckArrayWithLayout(output, "DeduceTransposeDimensionsForBitcast"));
  if (input.rank() != output.rank()) return std::optional<std::vector<int64_t>>();
  std::vector<int64_t> perm = ComposePermutations(M2m(input), InversePermutation(M2m(output)));
  if (PermuteValues<int64_t>(Dims(input), perm) != Dims(output))
    return std::optional<std::vector<int64_t>>();
  return std::optional<std::vector<int64_t>>(std::move(perm));
}

absl::StatusOr<bool> ShapeUtil::ReshapeIsBitcast(const Shape& input, const Shape& output,
                                                 bool ignore_element_type) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(input, "ReshapeIsBitcast"));
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(output, "ReshapeIsBitcast"));
  if (!ignore_element_type && !SameElementType(input, output)) return false;
  AXE_ASSIGN_OR_RETURN(int64_t n_in, ElementsIn(input));
  AXE_ASSIGN_OR_RETURN(int64_t n_out, ElementsIn(output));
  if (n_in != n_out) return false;
  if (n_in == 0) return true;
  // Every unit index of `a` lands, through the row-major logical correspondence, on an index
  // of `b` with the same physical (untiled) offset.
  auto units_agree = [](const Shape& a, const Shape& b) -> absl::StatusOr<bool> {
    Shape a_row = a.WithLayout(LayoutUtil::MakeDescendingLayout(a.rank()));
    Shape b_row = b.WithLayout(LayoutUtil::MakeDescendingLayout(b.rank()));
    for (int64_t d = 0; d < a.rank(); ++d) {
      if (a.dimensions(static_cast<size_t>(d)) <= 1) continue;
      std::vector<int64_t> unit(static_cast<size_t>(a.rank()), 0);
      unit[static_cast<size_t>(d)] = 1;
      AXE_ASSIGN_OR_RETURN(int64_t logical,
                           IndexUtil::MultidimensionalIndexToLinearIndex(a_row, unit));
      AXE_ASSIGN_OR_RETURN(std::vector<int64_t> other,
                           IndexUtil::LinearIndexToMultidimensionalIndex(b_row, logical));
      AXE_ASSIGN_OR_RETURN(int64_t pa, IndexUtil::MultidimensionalIndexToLinearIndex(a, unit));
      AXE_ASSIGN_OR_RETURN(int64_t pb, IndexUtil::MultidimensionalIndexToLinearIndex(b, other));
      if (pa != pb) return false;
    }
    return true;
  };
  AXE_ASSIGN_OR_RETURN(bool forward, units_agree(input, output));
  if (!forward) return false;
  return units_agree(output, input);
}

absl::StatusOr<bool> ShapeUtil::IsReshapeOrTransposeBitcast(const Shape& a, const Shape& b,
                                                            bool ignore_element_type) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(a, "IsReshapeOrTransposeBitcast"));
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(b, "IsReshapeOrTransposeBitcast"));
  if (!ignore_element_type && !SameElementType(a, b)) return false;
  if (XlaEqual(a, b, {.ignore_element_type = true})) return true;
  AXE_ASSIGN_OR_RETURN(bool reshape, ReshapeIsBitcast(a, b, /*ignore_element_type=*/true));
  if (reshape) return true;
  AXE_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dims,
                       DeduceTransposeDimensionsForBitcast(a, b));
  if (!dims) return false;
  return TransposeIsBitcast(b, a, *dims, /*ignore_element_type=*/true);
}

absl::StatusOr<ShapeUtil::BitcastDecomposition> ShapeUtil::DecomposeBitcast(const Shape& input,
                                                                            const Shape& output) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(input, "DecomposeBitcast"));
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(output, "DecomposeBitcast"));
  AXE_ASSIGN_OR_RETURN(int64_t n_in, ElementsIn(input));
  AXE_ASSIGN_OR_RETURN(int64_t n_out, ElementsIn(output));
  if (n_in != n_out) {
    return absl::InvalidArgumentError(absl::StrCat("DecomposeBitcast: ", input.ToString(), " has ",
                                                   n_in, " elements but ", output.ToString(),
                                                   " has ", n_out, ": not a bitcast"));
  }
  AXE_ASSIGN_OR_RETURN(bool reshape, ReshapeIsBitcast(input, output, /*ignore_element_type=*/true));
  if (reshape) return BitcastReshape{};
  AXE_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> perm,
                       DeduceTransposeDimensionsForBitcast(input, output));
  if (perm) return BitcastTranspose{*std::move(perm)};
  BitcastTrt trt;
  AXE_ASSIGN_OR_RETURN(trt.transpose1_shape,
                       MakeShapeWithDescendingLayoutAndSamePhysicalLayout(input));
  AXE_ASSIGN_OR_RETURN(trt.reshape_shape,
                       MakeShapeWithDescendingLayoutAndSamePhysicalLayout(output));
  trt.transpose1_dims = internal::MajorToMinor(input);
  trt.transpose2_dims = InversePermutation(internal::MajorToMinor(output));
  return trt;
}

absl::StatusOr<std::optional<Shape>> ShapeUtil::AlignLayouts(const Shape& input,
                                                             const Shape& output) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(input, "AlignLayouts"));
  AXE_RETURN_IF_ERROR(CheckArray(output, "AlignLayouts"));
  const std::optional<Shape> none;
  AXE_ASSIGN_OR_RETURN(int64_t n_in, ElementsIn(input));
  AXE_ASSIGN_OR_RETURN(int64_t n_out, ElementsIn(output));
  if (n_in != n_out || n_in == 0) return none;
  // Size-1 dims can go anywhere: align without them, then put them back as the most major
  // dims in decreasing order.
  if (TrueNumDimensions(input) != input.rank() || TrueNumDimensions(output) != output.rank()) {
    AXE_ASSIGN_OR_RETURN(Shape in, DropDegenerateDimensions(input));
    AXE_ASSIGN_OR_RETURN(Shape out, DropDegenerateDimensions(output.WithLayout(
                                        LayoutUtil::MakeDescendingLayout(output.rank()))));
    AXE_ASSIGN_OR_RETURN(std::optional<Shape> simple, AlignLayouts(in, out));
    if (!simple) return none;
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < output.rank(); ++i) {
      if (output.dimensions(static_cast<size_t>(i)) != 1) kept.push_back(i);
    }
    std::vector<int64_t> m2m;
    for (int64_t d : simple->layout().minor_to_major()) m2m.push_back(kept[static_cast<size_t>(d)]);
    for (int64_t i = output.rank() - 1; i >= 0; --i) {
      if (output.dimensions(static_cast<size_t>(i)) == 1) m2m.push_back(i);
    }
    return std::optional<Shape>(output.WithLayout(Layout(std::move(m2m))));
  }
  // Consecutive groups of input and output dims with equal products.
  const std::vector<int64_t> a = Dims(input), b = Dims(output);
  std::vector<std::pair<size_t, size_t>> bounds = {{0, 0}};
  size_t i = 0, j = 0;
  int64_t pa = 1, pb = 1;  // running products; both stay <= n_in
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && pa < pb)) {
      pa *= a[i++];
    } else if (i == a.size() || pb < pa) {
      pb *= b[j++];
    } else {
      pa *= a[i++];
      pb *= b[j++];
    }
    if (pa == pb) bounds.emplace_back(i, j);
  }
  const std::vector<int64_t> in_m2m = M2m(input);
  std::vector<size_t> group_of(a.size());
  for (size_t g = 0; g + 1 < bounds.size(); ++g) {
    const size_t start = bounds[g].first, end = bounds[g + 1].first;
    // The group's dims must be one run of minor_to_major, more major dims more major.
    size_t pos = static_cast<size_t>(
        std::find(in_m2m.begin(), in_m2m.end(), static_cast<int64_t>(start)) - in_m2m.begin());
    group_of[start] = g;
    for (size_t d = start + 1; d < end; ++d) {
      if (pos == 0 || in_m2m[--pos] != static_cast<int64_t>(d)) return none;
      group_of[d] = g;
    }
  }
  std::vector<int64_t> out_m2m;
  for (size_t minor = 0; out_m2m.size() < b.size();) {
    const size_t g = group_of[static_cast<size_t>(in_m2m[minor])];
    for (size_t d = bounds[g + 1].second; d-- > bounds[g].second;)
      out_m2m.push_back(static_cast<int64_t>(d));
    minor += bounds[g + 1].first - bounds[g].first;
  }
  return std::optional<Shape>(output.WithLayout(Layout(std::move(out_m2m))));
}

absl::StatusOr<Shape> ShapeUtil::DeleteDimensions(absl::Span<const int64_t> dims,
                                                  const Shape& shape) {
  AXE_RETURN_IF_ERROR(CheckArray(shape, "DeleteDimensions"));
  std::vector<int64_t> sorted(dims.begin(), dims.end());
  std::sort(sorted.rbegin(), sorted.rend());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("DeleteDimensions: ", FormatTuple(dims), " repeats a dimension"));
  }
  std::vector<int64_t> sizes = Dims(shape);
  std::vector<bool> dynamic = shape.dynamic_dimensions();
  std::optional<Layout> layout;
  if (shape.has_layout()) layout = shape.layout();
  for (int64_t d : sorted) {
    if (d < 0 || d >= static_cast<int64_t>(sizes.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("DeleteDimensions: dimension ", d, " is outside ", shape.ToString()));
    }
    sizes.erase(sizes.begin() + d);
    dynamic.erase(dynamic.begin() + d);
    if (layout) {
      AXE_ASSIGN_OR_RETURN(layout, LayoutUtil::DeleteDimension(*layout, d));
    }
  }
  return Shape::Array(shape.element_type(), std::move(sizes), std::move(dynamic),
                      std::move(layout));
}

absl::StatusOr<Shape> ShapeUtil::DropDegenerateDimensions(const Shape& shape) {
  AXE_RETURN_IF_ERROR(CheckArray(shape, "DropDegenerateDimensions"));
  std::vector<int64_t> ones;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.dimensions(static_cast<size_t>(d)) == 1) ones.push_back(d);
  }
  return DeleteDimensions(ones, shape);
}

absl::StatusOr<Shape> ShapeUtil::MakeShapeWithDescendingLayoutAndSamePhysicalLayout(
    const Shape& shape) {
  AXE_RETURN_IF_ERROR(CheckArray(shape, "MakeShapeWithDescendingLayoutAndSamePhysicalLayout"));
  std::vector<int64_t> order;
  for (int64_t p = 0; p < shape.rank(); ++p)
    order.push_back(shape.has_layout() ? LayoutUtil::Major(shape.layout(), p) : p);
  Layout layout = LayoutUtil::MakeDescendingLayout(shape.rank());
  if (shape.has_layout()) {
    const Layout& l = shape.layout();
    layout = layout.WithTiles({l.tiles().begin(), l.tiles().end()})
                 .WithElementSizeInBits(l.element_size_in_bits())
                 .WithTailPaddingAlignmentInElements(l.tail_padding_alignment_in_elements())
                 .WithMemorySpace(l.memory_space());
  }
  return Shape::Array(shape.element_type(), PermuteValues<int64_t>(Dims(shape), order),
                      PermuteFlags(shape.dynamic_dimensions(), order), std::move(layout));
}

absl::StatusOr<Shape> ShapeUtil::PrependMajorDimension(int64_t bound, const Shape& shape) {
  AXE_RETURN_IF_ERROR(CheckArray(shape, "PrependMajorDimension"));
  std::vector<int64_t> dims = {bound};
  for (int64_t d : shape.dimensions()) dims.push_back(d);
  std::vector<bool> dynamic = {false};
  dynamic.insert(dynamic.end(), shape.dynamic_dimensions().begin(),
                 shape.dynamic_dimensions().end());
  std::optional<Layout> layout;
  if (shape.has_layout()) {
    std::vector<int64_t> m2m;
    for (int64_t m : shape.layout().minor_to_major()) m2m.push_back(m + 1);
    m2m.push_back(0);
    layout = Layout(std::move(m2m));
  }
  Shape out =
      Shape::Array(shape.element_type(), std::move(dims), std::move(dynamic), std::move(layout));
  AXE_RETURN_IF_ERROR(ValidateShape(out, {.allow_missing_layouts = true}));
  return out;
}

absl::StatusOr<Shape> ShapeUtil::AppendMinorDimension(int64_t bound, const Shape& shape) {
  AXE_RETURN_IF_ERROR(CheckArray(shape, "AppendMinorDimension"));
  std::vector<int64_t> dims = Dims(shape);
  dims.push_back(bound);
  std::vector<bool> dynamic = shape.dynamic_dimensions();
  dynamic.push_back(false);
  std::optional<Layout> layout;
  if (shape.has_layout()) {
    std::vector<int64_t> m2m = {shape.rank()};
    for (int64_t m : shape.layout().minor_to_major()) m2m.push_back(m);
    layout = shape.layout().WithMinorToMajor(std::move(m2m));
  }
  Shape out =
      Shape::Array(shape.element_type(), std::move(dims), std::move(dynamic), std::move(layout));
  AXE_RETURN_IF_ERROR(ValidateShape(out, {.allow_missing_layouts = true}));
  return out;
}

absl::StatusOr<Shape> ShapeUtil::InsertDimensionAtIndex(const Shape& shape, int64_t index,
                                                        int64_t bound) {
  const int64_t bounds[] = {bound};
  return InsertDimensionsAtIndex(shape, index, bounds);
}

absl::StatusOr<Shape> ShapeUtil::InsertDimensionsAtIndex(const Shape& shape, int64_t index,
                                                         absl::Span<const int64_t> bounds) {
  AXE_RETURN_IF_ERROR(CheckArray(shape, "InsertDimensionsAtIndex"));
  if (index < 0 || index > shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("InsertDimensionsAtIndex: index ", index,
                                                   " is outside [0, ", shape.rank(), "]"));
  }
  const int64_t k = static_cast<int64_t>(bounds.size());
  std::vector<int64_t> dims = Dims(shape);
  dims.insert(dims.begin() + index, bounds.begin(), bounds.end());
  std::vector<bool> dynamic = shape.dynamic_dimensions();
  dynamic.insert(dynamic.begin() + index, bounds.size(), false);
  std::optional<Layout> layout;
  if (shape.has_layout()) {
    std::vector<int64_t> m2m;
    for (int64_t m : shape.layout().minor_to_major()) m2m.push_back(m >= index ? m + k : m);
    for (int64_t d = index + k - 1; d >= index; --d) m2m.push_back(d);
    layout = shape.layout().WithMinorToMajor(std::move(m2m));
  }
  Shape out =
      Shape::Array(shape.element_type(), std::move(dims), std::move(dynamic), std::move(layout));
  AXE_RETURN_IF_ERROR(ValidateShape(out, {.allow_missing_layouts = true}));
  return out;
}

absl::StatusOr<Shape> ShapeUtil::MoveDimToMajor(const Shape& shape, int64_t dimension) {
  return internal::MapArrays(shape, [dimension](const Shape& s) -> absl::StatusOr<Shape> {
    const Layout current = s.has_layout() ? s.layout() : LayoutUtil::MakeDescendingLayout(s.rank());
    AXE_ASSIGN_OR_RETURN(Layout moved, LayoutUtil::MoveDimToMajor(current, dimension));
    return s.WithLayout(Layout({moved.minor_to_major().begin(), moved.minor_to_major().end()}));
  });
}

absl::StatusOr<bool> ShapeUtil::IsEffectivelyMostMajorDimension(const Shape& shape,
                                                                int64_t dimension) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(shape, "IsEffectivelyMostMajorDimension"));
  if (dimension < 0 || dimension >= shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("IsEffectivelyMostMajorDimension: dimension ",
                                                   dimension, " is outside ", shape.ToString()));
  }
  for (int64_t d : internal::MajorToMinor(shape)) {
    if (d == dimension) return true;
    if (shape.dimensions(static_cast<size_t>(d)) != 1) return false;
  }
  return true;
}

absl::StatusOr<Shape> ShapeUtil::ChangeElementType(const Shape& shape, PrimitiveType type) {
  if (!IsArrayType(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ChangeElementType: ", PrimitiveTypeName(type), " is not an array type"));
  }
  return internal::MapArrays(shape, [type](const Shape& s) {
    Shape out = s.WithElementType(type);
    if (!s.has_layout()) return out;
    int64_t e = 0;
    if (IsSubByteNonPred(type) && s.layout().element_size_in_bits() != 0) e = BitWidth(type);
    return out.WithLayout(s.layout().WithElementSizeInBits(e));
  });
}

absl::StatusOr<Shape> ShapeUtil::UpdateElementSizeInBits(const Shape& shape, bool pack) {
  return internal::MapArrays(shape, [pack](const Shape& s) {
    if (!s.has_layout()) return s;
    const int64_t e = pack && IsSubByteNonPred(s.element_type()) ? BitWidth(s.element_type()) : 0;
    return s.WithLayout(s.layout().WithElementSizeInBits(e));
  });
}

absl::StatusOr<int64_t> ShapeUtil::ElementSizeInBits(const Shape& shape) {
  AXE_RETURN_IF_ERROR(CheckArray(shape, "ElementSizeInBits"));
  if (shape.has_layout() && shape.layout().element_size_in_bits() != 0)
    return shape.layout().element_size_in_bits();
  return int64_t{8} * ByteWidth(shape.element_type());
}

namespace {

absl::StatusOr<std::vector<int64_t>> StridesWithElementBytes(const Shape& shape,
                                                             int64_t element_bytes) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(shape, "ByteStrides"));
  std::vector<int64_t> strides;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    AXE_ASSIGN_OR_RETURN(int64_t elements, IndexUtil::GetDimensionStride(shape, d));
    std::optional<int64_t> bytes = CheckedMul(elements, element_bytes);
    if (!bytes)
      return absl::OutOfRangeError(
          absl::StrCat("the byte strides of ", shape.ToString(), " overflow int64"));
    strides.push_back(*bytes);
  }
  return strides;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ShapeUtil::UnpackedByteStrides(const Shape& shape) {
  return StridesWithElementBytes(shape, ByteWidth(shape.element_type()));
}

absl::StatusOr<std::optional<std::vector<int64_t>>> ShapeUtil::ByteStrides(const Shape& shape) {
  AXE_ASSIGN_OR_RETURN(int64_t bits, ElementSizeInBits(shape));
  if (bits % 8 != 0) return std::optional<std::vector<int64_t>>();
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, StridesWithElementBytes(shape, bits / 8));
  return std::optional<std::vector<int64_t>>(std::move(strides));
}

bool ShapeUtil::DeviceShapeIsHostShape(const Shape& shape) {
  if (shape.IsArray()) {
    if (!shape.has_layout()) return true;
    const Layout& l = shape.layout();
    return l.tiles().empty() && l.memory_space() == 0 && !l.has_physical_shape() &&
           l.element_size_in_bits() == 0 && l.tail_padding_alignment_in_elements() == 1 &&
           l.dynamic_shape_metadata_prefix_bytes() == 0;
  }
  for (const Shape& e : shape.tuple_shapes()) {
    if (!DeviceShapeIsHostShape(e)) return false;
  }
  return true;
}

Shape ShapeUtil::DeviceShapeToHostShape(const Shape& shape) {
  absl::StatusOr<Shape> out = internal::MapArrays(shape, [](const Shape& s) {
    if (!s.has_layout()) return s;
    return s.WithLayout(s.layout()
                            .WithTiles({})
                            .WithMemorySpace(0)
                            .WithoutPhysicalShape()
                            .WithElementSizeInBits(0)
                            .WithTailPaddingAlignmentInElements(1)
                            .WithDynamicShapeMetadataPrefixBytes(0));
  });
  return *std::move(out);  // the mapping cannot fail
}

}  // namespace axe::xla
