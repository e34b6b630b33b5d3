#include "axe/xla/explain.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/xla/memory_space.h"
#include "axe/xla/sizes.h"
#include "axe/xla/validate.h"
#include "checks.h"

namespace axe::xla {
namespace {

std::string DimText(const Shape& a, size_t d) {
  if (a.is_unbounded_dynamic_dimension(d)) return "?";
  return absl::StrCat(a.is_dynamic_dimension(d) ? "<=" : "", a.dimensions(d));
}

// "major to minor: dim 1 (size 1), dim 0 (size 8), ...; dim 3 varies fastest (...)".
std::string PhysicalOrderInWords(const Shape& a) {
  if (a.rank() == 0) return "a scalar: one element";
  absl::Span<const int64_t> m2m = a.layout().minor_to_major();
  std::string out = "major to minor: ";
  for (size_t p = m2m.size(); p-- > 0;) {
    absl::StrAppend(&out, p + 1 == m2m.size() ? "" : ", ", "dim ", m2m[p], " (size ",
                    DimText(a, static_cast<size_t>(m2m[p])), ")");
  }
  absl::StrAppend(&out, "; dim ", m2m[0], " varies fastest (minor_to_major {",
                  absl::StrJoin(m2m, ","), "} lists the fastest dim first)");
  return out;
}

TileLevelFacts LevelFacts(const TilingLevel& l) {
  return TileLevelFacts{l.tile.ToString(), l.input_rank, l.covered, l.folded, l.counts, l.bounds};
}

// The layout attributes, order and tiling of a valid array with a layout.
void FillLayoutFacts(const Shape& a, ArrayExplanation& e) {
  const Layout& l = a.layout();
  e.has_layout = true;
  e.minor_to_major.assign(l.minor_to_major().begin(), l.minor_to_major().end());
  e.major_to_minor.assign(e.minor_to_major.rbegin(), e.minor_to_major.rend());
  e.physical_order = PhysicalOrderInWords(a);
  e.element_size_in_bits = l.element_size_in_bits();
  e.tail_padding_alignment = l.tail_padding_alignment_in_elements();
  e.metadata_prefix_bytes = l.dynamic_shape_metadata_prefix_bytes();
  for (const SplitConfig& c : l.split_configs()) e.split_configs.push_back(c.ToString());
  absl::StatusOr<TilingMap> m = TilingMap::Create(a);
  if (m.ok()) {
    for (const TilingLevel& level : m->levels()) e.tile_levels.push_back(LevelFacts(level));
    e.expanded_shape.assign(m->expanded_shape().begin(), m->expanded_shape().end());
  }
  if (!l.tiles().empty()) {
    for (int64_t b : l.tiles()[0].dimensions()) {
      if (b != Tile::kCombineDimension) continue;
      e.array_size_note =
          "XLA's ArraySize rounds each dim up with RoundUpTo(d, bound), and the '*' bound "
          "(kCombineDimension, INT64_MIN) makes that 0; padded_elements is the real need";
      break;
    }
  }
}

}  // namespace

absl::StatusOr<ArrayExplanation> ExplainArray(const Shape& shape) {
  const Shape& a = shape.array_shape();
  if (!a.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat("explain needs an array or buffer shape, got ",
                                                   ElideForMessage(shape.ToString())));
  }
  ArrayExplanation e;
  e.kind = shape.IsBuffer() ? "buffer" : "array";
  e.shape = shape.ToString();
  e.element_type = std::string(PrimitiveTypeName(a.element_type()));
  e.element_kind = std::string(PrimitiveTypeKind(a.element_type()));
  e.bit_width = BitWidth(a.element_type());
  e.byte_width = ByteWidth(a.element_type());
  e.memory_space = a.has_layout() ? a.layout().memory_space() : 0;
  e.memory_space_name = std::string(MemorySpaceName(e.memory_space));
  e.memory_space_description = MemorySpaceDescription(e.memory_space);
  e.elements_in = ElementsIn(a);
  e.byte_size_of = ByteSizeOf(a);
  e.array_size_bytes = ArraySize(a);
  e.padded_elements = NestedPaddedElements(a);
  e.axe = ToAxe(a);
  if (absl::Status valid = ValidateShape(a); !valid.ok()) {
    e.invalid = std::string(valid.message());
  } else if (a.has_layout()) {
    FillLayoutFacts(a, e);
  }
  return e;
}

