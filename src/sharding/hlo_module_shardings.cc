#include "axe/sharding/hlo_module_shardings.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/hlo_instruction.h"

namespace axe::sharding {
namespace {

constexpr absl::string_view kPartitionerSuffix = "_spmd";

// The value of `key=` in a header line (up to the next ',' or space); empty when absent.
absl::string_view HeaderValue(absl::string_view header, absl::string_view key) {
  for (size_t at = header.find(key); at != absl::string_view::npos; at = header.find(key, at + 1)) {
    if (at > 0 && header[at - 1] != ' ' && header[at - 1] != ',') continue;
    const size_t begin = at + key.size();
    size_t end = begin;
    while (end < header.size() && header[end] != ',' && header[end] != ' ') ++end;
    return header.substr(begin, end - begin);
  }
  return {};
}

// `ENTRY %main.0_spmd (...` -> "main.0_spmd".
std::string EntryName(absl::string_view line) {
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(line.substr(line.find("ENTRY") + 5));
  size_t end = 0;
  while (end < rest.size() && rest[end] != ' ' && rest[end] != '(' && rest[end] != '{') ++end;
  absl::string_view name = rest.substr(0, end);
  absl::ConsumePrefix(&name, "%");
  return std::string(name);
}

// `  ROOT %tuple.3 = (...` -> "%tuple.3".
std::string InstructionName(absl::string_view line) {
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(line);
  absl::ConsumePrefix(&rest, "ROOT ");
  return std::string(absl::StripAsciiWhitespace(rest.substr(0, rest.find('='))));
}

std::string Explain(const ModulePartitioning& p) {
  if (!p.has_header) return "no HloModule header: shapes are taken as global";
  if (p.num_partitions <= 1) {
    return "the header has no num_partitions > 1: one partition, shapes are global";
  }
  if (p.partitioned) {
    return absl::StrCat("num_partitions=", p.num_partitions, " and the entry computation %",
                        p.entry_name, " is the SPMD partitioner's: shapes are per device");
  }
  return absl::StrCat("num_partitions=", p.num_partitions, " but the entry computation %",
                      p.entry_name.empty() ? "(none)" : p.entry_name,
                      " is not the SPMD partitioner's (..._spmd): not partitioned yet, shapes "
                      "are global");
}

}  // namespace

bool IsHloModule(absl::string_view text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "HloModule ")) return true;
  }
  return false;
}

absl::StatusOr<ModulePartitioning> ReadModulePartitioning(absl::string_view text) {
  ModulePartitioning out;
  size_t number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    const absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(line);
    if (!out.has_header && absl::StartsWith(trimmed, "HloModule ")) {
      out.has_header = true;
      const absl::string_view n = HeaderValue(trimmed, "num_partitions=");
      if (!n.empty() && (!absl::SimpleAtoi(n, &out.num_partitions) || out.num_partitions < 1)) {
        return absl::InvalidArgumentError(
            absl::StrCat("line ", number, ": num_partitions=", n, " is not a positive integer"));
      }
    } else if (out.entry_name.empty() && absl::StartsWith(trimmed, "ENTRY ")) {
      out.entry_name = EntryName(trimmed);
    }
  }
  out.partitioned = out.has_header && out.num_partitions > 1 &&
                    absl::EndsWith(out.entry_name, kPartitionerSuffix);
  out.reason = Explain(out);
  return out;
}

absl::StatusOr<std::vector<int64_t>> GlobalDimsFromLocal(absl::Span<const int64_t> local,
                                                         const HloSharding& sharding) {
  std::vector<int64_t> global(local.begin(), local.end());
  if (sharding.kind() != HloSharding::Kind::kTiled) return global;
  if (sharding.TiledDataRank() != local.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the sharding ", sharding.ToString(), " tiles ", sharding.TiledDataRank(),
                     " dimensions, but the shape has rank ", local.size()));
  }
  for (size_t i = 0; i < global.size(); ++i) {
    std::optional<int64_t> product = CheckedMul(global[i], sharding.tiles()->dims()[i]);
    if (!product) {
      return absl::InvalidArgumentError(absl::StrCat("dimension ", i, ": ", global[i], " x ",
                                                     sharding.tiles()->dims()[i],
                                                     " tiles overflows int64"));
    }
    global[i] = *product;
  }
  return global;
}

namespace {

// Adds one array's sharding (or the reason it is skipped).
absl::Status Add(ModuleShardings& out, size_t line, std::string name, const xla::Shape& shape,
                 const HloSharding& sharding, bool local) {
  if (!shape.IsArray()) {
    out.skipped.push_back(absl::StrCat("line ", line, " ", name, ": not an array shape"));
    return absl::OkStatus();
  }
  if (sharding.kind() == HloSharding::Kind::kManual ||
      sharding.kind() == HloSharding::Kind::kUnknown ||
      sharding.kind() == HloSharding::Kind::kTuple) {
    out.skipped.push_back(
        absl::StrCat("line ", line, " ", name, ": ", sharding.ToString(), " places no elements"));
    return absl::OkStatus();
  }
  ModuleSharding s{std::move(name), line, shape, sharding, {}};
  const absl::Span<const int64_t> dims = shape.dimensions();
  if (local) {
    absl::StatusOr<std::vector<int64_t>> global = GlobalDimsFromLocal(dims, sharding);
    if (!global.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("line ", line, " ", s.instruction, ": ", global.status().message()));
    s.global = *std::move(global);
  } else {
    s.global.assign(dims.begin(), dims.end());
  }
  out.shardings.push_back(std::move(s));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ModuleShardings> ReadModuleShardings(absl::string_view text, bool shapes_are_local) {
  ModuleShardings out;
  AXE_ASSIGN_OR_RETURN(out.partitioning, ReadModulePartitioning(text));
  const bool local = shapes_are_local || out.partitioning.partitioned;
  size_t number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    if (!IsShardedInstruction(line)) continue;
    absl::StatusOr<ShardedInstruction> parsed = ParseShardedInstruction(line);
    if (!parsed.ok()) {
      return absl::Status(parsed.status().code(),
                          absl::StrCat("line ", number, ": ", parsed.status().message()));
    }
    const std::string name = InstructionName(line);
    const xla::Shape& shape = parsed->result;
    const HloSharding& sharding = parsed->sharding;
    if (sharding.kind() == HloSharding::Kind::kTuple && shape.IsTuple() &&
        shape.tuple_shapes().size() == sharding.elements().size()) {
      for (size_t i = 0; i < sharding.elements().size(); ++i) {
        AXE_RETURN_IF_ERROR(Add(out, number, absl::StrCat(name, "{", i, "}"),
                                shape.tuple_shapes()[i], sharding.elements()[i], local));
      }
    } else {
      AXE_RETURN_IF_ERROR(Add(out, number, name, shape, sharding, local));
    }
  }
  return out;
}

}  // namespace axe::sharding
