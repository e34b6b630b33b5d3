// SummarizeHloModule and DecidePartitioning (hlo_module_summary.h).
#include "axe/sharding/hlo_module_summary.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/hlo_replica_groups.h"

namespace axe::sharding {

namespace hlo_module_summary {
namespace {

// The custom-calls that carry shardings until the SPMD partitioner replaces them.
bool IsShardingMarker(absl::string_view target) {
  return target == "Sharding" || target == "SPMDFullToShardShape" ||
         target == "SPMDShardToFullShape" || absl::StartsWith(target, "xla.sdy.");
}

}  // namespace
}  // namespace hlo_module_summary

PartitioningEvidence DecidePartitioning(const HloModuleText& module) {
  using hlo_module_summary::IsShardingMarker;
  PartitioningEvidence out;
  const ModulePartitioning& p = module.partitioning;
  out.partitioned = p.partitioned;
  out.num_partitions = p.num_partitions;
  out.decision = p.reason;
  if (!p.has_header) {
    out.evidence.push_back("no HloModule header line: nothing says how many partitions");
  } else if (p.num_partitions > 1) {
    out.evidence.push_back(absl::StrCat("the header says num_partitions=", p.num_partitions));
  } else {
    out.evidence.push_back("the header has no num_partitions > 1 (one partition)");
  }
  const std::string entry = module.entry ? module.computations[*module.entry].name : "";
  if (entry.empty()) {
    out.evidence.push_back("no ENTRY computation");
  } else if (absl::EndsWith(entry, "_spmd")) {
    out.evidence.push_back(
        absl::StrCat("ENTRY ", entry, ": the SPMD partitioner names what it writes ..._spmd"));
  } else {
    out.evidence.push_back(
        absl::StrCat("ENTRY ", entry, ": not a name the SPMD partitioner writes (..._spmd)"));
  }
  int64_t channel = 0, sharded = 0, partition_ids = 0, markers = 0, uneven = 0, tiled = 0;
  for (const ModuleInstruction& ins : module.instructions) {
    if (ins.channel_id) ++channel;
    if (ins.sharding) ++sharded;
    if (ins.opcode == "partition-id") ++partition_ids;
    if (IsShardingMarker(ins.custom_call_target)) ++markers;
    if (ins.sharding && ins.sharding->kind() == HloSharding::Kind::kTiled && ins.result.IsArray() &&
        ins.sharding->TiledDataRank() == ins.result.dimensions().size()) {
      ++tiled;
      for (size_t d = 0; d < ins.result.dimensions().size(); ++d) {
        if (ins.result.dimensions(d) % ins.sharding->tiles()->dims()[d] != 0) {
          ++uneven;
          break;
        }
      }
    }
  }
  if (markers > 0) {
    out.evidence.push_back(
        absl::StrCat(markers,
                     " sharding custom-call(s) (Sharding, SPMDFullToShardShape, xla.sdy.*): the "
                     "partitioner replaces them, so the module is not partitioned yet"));
  }
  if (tiled > 0) {
    out.evidence.push_back(
        absl::StrCat(uneven, " of ", tiled, " tiled shardings do not divide the shape as written",
                     uneven > 0 && !p.partitioned
                         ? ": read as global shapes, those are split unevenly (XLA pads them)"
                         : ""));
  }
  out.evidence.push_back(
      absl::StrCat(channel, " instruction(s) with a channel_id (cross-partition communication)"));
  if (partition_ids > 0) {
    out.evidence.push_back(absl::StrCat(
        partition_ids, " partition-id instruction(s) (the partitioner's per-device offsets)"));
  }
  out.evidence.push_back(absl::StrCat(
      sharded, " instruction(s) with a sharding=, read as ",
      p.partitioned ? "one device's shape (global = shape x tiles)" : "the whole array's shape"));
  return out;
}

namespace hlo_module_summary {
namespace {

int64_t SaturatingAdd(int64_t a, int64_t b) {
  return CheckedAdd(a, b).value_or(std::numeric_limits<int64_t>::max());
}

// The devices the module runs on: num_partitions, or more when a sharding names more (a
// module before partitioning may have no num_partitions in its header).
int64_t NumDevices(const HloModuleText& module, PartitioningEvidence& evidence) {
  int64_t named = 0;
  for (const ModuleInstruction& ins : module.instructions) {
    if (ins.sharding) named = std::max(named, DeviceCountNamed(*ins.sharding));
  }
  if (named > evidence.num_partitions) {
    evidence.evidence.push_back(absl::StrCat(
        "the shardings name ", named, " devices: the module is read for ", named, " devices"));
    return named;
  }
  return evidence.num_partitions;
}

void SortCollectives(HloModuleSummary& s, size_t top) {
  std::map<std::string, OpcodeCount> by_opcode;
  for (const CollectiveSummary& c : s.collectives) {
    OpcodeCount& o = by_opcode[c.opcode];
    o.opcode = c.opcode;
    ++o.count;
    o.total_bytes = SaturatingAdd(o.total_bytes, c.total_bytes);
    s.collective_total_bytes = SaturatingAdd(s.collective_total_bytes, c.total_bytes);
  }
  for (auto& [opcode, count] : by_opcode) s.collectives_by_opcode.push_back(count);
  s.collective_count = s.collectives.size();
  std::stable_sort(s.collectives.begin(), s.collectives.end(),
                   [](const CollectiveSummary& a, const CollectiveSummary& b) {
                     return a.total_bytes > b.total_bytes;
                   });
  if (top != 0 && s.collectives.size() > top) s.collectives.resize(top);
}

}  // namespace
}  // namespace hlo_module_summary

absl::StatusOr<HloModuleSummary> SummarizeHloModule(const HloModuleText& module,
                                                    const SummaryOptions& options) {
  HloModuleSummary s;
  if (!module.entry) return absl::InvalidArgumentError("the module has no ENTRY computation");
  s.name = module.name;
  s.lines = module.lines;
  s.computations = module.computations.size();
  s.instructions = module.instructions.size();
  s.entry = module.computations[*module.entry].name;
  s.partitioning = DecidePartitioning(module);
  s.num_devices = hlo_module_summary::NumDevices(module, s.partitioning);
  const bool partitioned = s.partitioning.partitioned;
  AXE_ASSIGN_OR_RETURN(s.sharded, ShardedValues(module, partitioned, s.num_devices, options.top,
                                                s.sharded_count, s.skipped));
  AXE_ASSIGN_OR_RETURN(s.collectives, SummarizeCollectives(module, s.num_devices));
  hlo_module_summary::SortCollectives(s, options.top);
  for (CollectiveSummary& c : s.collectives) {
    if (!c.pairs.empty() || c.opcode.find("permute") != std::string::npos) continue;
    AXE_ASSIGN_OR_RETURN(c.groups, ParseReplicaGroups(c.groups_text, s.num_devices));
  }
  AXE_ASSIGN_OR_RETURN(s.memory, SummarizeMemory(module, partitioned, s.num_devices, options.top));
  return s;
}

}  // namespace axe::sharding
