#include "call_text.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace axe::sharding {
namespace {

char Closer(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

bool IsOpen(char c) { return c == '(' || c == '[' || c == '{'; }
bool IsClose(char c) { return c == ')' || c == ']' || c == '}'; }

// The position just after the string literal opening at `at`.
absl::StatusOr<size_t> SkipString(const Scanner& s, size_t at) {
  const absl::string_view text = s.text();
  const char quote = text[at];
  for (size_t i = at + 1; i < text.size() && text[i] != '\n'; ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == quote) {
      return i + 1;
    }
  }
  return s.MessageAt(at, "unterminated string");
}

}  // namespace

absl::string_view Call::name() const {
  const absl::string_view full = callee;
  const size_t dot = full.rfind('.');
  return dot == absl::string_view::npos ? full : full.substr(dot + 1);
}

absl::StatusOr<size_t> FindValueEnd(const Scanner& s, size_t begin) {
  const absl::string_view text = s.text();
  std::vector<std::pair<char, size_t>> open;  // bracket and its position
  size_t i = begin;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\'' || c == '"') {
      absl::StatusOr<size_t> next = SkipString(s, i);
      if (!next.ok()) return next.status();
      i = *next;
      continue;
    }
    if (IsOpen(c)) {
      if (open.size() >= kMaxCallNesting) {
        return s.MessageAt(i, absl::StrCat("brackets nested deeper than ", kMaxCallNesting));
      }
      open.emplace_back(c, i);
    } else if (IsClose(c) || c == ',') {
      if (open.empty()) return i;
      if (IsClose(c)) {
        if (Closer(open.back().first) != c) {
          return s.MessageAt(i, absl::StrCat("'", std::string(1, c), "' does not close '",
                                             std::string(1, open.back().first), "' at position ",
                                             open.back().second));
        }
        open.pop_back();
      }
    }
    ++i;
  }
  if (!open.empty()) {
    return s.MessageAt(open.back().second,
                       absl::StrCat("'", std::string(1, open.back().first), "' is never closed"));
  }
  return i;
}

absl::string_view ArgText(const Scanner& s, const CallArg& arg) {
  return s.text().substr(arg.begin, arg.end - arg.begin);
}

namespace {

// Reads `keyword=` if it is next (not `==`); nothing consumed otherwise.
std::optional<std::string> TryKeyword(Scanner& s) {
  const size_t start = s.pos();
  std::optional<absl::string_view> ident = s.TryIdent();
  if (ident && s.Peek() == '=' && s.PeekAhead(1) != '=') {
    s.TryConsume('=');
    return std::string(*ident);
  }
  s.set_pos(start);
  return std::nullopt;
}

}  // namespace

absl::StatusOr<Call> ReadCall(Scanner& s, size_t max_args) {
  Call call;
  s.SkipSpace();
  call.callee_pos = s.pos();
  std::optional<absl::string_view> callee = s.TryIdent(".");
  if (!callee) return s.Error("a call such as Name(...)");
  call.callee = std::string(*callee);
  if (!s.TryConsume('(')) return s.Error("'('");
  while (!s.TryConsume(')')) {
    if (call.args.size() >= max_args) {
      return s.MessageAt(s.pos(),
                         absl::StrCat(call.callee, "() takes at most ", max_args, " arguments"));
    }
    CallArg arg;
    s.SkipSpace();
    arg.start = s.pos();
    arg.keyword = TryKeyword(s);
    s.SkipSpace();
    arg.begin = s.pos();
    absl::StatusOr<size_t> end = FindValueEnd(s, arg.begin);
    if (!end.ok()) return end.status();
    if (*end == arg.begin) return s.Error("a value");
    arg.end = *end;
    while (arg.end > arg.begin && absl::ascii_isspace(s.text()[arg.end - 1])) --arg.end;
    s.set_pos(*end);
    call.args.push_back(std::move(arg));
    if (!s.TryConsume(',') && s.Peek() != ')') return s.Error("',' or ')'");
  }
  return call;
}

