// Format::Parse: `Format(layout, sharding)` in the repr, positional and keyword forms.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "axe/base/python_error.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/format.h"
#include "call_text.h"

namespace axe::sharding {
namespace {

constexpr absl::string_view kLayoutClass = "<class 'jax._src.layout.Layout'>";
constexpr absl::string_view kAutoClass = "<class 'jax._src.layout.AutoLayout'>";

// The callee's last name component when `text` is a call `Name(...)`, else empty.
absl::string_view CalleeName(absl::string_view text) {
  size_t i = 0;
  while (i < text.size() && (absl::ascii_isalnum(text[i]) || text[i] == '_' || text[i] == '.')) {
    ++i;
  }
  if (i == 0 || i >= text.size() || text[i] != '(' || absl::ascii_isdigit(text[0])) return {};
  absl::string_view callee = text.substr(0, i);
  const size_t dot = callee.rfind('.');
  return dot == absl::string_view::npos ? callee : callee.substr(dot + 1);
}

bool IsAuto(absl::string_view text) { return AutoLayout::Parse(text).ok(); }

bool IsSharding(absl::string_view callee) {
  return callee == "NamedSharding" || callee == "SingleDeviceSharding";
}

bool IsLayout(absl::string_view callee) {
  return callee == "Layout" || callee == "DeviceLocalLayout";
}

// Python's str() of what was written: a string literal loses its quotes.
std::string PythonStr(absl::string_view text) {
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') &&
      text.back() == text.front()) {
    return std::string(text.substr(1, text.size() - 2));
  }
  return std::string(text);
}

// The type JAX's TypeError names for an argument written as `text`; empty when the text is
// not a value Python would evaluate (a bare name), which is a plain syntax error instead.
std::string TypeOfArgument(absl::string_view text) {
  const absl::string_view callee = CalleeName(text);
  if (IsLayout(callee)) return std::string(kLayoutClass);
  if (callee == "NamedSharding") return "<class 'jax._src.named_sharding.NamedSharding'>";
  if (callee == "SingleDeviceSharding") {
    return "<class 'jax._src.sharding_impls.SingleDeviceSharding'>";
  }
  if (IsAuto(text)) return std::string(kAutoClass);
  return PythonTypeOf(text);
}

absl::Status InvalidValue(const Scanner& s, const CallArg& arg, absl::string_view what,
                          absl::string_view expected) {
  const absl::string_view text = ArgText(s, arg);
  const std::string type = TypeOfArgument(text);
  if (type.empty()) {
    return s.ErrorAt(arg.begin, absl::StrCat("a ", what, " (", expected, ")"));
  }
  // JAX raises a TypeError here: the status says so for the bindings.
  return TypeError(
      s.MessageAt(arg.begin, absl::StrCat("Invalid value received for the ", what,
                                          " argument. Expected values are ", expected, ". Got ",
                                          PythonStr(text), " of type ", type))
          .message());
}

absl::StatusOr<Format::LayoutChoice> ReadLayoutChoice(const Scanner& s, const CallArg& arg) {
  const absl::string_view text = ArgText(s, arg);
  if (text == "None") return Format::LayoutChoice();
  if (IsAuto(text)) return Format::LayoutChoice(AutoLayout{});
  if (!IsLayout(CalleeName(text))) {
    return InvalidValue(s, arg, "layout", "`None`, `Layout.AUTO` or an instance of `Layout`");
  }
  absl::StatusOr<LocalLayout> layout = LocalLayout::Parse(text);
  if (!layout.ok()) return InArgument(s, arg, "layout", layout.status());
  return Format::LayoutChoice(*std::move(layout));
}

absl::StatusOr<std::optional<Sharding>> ReadShardingChoice(const Scanner& s, const CallArg& arg) {
  const absl::string_view text = ArgText(s, arg);
  if (text == "None") return std::optional<Sharding>();
  if (!IsSharding(CalleeName(text))) {
    return InvalidValue(s, arg, "sharding", "`None` or an instance of `jax.Sharding`");
  }
  absl::StatusOr<Sharding> sharding = Sharding::Parse(text);
  if (!sharding.ok()) return InArgument(s, arg, "sharding", sharding.status());
  return std::optional<Sharding>(*std::move(sharding));
}

}  // namespace

absl::StatusOr<Format> Format::Parse(absl::string_view text) {
  if (text.size() > kMaxTextLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("Format text of ", text.size(), " characters (at most ", kMaxTextLength, ")"));
  }
  Scanner s(text);
  AXE_ASSIGN_OR_RETURN(Call call, ReadCall(s, 2));
  if (call.name() != "Format") return s.ErrorAt(call.callee_pos, "Format(...)");
  if (!s.AtEnd()) return s.Error("the end of the text");
  static constexpr Param kParams[] = {{"layout", "device_local_layout"}, {"sharding", ""}};
  AXE_ASSIGN_OR_RETURN(std::vector<std::optional<CallArg>> args, BindArgs(s, call, kParams));
  LayoutChoice layout;
  if (args[0]) {
    AXE_ASSIGN_OR_RETURN(layout, ReadLayoutChoice(s, *args[0]));
  }
  std::optional<Sharding> sharding;
  if (args[1]) {
    AXE_ASSIGN_OR_RETURN(sharding, ReadShardingChoice(s, *args[1]));
  }
  absl::StatusOr<Format> format = Create(std::move(layout), std::move(sharding));
  if (!format.ok()) return s.MessageAt(call.callee_pos, format.status().message());
  return format;
}

}  // namespace axe::sharding
