#include "axe/ir/parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/base/utf8.h"
#include "axe/ir/builder.h"
#include "axe/ir/primitive.h"
#include "axe/ir/primitives.h"
#include "shared_jaxprs.h"

namespace axe::ir {
namespace {

bool IsNameChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

// Input text quoted in an error message, cut to about 40 bytes (a 100,000-digit literal is
// not echoed whole).
std::string Quoted(absl::string_view text) {
  return absl::StrCat("'", ElideForMessage(text, 40), "'");
}

class Parser {
 public:
  Parser(absl::string_view text, ParseOptions options) : text_(text), options_(options) {}

  absl::StatusOr<ClosedJaxpr> ParseTop() {
    absl::StatusOr<ClosedJaxpr> parsed = ParseTopOrError();
    if (!parsed.ok()) ReleaseShared();
    return parsed;
  }

 private:
  // Empties every shared jaxpr of the prelude: after an error they may use each other in a
  // cycle (a refused `let f = ... jaxpr=h ...`, `let h = ... jaxpr=f ...`), which shared
  // ownership alone would never free.
  void ReleaseShared() {
    for (auto& [name, item] : shared_) {
      if (item.jaxpr != nullptr) *std::const_pointer_cast<ClosedJaxpr>(item.jaxpr) = ClosedJaxpr{};
    }
  }

  absl::StatusOr<ClosedJaxpr> ParseTopOrError() {
    if (text_.size() > options_.max_length) {
      return absl::InvalidArgumentError(absl::StrCat(
          "jaxpr text of ", text_.size(), " characters (at most ", options_.max_length, ")"));
    }
    AXE_RETURN_IF_ERROR(ParsePrelude());
    SkipSpace();
    size_t at = pos_;
    AXE_ASSIGN_OR_RETURN(Jaxpr j, ParseJaxprBody(0));
    if (!shared_.empty()) {
      AXE_ASSIGN_OR_RETURN(size_t eqns, InlinedEqns(j));
      if (eqns > Builder::kMaxEqns) {
        return ErrorAt(
            at, absl::StrCat("the jaxpr expands to more than ", Builder::kMaxEqns, " equations"));
      }
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("the end of the text");
    return ClosedJaxpr{std::move(j), {}};
  }

  // ---- characters ----
  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  char PeekAt(size_t p) const { return p < text_.size() ? text_[p] : '\0'; }
  bool TryConsume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool TryKeyword(absl::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word || IsNameChar(PeekAt(pos_ + word.size()))) {
      return false;
    }
    pos_ += word.size();
    return true;
  }
  absl::Status Expect(char c) {
    if (TryConsume(c)) return absl::OkStatus();
    return Error(absl::StrCat("'", std::string(1, c), "'"));
  }
  absl::Status ExpectKeyword(absl::string_view word) {
    if (TryKeyword(word)) return absl::OkStatus();
    return Error(absl::StrCat("'", word, "'"));
  }
  // [A-Za-z_][A-Za-z0-9_]* at the next token, or empty.
  absl::string_view PeekName() {
    SkipSpace();
    size_t end = pos_;
    if (end < text_.size() && (absl::ascii_isalpha(text_[end]) || text_[end] == '_')) {
      while (end < text_.size() && IsNameChar(text_[end])) ++end;
    }
    return text_.substr(pos_, end - pos_);
  }
  absl::string_view ReadName() {
    absl::string_view n = PeekName();
    pos_ += n.size();
    return n;
  }
  // A name, or names joined by '-' (scatter-add), at the next token.
  absl::string_view ReadPrimitiveName() {
    SkipSpace();
    const size_t start = pos_;
    ReadName();
    while (PeekAt(pos_) == '-' &&
           (absl::ascii_isalpha(PeekAt(pos_ + 1)) || PeekAt(pos_ + 1) == '_')) {
      ++pos_;
      ReadName();
    }
    return text_.substr(start, pos_ - start);
  }
  // The character right after the name at the next token (no space skipping).
  char AfterName() {
    absl::string_view n = PeekName();
    return PeekAt(pos_ + n.size());
  }

