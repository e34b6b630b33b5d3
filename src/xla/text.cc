// The HLO text form of XLA shapes and layouts: parser and printer.
#include "axe/xla/text.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/xla/validate.h"
#include "checks.h"
#include "shape_parser.h"

namespace axe::xla {
namespace internal {
namespace {

// Layout attributes in their fixed text order.
enum class Attr { kD, kT, kL, kIndex, kPointer, kE, kS, kSC, kP, kM, kNone };

Scanner::Options CommentSkipping() { return Scanner::Options{.skip_comments = true}; }

}  // namespace

// Tuples are parsed with an explicit stack, so deep nesting costs heap, not call stack.
absl::StatusOr<Shape> ShapeParser::ParseShape() {
  struct Frame {
    std::vector<Shape> elements;
  };
  std::vector<Frame> stack;
  const int base_depth = depth_;
  auto depth_error = [&]() {
    return s_.MessageAt(
        s_.pos(), absl::StrCat("maximum recursion depth exceeded (", options_.max_depth, ")"));
  };
  while (true) {
    s_.SkipSpace();
    Shape value;
    if (s_.Peek() == '(') {
      if (base_depth + static_cast<int>(stack.size()) + 1 > options_.max_depth)
        return depth_error();
      s_.TryConsume('(');
      if (!s_.TryConsume(')')) {
        stack.emplace_back();
        continue;  // parse the first element
      }
      value = Shape::Tuple({});
    } else {
      depth_ = base_depth + static_cast<int>(stack.size());  // what a P(...) inside nests under
      absl::StatusOr<Shape> leaf = ParseLeaf();
      depth_ = base_depth;
      if (!leaf.ok()) return leaf.status();
      value = *std::move(leaf);
    }
    // Hand the value to the enclosing tuples, closing every one that ends here.
    while (true) {
      if (stack.empty()) return value;
      Frame& top = stack.back();
      // XLA validates tuple elements when it builds the tuple (layouts optional).
      if (absl::Status st = ValidateShape(value, {.allow_missing_layouts = true}); !st.ok()) {
        return s_.MessageAt(s_.pos(), absl::StrCat("tuple element ", top.elements.size(), ": ",
                                                   ElideForMessage(st.message(), 400)));
      }
      top.elements.push_back(std::move(value));
      if (s_.TryConsume(',')) break;
      if (!s_.TryConsume(')')) return s_.Error("',' or ')' in tuple shape");
      value = Shape::Tuple(std::move(top.elements));
      stack.pop_back();
    }
  }
}

absl::StatusOr<Shape> ShapeParser::ParseLeaf() {
  s_.SkipSpace();
  const size_t at = s_.pos();
  std::optional<absl::string_view> ident = s_.TryIdent(".-");
  if (ident && *ident == "b" && s_.Peek() == '(') return ParseBuffer(at);
  std::optional<PrimitiveType> type;
  if (ident) type = PrimitiveTypeFromName(*ident);
  if (!type) return UnknownType(ident, at);
  return ParseArray(*type, at);
}

namespace {

// The element type names a shape may start with, from the DType table: every array type, then
// token and opaque.
const std::string& ShapeTypeNames() {
  static const std::string* const names = [] {
    std::vector<absl::string_view> list;
    for (DType t : AllDTypes()) {
      if (IsArrayType(t)) list.push_back(XlaName(t));
    }
    list.push_back(XlaName(DType::kToken));
    list.push_back(XlaName(DType::kOpaque));
    return new std::string(absl::StrJoin(list, ", "));
  }();
  return *names;
}

}  // namespace

absl::Status ShapeParser::UnknownType(std::optional<absl::string_view> ident, size_t at) const {
  if (!ident) return s_.ErrorAt(at, "primitive type");
  return s_.MessageAt(at, absl::StrCat("unknown element type '", ElideForMessage(*ident, 40),
                                       "' (XLA's are ", ShapeTypeNames(), ")"));
}

absl::StatusOr<Shape> ShapeParser::ParseBuffer(size_t at) {
  AXE_RETURN_IF_ERROR(s_.Expect('('));
  s_.SkipSpace();
  const size_t inner_at = s_.pos();
  std::optional<absl::string_view> ident = s_.TryIdent(".-");
  std::optional<PrimitiveType> type;
  if (ident) type = PrimitiveTypeFromName(*ident);
  if (!type) return UnknownType(ident, inner_at);
  if (!IsArrayType(*type)) {
    return s_.MessageAt(inner_at, absl::StrCat("a buffer wraps an array shape, not ", *ident));
  }
  AXE_ASSIGN_OR_RETURN(Shape inner, ParseArray(*type, inner_at));
  if (!s_.TryConsume(')'))
    return s_.Error("')' at the end of buffer shape (expects ')' at the end of buffer shape)");
  (void)at;
  return Shape::Buffer(std::move(inner));
}

absl::Status ShapeParser::ParseDims(std::vector<int64_t>& dims, std::vector<bool>& dynamic) {
  AXE_RETURN_IF_ERROR(s_.Expect('['));
  if (s_.TryConsume(']')) return absl::OkStatus();
  while (true) {
    s_.SkipSpace();
    const size_t at = s_.pos();
    if (s_.TryConsume("<=")) {
      s_.SkipSpace();
      const size_t bound_at = s_.pos();
      if (s_.Peek() == '?') return s_.MessageAt(bound_at, "'<=?' is not a dimension size");
      AXE_ASSIGN_OR_RETURN(int64_t bound, s_.ReadInt());
      if (bound < 0)
        return s_.MessageAt(bound_at, absl::StrCat("dimension bound must be >= 0, got ", bound));
      dims.push_back(bound);
      dynamic.push_back(true);
    } else if (s_.TryConsume('?')) {
      dims.push_back(Shape::kUnboundedSize);
      dynamic.push_back(true);
    } else if (s_.AtInt()) {
      AXE_ASSIGN_OR_RETURN(int64_t size, s_.ReadInt());
      if (size < 0)
        return s_.MessageAt(at, absl::StrCat("dimension size must be >= 0, got ", size));
      dims.push_back(size);
      dynamic.push_back(false);
    } else {
      return s_.Error("a dimension size, '<=N' or '?'");
    }
    if (s_.TryConsume(',')) continue;
    if (s_.TryConsume(']')) return absl::OkStatus();
    return s_.Error("',' or ']'");
  }
}

bool ShapeParser::AtLayoutStart() {
  if (s_.Peek() != '{') return false;
  const size_t save = s_.pos();
  s_.TryConsume('{');
  const bool is_layout = s_.AtInt() || s_.Peek() == ':';
  s_.set_pos(save);
  return is_layout;
}

absl::StatusOr<Shape> ShapeParser::ParseArray(PrimitiveType type, size_t at) {
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  AXE_RETURN_IF_ERROR(ParseDims(dims, dynamic));
  const bool array = IsArrayType(type);
  if (!array && !dims.empty()) {
    return s_.MessageAt(at, absl::StrCat(PrimitiveTypeName(type), " shapes have no dimensions"));
  }
  std::optional<Layout> layout;
  if (AtLayoutStart()) {
    s_.SkipSpace();
    const size_t layout_at = s_.pos();
    if (!array)
      return s_.MessageAt(layout_at,
                          absl::StrCat(PrimitiveTypeName(type), " shapes have no layout"));
    AXE_ASSIGN_OR_RETURN(Layout l, ParseLayout());
    if (l.minor_to_major().size() != dims.size()) {
      return s_.MessageAt(
          layout_at, absl::StrCat("Dimensions size is ", dims.size(),
                                  ", but minor to major size is ", l.minor_to_major().size(), "."));
    }
    if (!l.dim_levels().empty() && l.dim_levels().size() != dims.size()) {
      return s_.MessageAt(
          layout_at, absl::StrCat("Dimensions size is ", dims.size(),
                                  ", but dim level types size is ", l.dim_levels().size(), "."));
    }
    if (l.is_sparse() && !l.tiles().empty()) {
      return s_.MessageAt(layout_at, absl::StrCat("Layout has tiles, but is for a sparse array: ",
                                                  ElideForMessage(l.ToString())));
    }
    if (!l.is_sparse() && l.has_physical_shape()) {
      return s_.MessageAt(layout_at,
                          absl::StrCat("Layout has physical shape, but is not for a sparse array: ",
                                       ElideForMessage(l.ToString())));
    }
    layout = std::move(l);
  }
  if (!array) return type == PrimitiveType::kToken ? Shape::Token() : Shape::Opaque();
  if (!layout && (dims.empty() || options_.fill_missing_layouts)) {
    std::vector<int64_t> m2m(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) m2m[i] = static_cast<int64_t>(dims.size() - 1 - i);
    layout = Layout(std::move(m2m));
  }
  return Shape::Array(type, std::move(dims), std::move(dynamic), std::move(layout));
}

absl::StatusOr<Layout> ShapeParser::ParseLayout() {
  AXE_RETURN_IF_ERROR(s_.Expect('{'));
  std::vector<int64_t> m2m;
  if (s_.AtInt()) {
    do {
      AXE_ASSIGN_OR_RETURN(int64_t d, s_.ReadInt());
      m2m.push_back(d);
    } while (s_.TryConsume(','));
  }
  Layout layout(std::move(m2m));
  if (s_.TryConsume(':')) AXE_RETURN_IF_ERROR(ParseAttributes(layout));
  if (!s_.TryConsume('}')) return s_.Error("'}' (expects layout to end with '}')");
  return layout;
}

namespace {

// The attribute at the scanner: kNone (and nothing consumed past `#`/`*`/an identifier) when
// the text there names none.
Attr ReadAttributeName(Scanner& s) {
  if (s.TryConsume('#')) return Attr::kIndex;
  if (s.TryConsume('*')) return Attr::kPointer;
  std::optional<absl::string_view> id = s.TryIdent(".-");
  if (!id) return Attr::kNone;
  static constexpr std::pair<absl::string_view, Attr> kNames[] = {
      {"D", Attr::kD}, {"T", Attr::kT},   {"L", Attr::kL}, {"E", Attr::kE},
      {"S", Attr::kS}, {"SC", Attr::kSC}, {"P", Attr::kP}, {"M", Attr::kM}};
  for (const auto& [name, attr] : kNames) {
    if (*id == name) return attr;
  }
  return Attr::kNone;
}

}  // namespace

absl::StatusOr<std::vector<Tile>> ShapeParser::ParseTiles() {
  std::vector<Tile> tiles;
  do {
    AXE_ASSIGN_OR_RETURN(Tile t, ParseTile());
    tiles.push_back(std::move(t));
  } while (s_.Peek() == '(');
  return tiles;
}

absl::StatusOr<std::vector<SplitConfig>> ShapeParser::ParseSplitConfigs() {
  std::vector<SplitConfig> configs;
  do {
    AXE_ASSIGN_OR_RETURN(SplitConfig c, ParseSplitConfig());
    configs.push_back(std::move(c));
  } while (s_.Peek() == '(');
  return configs;
}

absl::StatusOr<Shape> ShapeParser::ParsePhysicalShape(size_t at) {
  if (++physical_depth_ > kMaxPhysicalShapeNesting) {
    return s_.MessageAt(at,
                        absl::StrCat("maximum recursion depth exceeded (P(...) nested more than ",
                                     kMaxPhysicalShapeNesting, " deep)"));
  }
  AXE_RETURN_IF_ERROR(s_.Expect('('));
  s_.SkipSpace();
  const size_t shape_at = s_.pos();
  AXE_ASSIGN_OR_RETURN(Shape physical, ParseShape());
  if (absl::Status st = ValidateTopLevel(physical); !st.ok()) {
    return s_.MessageAt(shape_at, absl::StrCat("physical shape: ", st.message()));
  }
  AXE_RETURN_IF_ERROR(s_.Expect(')'));
  --physical_depth_;
  return physical;
}

absl::Status ShapeParser::ParseAttributes(Layout& layout) {
  int next = 0;  // the first attribute still allowed
  while (true) {
    s_.SkipSpace();
    const size_t at = s_.pos();
    const Attr attr = ReadAttributeName(s_);
    if (attr == Attr::kNone || static_cast<int>(attr) < next) {
      // Out of order, repeated or unknown: left for the closing '}' to reject.
      s_.set_pos(at);
      return absl::OkStatus();
    }
    next = static_cast<int>(attr) + 1;
    size_t value_at = 0;
    switch (attr) {
      case Attr::kD: {
        AXE_ASSIGN_OR_RETURN(std::vector<DimLevel> levels, ParseDimLevels());
        if (options_.preserve_dim_level_types) layout = layout.WithDimLevels(std::move(levels));
        break;
      }
      case Attr::kT: {
        AXE_ASSIGN_OR_RETURN(std::vector<Tile> tiles, ParseTiles());
        layout = layout.WithTiles(std::move(tiles));
        break;
      }
      case Attr::kL: {
        AXE_ASSIGN_OR_RETURN(int64_t n, ParseParenInt(&value_at));
        if (n < 1) {
          return s_.MessageAt(value_at,
                              absl::StrCat("tail padding alignment L(n) must be >= 1, got ", n));
        }
        layout = layout.WithTailPaddingAlignmentInElements(n);
        break;
      }
      case Attr::kIndex: {
        AXE_ASSIGN_OR_RETURN(PrimitiveType t, ParseUnsignedType());
        layout = layout.WithIndexPrimitiveType(t);
        break;
      }
      case Attr::kPointer: {
        AXE_ASSIGN_OR_RETURN(PrimitiveType t, ParseUnsignedType());
        layout = layout.WithPointerPrimitiveType(t);
        break;
      }
      case Attr::kE: {
        AXE_ASSIGN_OR_RETURN(int64_t n, ParseParenInt());
        layout = layout.WithElementSizeInBits(n);
        break;
      }
      case Attr::kS: {
        AXE_ASSIGN_OR_RETURN(int64_t n, ParseParenInt());
        layout = layout.WithMemorySpace(n);
        break;
      }
      case Attr::kSC: {
        AXE_ASSIGN_OR_RETURN(std::vector<SplitConfig> configs, ParseSplitConfigs());
        layout = layout.WithSplitConfigs(std::move(configs));
        break;
      }
      case Attr::kP: {
        AXE_ASSIGN_OR_RETURN(Shape physical, ParsePhysicalShape(at));
        layout = layout.WithPhysicalShape(std::move(physical));
        break;
      }
      case Attr::kM: {
        AXE_ASSIGN_OR_RETURN(int64_t n, ParseParenInt(&value_at));
        if (n < 0) {
          return s_.MessageAt(
              value_at, absl::StrCat("dynamic shape metadata prefix M(n) must be >= 0, got ", n));
        }
        layout = layout.WithDynamicShapeMetadataPrefixBytes(n);
        break;
      }
      case Attr::kNone: break;
    }
  }
}

absl::StatusOr<std::vector<DimLevel>> ShapeParser::ParseDimLevels() {
  AXE_RETURN_IF_ERROR(s_.Expect('('));
  std::vector<DimLevel> levels;
  if (s_.TryConsume(')')) return levels;
  while (true) {
    s_.SkipSpace();
    const size_t at = s_.pos();
    std::optional<absl::string_view> id = s_.TryIdent();
    DimLevel level;
    if (id && *id == "D") {
      level.type = DimLevel::kDense;
    } else if (id && *id == "C") {
      level.type = DimLevel::kCompressed;
    } else if (id && *id == "S") {
      level.type = DimLevel::kSingleton;
    } else if (id && *id == "H") {
      level.type = DimLevel::kLooseCompressed;
    } else {
      return s_.ErrorAt(at, "a DimLevelType abbreviation (D, C, or S)");
    }
    if (s_.TryConsume('+')) level.unique = false;
    if (s_.TryConsume('~')) level.ordered = false;
    levels.push_back(level);
    if (s_.TryConsume(',')) continue;
    if (s_.TryConsume(')')) return levels;
    return s_.Error("',' or ')' in D(...)");
  }
}

absl::StatusOr<Tile> ShapeParser::ParseTile() {
  AXE_RETURN_IF_ERROR(s_.Expect('('));
  std::vector<int64_t> bounds;
  if (s_.TryConsume(')')) return Tile(std::move(bounds));
  while (true) {
    s_.SkipSpace();
    const size_t at = s_.pos();
    if (s_.TryConsume('*')) {
      bounds.push_back(Tile::kCombineDimension);
    } else if (s_.AtInt()) {
      AXE_ASSIGN_OR_RETURN(int64_t b, s_.ReadInt());
      if (b < 0) {
        return s_.MessageAt(at, absl::StrCat("layout has invalid tiles: bound ", b,
                                             " (tile bounds are >= 1 or '*')"));
      }
      bounds.push_back(b);
    } else {
      return s_.Error("a tile bound (an integer or '*')");
    }
    if (s_.TryConsume(',')) continue;
    if (s_.TryConsume(')')) return Tile(std::move(bounds));
    return s_.Error("',' or ')' in tile");
  }
}

absl::StatusOr<SplitConfig> ShapeParser::ParseSplitConfig() {
  AXE_RETURN_IF_ERROR(s_.Expect('('));
  AXE_ASSIGN_OR_RETURN(int64_t dim, s_.ReadInt());
  AXE_RETURN_IF_ERROR(s_.Expect(':'));
  std::vector<int64_t> indices;
  if (s_.AtInt()) {
    do {
      AXE_ASSIGN_OR_RETURN(int64_t i, s_.ReadInt());
      indices.push_back(i);
    } while (s_.TryConsume(','));
  }
  if (!s_.TryConsume(')')) return s_.Error("',' or ')' in split config");
  return SplitConfig(dim, std::move(indices));
}

absl::StatusOr<int64_t> ShapeParser::ParseParenInt(size_t* value_at) {
  AXE_RETURN_IF_ERROR(s_.Expect('('));
  s_.SkipSpace();
  if (value_at != nullptr) *value_at = s_.pos();
  AXE_ASSIGN_OR_RETURN(int64_t v, s_.ReadInt());
  AXE_RETURN_IF_ERROR(s_.Expect(')'));
  return v;
}

absl::StatusOr<PrimitiveType> ShapeParser::ParseUnsignedType() {
  AXE_RETURN_IF_ERROR(s_.Expect('('));
  s_.SkipSpace();
  const size_t at = s_.pos();
  std::optional<absl::string_view> id = s_.TryIdent(".-");
  std::optional<PrimitiveType> t;
  if (id) t = PrimitiveTypeFromName(*id);
  if (!t || !IsUnsignedIntegral(*t))
    return s_.ErrorAt(at, "an unsigned integer type (u1, u2, u4, u8, u16, u32, u64)");
  AXE_RETURN_IF_ERROR(s_.Expect(')'));
  return *t;
}

absl::Status ShapeParser::ValidateTopLevel(const Shape& shape) const {
  if (options_.lenient) return absl::OkStatus();
  return ValidateShape(shape, {.allow_missing_layouts = !options_.fill_missing_layouts});
}

}  // namespace internal

absl::StatusOr<Shape> ParseShape(absl::string_view text, const ParseOptions& options) {
  Scanner s(text, internal::CommentSkipping());
  internal::ShapeParser parser(s, options);
  AXE_ASSIGN_OR_RETURN(Shape shape, parser.ParseShape());
  s.SkipSpace();
  if (!s.AtEnd()) return s.MessageAt(s.pos(), "extra content after shape");
  if (absl::Status st = parser.ValidateTopLevel(shape); !st.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ElideForMessage(st.message(), 400), " (in \"", ElideForMessage(text), "\")"));
  }
  return shape;
}

