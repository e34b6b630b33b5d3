// LocalLayout::Parse and AutoLayout::Parse: JAX's repr and the forms people type.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/local_layout.h"
#include "call_text.h"

namespace axe::sharding {
namespace {

// Reads a Python tuple or list `(a, b)`, `[a, b]`, `(a,)`, `()` of at most `max` elements,
// each read by `read`. `(a)` is not a tuple in Python (it is `a`): an error.
template <typename T, typename ReadElement>
absl::StatusOr<std::vector<T>> ReadSequence(Scanner& s, size_t max, absl::string_view what,
                                            ReadElement read) {
  s.SkipSpace();
  const size_t open_pos = s.pos();
  const char open = s.Peek();
  if (open != '(' && open != '[') return s.Error(absl::StrCat("a tuple of ", what));
  s.TryConsume(open);
  const char close = open == '(' ? ')' : ']';
  std::vector<T> out;
  bool comma = false;
  while (!s.TryConsume(close)) {
    if (out.size() >= max) {
      return s.MessageAt(s.pos(), absl::StrCat("more than ", max, " ", what));
    }
    AXE_ASSIGN_OR_RETURN(T element, read(s));
    out.push_back(std::move(element));
    if (s.TryConsume(',')) {
      comma = true;
    } else if (s.Peek() != close) {
      return s.Error(absl::StrCat("',' or '", std::string(1, close), "'"));
    }
  }
  if (open == '(' && out.size() == 1 && !comma) {
    return s.MessageAt(open_pos,
                       "a parenthesized single value is not a tuple in Python: "
                       "write it with a trailing comma, as (x,)");
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> ReadIntTuple(Scanner& s, size_t max) {
  return ReadSequence<int64_t>(s, max, "integers", [](Scanner& sc) { return sc.ReadInt(); });
}

absl::StatusOr<std::optional<LocalLayout::Tiling>> ReadTiling(Scanner& s) {
  if (s.TryConsume("None")) return std::optional<LocalLayout::Tiling>();
  if (s.Peek() != '(' && s.Peek() != '[') return s.Error("None or a tuple of tiles");
  AXE_ASSIGN_OR_RETURN(
      LocalLayout::Tiling tiling,
      ReadSequence<LocalLayout::Tile>(s, LocalLayout::kMaxTiles, "tiles", [](Scanner& sc) {
        return ReadIntTuple(sc, LocalLayout::kMaxTileRank);
      }));
  return std::optional<LocalLayout::Tiling>(std::move(tiling));
}

// Positions the scanner at an argument, reads it with `read` and checks that the whole
// argument was consumed.
template <typename Read>
auto ReadArg(Scanner& s, const CallArg& arg, Read read) -> decltype(read(s)) {
  s.set_pos(arg.begin);
  auto value = read(s);
  if (!value.ok()) return value;
  s.SkipSpace();
  if (s.pos() < arg.end) return s.Error("',' or ')'");
  return value;
}

}  // namespace

absl::StatusOr<LocalLayout> LocalLayout::Parse(absl::string_view text) {
  if (text.size() > kMaxTextLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("Layout text of ", text.size(), " characters (at most ", kMaxTextLength, ")"));
  }
  Scanner s(text);
  AXE_ASSIGN_OR_RETURN(Call call, ReadCall(s, 3));
  if (call.name() != "Layout" && call.name() != "DeviceLocalLayout") {
    return s.ErrorAt(call.callee_pos, "Layout(...) or DeviceLocalLayout(...)");
  }
  if (!s.AtEnd()) return s.Error("the end of the text");
  static constexpr Param kParams[] = {
      {"major_to_minor", ""},
      {"tiling", "_tiling"},
      {"sub_byte_element_size_in_bits", "_sub_byte_element_size_in_bits"}};
  AXE_ASSIGN_OR_RETURN(std::vector<std::optional<CallArg>> args, BindArgs(s, call, kParams));
  if (!args[0]) {
    return s.MessageAt(call.callee_pos, absl::StrCat(call.name(),
                                                     "() missing 1 required positional argument: "
                                                     "'major_to_minor'"));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> m2m, ReadArg(s, *args[0], [](Scanner& sc) {
                         return ReadIntTuple(sc, kMaxRank);
                       }));
  std::optional<Tiling> tiling;
  if (args[1]) {
    AXE_ASSIGN_OR_RETURN(tiling, ReadArg(s, *args[1], ReadTiling));
  }
  int64_t bits = 0;
  if (args[2]) {
    AXE_ASSIGN_OR_RETURN(bits, ReadArg(s, *args[2], [](Scanner& sc) { return sc.ReadInt(); }));
  }
  return Create(std::move(m2m), std::move(tiling), bits);
}

absl::StatusOr<AutoLayout> AutoLayout::Parse(absl::string_view text) {
  const absl::string_view t = absl::StripAsciiWhitespace(text);
  if (t == "AUTO" || t == "Layout.AUTO" || t == "DeviceLocalLayout.AUTO") return AutoLayout{};
  Scanner s(text);
  return s.Error("AUTO, Layout.AUTO or DeviceLocalLayout.AUTO");
}

}  // namespace axe::sharding
