// The text form of Axe layouts: parser and canonical printer (docs/notation.md).
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/layout/layout.h"

namespace axe {
namespace {

// One element of a parenthesised list: an integer with an optional @axis.
struct Element {
  int64_t value;
  std::optional<Axis> axis;
  size_t pos;
};

// What the text says: the parts of the layout and the kinds its `where` clause names.
struct ParsedLayout {
  std::vector<Iter> shard;
  std::vector<Iter> replica;
  PhysCoord offset;
  std::vector<AxisCatalogEntry> kinds;  // the where clause (names point into the text)
  std::vector<size_t> kind_positions;   // where each entry of `kinds` starts
};

class LayoutParser {
 public:
  LayoutParser(absl::string_view text, const AxisCatalog& catalog) : s_(text), catalog_(catalog) {}

  // Parses the layout's parts and, if present, its `where` clause. Nothing here depends on
  // axis kinds, so the caller can read the text again with the clause's kinds before it
  // builds the layout.
  absl::StatusOr<ParsedLayout> Parse() {
    if (!TryKeyword("S")) return s_.Error("'S[' (a layout starts with its shard)");
    AXE_ASSIGN_OR_RETURN(shard_, ParseIters(/*replica=*/false));
    ParsedLayout out;
    while (!s_.AtEnd()) {
      if (TryWhere()) {
        AXE_RETURN_IF_ERROR(ParseWhereClause(out));
        break;
      }
      if (!s_.TryConsume('+')) return s_.Error("'+', 'where' or end of input");
      AXE_RETURN_IF_ERROR(ParseTerm());
    }
    out.shard = std::move(shard_);
    out.replica = std::move(replica_);
    out.offset = std::move(offset_);
    return out;
  }

  // An error at `pos` of the text.
  absl::Status ErrorAt(size_t pos, absl::string_view message) const {
    return s_.MessageAt(pos, message);
  }

 private:
  bool TryWhere() {
    size_t save = s_.pos();
    std::optional<absl::string_view> id = s_.TryIdent();
    if (id && *id == "where") return true;
    s_.set_pos(save);
    return false;
  }

  // NAME ':' KIND { ',' NAME ':' KIND } up to the end of the input.
  absl::Status ParseWhereClause(ParsedLayout& out) {
    do {
      size_t at = (s_.SkipSpace(), s_.pos());
      std::optional<absl::string_view> name = s_.TryIdent();
      if (!name) return s_.Error("an axis name in the 'where' clause");
      for (const AxisCatalogEntry& e : out.kinds) {
        if (e.name == *name)
          return s_.MessageAt(at, absl::StrCat("axis '", *name, "' given twice"));
      }
      AXE_RETURN_IF_ERROR(s_.Expect(':'));
      size_t kind_at = (s_.SkipSpace(), s_.pos());
      std::optional<absl::string_view> kind_name = s_.TryIdent();
      absl::StatusOr<AxisKind> kind =
          kind_name ? ParseAxisKind(*kind_name) : absl::StatusOr<AxisKind>(absl::NotFoundError(""));
      if (!kind.ok()) return s_.MessageAt(kind_at, "expected memory, thread or device");
      if (*name == "m" && *kind != AxisKind::kMemory) {
        return s_.MessageAt(at, "axis 'm' is the memory axis");
      }
      out.kinds.push_back({*name, *kind});
      out.kind_positions.push_back(at);
    } while (s_.TryConsume(','));
    if (!s_.AtEnd()) return s_.Error("',' or end of input");
    return absl::OkStatus();
  }

  // Consumes `word` followed by '[' (whitespace allowed between them).
  bool TryKeyword(absl::string_view word) {
    size_t save = s_.pos();
    std::optional<absl::string_view> id = s_.TryIdent();
    if (id && *id == word && s_.TryConsume('[')) return true;
    s_.set_pos(save);
    return false;
  }

  absl::Status ParseTerm() {
    s_.SkipSpace();
    size_t at = s_.pos();
    if (TryKeyword("R")) {
      AXE_ASSIGN_OR_RETURN(std::vector<Iter> iters, ParseIters(/*replica=*/true));
      replica_.insert(replica_.end(), iters.begin(), iters.end());
      return absl::OkStatus();
    }
    if (TryKeyword("O")) {
      do {
        AXE_RETURN_IF_ERROR(ParseOffset());
      } while (s_.TryConsume(','));
      return s_.Expect(']');
    }
    if (TryKeyword("S")) return s_.MessageAt(at, "a layout has exactly one shard S[...]");
    if (s_.TryConsume('{')) {
      do {
        size_t name_at = (s_.SkipSpace(), s_.pos());
        std::optional<absl::string_view> name = s_.TryIdent();
        if (!name) return s_.ErrorAt(name_at, "an axis name");
        AXE_RETURN_IF_ERROR(s_.Expect(':'));
        size_t value_at = (s_.SkipSpace(), s_.pos());
        AXE_ASSIGN_OR_RETURN(int64_t v, s_.ReadInt());
        AXE_RETURN_IF_ERROR(AddOffset(catalog_.Resolve(*name), v, value_at));
      } while (s_.TryConsume(','));
      return s_.Expect('}');
    }
    return ParseOffset();
  }