absl::StatusOr<Layout> ParseLayout(absl::string_view text, const ParseOptions& options) {
  Scanner s(text, internal::CommentSkipping());
  internal::ShapeParser parser(s, options);
  if (s.Peek() != '{') return s.Error("'{' (a layout starts with '{')");
  AXE_ASSIGN_OR_RETURN(Layout layout, parser.ParseLayout());
  if (!s.AtEnd()) return s.MessageAt(s.pos(), "extra content after layout");
  if (!options.lenient) {
    if (absl::Status st = ValidateLayout(layout); !st.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(ElideForMessage(st.message(), 400), " (in \"",
                                                     ElideForMessage(text), "\")"));
    }
  }
  return layout;
}

// ---- Printer ----

std::string Layout::ToString() const {
  std::string out = absl::StrCat("{", absl::StrJoin(minor_to_major_, ","));
  if (has_attributes()) {
    out += ':';
    if (!dim_levels_.empty()) {
      absl::StrAppend(
          &out, "D(",
          absl::StrJoin(dim_levels_, ",",
                        [](std::string* o, const DimLevel& d) { o->append(d.ToString()); }),
          ")");
    }
    if (!tiles_.empty()) {
      out += 'T';
      for (const Tile& t : tiles_) out += t.ToString();
    }
    if (tail_padding_alignment_ != 1) absl::StrAppend(&out, "L(", tail_padding_alignment_, ")");
    auto type_name = [](PrimitiveType t) {
      return IsIntegral(t) ? PrimitiveTypeName(t) : absl::string_view("invalid");
    };
    if (index_type_ != PrimitiveType::kInvalid)
      absl::StrAppend(&out, "#(", type_name(index_type_), ")");
    if (pointer_type_ != PrimitiveType::kInvalid)
      absl::StrAppend(&out, "*(", type_name(pointer_type_), ")");
    if (element_size_in_bits_ != 0) absl::StrAppend(&out, "E(", element_size_in_bits_, ")");
    if (memory_space_ != 0) absl::StrAppend(&out, "S(", memory_space_, ")");
    if (!split_configs_.empty()) {
      out += "SC";
      for (const SplitConfig& c : split_configs_) out += c.ToString();
    }
    if (physical_shape_ != nullptr)
      absl::StrAppend(&out, "P(", physical_shape_->ToString(true), ")");
    if (metadata_prefix_bytes_ > 0) absl::StrAppend(&out, "M(", metadata_prefix_bytes_, ")");
  }
  out += '}';
  return out;
}

