// ShardedValues: every array of a module that a `sharding=` places, with its global shape,
// one device's shard and the devices' boxes (hlo_module_summary.h).
#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/hlo_module_summary.h"
#include "axe/xla/sizes.h"

namespace axe::sharding {
namespace hlo_sharded_values {
namespace {

absl::Status At(const ModuleInstruction& ins, absl::string_view name, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("line ", ins.line, ", column ", ins.sharding_column, ": ", name, ": ", message));
}

absl::StatusOr<int64_t> Bytes(const xla::Shape& shape, absl::Span<const int64_t> dims) {
  int64_t elements = 1;
  for (int64_t d : dims) {
    std::optional<int64_t> product = CheckedMul(elements, d);
    if (!product) return absl::OutOfRangeError("the element count overflows int64");
    elements = *product;
  }
  return xla::ElementsToBytes(shape, elements);
}

// One array's sharded value (without its device map), or nullopt with a reason in `skipped`.
absl::StatusOr<std::optional<ShardedValue>> Value(const HloModuleText& module,
                                                  const ModuleInstruction& ins, std::string name,
                                                  const xla::Shape& shape,
                                                  const HloSharding& sharding, bool partitioned,
                                                  std::vector<std::string>& skipped) {
  if (!shape.IsArray()) {
    skipped.push_back(absl::StrCat("line ", ins.line, " ", name, ": not an array shape"));
    return std::nullopt;
  }
  const HloSharding::Kind kind = sharding.kind();
  if (kind == HloSharding::Kind::kManual || kind == HloSharding::Kind::kUnknown ||
      kind == HloSharding::Kind::kTuple) {
    skipped.push_back(absl::StrCat("line ", ins.line, " ", name, ": ", sharding.ToString(),
                                   " places no elements"));
    return std::nullopt;
  }
  ShardedValue v;
  v.computation = module.computations[ins.computation].name;
  v.opcode = ins.opcode;
  v.line = ins.line;
  v.shape = shape.ToString();
  v.sharding = sharding;
  const absl::Span<const int64_t> dims = shape.dimensions();
  if (partitioned) {
    absl::StatusOr<std::vector<int64_t>> global = GlobalDimsFromLocal(dims, sharding);
    if (!global.ok()) return At(ins, name, global.status().message());
    v.global = *std::move(global);
  } else {
    v.global.assign(dims.begin(), dims.end());
    if (kind == HloSharding::Kind::kTiled && sharding.TiledDataRank() != dims.size()) {
      return At(
          ins, name,
          absl::StrCat("the sharding ", sharding.ToString(), " tiles ", sharding.TiledDataRank(),
                       " dimensions, but the shape has rank ", dims.size()));
    }
  }
  v.shard = v.global;
  if (kind == HloSharding::Kind::kTiled) {
    for (size_t i = 0; i < v.shard.size(); ++i) {
      const int64_t t = sharding.tiles()->dims()[i];
      v.shard[i] = v.global[i] / t + (v.global[i] % t != 0);
    }
  }
  absl::StatusOr<int64_t> global_bytes = Bytes(shape, v.global);
  absl::StatusOr<int64_t> shard_bytes = Bytes(shape, v.shard);
  if (!global_bytes.ok()) return At(ins, name, global_bytes.status().message());
  if (!shard_bytes.ok()) return At(ins, name, shard_bytes.status().message());
  v.global_bytes = *global_bytes;
  v.shard_bytes = *shard_bytes;
  v.instruction = std::move(name);
  return v;
}

}  // namespace
}  // namespace hlo_sharded_values

absl::StatusOr<std::vector<ShardedValue>> ShardedValues(const HloModuleText& module,
                                                        bool partitioned, int64_t num_devices,
                                                        size_t top, size_t& count,
                                                        std::vector<std::string>& skipped) {
  using namespace hlo_sharded_values;  // NOLINT(build/namespaces)
  std::vector<ShardedValue> out;
  std::vector<const ModuleInstruction*> from;  // each value's instruction
  for (const ModuleInstruction& ins : module.instructions) {
    if (!ins.sharding) continue;
    const HloSharding& sharding = *ins.sharding;
    const xla::Shape& shape = ins.result;
    std::vector<std::optional<ShardedValue>> values;
    if (sharding.kind() == HloSharding::Kind::kTuple && shape.IsTuple() &&
        shape.tuple_shapes().size() == sharding.elements().size()) {
      for (size_t i = 0; i < sharding.elements().size(); ++i) {
        AXE_ASSIGN_OR_RETURN(
            values.emplace_back(),
            Value(module, ins, absl::StrCat(ins.name, "{", i, "}"), shape.tuple_shapes()[i],
                  sharding.elements()[i], partitioned, skipped));
      }
    } else {
      AXE_ASSIGN_OR_RETURN(values.emplace_back(),
                           Value(module, ins, ins.name, shape, sharding, partitioned, skipped));
    }
    for (std::optional<ShardedValue>& v : values) {
      if (!v) continue;
      out.push_back(*std::move(v));
      from.push_back(&ins);
    }
  }
  count = out.size();
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return out[a].global_bytes > out[b].global_bytes; });
  const size_t keep = top == 0 ? order.size() : std::min(top, order.size());
  // Each map holds one box per device: refuse before building any.
  const int64_t per_map = std::max<int64_t>(num_devices, 1);
  if (keep > 0 && per_map > kMaxListedDeviceBoxes / static_cast<int64_t>(keep)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the device maps of ", keep, " sharded values on ", per_map, " devices hold more than ",
        kMaxListedDeviceBoxes, " device boxes: list fewer values"));
  }
  std::vector<ShardedValue> kept;
  for (size_t k = 0; k < keep; ++k) {
    ShardedValue& v = out[order[k]];
    absl::StatusOr<std::vector<DeviceShard>> map =
        DevicesIndicesMap(v.sharding, v.global, num_devices);
    if (!map.ok()) return At(*from[order[k]], v.instruction, map.status().message());
    v.devices = *std::move(map);
    kept.push_back(std::move(v));
  }
  return kept;
}

}  // namespace axe::sharding