  // offset ::= SINT ['@' AXIS] | '(' SINT ')' ['@' AXIS]
  absl::Status ParseOffset() {
    s_.SkipSpace();
    size_t at = s_.pos();
    int64_t v;
    if (s_.TryConsume('(')) {
      AXE_ASSIGN_OR_RETURN(v, s_.ReadInt());
      AXE_RETURN_IF_ERROR(s_.Expect(')'));
    } else if (s_.AtInt()) {
      AXE_ASSIGN_OR_RETURN(v, s_.ReadInt());
    } else {
      return s_.Error("an offset, 'R[', 'O[' or '{'");
    }
    AXE_ASSIGN_OR_RETURN(Axis axis, ParseOptionalAxis());
    return AddOffset(axis, v, at);
  }

  absl::Status AddOffset(Axis axis, int64_t v, size_t at) {
    std::optional<int64_t> sum = CheckedAdd(offset_.get(axis), v);
    if (!sum)
      return s_.MessageAt(at, absl::StrCat("offset on axis ", axis.name(), " overflows int64"));
    offset_.set(axis, *sum);
    return absl::OkStatus();
  }

  absl::StatusOr<Axis> ParseOptionalAxis() {
    if (!s_.TryConsume('@')) return Axis::Memory();
    std::optional<absl::string_view> name = s_.TryIdent();
    if (!name) return s_.Error("an axis name after '@'");
    return catalog_.Resolve(*name);
  }

  absl::StatusOr<Element> ParseElement() {
    s_.SkipSpace();
    Element e{0, std::nullopt, s_.pos()};
    AXE_ASSIGN_OR_RETURN(e.value, s_.ReadInt());
    if (s_.Peek() == '@') {
      AXE_ASSIGN_OR_RETURN(Axis a, ParseOptionalAxis());
      e.axis = a;
    }
    return e;
  }

  // '(' element {',' element} ')'
  absl::StatusOr<std::vector<Element>> ParseTuple() {
    AXE_RETURN_IF_ERROR(s_.Expect('('));
    std::vector<Element> out;
    while (true) {
      AXE_ASSIGN_OR_RETURN(Element e, ParseElement());
      out.push_back(e);
      if (s_.TryConsume(',')) continue;
      if (s_.TryConsume(')')) return out;
      return s_.Error("')' or ','");
    }
  }

  absl::StatusOr<int64_t> CheckExtent(const Element& e) {
    if (e.axis) return s_.MessageAt(e.pos, "an extent has no '@axis'");
    if (e.value < 1) return s_.MessageAt(e.pos, absl::StrCat("extent must be >= 1, got ", e.value));
    return e.value;
  }

  // Parses the inside of S[...] or R[...] up to and including ']'.
  absl::StatusOr<std::vector<Iter>> ParseIters(bool replica) {
    std::vector<int64_t> extents;
    std::vector<size_t> extent_pos;
    if (s_.Peek() == '(') {
      AXE_ASSIGN_OR_RETURN(std::vector<Element> first, ParseTuple());
      if (s_.Peek() != ':' && replica) return ParsePairs(first);
      for (const Element& e : first) {
        AXE_ASSIGN_OR_RETURN(int64_t ext, CheckExtent(e));
        extents.push_back(ext);
        extent_pos.push_back(e.pos);
      }
    } else {
      AXE_ASSIGN_OR_RETURN(Element e, ParseElement());
      AXE_ASSIGN_OR_RETURN(int64_t ext, CheckExtent(e));
      extents.push_back(ext);
      extent_pos.push_back(e.pos);
    }
    std::vector<Iter> iters;
    if (s_.TryConsume(':')) {
      std::vector<Element> strides;
      if (s_.Peek() == '(') {
        AXE_ASSIGN_OR_RETURN(strides, ParseTuple());
      } else {
        AXE_ASSIGN_OR_RETURN(Element e, ParseElement());
        strides.push_back(e);
      }
      if (strides.size() != extents.size()) {
        return s_.MessageAt(strides.front().pos, absl::StrCat(extents.size(), " extents but ",
                                                              strides.size(), " strides"));
      }
      for (size_t k = 0; k < strides.size(); ++k) {
        if (replica && strides[k].value == 0) {
          return s_.MessageAt(strides[k].pos, "replica stride must be non-zero");
        }
        iters.push_back(
            Iter{extents[k], strides[k].value, strides[k].axis.value_or(Axis::Memory())});
      }
    } else {
      if (replica) return s_.Error("':' (replica strides are mandatory)");
      // Shape-only shard: compact row-major strides on m.
      int64_t stride = 1;
      iters.resize(extents.size());
      for (size_t k = extents.size(); k-- > 0;) {
        iters[k] = Iter{extents[k], stride, Axis::Memory()};
        std::optional<int64_t> next = CheckedMul(stride, extents[k]);
        if (!next && k > 0) return s_.MessageAt(extent_pos[k], "row-major strides overflow int64");
        stride = next.value_or(0);
      }
    }
    AXE_RETURN_IF_ERROR(s_.Expect(']'));
    return iters;
  }