  std::string Where(size_t at) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else if (Utf8CharStart(text_, i) == i) {  // columns count characters, not bytes
        ++col;
      }
    }
    return absl::StrCat("line ", line, ", column ", col);
  }
  absl::Status ErrorAt(size_t at, absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(Where(at), ": ", message));
  }
  absl::Status Error(absl::string_view expected) {
    SkipSpace();
    std::string found = pos_ >= text_.size() ? "the end of the text" : DescribeCharAt(text_, pos_);
    return ErrorAt(pos_, absl::StrCat("expected ", expected, ", found ", found));
  }
  absl::Status Deeper(int depth) {
    if (depth <= options_.max_depth) return absl::OkStatus();
    return ErrorAt(pos_, absl::StrCat("nesting deeper than ", options_.max_depth, " levels"));
  }

  // ---- types and binders ----
  absl::StatusOr<ShapedArray> ParseType() {
    SkipSpace();
    size_t start = pos_;
    size_t end = pos_;
    while (end < text_.size() && (IsNameChar(text_[end]))) ++end;
    if (PeekAt(end) == '<') {  // key<fry>
      ++end;
      while (end < text_.size() && IsNameChar(text_[end])) ++end;
      if (PeekAt(end) == '>') ++end;
    }
    if (PeekAt(end) != '[') return Error("a type such as f32[8]");
    end = text_.find(']', end);
    if (end == absl::string_view::npos) return Error("a type such as f32[8]");
    ++end;
    if (PeekAt(end) == '{' && PeekAt(end + 1) == 'V') {
      end = text_.find('}', end);
      if (end == absl::string_view::npos) return Error("'}' closing the variance set");
      ++end;
    }
    absl::StatusOr<ShapedArray> t = ShapedArray::ParseShort(text_.substr(start, end - start));
    if (!t.ok()) return ErrorAt(start, t.status().message());
    pos_ = end;
    return t;
  }

  using Scope = absl::flat_hash_map<std::string, VarId>;

  struct Pending {
    std::string name;
    VarId id;
    size_t at;
  };

  absl::Status BindName(Scope& scope, const Pending& p) {
    if (p.name == "_") {  // a drop var: the latest one is what a later "_" reads (see below)
      scope.insert_or_assign(p.name, p.id);
      return absl::OkStatus();
    }
    if (!scope.emplace(p.name, p.id).second) {
      return ErrorAt(p.at, absl::StrCat("Variable '", p.name, "' already bound"));
    }
    return absl::OkStatus();
  }

  // Adds a variable to `j`; its name goes into `scope` now or, for equation outputs, into
  // `pending` (bound once the equation's inputs are read).
  absl::StatusOr<VarId> ParseBinder(Jaxpr& j, Scope& scope, bool allow_drop,
                                    std::vector<Pending>* pending = nullptr) {
    SkipSpace();
    size_t at = pos_;
    absl::string_view name = ReadName();
    if (name.empty()) return Error("a variable name");
    AXE_RETURN_IF_ERROR(Expect(':'));
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ParseType());
    VarId id = static_cast<VarId>(j.vars.size());
    bool drop = name == "_";
    if (drop && !allow_drop) return ErrorAt(at, "a drop var '_' can only bind an equation output");
    if (!drop || pending != nullptr) {
      Pending p{std::string(name), id, at};
      if (pending != nullptr) {
        pending->push_back(std::move(p));
      } else {
        AXE_RETURN_IF_ERROR(BindName(scope, p));
      }
    }
    j.vars.push_back(Var{std::move(aval), drop});
    return id;
  }

  // ---- atoms ----
  bool AtLiteral() {
    char c = Peek();
    if (absl::ascii_isdigit(c) || c == '-' || c == '[') return true;
    absl::string_view n = PeekName();
    if (n == "True" || n == "False") return true;
    // inf/nan are literals unless they bind the next equation (inf:f32[] = ...).
    if ((n == "inf" || n == "nan") && AfterName() == ':') {
      size_t save = pos_;
      pos_ += n.size() + 1;
      bool binder = ParseType().ok() && Peek() == '=';
      pos_ = save;
      return !binder;
    }
    return false;
  }

  absl::StatusOr<Literal> ParseLiteral() {
    SkipSpace();
    size_t at = pos_;
    std::string value;
    if (text_.substr(pos_, 5) == "[...]") {
      pos_ += 5;
      value = "[...]";
    } else {
      while (pos_ < text_.size() && text_[pos_] != ':' && !absl::ascii_isspace(text_[pos_])) {
        value += text_[pos_++];
      }
    }
    if (!TryConsume(':')) return Error("':' and the literal's type");
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ParseType());
    if (value == "[...]") return Literal::Elided(std::move(aval));
    if (aval.rank() != 0) return ErrorAt(at, "a literal with a value must be a scalar");
    DType t = aval.dtype();
    if (t == DType::kPred) {
      if (value != "True" && value != "False")
        return ErrorAt(at, "a bool literal is True or False");
      return Literal::Bool(value == "True");
    }
    if (IsIntegral(t)) {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || p != value.data() + value.size()) {
        return ErrorAt(at, absl::StrCat(Quoted(value), " is not an integer fitting int64"));
      }
      return Literal::Int(v, t);
    }
    if (IsFloatingPoint(t) || IsComplex(t)) {
      double v = 0;
      if (value == "inf" || value == "-inf" || value == "nan") {
        v = value == "nan" ? std::numeric_limits<double>::quiet_NaN()
                           : (value[0] == '-' ? -1 : 1) * std::numeric_limits<double>::infinity();
      } else {
        auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc() || p != value.data() + value.size()) {
          return ErrorAt(at, absl::StrCat(Quoted(value), " is not a number"));
        }
      }
      return Literal::Float(v, t);
    }
    return ErrorAt(at, absl::StrCat("literals of type ", aval.ShortString(), " are not supported"));
  }

  absl::StatusOr<Atom> ParseAtom(const Scope& scope) {
    if (AtLiteral()) {
      AXE_ASSIGN_OR_RETURN(Literal l, ParseLiteral());
      return Atom::OfLiteral(std::move(l));
    }
    SkipSpace();
    size_t at = pos_;
    absl::string_view name = ReadName();
    if (name.empty()) return Error("a variable or a literal");
    auto it = scope.find(name);
    if (it == scope.end()) return ErrorAt(at, absl::StrCat("unknown variable ", Quoted(name)));
    return Atom::OfVar(it->second);
  }

  // ---- params (Python-like values) ----
  absl::StatusOr<Param> ParseValue(int depth);

  absl::StatusOr<std::vector<Param>> ParseItems(char close, int depth, bool* trailing_comma) {
    std::vector<Param> items;
    *trailing_comma = false;
    while (!TryConsume(close)) {
      if (Peek() == '\0') return Error(absl::StrCat("'", std::string(1, close), "'"));
      AXE_ASSIGN_OR_RETURN(Param item, ParseValue(depth + 1));
      bool jaxpr = item.kind() == Param::Kind::kJaxpr;
      items.push_back(std::move(item));
      *trailing_comma = TryConsume(',');
      if (!*trailing_comma && !jaxpr && Peek() != close) {
        return Error(absl::StrCat("',' or '", std::string(1, close), "'"));
      }
    }
    return items;
  }

  absl::StatusOr<Param> ParseNumber() {
    SkipSpace();
    size_t at = pos_;
    size_t end = pos_;
    if (PeekAt(end) == '-') ++end;
    bool is_float = false;
    while (end < text_.size()) {
      char c = text_[end];
      if (absl::ascii_isdigit(c)) {
        ++end;
      } else if (c == '.' || c == 'e' || c == 'E' ||
                 ((c == '+' || c == '-') && (text_[end - 1] == 'e' || text_[end - 1] == 'E'))) {
        is_float = true;
        ++end;
      } else {
        break;
      }
    }
    std::string_view digits(text_.data() + at, end - at);
    pos_ = end;
    if (is_float) {
      double v = 0;
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (ec != std::errc() || p != digits.data() + digits.size()) return ErrorAt(at, "a number");
      return Param::Float(v);
    }
    int64_t v = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || p != digits.data() + digits.size()) {
      return ErrorAt(at, "an integer fitting int64");
    }
    return Param::Int(v);
  }

  absl::StatusOr<Param> ParseString() {
    SkipSpace();
    size_t at = pos_;
    char quote = text_[pos_++];
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      char c = text_[pos_++];
      if (c == '\\' && pos_ < text_.size()) {
        char e = text_[pos_++];
        if (e == 'x') {  // \xHH, which PythonStringRepr writes for control characters
          const size_t escape = pos_ - 2;
          if (pos_ + 2 > text_.size() || !absl::ascii_isxdigit(text_[pos_]) ||
              !absl::ascii_isxdigit(text_[pos_ + 1])) {
            return ErrorAt(escape, "truncated \\xXX escape");
          }
          // The code point U+00XX, as Python reads '\xff' (in UTF-8: two bytes from 0x80).
          const int code = std::stoi(std::string(text_.substr(pos_, 2)), nullptr, 16);
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
          pos_ += 2;
          continue;
        }
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      } else {
        out += c;
      }
    }
    if (pos_ >= text_.size()) return ErrorAt(at, "an unterminated string");
    ++pos_;
    return Param::String(std::move(out));
  }

  // A symbol: a dotted name (float32, Precision.DEFAULT) or <...> (<lambda>).
  absl::StatusOr<Param> ParseSymbolOrCall(int depth) {
    SkipSpace();
    size_t at = pos_;
    if (PeekAt(pos_) == '<') {
      size_t end = text_.find('>', pos_);
      if (end == absl::string_view::npos) return ErrorAt(at, "an unterminated <...>");
      pos_ = end + 1;
      return Param::Symbol(std::string(text_.substr(at, pos_ - at)));
    }
    std::string name(ReadName());
    while (PeekAt(pos_) == '.' &&
           (absl::ascii_isalpha(PeekAt(pos_ + 1)) || PeekAt(pos_ + 1) == '_')) {
      ++pos_;
      absl::StrAppend(&name, ".", ReadName());
    }
    if (name.empty()) return Error("a parameter value");
    if (name == "None") return Param::None();
    if (name == "True" || name == "False") return Param::Bool(name == "True");
    if (PeekAt(pos_) == '(' && name == "PyTreeDef") return ReadBalancedSymbol(at);
    if (PeekAt(pos_) == '(') {
      ++pos_;
      return ParseCallArgs(std::move(name), depth);
    }
    absl::StatusOr<DType> dtype = ParseDType(name);
    if (dtype.ok() && name == NumpyName(*dtype)) return Param::OfDType(*dtype);
    return Param::Symbol(std::move(name));
  }

  // JAX's repr of a pytree's structure, PyTreeDef(((*,), {})), kept as its text: `*` is no
  // value. Reads from `at` through the parenthesis that closes the one after the name.
  absl::StatusOr<Param> ReadBalancedSymbol(size_t at) {
    int open = 0;
    for (size_t p = pos_; p < text_.size(); ++p) {
      if (text_[p] == '\n') break;
      if (text_[p] == '(') ++open;
      if (text_[p] == ')' && --open == 0) {
        pos_ = p + 1;
        return Param::Symbol(std::string(text_.substr(at, pos_ - at)));
      }
    }
    return ErrorAt(at, "an unterminated PyTreeDef(...)");
  }

  // debug_print's fmt: Python's str of the format, unquoted (`fmt=loss {}`), up to the next
  // parameter, has_placeholders, or the end of the line.
  absl::StatusOr<Param> ReadFormatText() {
    const size_t at = pos_;
    size_t end = text_.find('\n', at);
    if (end == absl::string_view::npos) end = text_.size();
    size_t next = text_.substr(at, end - at).find(" has_placeholders=");
    if (next != absl::string_view::npos) end = at + next;
    if (end == at) return Error("a format text");
    pos_ = end;
    return Param::Symbol(std::string(text_.substr(at, end - at)));
  }

  absl::StatusOr<Param> ParseCallArgs(std::string name, int depth) {
    std::vector<Param> args;
    while (!TryConsume(')')) {
      if (Peek() == '\0') return Error("')'");
      absl::string_view key = PeekName();
      if (!key.empty() && PeekAt(pos_ + key.size()) == '=') {
        pos_ += key.size() + 1;
        AXE_ASSIGN_OR_RETURN(Param v, ParseValue(depth + 1));
        args.push_back(Param::Keyword(std::string(key), std::move(v)));
      } else {
        AXE_ASSIGN_OR_RETURN(Param v, ParseValue(depth + 1));
        if (TryConsume(':')) {
          AXE_ASSIGN_OR_RETURN(Param value, ParseValue(depth + 1));
          v = Param::Pair(std::move(v), std::move(value));
        }
        args.push_back(std::move(v));
      }
      if (!TryConsume(',') && Peek() != ')') return Error("',' or ')'");
    }
    return Param::Call(std::move(name), std::move(args));
  }

  absl::StatusOr<Params> ParseParams(int depth) {
    Params params;
    if (PeekAt(pos_) != '[') return params;  // no space between a primitive and its params
    ++pos_;
    while (!TryConsume(']')) {
      SkipSpace();
      size_t at = pos_;
      absl::string_view name = ReadName();
      if (name.empty()) return Error("a parameter name or ']'");
      AXE_RETURN_IF_ERROR(Expect('='));
      SkipSpace();
      size_t value_at = pos_;
      AXE_ASSIGN_OR_RETURN(Param value, name == "fmt" ? ReadFormatText() : ParseValue(depth + 1));
      AXE_RETURN_IF_ERROR(ResolveShared(name, value_at, value));
      if (!params.emplace(std::string(name), std::move(value)).second) {
        return ErrorAt(at, absl::StrCat("parameter ", Quoted(name), " given twice"));
      }
    }
    return params;
  }

  // ---- equations and jaxprs ----
  absl::StatusOr<Eqn> ParseEqn(Jaxpr& j, Scope& scope, int depth);
  absl::Status CheckHiddenParams(const Primitive& prim, const Params& params,
                                 absl::Span<const ShapedArray> outs, size_t at) const;
  absl::StatusOr<Jaxpr> ParseJaxprBody(int depth);

  // ---- JAX's shared jaxprs: `let name = { lambda ... } in` items before the jaxpr ----
  static constexpr size_t kNowhere = std::numeric_limits<size_t>::max();
  struct Shared {
    std::shared_ptr<ClosedJaxpr> jaxpr;  // empty until its `let` is read
    size_t first_use = kNowhere;
    size_t defined_at = kNowhere;
    std::vector<std::string> uses;  // the shared jaxprs its text names
  };
  absl::Status ParsePrelude();
  Shared& SharedNamed(const std::string& name, size_t at);
  absl::Status ResolveShared(absl::string_view key, size_t at, Param& value);
  absl::Status CheckSharedAcyclicAndSmall();
  absl::StatusOr<size_t> InlinedEqns(const Jaxpr& j);

  absl::string_view text_;
  ParseOptions options_;
  size_t pos_ = 0;
  absl::flat_hash_map<std::string, Shared> shared_;
  std::vector<std::string> order_;  // the prelude's names as defined
  std::string defining_;            // the prelude item being read, or ""
  absl::flat_hash_map<const Jaxpr*, size_t> inlined_eqns_;
};

