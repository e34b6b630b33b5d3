// ScanHlo: the shapes of HLO instruction lines and modules (hlo_text.h).
#include "axe/xla/hlo_text.h"

#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/xla/explain.h"
#include "checks.h"
#include "shape_parser.h"

namespace axe::xla {
namespace {

Scanner::Options Hlo() { return Scanner::Options{.skip_comments = true}; }

absl::Status AtLine(size_t line, const absl::Status& st) {
  return absl::Status(st.code(),
                      absl::StrCat("line ", line, ": ", ElideForMessage(st.message(), 400)));
}

// Reads `[ROOT] [%]name =` and leaves the scanner after '='. False (scanner moved) when the
// text does not start that way.
bool ReadInstructionHead(Scanner& s, HloInstruction& ins) {
  s.SkipSpace();
  const size_t save = s.pos();
  std::optional<absl::string_view> first = s.TryIdent(".-");
  if (first && *first == "ROOT") {
    ins.is_root = true;
  } else {
    s.set_pos(save);
  }
  const bool percent = s.TryConsume('%');
  std::optional<absl::string_view> name = s.TryIdent(".-");
  if (!name || !s.TryConsume('=')) return false;
  ins.name = absl::StrCat(percent ? "%" : "", *name);
  return true;
}

// Skips one operand that is not a shape (a literal such as `0` or `{1,2}`): up to the next
// ',' or ')' outside brackets. No recursion: a depth counter.
void SkipOperand(Scanner& s) {
  absl::string_view text = s.text();
  size_t pos = s.pos();
  int64_t depth = 0;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (depth == 0 && (c == ',' || c == ')')) break;
    if (c == '(' || c == '{' || c == '[') ++depth;
    if (c == ')' || c == '}' || c == ']') --depth;
  }
  s.set_pos(pos);
}

absl::StatusOr<HloOperand> ReadOperand(Scanner& s, internal::ShapeParser& parser) {
  HloOperand op;
  s.SkipSpace();
  if (s.Peek() != '%') {
    const size_t save = s.pos();
    absl::StatusOr<Shape> shape = parser.ParseShape();
    if (!shape.ok()) {
      s.set_pos(save);
      // A name without '%' (`add(x.1, y.1)`), or a literal (`constant(0)`, `{1,2}`).
      std::optional<absl::string_view> name = s.TryIdent(".-");
      if (name && (s.Peek() == ',' || s.Peek() == ')')) {
        op.name = std::string(*name);
        return op;
      }
      s.set_pos(save);
      SkipOperand(s);
      return op;
    }
    AXE_RETURN_IF_ERROR(parser.ValidateTopLevel(*shape));
    op.shape = *std::move(shape);
  }
  s.SkipSpace();
  if (s.TryConsume('%')) {
    std::optional<absl::string_view> name = s.TryIdent(".-");
    if (!name) return s.Error("an operand name after '%'");
    op.name = absl::StrCat("%", *name);
  }
  return op;
}

}  // namespace

absl::StatusOr<HloInstruction> ScanHloInstruction(absl::string_view line,
                                                  const HloScanOptions& options) {
  Scanner s(line, Hlo());
  HloInstruction ins;
  if (!ReadInstructionHead(s, ins)) return s.Error("an instruction `name = shape opcode(...)`");
  ParseOptions parse_options;
  internal::ShapeParser parser(s, parse_options);
  s.SkipSpace();
  const size_t shape_at = s.pos();
  AXE_ASSIGN_OR_RETURN(ins.result, parser.ParseShape());
  if (absl::Status st = parser.ValidateTopLevel(ins.result); !st.ok()) {
    return s.MessageAt(shape_at,
                       absl::StrCat("result shape: ", ElideForMessage(st.message(), 400)));
  }
  std::optional<absl::string_view> opcode = s.TryIdent("-");
  if (!opcode) return s.Error("an opcode");
  ins.opcode = std::string(*opcode);
  AXE_RETURN_IF_ERROR(s.Expect('('));
  if (ins.opcode == "constant") {
    // A literal (`constant(true)`, `constant({1, 2})`), never an operand name.
    SkipOperand(s);
    AXE_RETURN_IF_ERROR(s.Expect(')'));
    ins.attributes_at = s.pos();
    return ins;
  }
  if (s.TryConsume(')')) {
    ins.attributes_at = s.pos();
    return ins;
  }
  while (true) {
    if (ins.operands.size() >= options.max_operands) {
      return s.MessageAt(s.pos(), absl::StrCat("more than ", options.max_operands, " operands"));
    }
    AXE_ASSIGN_OR_RETURN(HloOperand op, ReadOperand(s, parser));
    if (op.shape || !op.name.empty()) ins.operands.push_back(std::move(op));  // not a literal
    if (s.TryConsume(',')) continue;
    if (s.TryConsume(')')) {
      ins.attributes_at = s.pos();
      return ins;
    }
    return s.Error("',' or ')' in the operand list");
  }
}

