// SummarizeCollectives: every collective of a module with its device groups and the bytes
// it moves under the ring model (hlo_module_summary.h).
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/hlo_module_summary.h"
#include "axe/sharding/hlo_replica_groups.h"
#include "axe/xla/sizes.h"
#include "hlo_line_column.h"

namespace axe::sharding {
namespace hlo_collectives {
namespace {

enum class Kind { kNone, kAllReduce, kAllGather, kReduceScatter, kAllToAll, kPermute };

// The collective an opcode is, with its -start form; -done and others are kNone.
Kind KindOf(absl::string_view opcode) {
  absl::ConsumeSuffix(&opcode, "-start");
  if (opcode == "all-reduce") return Kind::kAllReduce;
  if (opcode == "all-gather") return Kind::kAllGather;
  if (opcode == "reduce-scatter") return Kind::kReduceScatter;
  if (opcode == "all-to-all") return Kind::kAllToAll;
  if (opcode == "collective-permute") return Kind::kPermute;
  return Kind::kNone;
}

absl::Status At(const ModuleInstruction& ins, size_t column, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("line ", ins.line, ", column ", column, ": ", ins.name, ": ", message));
}

// The array bytes of a shape's leaves (ByteSizeOf: no layout padding).
absl::StatusOr<int64_t> LeafBytes(const xla::Shape& shape) {
  return xla::ByteSizeOfElementsRecursive(shape);
}

// bytes x num / den without overflow in the product (num < den or num = 2(den-1)).
absl::StatusOr<int64_t> Scaled(int64_t bytes, int64_t num, int64_t den) {
  if (den <= 0) return 0;
  std::optional<int64_t> whole = CheckedMul(bytes / den, num);
  std::optional<int64_t> part = CheckedMul(bytes % den, num);
  if (!whole || !part) return absl::OutOfRangeError("collective bytes overflow int64");
  std::optional<int64_t> sum = CheckedAdd(*whole, *part / den);
  if (!sum) return absl::OutOfRangeError("collective bytes overflow int64");
  return *sum;
}

// Bytes each device of a group of g sends (and receives) for `bytes` operand bytes.
absl::StatusOr<int64_t> RingBytes(Kind kind, int64_t bytes, int64_t g) {
  switch (kind) {
    case Kind::kAllReduce: return Scaled(bytes, 2 * (g - 1), g);
    case Kind::kAllGather: return Scaled(bytes, g - 1, 1);
    case Kind::kReduceScatter:
    case Kind::kAllToAll: return Scaled(bytes, g - 1, g);
    default: return 0;
  }
}

absl::Status AddTo(int64_t& total, int64_t bytes) {
  std::optional<int64_t> sum = CheckedAdd(total, bytes);
  if (!sum) return absl::OutOfRangeError("collective bytes overflow int64");
  total = *sum;
  return absl::OkStatus();
}

absl::Status Groups(const ModuleInstruction& ins, Kind kind, int64_t num_devices,
                    CollectiveSummary& c) {
  if (kind != Kind::kPermute) {
    c.groups_text = ins.replica_groups.empty() ? "{}" : ins.replica_groups;
    // The sizes only: the groups of the collectives listed are expanded later.
    absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> sizes =
        ReplicaGroupSizes(c.groups_text, num_devices);
    if (!sizes.ok()) {
      return internal::AtLineColumn(ins.line, ins.replica_groups_column, sizes.status(),
                                    absl::StrCat(ins.name, ": replica_groups: "));
    }
    c.group_size = sizes->empty() ? 0 : sizes->front().first;
    for (const auto& [size, count] : *sizes) {
      if (size != c.group_size) c.group_size = 0;
      c.num_groups += count;
      c.devices += size * count;  // at most kMaxReplicaGroupDevices
      AXE_ASSIGN_OR_RETURN(int64_t each, RingBytes(kind, c.operand_bytes, size));
      c.max_send_bytes = std::max(c.max_send_bytes, each);
      AXE_ASSIGN_OR_RETURN(int64_t group_total, Scaled(each, size * count, 1));
      AXE_RETURN_IF_ERROR(AddTo(c.total_bytes, group_total));
    }
    c.max_receive_bytes = c.max_send_bytes;
    return absl::OkStatus();
  }
  c.groups_text = ins.source_target_pairs;
  absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> pairs =
      ParseSourceTargetPairs(ins.source_target_pairs.empty() ? "{}" : ins.source_target_pairs);
  if (!pairs.ok()) {
    return internal::AtLineColumn(ins.line, ins.source_target_pairs_column, pairs.status(),
                                  absl::StrCat(ins.name, ": source_target_pairs: "));
  }
  c.pairs = *std::move(pairs);
  c.num_groups = static_cast<int64_t>(c.pairs.size());
  absl::flat_hash_map<int64_t, int64_t> sends, receives;
  for (const auto& [source, target] : c.pairs) {
    ++sends[source];
    ++receives[target];
    AXE_RETURN_IF_ERROR(AddTo(c.total_bytes, c.operand_bytes));
  }
  absl::flat_hash_map<int64_t, bool> devices;
  for (const auto& [d, n] : sends) {
    devices[d] = true;
    AXE_ASSIGN_OR_RETURN(int64_t b, Scaled(c.operand_bytes, n, 1));
    c.max_send_bytes = std::max(c.max_send_bytes, b);
  }
  for (const auto& [d, n] : receives) {
    devices[d] = true;
    AXE_ASSIGN_OR_RETURN(int64_t b, Scaled(c.operand_bytes, n, 1));
    c.max_receive_bytes = std::max(c.max_receive_bytes, b);
  }
  c.devices = static_cast<int64_t>(devices.size());
  return absl::OkStatus();
}

absl::StatusOr<CollectiveSummary> Summarize(const HloModuleText& module,
                                            const ModuleInstruction& ins, Kind kind,
                                            int64_t num_devices) {
  CollectiveSummary c;
  c.instruction = ins.name;
  c.computation = module.computations[ins.computation].name;
  c.opcode = ins.opcode;
  c.line = ins.line;
  c.channel_id = ins.channel_id;
  c.result_shape = ins.result.ToString();
  std::vector<std::string> shapes;
  for (size_t i = 0; i < ins.operand_names.size(); ++i) {
    const xla::Shape* shape = module.OperandShape(ins, i);
    if (!shape) {
      return At(ins, 1,
                absl::StrCat("the operand ", ins.operand_names[i],
                             " has no shape: it is defined nowhere before it in the computation"));
    }
    shapes.push_back(shape->ToString());
    absl::StatusOr<int64_t> bytes = LeafBytes(*shape);
    if (!bytes.ok()) return At(ins, 1, bytes.status().message());
    AXE_RETURN_IF_ERROR(AddTo(c.operand_bytes, *bytes));
  }
  c.operand_shapes = absl::StrJoin(shapes, ", ");
  AXE_RETURN_IF_ERROR(Groups(ins, kind, num_devices, c));
  return c;
}

}  // namespace
}  // namespace hlo_collectives

absl::StatusOr<std::vector<CollectiveSummary>> SummarizeCollectives(const HloModuleText& module,
                                                                    int64_t num_devices) {
  using namespace hlo_collectives;  // NOLINT(build/namespaces)
  std::vector<CollectiveSummary> out;
  for (const ModuleInstruction& ins : module.instructions) {
    const Kind kind = KindOf(ins.opcode);
    if (kind == Kind::kNone) continue;
    AXE_ASSIGN_OR_RETURN(CollectiveSummary c, Summarize(module, ins, kind, num_devices));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace axe::sharding