absl::StatusOr<Param> Parser::ParseValue(int depth) {
  AXE_RETURN_IF_ERROR(Deeper(depth));
  char c = Peek();
  bool trailing = false;
  if (c == '{') {
    size_t save = pos_;
    ++pos_;
    if (TryKeyword("lambda")) {
      pos_ = save;
      AXE_ASSIGN_OR_RETURN(Jaxpr inner, ParseJaxprBody(depth + 1));
      return Param::Jaxpr(std::make_shared<const ClosedJaxpr>(ClosedJaxpr{std::move(inner), {}}));
    }
    AXE_ASSIGN_OR_RETURN(std::vector<Param> items, ParseItems('}', depth, &trailing));
    return Param::Set(std::move(items));
  }
  if (c == '(') {
    ++pos_;
    AXE_ASSIGN_OR_RETURN(std::vector<Param> items, ParseItems(')', depth, &trailing));
    return Param::Tuple(std::move(items));
  }
  if (c == '[') {
    ++pos_;
    AXE_ASSIGN_OR_RETURN(std::vector<Param> items, ParseItems(']', depth, &trailing));
    return Param::List(std::move(items));
  }
  if (c == '\'' || c == '"') return ParseString();
  if (absl::ascii_isdigit(c) || (c == '-' && absl::ascii_isdigit(PeekAt(pos_ + 1)))) {
    return ParseNumber();
  }
  if (c == '-' && text_.substr(pos_, 4) == "-inf") {
    pos_ += 4;
    return Param::Float(-std::numeric_limits<double>::infinity());
  }
  return ParseSymbolOrCall(depth);
}

