#include "axe/sharding/hlo_instruction.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/xla/hlo_text.h"

namespace axe::sharding {
namespace {

// The offset of the `sharding=` attribute (not `out_sharding=` or a quoted string's text).
size_t FindShardingAttribute(absl::string_view text) {
  bool quoted = false;
  for (size_t i = 0; i + 9 <= text.size(); ++i) {
    if (text[i] == '\\' && quoted) {
      ++i;
      continue;
    }
    if (text[i] == '"') quoted = !quoted;
    if (quoted || text.substr(i, 9) != "sharding=") continue;
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_')) {
      continue;
    }
    return i;
  }
  return absl::string_view::npos;
}

// The end (one past the matching '}') of the braces opening at `open`; npos if unbalanced.
size_t MatchingBrace(absl::string_view text, size_t open) {
  int depth = 0;
  bool quoted = false;
  for (size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '\\') ++i;
      if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    if (c == '{') ++depth;
    if (c == '}' && --depth == 0) return i + 1;
  }
  return absl::string_view::npos;
}

// The instruction that carries the attribute at `at`: its line (from the last line break
// before `at` outside a quoted string) up to the attribute. A quoted metadata string may hold
// line breaks and text that looks like other instructions; none of it is read as HLO.
absl::string_view InstructionHead(absl::string_view text, size_t at) {
  size_t start = 0;
  bool quoted = false;
  for (size_t i = 0; i < at; ++i) {
    if (quoted && text[i] == '\\') {
      ++i;
      continue;
    }
    if (text[i] == '"') quoted = !quoted;
    if (!quoted && text[i] == '\n') start = i + 1;
  }
  return text.substr(start, at - start);
}

}  // namespace

bool IsShardedInstruction(absl::string_view text) {
  const size_t at = FindShardingAttribute(text);
  return at != absl::string_view::npos && text.substr(0, at).find('=') != absl::string_view::npos;
}

absl::StatusOr<ShardedInstruction> ParseShardedInstruction(absl::string_view line) {
  const size_t at = FindShardingAttribute(line);
  if (at == absl::string_view::npos) {
    return absl::InvalidArgumentError("the instruction has no sharding= attribute");
  }
  const size_t open = at + 9;
  if (open >= line.size() || line[open] != '{') {
    return absl::InvalidArgumentError(
        absl::StrCat("position ", open, ": expected '{' after sharding="));
  }
  const size_t end = MatchingBrace(line, open);
  if (end == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("position ", open, ": the sharding's '{' is never closed"));
  }
  absl::StatusOr<HloSharding> sharding = HloSharding::Parse(line.substr(open, end - open));
  if (!sharding.ok()) {
    return absl::Status(sharding.status().code(), absl::StrCat("in the sharding at position ", open,
                                                               ": ", sharding.status().message()));
  }
  AXE_ASSIGN_OR_RETURN(xla::HloText hlo, xla::ScanHlo(InstructionHead(line, at)));
  if (hlo.instructions.empty()) {
    return absl::InvalidArgumentError("no HLO instruction in the text");
  }
  return ShardedInstruction{hlo.instructions.front().result, *std::move(sharding)};
}

}  // namespace axe::sharding