absl::StatusOr<std::vector<std::optional<CallArg>>> BindArgs(const Scanner& s, const Call& call,
                                                             absl::Span<const Param> params) {
  std::vector<std::optional<CallArg>> bound(params.size());
  bool seen_keyword = false;
  size_t positional = 0;
  for (const CallArg& arg : call.args) {
    size_t slot = params.size();
    if (!arg.keyword) {
      if (seen_keyword) {
        return s.MessageAt(arg.begin, "positional argument follows keyword argument");
      }
      if (positional >= params.size()) {
        return s.MessageAt(
            arg.begin, absl::StrCat(call.name(), "() takes at most ", params.size(),
                                    " positional arguments but ", call.args.size(), " were given"));
      }
      slot = positional++;
    } else {
      seen_keyword = true;
      for (size_t k = 0; k < params.size(); ++k) {
        if (*arg.keyword == params[k].name ||
            (!params[k].alias.empty() && *arg.keyword == params[k].alias)) {
          slot = k;
        }
      }
      if (slot == params.size()) {
        return s.MessageAt(arg.begin,
                           absl::StrCat(call.name(), "() got an unexpected keyword argument '",
                                        *arg.keyword, "'"));
      }
    }
    if (bound[slot]) {
      return s.MessageAt(arg.begin,
                         absl::StrCat(call.name(), "() got multiple values for argument '",
                                      params[slot].name, "'"));
    }
    bound[slot] = arg;
  }
  return bound;
}

absl::Status InArgument(const Scanner& s, const CallArg& arg, absl::string_view what,
                        const absl::Status& status) {
  const absl::Status placed =
      s.MessageAt(arg.begin, absl::StrCat("in the ", what, " argument: ", status.message()));
  return absl::Status(status.code(), placed.message());
}

namespace {

bool AllDigits(absl::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return absl::ascii_isdigit(c) || c == '_'; });
}

// "int" or "float" for a Python number literal (decimal, optionally signed), else empty.
absl::string_view NumberType(absl::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  if (AllDigits(text)) return "int";
  absl::string_view mantissa = text;
  const size_t e = text.find_first_of("eE");
  if (e != absl::string_view::npos) {
    absl::string_view exponent = text.substr(e + 1);
    if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) exponent.remove_prefix(1);
    if (!AllDigits(exponent)) return {};
    mantissa = text.substr(0, e);
  }
  const size_t dot = mantissa.find('.');
  if (dot == absl::string_view::npos)
    return e == absl::string_view::npos ? "" : (AllDigits(mantissa) ? "float" : "");
  const absl::string_view whole = mantissa.substr(0, dot);
  const absl::string_view fraction = mantissa.substr(dot + 1);
  if ((whole.empty() || AllDigits(whole)) && (fraction.empty() || AllDigits(fraction)) &&
      !(whole.empty() && fraction.empty())) {
    return "float";
  }
  return {};
}

}  // namespace

std::string PythonTypeOf(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  auto cls = [](absl::string_view name) { return absl::StrCat("<class '", name, "'>"); };
  if (text.size() < 1) return {};
  const char first = text.front();
  const char last = text.back();
  if ((first == '\'' || first == '"') && text.size() >= 2 && last == first) return cls("str");
  if (first == '(' && last == ')') return cls("tuple");
  if (first == '[' && last == ']') return cls("list");
  if (first == '{' && last == '}') {
    return cls(text.find(':') == absl::string_view::npos && text != "{}" ? "set" : "dict");
  }
  if (text == "True" || text == "False") return cls("bool");
  if (const absl::string_view number = NumberType(text); !number.empty()) return cls(number);
  const size_t paren = text.find('(');
  if (paren != absl::string_view::npos && paren > 0 && last == ')') {
    absl::string_view callee = absl::StripAsciiWhitespace(text.substr(0, paren));
    const size_t dot = callee.rfind('.');
    if (dot != absl::string_view::npos) callee = callee.substr(dot + 1);
    const bool identifier = !callee.empty() && !absl::ascii_isdigit(callee[0]) &&
                            std::all_of(callee.begin(), callee.end(),
                                        [](char c) { return absl::ascii_isalnum(c) || c == '_'; });
    if (identifier) return cls(callee);
  }
  return {};
}

}  // namespace axe::sharding