absl::StatusOr<Eqn> Parser::ParseEqn(Jaxpr& j, Scope& scope, int depth) {
  Eqn eqn;
  std::vector<Pending> pending;
  // Outputs: binders up to '=' (an equation without outputs starts with its primitive).
  if (AfterName() == ':') {
    while (Peek() != '=') {
      if (Peek() == '\0') return Error("'='");
      AXE_ASSIGN_OR_RETURN(VarId v, ParseBinder(j, scope, true, &pending));
      eqn.outputs.push_back(v);
    }
    ++pos_;
  }
  SkipSpace();
  size_t at = pos_;
  absl::string_view name = ReadPrimitiveName();
  if (name.empty()) return Error("a primitive name");
  const Primitive* prim = Primitive::Find(name);
  if (prim == nullptr) {
    return ErrorAt(at, absl::StrCat("unknown primitive ", Quoted(name),
                                    " (register it with Primitive::Define)"));
  }
  eqn.primitive = prim;
  eqn.effects = prim->options().effects;
  const size_t params_at = pos_;
  AXE_ASSIGN_OR_RETURN(eqn.params, ParseParams(depth));
  // Inputs: atoms up to ';', the next equation's binders, or `in (`.
  while (true) {
    char c = Peek();
    if (c == ';' || c == '\0') break;
    absl::string_view next = PeekName();
    if (!next.empty() && AfterName() == ':' && !AtLiteral()) break;
    // A name that is no variable in scope but a primitive starts the next equation, one
    // without outputs (the multi-line print separates equations by line breaks only).
    if (!next.empty() && !AtLiteral() && scope.find(next) == scope.end() &&
        Primitive::Find(next) != nullptr) {
      break;
    }
    // So does an unknown name with params (`debug_print[...]`): the next equation reports it
    // as an unknown primitive, not as an unknown variable of this one.
    if (!next.empty() && !AtLiteral() && scope.find(next) == scope.end() && AfterName() == '[') {
      break;
    }
    if (next == "in" && PeekAt(pos_ + 2) != ':') {
      size_t save = pos_;
      pos_ += 2;
      bool keyword = Peek() == '(';
      pos_ = save;
      if (keyword) break;
    }
    AXE_ASSIGN_OR_RETURN(Atom a, ParseAtom(scope));
    eqn.inputs.push_back(std::move(a));
  }
  TryConsume(';');
  // Outputs are bound only now: an equation cannot read its own outputs.
  for (const Pending& p : pending) AXE_RETURN_IF_ERROR(BindName(scope, p));
  if (prim->options().complete_parsed_params) {
    std::vector<ShapedArray> outs;
    for (VarId v : eqn.outputs) outs.push_back(j.aval(v));
    prim->options().complete_parsed_params(eqn.params, outs);
    AXE_RETURN_IF_ERROR(CheckHiddenParams(*prim, eqn.params, outs, params_at));
  }
  return eqn;
}