  // R[(e,s@a),(e,s@a),...] with the first pair already read.
  absl::StatusOr<std::vector<Iter>> ParsePairs(std::vector<Element> pair) {
    std::vector<Iter> iters;
    while (true) {
      if (pair.size() != 2) {
        return s_.MessageAt(pair.front().pos,
                            "expected a pair (extent, stride) or an extents tuple followed by ':'");
      }
      AXE_ASSIGN_OR_RETURN(int64_t ext, CheckExtent(pair[0]));
      if (pair[1].value == 0) return s_.MessageAt(pair[1].pos, "replica stride must be non-zero");
      iters.push_back(Iter{ext, pair[1].value, pair[1].axis.value_or(Axis::Memory())});
      if (!s_.TryConsume(',')) break;
      AXE_ASSIGN_OR_RETURN(pair, ParseTuple());
    }
    AXE_RETURN_IF_ERROR(s_.Expect(']'));
    return iters;
  }

  Scanner s_;
  const AxisCatalog& catalog_;
  std::vector<Iter> shard_;
  std::vector<Iter> replica_;
  PhysCoord offset_;
};

}  // namespace

std::string FormatIters(absl::Span<const Iter> iters) {
  if (iters.size() == 1) return iters[0].ToString();
  return absl::StrCat(
      "(",
      absl::StrJoin(iters, ",",
                    [](std::string* o, const Iter& it) { absl::StrAppend(o, it.extent); }),
      "):(",
      absl::StrJoin(iters, ",",
                    [](std::string* o, const Iter& it) {
                      absl::StrAppend(o, FormatStride(it.stride, it.axis));
                    }),
      ")");
}

absl::StatusOr<Layout> Layout::Parse(absl::string_view text, const AxisCatalog& catalog) {
  LayoutParser first(text, catalog);
  AXE_ASSIGN_OR_RETURN(ParsedLayout parsed, first.Parse());
  if (!parsed.kinds.empty()) {
    // The text names kinds: read it again with them (the parts do not depend on kinds).
    AXE_ASSIGN_OR_RETURN(AxisCatalog with_kinds, catalog.With(parsed.kinds));
    AXE_ASSIGN_OR_RETURN(parsed, LayoutParser(text, with_kinds).Parse());
    for (size_t i = 0; i < parsed.kinds.size(); ++i) {
      const Axis named = with_kinds.Resolve(parsed.kinds[i].name);
      bool used = false;
      for (const Iter& it : parsed.shard) used = used || it.axis == named;
      for (const Iter& it : parsed.replica) used = used || it.axis == named;
      for (const auto& [axis, value] : parsed.offset.entries()) used = used || axis == named;
      if (!used) {
        return first.ErrorAt(parsed.kind_positions[i],
                             absl::StrCat("axis '", parsed.kinds[i].name,
                                          "' in the 'where' clause is not used by the layout"));
      }
    }
  }
  return Layout::Create(std::move(parsed.shard), std::move(parsed.replica),
                        std::move(parsed.offset));
}

std::string FormatAxisKinds(absl::Span<const Axis> axes) {
  std::string out;
  for (Axis a : axes) {
    if (AxisCatalog::Standard().KindOf(a.name()) == a.kind()) continue;
    absl::StrAppend(&out, out.empty() ? " where " : ", ", a.name(), ":", AxisKindName(a.kind()));
  }
  return out;
}

std::string FormatLayoutParts(absl::Span<const Iter> shard, absl::Span<const Iter> replica,
                              const PhysCoord& offset) {
  std::string out = absl::StrCat("S[", FormatIters(shard), "]");
  if (!replica.empty()) absl::StrAppend(&out, " + R[", FormatIters(replica), "]");
  // Offset axes: first use in D, then R, then the rest by name.
  std::vector<Axis> order;
  auto note = [&order](Axis a) {
    for (Axis b : order) {
      if (a == b) return;
    }
    order.push_back(a);
  };
  for (const Iter& it : shard) note(it.axis);
  for (const Iter& it : replica) note(it.axis);
  for (const auto& e : offset.entries()) note(e.first);
  for (Axis a : order) {
    int64_t v = offset.get(a);
    if (v == 0) continue;
    std::string value = v < 0 ? absl::StrCat("(", v, ")") : absl::StrCat(v);
    absl::StrAppend(&out, " + ", value, a == Axis::Memory() ? "" : absl::StrCat("@", a.name()));
  }
  absl::StrAppend(&out, FormatAxisKinds(order));
  return out;
}

std::string Layout::ToString() const { return FormatLayoutParts(shard_, replica_, offset_); }

}  // namespace axe
