// axe hlo summary: a whole (partitioned) HLO module: partitioning, shardings, collectives
// and memory per device (axe/sharding/hlo_module_summary.h computes; this file prints).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/memory_budget.h"
#include "axe/base/status_macros.h"
#include "axe/picture/hlo_module_picture.h"
#include "axe/sharding/hlo_module.h"
#include "axe/sharding/hlo_module_summary.h"
#include "cli.h"
#include "progress.h"

namespace axe::cli {
namespace hlo_cmd {
namespace {

using sharding::CollectiveSummary;
using sharding::HloModuleSummary;
using sharding::LiveValue;
using sharding::ShardedValue;

struct SummaryArgs {
  std::string module;
  int64_t top = 10;
  std::string svg;
};

std::string Dims(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

std::string Box(const sharding::DeviceShard& d) {
  std::vector<std::string> parts;
  for (const auto& [start, stop] : d.index) parts.push_back(absl::StrCat(start, ":", stop));
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

// "devices 0,4: [0:16, 0:16]" per distinct box (replica group), at most `max` lines.
std::vector<std::string> BoxLines(const std::vector<sharding::DeviceShard>& map, size_t max) {
  std::vector<std::string> out;
  const std::vector<std::vector<int64_t>> groups = sharding::ReplicaGroups(map);
  for (size_t g = 0; g < groups.size(); ++g) {
    if (out.size() == max) {
      out.push_back(absl::StrCat("... ", groups.size() - max, " more boxes (--json lists all)"));
      break;
    }
    const sharding::DeviceShard* first = nullptr;
    for (const sharding::DeviceShard& d : map) {
      if (d.device == groups[g].front()) first = &d;
    }
    out.push_back(absl::StrCat(groups[g].size() == 1 ? "device " : "devices ",
                               absl::StrJoin(groups[g], ","), ": ", first ? Box(*first) : "?"));
  }
  return out;
}

std::string Listed(size_t shown, size_t total) {
  return shown == total ? absl::StrCat(total) : absl::StrCat(shown, " of ", total);
}

void PrintHeader(std::ostream& out, const HloModuleSummary& s) {
  out << "module " << s.name << ": " << s.computations << " computations, " << s.instructions
      << " instructions, " << s.lines << " lines; entry " << s.entry << "\n";
  out << (s.partitioning.partitioned ? "partitioned" : "not partitioned") << ", " << s.num_devices
      << (s.num_devices == 1 ? " device" : " devices") << ": " << s.partitioning.decision << "\n";
  for (const std::string& e : s.partitioning.evidence) out << "  - " << e << "\n";
}

void PrintSharded(std::ostream& out, const HloModuleSummary& s) {
  out << "\nsharded values (" << Listed(s.sharded.size(), s.sharded_count)
      << ", largest first; device ids are logical, positions in the device assignment):\n";
  for (const ShardedValue& v : s.sharded) {
    out << "  " << v.instruction << " = " << v.opcode << ", line " << v.line << ": " << v.shape
        << " sharding=" << v.sharding.ToString() << "\n";
    out << "    global " << Dims(v.global) << " (" << v.global_bytes
        << " bytes), each device's shard at most " << Dims(v.shard) << " (" << v.shard_bytes
        << " bytes)\n";
    for (const std::string& line : BoxLines(v.devices, 8)) out << "    " << line << "\n";
  }
  for (const std::string& why : s.skipped) out << "  skipped " << why << "\n";
}

void PrintCollectives(std::ostream& out, const HloModuleSummary& s) {
  out << "\ncollectives (" << Listed(s.collectives.size(), s.collective_count)
      << ", most bytes first; bytes per the ring model, docs/hlo.md):\n";
  for (const CollectiveSummary& c : s.collectives) {
    out << "  " << c.instruction << " = " << c.opcode << ", line " << c.line
        << (c.computation == s.entry ? "" : absl::StrCat(" (in ", c.computation, ")"))
        << (c.channel_id ? absl::StrCat(", channel_id=", *c.channel_id) : "") << "\n";
    out << "    " << c.operand_shapes << " -> " << c.result_shape << "\n";
    if (c.opcode.find("permute") == std::string::npos) {
      out << "    replica_groups=" << c.groups_text << ": " << c.num_groups
          << (c.num_groups == 1 ? " group" : " groups")
          << (c.group_size > 0 ? absl::StrCat(" of ", c.group_size) : " of different sizes")
          << "\n";
    } else {
      out << "    source_target_pairs=" << c.groups_text << ": " << c.pairs.size() << " pairs\n";
    }
    out << "    each device: " << c.operand_bytes << " bytes in, sends " << c.max_send_bytes
        << ", receives " << c.max_receive_bytes << "; " << c.devices << " devices send "
        << c.total_bytes << " bytes in all\n";
  }
  for (const sharding::OpcodeCount& o : s.collectives_by_opcode) {
    out << "  " << o.opcode << ": " << o.count << " x, " << o.total_bytes << " bytes\n";
  }
  out << "  total: " << s.collective_count << " collectives, " << s.collective_total_bytes
      << " bytes sent by all devices\n";
}

void PrintMemory(std::ostream& out, const HloModuleSummary& s) {
  const sharding::MemorySummary& m = s.memory;
  out << "\nmemory "
      << (s.partitioning.partitioned || s.num_devices == 1
              ? "per device (every device runs this program)"
              : "of the whole program (shapes are global)")
      << ":\n";
  out << "  parameters " << m.parameter_bytes << " bytes, outputs " << m.output_bytes
      << " bytes (as compiled.memory_analysis(): tuple outputs add 8 bytes per element)\n";
  for (const sharding::MemorySpaceBytes& b : m.spaces) {
    out << "  memory space S(" << b.memory_space << "): parameters " << b.parameter_bytes
        << " bytes, outputs " << b.output_bytes << " bytes\n";
  }
  if (!m.per_device_note.empty()) out << "  per device: " << m.per_device_note << "\n";
  for (size_t d = 0; d < m.parameter_bytes_per_device.size(); ++d) {
    out << "  device " << d << ": parameters " << m.parameter_bytes_per_device[d]
        << " bytes, outputs " << m.output_bytes_per_device[d] << " bytes\n";
  }
  out << "  peak live " << m.peak_live_bytes << " bytes at " << m.peak_at
      << " (entry schedule order); largest values live there:\n";
  for (const LiveValue& v : m.live_at_peak) {
    out << "    " << v.instruction << " = " << v.opcode << ", line " << v.line << ": " << v.bytes
        << " bytes in S(" << v.memory_space << "), live from " << v.defined_at << " to "
        << v.last_use << "\n";
  }
}

Json DevicesJson(const std::vector<sharding::DeviceShard>& map) {
  Json out = Json::array();
  for (const sharding::DeviceShard& d : map) {
    Json box = Json::array();
    for (const auto& [start, stop] : d.index) box.push_back({start, stop});
    out.push_back({{"device", d.device}, {"index", box}, {"replica_group", d.replica_group}});
  }
  return out;
}

Json SummaryJson(const HloModuleSummary& s) {
  Json sharded = Json::array();
  for (const ShardedValue& v : s.sharded) {
    sharded.push_back({{"instruction", v.instruction},
                       {"computation", v.computation},
                       {"opcode", v.opcode},
                       {"line", v.line},
                       {"shape", v.shape},
                       {"sharding", v.sharding.ToString()},
                       {"global_dims", v.global},
                       {"shard_dims", v.shard},
                       {"global_bytes", v.global_bytes},
                       {"shard_bytes", v.shard_bytes},
                       {"devices", DevicesJson(v.devices)}});
  }
  Json collectives = Json::array();
  for (const CollectiveSummary& c : s.collectives) {
    Json pairs = Json::array();
    for (const auto& [a, b] : c.pairs) pairs.push_back({a, b});
    collectives.push_back({{"instruction", c.instruction},
                           {"computation", c.computation},
                           {"opcode", c.opcode},
                           {"line", c.line},
                           {"channel_id", c.channel_id ? Json(*c.channel_id) : Json(nullptr)},
                           {"groups_text", c.groups_text},
                           {"num_groups", c.num_groups},
                           {"group_size", c.group_size},
                           {"replica_groups", c.groups},
                           {"source_target_pairs", pairs},
                           {"operand_shapes", c.operand_shapes},
                           {"result_shape", c.result_shape},
                           {"operand_bytes", c.operand_bytes},
                           {"devices", c.devices},
                           {"max_send_bytes", c.max_send_bytes},
                           {"max_receive_bytes", c.max_receive_bytes},
                           {"total_bytes", c.total_bytes}});
  }
  Json by_opcode = Json::array();
  for (const sharding::OpcodeCount& o : s.collectives_by_opcode) {
    by_opcode.push_back({{"opcode", o.opcode}, {"count", o.count}, {"total_bytes", o.total_bytes}});
  }
  const sharding::MemorySummary& m = s.memory;
  Json spaces = Json::array();
  for (const sharding::MemorySpaceBytes& b : m.spaces) {
    spaces.push_back({{"memory_space", b.memory_space},
                      {"parameter_bytes", b.parameter_bytes},
                      {"output_bytes", b.output_bytes}});
  }
  Json live = Json::array();
  for (const LiveValue& v : m.live_at_peak) {
    live.push_back({{"instruction", v.instruction},
                    {"opcode", v.opcode},
                    {"line", v.line},
                    {"bytes", v.bytes},
                    {"memory_space", v.memory_space},
                    {"defined_at", v.defined_at},
                    {"last_use", v.last_use}});
  }
  return {{"module", s.name},
          {"lines", s.lines},
          {"computations", s.computations},
          {"instructions", s.instructions},
          {"entry", s.entry},
          {"partitioned", s.partitioning.partitioned},
          {"num_partitions", s.partitioning.num_partitions},
          {"num_devices", s.num_devices},
          {"decision", s.partitioning.decision},
          {"evidence", s.partitioning.evidence},
          {"sharded_count", s.sharded_count},
          {"sharded", sharded},
          {"skipped", s.skipped},
          {"collective_count", s.collective_count},
          {"collective_total_bytes", s.collective_total_bytes},
          {"collectives_by_opcode", by_opcode},
          {"collectives", collectives},
          {"memory",
           {{"parameter_bytes", m.parameter_bytes},
            {"output_bytes", m.output_bytes},
            {"memory_spaces", spaces},
            {"parameter_bytes_per_device", m.parameter_bytes_per_device},
            {"output_bytes_per_device", m.output_bytes_per_device},
            {"per_device_note", m.per_device_note},
            {"peak_live_bytes", m.peak_live_bytes},
            {"peak_at", m.peak_at},
            {"live_at_peak", live}}}};
}

absl::Status RunSummary(std::ostream& out, const SummaryArgs& args, bool json,
                        const MemoryBudget& budget) {
  if (args.top < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--top: ", args.top, " is negative (0 lists everything)"));
  }
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(args.module, "module"));
  AXE_RETURN_IF_ERROR(budget.Check(
      CheckedMul(static_cast<int64_t>(text.size()), sharding::kHloModuleBytesPerTextByte),
      absl::StrCat("reading a module of ", text.size(), " bytes")));
  absl::StatusOr<sharding::HloModuleText> module = sharding::ParseHloModule(text);
  if (!module.ok()) return InOption("module", module.status());
  absl::StatusOr<HloModuleSummary> s =
      sharding::SummarizeHloModule(*module, {.top = static_cast<size_t>(args.top)});
  if (!s.ok()) return InOption("module", s.status());
  if (!args.svg.empty()) {
    AXE_ASSIGN_OR_RETURN(std::string svg, picture::HloModuleSvg(*module, *s));
    AXE_RETURN_IF_ERROR(WriteOutputFile(args.svg, svg, "--svg"));
  }
  if (json) {
    PrintJson(out, SummaryJson(*s));
    return absl::OkStatus();
  }
  PrintHeader(out, *s);
  PrintSharded(out, *s);
  PrintCollectives(out, *s);
  PrintMemory(out, *s);
  return absl::OkStatus();
}

void AddHlo(CLI::App& app, Selected& selected) {
  CLI::App* group =
      app.add_subcommand("hlo",
                         "Whole HLO modules (dumps, compiled.as_text()): partitioning, shardings, "
                         "collectives and memory per device");
  group->require_subcommand(1);
  auto args = std::make_shared<SummaryArgs>();
  CLI::App* cmd = group->add_subcommand(
      "summary",
      "Says whether a module is partitioned and why; every sharded value's global shape, "
      "shard and devices; every collective's groups and bytes (ring model); parameter, "
      "output and peak live bytes per device and memory space");
  cmd->alias("explain");
  cmd->add_option("module", args->module,
                  "The module's text: '@FILE' reads a file, '-' standard input")
      ->required();
  cmd->add_option("--top", args->top,
                  "List at most N sharded values, collectives and live values, largest first "
                  "(default 10; 0 lists all)");
  cmd->add_option("--svg", args->svg,
                  "Also draw the entry computation's instructions with their shardings and "
                  "collectives as an SVG picture into FILE")
      ->check(OutputFileName());
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected] {
    ProgressLine progress("hlo summary", selected);
    return RunSummary(*selected.out, *args, selected.json, selected.budget);
  });
}

AXE_CLI_COMMAND_GROUP(24, AddHlo);

}  // namespace
}  // namespace hlo_cmd
}  // namespace axe::cli