// A param the printer leaves out (JAX's pretty-printing rules: broadcast_in_dim's shape, a
// None sharding) must be the one parsing restores from the output types, or the text would
// not read back from its own print: the written value is refused instead.
absl::Status Parser::CheckHiddenParams(const Primitive& prim, const Params& params,
                                       absl::Span<const ShapedArray> outs, size_t at) const {
  if (!prim.options().printed_params) return absl::OkStatus();
  Params rebuilt = prim.options().printed_params(params);
  prim.options().complete_parsed_params(rebuilt, outs);
  for (const auto& [key, value] : params) {
    auto it = rebuilt.find(key);
    if (it != rebuilt.end() && it->second == value) continue;
    std::string implied =
        it == rebuilt.end() ? "nothing (it has no output to imply it)" : it->second.ToString();
    return ErrorAt(
        at, absl::StrCat(prim.name(), ": parameter ", key, "=", value.ToString(),
                         " is implied by the equation's output types, which give ", implied));
  }
  return absl::OkStatus();
}

// JAX names a jit body's outputs like the jit equation's outputs, so where those are drop vars
// the body reads a variable printed "_" (`_:f32[] = mul c c ... in (_,)`). A "_" that is read
// refers to the latest "_" bound before it, which is then an ordinary variable (it prints "_"
// again through jit's naming).
void UndropWhatIsRead(Jaxpr& j) {
  auto undrop = [&](const Atom& a) {
    if (!a.is_literal() && a.var >= 0 && static_cast<size_t>(a.var) < j.vars.size()) {
      j.vars[a.var].dropped = false;
    }
  };
  for (const Eqn& e : j.eqns) {
    for (const Atom& a : e.inputs) undrop(a);
  }
  for (const Atom& a : j.outvars) undrop(a);
}

