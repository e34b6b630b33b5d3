#include "axe/sharding/hlo_instruction.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/xla/hlo_text.h"

namespace axe::sharding {
namespace {

// Where the `sharding=` attribute (not `out_sharding=` or a quoted string's text) starts, and
// where the line of its instruction starts: after the last line break before it outside a
// quoted string (a metadata string may hold line breaks and text that looks like other
// instructions; none of it is the instruction). `at` is npos when there is no attribute.
struct ShardingAttribute {
  size_t at = absl::string_view::npos;
  size_t line_start = 0;
};

ShardingAttribute FindShardingAttribute(absl::string_view text) {
  ShardingAttribute found;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && quoted) {
      ++i;
      continue;
    }
    if (text[i] == '"') quoted = !quoted;
    if (!quoted && text[i] == '\n') found.line_start = i + 1;
    if (quoted || text.substr(i, 9) != "sharding=") continue;
    // Not `out_sharding=` nor a frontend attribute such as `xla.sdy.sharding="..."`.
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_' ||
                  text[i - 1] == '.')) {
      continue;
    }
    found.at = i;
    return found;
  }
  return found;
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

}  // namespace

bool IsShardedInstruction(absl::string_view text) {
  const ShardingAttribute a = FindShardingAttribute(text);
  return a.at != absl::string_view::npos &&
         text.substr(a.line_start, a.at - a.line_start).find('=') != absl::string_view::npos;
}

absl::StatusOr<ShardedInstruction> ParseShardedInstruction(absl::string_view line) {
  const ShardingAttribute attribute = FindShardingAttribute(line);
  const size_t at = attribute.at;
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
  AXE_ASSIGN_OR_RETURN(xla::HloText hlo,
                       xla::ScanHlo(line.substr(attribute.line_start, at - attribute.line_start)));
  if (hlo.instructions.empty()) {
    return absl::InvalidArgumentError("no HLO instruction in the text");
  }
  return ShardedInstruction{hlo.instructions.front().result, *std::move(sharding)};
}

}  // namespace axe::sharding
