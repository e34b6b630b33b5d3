// ParseHloModule: a whole HLO module, line by line (hlo_module.h).
#include "axe/sharding/hlo_module.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "axe/base/status_macros.h"
#include "axe/xla/hlo_text.h"
#include "hlo_line_column.h"

namespace axe::sharding {
namespace module_reader {
namespace {

absl::Status At(size_t line, size_t column, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("line ", line, ", column ", column, ": ", message));
}

// A scanner message "position P: rest" about the text at `offset` bytes into the line.
absl::Status AtScannerPosition(size_t line, size_t offset, const absl::Status& status) {
  return internal::AtLineColumn(line, offset + 1, status);
}

// One `key=value` attribute after the operand list; `at` is the value's offset in the line.
struct Attribute {
  absl::string_view key;
  absl::string_view value;
  size_t at = 0;
};

// The attributes from `from` on: split at the commas outside brackets, braces, parentheses
// and quoted strings. One pass, a depth counter (no recursion).
std::vector<Attribute> SplitAttributes(absl::string_view line, size_t from) {
  std::vector<Attribute> out;
  int64_t depth = 0;
  bool quoted = false;
  size_t start = from;
  auto finish = [&](size_t end) {
    absl::string_view piece = line.substr(start, end - start);
    const size_t lead = piece.size() - absl::StripLeadingAsciiWhitespace(piece).size();
    piece = absl::StripAsciiWhitespace(piece);
    const size_t eq = piece.find('=');
    if (eq != absl::string_view::npos && eq > 0) {
      out.push_back({piece.substr(0, eq), piece.substr(eq + 1), start + lead + eq + 1});
    }
    start = end + 1;
  };
  for (size_t i = from; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '\\') ++i;
      if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    if (c == '{' || c == '[' || c == '(') ++depth;
    if (c == '}' || c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) finish(i);
  }
  if (start < line.size()) finish(line.size());
  return out;
}

absl::Status ReadAttributes(absl::string_view line, size_t from, size_t line_number, size_t lead,
                            ModuleInstruction& ins) {
  for (const Attribute& a : SplitAttributes(line, from)) {
    const size_t column = lead + a.at + 1;
    if (a.key == "sharding") {
      absl::StatusOr<HloSharding> s = HloSharding::Parse(a.value);
      if (!s.ok()) return AtScannerPosition(line_number, lead + a.at, s.status());
      ins.sharding = *std::move(s);
      ins.sharding_column = column;
    } else if (a.key == "replica_groups") {
      ins.replica_groups = std::string(a.value);
      ins.replica_groups_column = column;
    } else if (a.key == "source_target_pairs") {
      ins.source_target_pairs = std::string(a.value);
      ins.source_target_pairs_column = column;
    } else if (a.key == "channel_id") {
      int64_t id = 0;
      if (!absl::SimpleAtoi(a.value, &id) || id < 0) {
        return At(line_number, column,
                  absl::StrCat("channel_id=", a.value, " is not a non-negative integer"));
      }
      ins.channel_id = id;
    } else if (a.key == "dimensions") {
      ins.dimensions = std::string(a.value);
    } else if (a.key == "custom_call_target") {
      absl::string_view target = a.value;
      absl::ConsumePrefix(&target, "\"");
      absl::ConsumeSuffix(&target, "\"");
      ins.custom_call_target = std::string(target);
    }
  }
  return absl::OkStatus();
}

// The state of the one pass over the lines.
class ModuleReader {
 public:
  ModuleReader(absl::string_view text, const HloModuleLimits& limits)
      : text_(text), limits_(limits) {}

  absl::StatusOr<HloModuleText> Read() && {
    if (text_.size() > limits_.max_text_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the module is ", text_.size(), " bytes, over the limit of ", limits_.max_text_bytes));
    }
    AXE_ASSIGN_OR_RETURN(out_.partitioning, ReadModulePartitioning(text_));
    // Most lines of a module are instructions: one allocation instead of moving every
    // instruction each time the vector grows.
    const size_t lines = static_cast<size_t>(std::count(text_.begin(), text_.end(), '\n')) + 1;
    out_.instructions.reserve(std::min({lines, limits_.max_instructions, limits_.max_lines}));
    for (size_t start = 0; start < text_.size();) {
      size_t end = text_.find('\n', start);
      if (end == absl::string_view::npos) end = text_.size();
      AXE_RETURN_IF_ERROR(Line(text_.substr(start, end - start)));
      start = end + 1;
    }
    if (open_) {
      return At(out_.lines, 1,
                absl::StrCat("the computation ", out_.computations.back().name,
                             " is never closed with '}'"));
    }
    if (out_.instructions.empty()) {
      return absl::InvalidArgumentError("no HLO instruction in the text (is it a whole module?)");
    }
    return std::move(out_);
  }