absl::StatusOr<Jaxpr> Parser::ParseJaxprBody(int depth) {
  AXE_RETURN_IF_ERROR(Deeper(depth));
  Jaxpr j;
  Scope scope;
  AXE_RETURN_IF_ERROR(Expect('{'));
  AXE_RETURN_IF_ERROR(ExpectKeyword("lambda"));
  while (Peek() != ';') {
    if (Peek() == '\0') return Error("';'");
    AXE_ASSIGN_OR_RETURN(VarId v, ParseBinder(j, scope, false));
    j.constvars.push_back(v);
  }
  ++pos_;
  while (Peek() != '.') {
    if (Peek() == '\0') return Error("'.'");
    AXE_ASSIGN_OR_RETURN(VarId v, ParseBinder(j, scope, false));
    j.invars.push_back(v);
  }
  ++pos_;
  AXE_RETURN_IF_ERROR(ExpectKeyword("let"));
  while (true) {
    absl::string_view n = PeekName();
    if (n == "in" && AfterName() != ':') {
      size_t save = pos_;
      pos_ += 2;
      bool keyword = Peek() == '(';
      pos_ = save;
      if (keyword) break;
    }
    if (Peek() == '\0') return Error("'in'");
    if (j.eqns.size() >= Builder::kMaxEqns) return Error("fewer equations");
    AXE_ASSIGN_OR_RETURN(Eqn e, ParseEqn(j, scope, depth));
    j.eqns.push_back(std::move(e));
  }
  AXE_RETURN_IF_ERROR(ExpectKeyword("in"));
  AXE_RETURN_IF_ERROR(Expect('('));
  while (!TryConsume(')')) {
    AXE_ASSIGN_OR_RETURN(Atom a, ParseAtom(scope));
    j.outvars.push_back(std::move(a));
    if (!TryConsume(',') && Peek() != ')') return Error("',' or ')'");
  }
  AXE_RETURN_IF_ERROR(Expect('}'));
  UndropWhatIsRead(j);
  for (const Eqn& e : j.eqns) {
    for (const std::string& eff : e.effects) {
      if (std::find(j.effects.begin(), j.effects.end(), eff) == j.effects.end()) {
        j.effects.push_back(eff);
      }
    }
  }
  std::sort(j.effects.begin(), j.effects.end());
  return j;
}