namespace {

// `HloModule name, ..., entry_computation_layout={...}, ...`.
absl::Status ScanModuleHeader(absl::string_view line, HloText& out) {
  Scanner s(line, Hlo());
  s.TryIdent();  // HloModule
  std::optional<absl::string_view> name = s.TryIdent(".-");
  if (name) out.module_name = std::string(*name);
  const size_t key = line.find("entry_computation_layout=");
  if (key == absl::string_view::npos) return absl::OkStatus();
  const size_t open = key + std::string_view("entry_computation_layout=").size();
  if (open >= line.size() || line[open] != '{') return absl::OkStatus();
  int64_t depth = 0;
  size_t end = open;
  for (; end < line.size(); ++end) {
    if (line[end] == '{') ++depth;
    if (line[end] == '}' && --depth == 0) break;
  }
  if (end >= line.size()) {
    return absl::InvalidArgumentError("entry_computation_layout={ has no closing '}'");
  }
  AXE_ASSIGN_OR_RETURN(ProgramShape p, ParseProgramShape(line.substr(open, end - open + 1)));
  out.entry_computation_layout = std::move(p);
  return absl::OkStatus();
}

// A computation header `[ENTRY] %name (params) -> result {`: its name.
std::string ComputationName(absl::string_view line) {
  Scanner s(line, Hlo());
  std::optional<absl::string_view> first = s.TryIdent(".-");
  if (first && *first == "ENTRY") first.reset();
  const bool percent = s.TryConsume('%');
  std::optional<absl::string_view> name = first ? first : s.TryIdent(".-");
  return name ? absl::StrCat(percent ? "%" : "", *name) : std::string();
}

bool IsInstructionLine(absl::string_view line) {
  Scanner s(line, Hlo());
  HloInstruction ignored;
  return ReadInstructionHead(s, ignored);
}

// "}" alone, or followed by blanks and a // comment ("}  // end"): the end of a computation.
bool IsClosingBrace(absl::string_view line) {
  if (!absl::ConsumePrefix(&line, "}")) return false;
  line = absl::StripLeadingAsciiWhitespace(line);
  return line.empty() || absl::StartsWith(line, "//");
}

}  // namespace

bool LooksLikeHlo(absl::string_view text) {
  // The first line that is neither blank nor a `//` comment decides.
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == absl::string_view::npos) end = text.size();
    const absl::string_view line = absl::StripAsciiWhitespace(text.substr(start, end - start));
    start = end + 1;
    if (line.empty() || absl::StartsWith(line, "//")) continue;
    if (absl::StartsWith(line, "HloModule") || absl::StartsWith(line, "ENTRY")) return true;
    if (line.back() == '{' && absl::StrContains(line, "->")) return true;  // a computation header
    return IsInstructionLine(line);
  }
  return false;
}

absl::StatusOr<HloText> ScanHlo(absl::string_view text, const HloScanOptions& options) {
  if (text.size() > options.max_text_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "HLO text of ", text.size(), " bytes is over the limit of ", options.max_text_bytes));
  }
  HloText out;
  std::string computation;
  size_t line_number = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == absl::string_view::npos) end = text.size();
    const absl::string_view line = absl::StripAsciiWhitespace(text.substr(start, end - start));
    start = end + 1;
    if (++line_number > options.max_lines) {
      return absl::InvalidArgumentError(
          absl::StrCat("HLO text has more than ", options.max_lines, " lines"));
    }
    if (line.empty() || absl::StartsWith(line, "//")) continue;
    if (absl::StartsWith(line, "HloModule")) {
      if (absl::Status st = ScanModuleHeader(line, out); !st.ok()) return AtLine(line_number, st);
      continue;
    }
    if (IsClosingBrace(line)) {
      computation.clear();
      continue;
    }
    if (IsInstructionLine(line)) {
      if (out.instructions.size() >= options.max_instructions) {
        return absl::InvalidArgumentError(
            absl::StrCat("HLO text has more than ", options.max_instructions, " instructions"));
      }
      absl::StatusOr<HloInstruction> ins = ScanHloInstruction(line, options);
      if (!ins.ok()) return AtLine(line_number, ins.status());
      ins->computation = computation;
      ins->line = line_number;
      ins->attributes_at += static_cast<size_t>(line.data() - text.data());
      out.instructions.push_back(*std::move(ins));
      continue;
    }
    if (line.back() == '{') computation = ComputationName(line);
  }
  if (out.instructions.empty() && !out.entry_computation_layout) {
    return absl::InvalidArgumentError("no HLO instruction and no entry_computation_layout found");
  }
  return out;
}

absl::StatusOr<std::vector<MemorySpaceTotal>> ResultBytesByMemorySpace(const HloText& hlo) {
  std::map<int64_t, MemorySpaceTotal> totals;
  for (const HloInstruction& ins : hlo.instructions) {
    // These results alias buffers that other instructions define.
    if (ins.opcode == "tuple" || ins.opcode == "get-tuple-element" || ins.opcode == "bitcast")
      continue;
    for (const LeafExplanation& leaf : ExplainLeaves(ins.result)) {
      if (!leaf.array) continue;
      MemorySpaceTotal& t = totals[leaf.array->memory_space];
      t.memory_space = leaf.array->memory_space;
      ++t.buffers;
      if (!leaf.array->array_size_bytes.ok()) {  // e.g. an unbounded '?' dim
        ++t.unsized_buffers;
        continue;
      }
      std::optional<int64_t> sum = CheckedAdd(t.array_size_bytes, *leaf.array->array_size_bytes);
      if (!sum)
        return absl::OutOfRangeError("the total ArraySize of a memory space overflows int64");
      t.array_size_bytes = *sum;
    }
  }
  std::vector<MemorySpaceTotal> out;
  for (const auto& [space, total] : totals) out.push_back(total);
  return out;
}

}  // namespace axe::xla