namespace {

void AppendShape(std::string* out, const Shape& s, bool print_layout) {
  switch (s.kind()) {
    case ShapeKind::kTuple: {
      out->push_back('(');
      for (size_t i = 0; i < s.tuple_shapes().size(); ++i) {
        if (i > 0) out->append(", ");
        if (i > 0 && i % 5 == 0) absl::StrAppend(out, "/*index=", i, "*/");
        AppendShape(out, s.tuple_shapes(i), print_layout);
      }
      out->push_back(')');
      return;
    }
    case ShapeKind::kBuffer:
      out->append("b(");
      AppendShape(out, s.buffer_shape(), print_layout);
      out->push_back(')');
      return;
    case ShapeKind::kToken:
    case ShapeKind::kOpaque:
      absl::StrAppend(out, PrimitiveTypeName(s.element_type()), "[]");
      return;
    case ShapeKind::kArray: break;
  }
  absl::StrAppend(out, PrimitiveTypeName(s.element_type()), "[");
  for (size_t i = 0; i < s.dimensions().size(); ++i) {
    if (i > 0) out->push_back(',');
    if (s.is_unbounded_dynamic_dimension(i)) {
      out->push_back('?');
    } else {
      if (s.is_dynamic_dimension(i)) out->append("<=");
      absl::StrAppend(out, s.dimensions(i));
    }
  }
  out->push_back(']');
  if (!print_layout || !s.has_layout()) return;
  std::string layout = s.layout().ToString();
  if (s.rank() == 0 && layout == "{}") return;
  out->append(layout);
}

}  // namespace

std::string Shape::ToString(bool print_layout) const {
  std::string out;
  AppendShape(&out, *this, print_layout);
  return out;
}

}  // namespace axe::xla