// The prelude's items may name items defined after them (JAX prints them in breadth-first
// order of use): a name is bound to an empty jaxpr when first met and filled when defined.
absl::Status Parser::ParsePrelude() {
  while (TryKeyword("let")) {
    SkipSpace();
    size_t at = pos_;
    std::string name(ReadName());
    if (name.empty()) return Error("the name of a shared jaxpr");
    Shared& item = SharedNamed(name, at);
    if (item.defined_at != kNowhere) {
      return ErrorAt(at, absl::StrCat("shared jaxpr '", name, "' defined twice (first at ",
                                      Where(item.defined_at), ")"));
    }
    item.defined_at = at;
    AXE_RETURN_IF_ERROR(Expect('='));
    defining_ = name;
    AXE_ASSIGN_OR_RETURN(Jaxpr j, ParseJaxprBody(1));
    defining_.clear();
    AXE_RETURN_IF_ERROR(ExpectKeyword("in"));
    // Filled once, before anything reads it.
    *std::const_pointer_cast<ClosedJaxpr>(shared_.at(name).jaxpr) = ClosedJaxpr{std::move(j), {}};
    order_.push_back(name);
  }
  const std::string* undefined = nullptr;  // the first one used
  for (const auto& [name, item] : shared_) {
    if (item.defined_at == kNowhere &&
        (undefined == nullptr || item.first_use < shared_.at(*undefined).first_use)) {
      undefined = &name;
    }
  }
  if (undefined != nullptr) {
    return ErrorAt(shared_.at(*undefined).first_use,
                   absl::StrCat("jaxpr '", *undefined, "' is not defined (expected `let ",
                                *undefined, " = { lambda ... } in`)"));
  }
  return CheckSharedAcyclicAndSmall();
}

Parser::Shared& Parser::SharedNamed(const std::string& name, size_t at) {
  auto [it, inserted] = shared_.try_emplace(name);
  if (inserted) {
    it->second.jaxpr = std::make_shared<ClosedJaxpr>();
    it->second.first_use = at;
  }
  return it->second;
}