absl::StatusOr<ArrayExplanation> ExplainNonTuple(const Shape& shape) {
  if (shape.IsArray() || shape.IsBuffer()) return ExplainArray(shape);
  if (shape.IsTuple()) {
    return absl::InvalidArgumentError(absl::StrCat("ExplainNonTuple needs a non-tuple shape, got ",
                                                   ElideForMessage(shape.ToString())));
  }
  ArrayExplanation e;
  e.kind = shape.IsToken() ? "token" : "opaque";
  e.shape = shape.ToString();
  e.element_type = std::string(PrimitiveTypeName(shape.element_type()));
  e.element_kind =
      shape.IsToken() ? "an ordering token: no data, 0 bytes" : "an opaque handle: one pointer";
  e.bit_width = 0;
  e.byte_width = 0;
  const absl::Status not_array = absl::InvalidArgumentError(
      absl::StrCat("a ", e.kind, " is not an array: it has no elements or layout"));
  e.elements_in = not_array;
  e.byte_size_of = shape.IsToken() ? absl::StatusOr<int64_t>(0)
                                   : absl::StatusOr<int64_t>(absl::InvalidArgumentError(
                                         "an opaque value takes one pointer; its size depends on "
                                         "the platform's pointer size"));
  e.array_size_bytes = not_array;
  e.padded_elements = not_array;
  e.axe = not_array;
  return e;
}

std::vector<LeafExplanation> ExplainLeaves(const Shape& shape) {
  std::vector<LeafExplanation> leaves;
  // An explicit stack: tuples may nest as deep as the parser allows.
  struct Pending {
    const Shape* shape;
    std::vector<int64_t> index;
  };
  std::vector<Pending> stack = {{&shape, {}}};
  while (!stack.empty()) {
    Pending p = std::move(stack.back());
    stack.pop_back();
    if (p.shape->IsTuple()) {
      for (size_t i = p.shape->tuple_shapes().size(); i-- > 0;) {
        std::vector<int64_t> index = p.index;
        index.push_back(static_cast<int64_t>(i));
        stack.push_back({&p.shape->tuple_shapes(i), std::move(index)});
      }
      continue;
    }
    LeafExplanation leaf{p.index, p.shape->ToString(), "array", std::nullopt};
    if (p.shape->IsToken()) leaf.kind = "token";
    if (p.shape->IsOpaque()) leaf.kind = "opaque";
    if (p.shape->IsBuffer()) leaf.kind = "buffer";
    if (absl::StatusOr<ArrayExplanation> a = ExplainArray(*p.shape); a.ok()) {
      leaf.array = *std::move(a);
    }
    leaves.push_back(std::move(leaf));
  }
  return leaves;
}

absl::StatusOr<const Shape*> TupleLeaf(const Shape& shape, absl::Span<const int64_t> leaf_index) {
  const Shape* at = &shape;
  for (size_t k = 0; k < leaf_index.size(); ++k) {
    const int64_t i = leaf_index[k];
    if (!at->IsTuple()) {
      return absl::InvalidArgumentError(
          absl::StrCat("leaf index ", FormatTuple(leaf_index), ": position ", k, " goes into ",
                       ElideForMessage(at->ToString()), ", which is not a tuple"));
    }
    if (i < 0 || static_cast<size_t>(i) >= at->tuple_shapes().size()) {
      return absl::OutOfRangeError(
          absl::StrCat("leaf index ", FormatTuple(leaf_index), ": position ", k, " is ", i,
                       ", but that tuple has ", at->tuple_shapes().size(), " elements"));
    }
    at = &at->tuple_shapes(static_cast<size_t>(i));
  }
  return at;
}

absl::StatusOr<IndexExplanation> ExplainIndex(const Shape& shape, absl::Span<const int64_t> index) {
  const Shape& a = shape.array_shape();
  AXE_ASSIGN_OR_RETURN(TilingMap m, TilingMap::Create(a));
  IndexExplanation at;
  at.index.assign(index.begin(), index.end());
  AXE_ASSIGN_OR_RETURN(at.linear_index, m.LinearIndex(index));
  AXE_ASSIGN_OR_RETURN(at.levels, m.Locate(index));
  const int64_t e = a.layout().element_size_in_bits();
  at.packed = e != 0;
  // The linear index is below padded_elements, whose byte size fits int64 (validated), so the
  // byte offset always fits; the bit offset is only computed (and only needed) for packed types,
  // where it is the byte size times 8 at most and is checked.
  if (!at.packed) {
    std::optional<int64_t> bytes = CheckedMul(at.linear_index, ByteWidth(a.element_type()));
    if (!bytes) return absl::OutOfRangeError("the byte offset of the element overflows int64");
    at.byte_offset = *bytes;
    at.bit_offset = 0;
    at.bit_in_byte = 0;
    return at;
  }
  std::optional<int64_t> bits = CheckedMul(at.linear_index, e);
  if (!bits) return absl::OutOfRangeError("the bit offset of the element overflows int64");
  at.bit_offset = *bits;
  at.byte_offset = *bits / 8;
  at.bit_in_byte = *bits % 8;
  return at;
}

}  // namespace axe::xla