 private:
  absl::Status Line(absl::string_view raw) {
    const size_t number = ++out_.lines;
    if (number > limits_.max_lines) {
      return absl::InvalidArgumentError(
          absl::StrCat("the module has more than ", limits_.max_lines, " lines"));
    }
    if (raw.size() > limits_.max_line_bytes) {
      return At(number, 1,
                absl::StrCat("the line is ", raw.size(), " bytes, over the limit of ",
                             limits_.max_line_bytes));
    }
    const absl::string_view stripped = absl::StripLeadingAsciiWhitespace(raw);
    const size_t lead = raw.size() - stripped.size();
    const absl::string_view line = absl::StripTrailingAsciiWhitespace(stripped);
    if (line.empty() || absl::StartsWith(line, "//")) return absl::OkStatus();
    if (!open_) {
      if (absl::StartsWith(line, "HloModule ")) return Header(line);
      if (line.back() == '{') return OpenComputation(line);
      return absl::OkStatus();  // the tables compiled.as_text() may print (FileNames, ...)
    }
    if (line == "}" || absl::StartsWith(line, "} ")) {
      out_.computations.back().end_instruction = out_.instructions.size();
      open_ = false;
      return absl::OkStatus();
    }
    return Instruction(line, number, lead);
  }

  absl::Status Header(absl::string_view line) {
    absl::string_view rest = absl::StripLeadingAsciiWhitespace(line.substr(9));
    size_t end = 0;
    while (end < rest.size() && rest[end] != ',' && rest[end] != ' ') ++end;
    out_.name = std::string(rest.substr(0, end));
    return absl::OkStatus();
  }

  // `[ENTRY] [%]name [(params) -> result] {`.
  absl::Status OpenComputation(absl::string_view line) {
    ModuleComputation c;
    c.is_entry = absl::ConsumePrefix(&line, "ENTRY ");
    line = absl::StripLeadingAsciiWhitespace(line);
    size_t end = 0;
    while (end < line.size() && line[end] != ' ' && line[end] != '(' && line[end] != '{') ++end;
    c.name = std::string(line.substr(0, end));
    c.first_instruction = c.end_instruction = out_.instructions.size();
    if (c.is_entry) out_.entry = out_.computations.size();
    out_.computations.push_back(std::move(c));
    names_.clear();
    open_ = true;
    return absl::OkStatus();
  }

  absl::Status Instruction(absl::string_view line, size_t number, size_t lead) {
    if (out_.instructions.size() >= limits_.max_instructions) {
      return absl::InvalidArgumentError(
          absl::StrCat("the module has more than ", limits_.max_instructions, " instructions"));
    }
    absl::StatusOr<xla::HloInstruction> scanned =
        xla::ScanHloInstruction(line, {.max_operands = limits_.max_operands});
    if (!scanned.ok()) return AtScannerPosition(number, lead, scanned.status());
    ModuleInstruction ins;
    ins.computation = out_.computations.size() - 1;
    ins.name = std::move(scanned->name);
    ins.opcode = std::move(scanned->opcode);
    ins.is_root = scanned->is_root;
    ins.result = std::move(scanned->result);
    ins.line = number;
    for (xla::HloOperand& op : scanned->operands) {
      auto it = names_.find(op.name);
      ins.operand_definitions.push_back(it == names_.end() ? std::nullopt
                                                           : std::optional<size_t>(it->second));
      ins.operand_names.push_back(std::move(op.name));
      ins.written_operand_shapes.push_back(std::move(op.shape));
    }
    AXE_RETURN_IF_ERROR(ReadAttributes(line, scanned->attributes_at, number, lead, ins));
    names_[ins.name] = out_.instructions.size();
    out_.instructions.push_back(std::move(ins));
    out_.computations.back().end_instruction = out_.instructions.size();
    return absl::OkStatus();
  }

  absl::string_view text_;
  const HloModuleLimits& limits_;
  HloModuleText out_;
  bool open_ = false;
  absl::flat_hash_map<std::string, size_t> names_;  // the open computation's instructions
};

}  // namespace
}  // namespace module_reader

absl::StatusOr<HloModuleText> ParseHloModule(absl::string_view text,
                                             const HloModuleLimits& limits) {
  return module_reader::ModuleReader(text, limits).Read();
}

}  // namespace axe::sharding