// A bare name as a jaxpr-holding parameter's value (or as an item of its tuple) refers to a
// shared jaxpr; in the jaxpr after the prelude it must be one the prelude defines. Under any
// other key a bare name is a symbol (shared_jaxprs.h), whatever the prelude defines.
absl::Status Parser::ResolveShared(absl::string_view key, size_t at, Param& value) {
  if (!internal::HoldsJaxpr(key)) return absl::OkStatus();
  auto resolve = [&](Param& p) -> absl::Status {
    if (p.kind() != Param::Kind::kSymbol) return absl::OkStatus();
    bool known = shared_.contains(p.text());
    if (!known && defining_.empty()) {
      return ErrorAt(at, absl::StrCat("jaxpr '", p.text(), "' is not defined (expected ", "`let ",
                                      p.text(), " = { lambda ... } in` before it)"));
    }
    Shared& item = SharedNamed(p.text(), at);
    if (!defining_.empty()) shared_.at(defining_).uses.push_back(p.text());
    p = Param::Jaxpr(item.jaxpr);
    return absl::OkStatus();
  };
  if (value.kind() != Param::Kind::kTuple) return resolve(value);
  std::vector<Param> items = value.items();
  bool any = false;
  for (Param& item : items) {
    if (item.kind() == Param::Kind::kSymbol) {
      AXE_RETURN_IF_ERROR(resolve(item));
      any = true;
    }
  }
  if (any) value = Param::Tuple(std::move(items));
  return absl::OkStatus();
}

// No shared jaxpr may use itself (through others), and none may expand to more than
// Builder::kMaxEqns equations (sharing must not hide an exponentially large program). An
// iterative depth-first walk: the prelude may be long.
absl::Status Parser::CheckSharedAcyclicAndSmall() {
  enum class Mark { kNew, kOpen, kDone };
  absl::flat_hash_map<std::string, Mark> marks;
  for (const std::string& root : order_) {
    if (marks[root] == Mark::kDone) continue;
    std::vector<std::pair<std::string, size_t>> stack = {{root, 0}};
    marks[root] = Mark::kOpen;
    while (!stack.empty()) {
      auto& [name, next] = stack.back();
      const Shared& item = shared_.at(name);
      if (next < item.uses.size()) {
        const std::string& used = item.uses[next++];
        Mark& m = marks[used];
        if (m == Mark::kOpen) {
          return ErrorAt(shared_.at(used).defined_at,
                         absl::StrCat("shared jaxpr '", used, "' uses itself"));
        }
        if (m == Mark::kNew) {
          m = Mark::kOpen;
          stack.emplace_back(used, 0);
        }
        continue;
      }
      // Everything `name` uses is counted: count it.
      AXE_ASSIGN_OR_RETURN(size_t eqns, InlinedEqns(shared_.at(name).jaxpr->jaxpr));
      if (eqns > Builder::kMaxEqns) {
        return ErrorAt(item.defined_at,
                       absl::StrCat("shared jaxpr '", name, "' expands to more than ",
                                    Builder::kMaxEqns, " equations"));
      }
      inlined_eqns_[&shared_.at(name).jaxpr->jaxpr] = eqns;
      marks[name] = Mark::kDone;
      stack.pop_back();
    }
  }
  return absl::OkStatus();
}

// How many equations `j` has with its nested jaxprs inlined, shared ones (counted before) once
// per use, saturating past Builder::kMaxEqns.
absl::StatusOr<size_t> Parser::InlinedEqns(const Jaxpr& j) {
  size_t total = j.eqns.size();
  auto add = [&](const Param& p) -> absl::Status {
    if (p.kind() != Param::Kind::kJaxpr || p.jaxpr() == nullptr) return absl::OkStatus();
    auto it = inlined_eqns_.find(&p.jaxpr()->jaxpr);
    size_t n = 0;
    if (it != inlined_eqns_.end()) {
      n = it->second;
    } else {
      AXE_ASSIGN_OR_RETURN(n, InlinedEqns(p.jaxpr()->jaxpr));
    }
    total = n > Builder::kMaxEqns || total > Builder::kMaxEqns ? Builder::kMaxEqns + 1 : total + n;
    return absl::OkStatus();
  };
  for (const Eqn& e : j.eqns) {
    for (const auto& [key, value] : e.params) {
      AXE_RETURN_IF_ERROR(add(value));
      if (value.kind() != Param::Kind::kTuple) continue;
      for (const Param& item : value.items()) AXE_RETURN_IF_ERROR(add(item));
    }
  }
  return total;
}

}  // namespace

absl::StatusOr<ClosedJaxpr> ParseJaxpr(absl::string_view text, ParseOptions options) {
  Parser p(text, options);
  return p.ParseTop();
}

}  // namespace axe::ir
