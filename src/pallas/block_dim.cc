#include "axe/pallas/block_dim.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"

namespace axe::pallas {

// Reads one BlockDim entry at the scanner's position.
class BlockDimParser {
 public:
  static absl::StatusOr<BlockDim> Read(Scanner& s) {
    if (s.AtInt()) {
      AXE_ASSIGN_OR_RETURN(int64_t n, s.ReadInt());
      return BlockDim::Blocked(n);
    }
    size_t start = s.pos();
    s.SkipSpace();
    start = s.pos();
    std::optional<absl::string_view> name = s.TryIdent();
    if (name.has_value() && *name == "pl" && s.TryConsume('.')) name = s.TryIdent();
    if (!name.has_value())
      return s.Error("a block dimension (an integer, None, Blocked(n), Element(n) or Squeezed())");
    if (*name == "None") return BlockDim::Squeezed();
    BlockDim::Kind kind;
    if (*name == "Blocked") {
      kind = BlockDim::Kind::kBlocked;
    } else if (*name == "Element") {
      kind = BlockDim::Kind::kElement;
    } else if (*name == "Squeezed") {
      kind = BlockDim::Kind::kSqueezed;
    } else if (*name == "BoundedSlice") {
      kind = BlockDim::Kind::kBoundedSlice;
    } else if (*name == "Indirect") {
      kind = BlockDim::Kind::kIndirect;
    } else {
      return s.MessageAt(start,
                         absl::StrCat("Unsupported block dimension type: ", *name,
                                      ". Allowed types: `pl.Squeezed`, `pl.Blocked`, `pl.Element`, "
                                      "`int`, `None`."));
    }
    AXE_RETURN_IF_ERROR(s.Expect('('));
    if (kind == BlockDim::Kind::kSqueezed) {
      AXE_RETURN_IF_ERROR(s.Expect(')'));
      return BlockDim::Squeezed();
    }
    SkipKeyword(s, "block_size");
    AXE_ASSIGN_OR_RETURN(int64_t n, s.ReadInt());
    BlockDim d(kind, n);
    if (kind == BlockDim::Kind::kElement && s.TryConsume(',')) {
      SkipKeyword(s, "padding");
      AXE_RETURN_IF_ERROR(s.Expect('('));
      AXE_ASSIGN_OR_RETURN(d.lo_, s.ReadInt());
      AXE_RETURN_IF_ERROR(s.Expect(','));
      AXE_ASSIGN_OR_RETURN(d.hi_, s.ReadInt());
      AXE_RETURN_IF_ERROR(s.Expect(')'));
    }
    AXE_RETURN_IF_ERROR(s.Expect(')'));
    return d;
  }

 private:
  // Consumes "<keyword> =" if present.
  static void SkipKeyword(Scanner& s, absl::string_view keyword) {
    size_t save = s.pos();
    std::optional<absl::string_view> id = s.TryIdent();
    if (id.has_value() && *id == keyword && s.TryConsume('=')) return;
    s.set_pos(save);
  }
};

absl::StatusOr<BlockDim> BlockDim::Parse(absl::string_view text) {
  Scanner s(text);
  AXE_ASSIGN_OR_RETURN(BlockDim d, BlockDimParser::Read(s));
  if (!s.AtEnd()) return s.Error("end of input");
  return d;
}

absl::Status BlockDim::Validate() const {
  if (size_ < 0)
    return absl::InvalidArgumentError(absl::StrCat(ToString(), " has a negative block size"));
  if (lo_ < 0 || hi_ < 0)
    return absl::InvalidArgumentError(absl::StrCat(ToString(), " has a negative padding"));
  return absl::OkStatus();
}

std::string BlockDim::ToString() const {
  switch (kind_) {
    case Kind::kBlocked: return absl::StrCat("Blocked(", size_, ")");
    case Kind::kElement:
      if (lo_ == 0 && hi_ == 0) return absl::StrCat("Element(", size_, ")");
      return absl::StrCat("Element(", size_, ", padding=(", lo_, ", ", hi_, "))");
    case Kind::kSqueezed: return "Squeezed()";
    case Kind::kBoundedSlice: return absl::StrCat("BoundedSlice(", size_, ")");
    case Kind::kIndirect: return absl::StrCat("Indirect(", size_, ")");
  }
  return "";
}

std::string BlockDim::Repr() const {
  switch (kind_) {
    case Kind::kBlocked: return absl::StrCat("Blocked(block_size=", size_, ")");
    case Kind::kElement:
      return absl::StrCat("Element(block_size=", size_, ", padding=(", lo_, ", ", hi_, "))");
    case Kind::kSqueezed: return "Squeezed()";
    // JAX gives these two their own __repr__, without the field name.
    case Kind::kBoundedSlice: return absl::StrCat("BoundedSlice(", size_, ")");
    case Kind::kIndirect: return absl::StrCat("Indirect(", size_, ")");
  }
  return "";
}

namespace {
template <typename F>
std::string PythonTuple(absl::Span<const BlockDim> dims, F&& item) {
  std::vector<std::string> items;
  for (const BlockDim& d : dims) items.push_back(item(d));
  if (items.size() == 1) return absl::StrCat("(", items[0], ",)");
  return absl::StrCat("(", absl::StrJoin(items, ", "), ")");
}
}  // namespace

std::string FormatBlockShape(absl::Span<const BlockDim> dims) {
  return PythonTuple(dims, [](const BlockDim& d) { return d.Repr(); });
}

std::string BlockShapeToString(absl::Span<const BlockDim> dims) {
  return PythonTuple(dims, [](const BlockDim& d) { return d.ToString(); });
}

absl::StatusOr<std::vector<BlockDim>> ParseBlockShape(absl::string_view text) {
  Scanner s(text);
  bool parens = s.TryConsume('(');
  std::vector<BlockDim> dims;
  if (!(parens ? s.Peek() == ')' : s.AtEnd())) {
    while (true) {
      AXE_ASSIGN_OR_RETURN(BlockDim d, BlockDimParser::Read(s));
      dims.push_back(d);
      if (!s.TryConsume(',')) break;
      if (parens ? s.Peek() == ')' : s.AtEnd()) break;  // trailing comma
    }
  }
  if (parens) AXE_RETURN_IF_ERROR(s.Expect(')'));
  if (!s.AtEnd()) return s.Error(parens ? "end of input" : "',' or end of input");
  return dims;
}

}  // namespace axe::pallas
