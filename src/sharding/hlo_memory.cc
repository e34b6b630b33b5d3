// SummarizeMemory: per device and memory space, the entry computation's parameter and
// output bytes and the values live at the peak of its schedule (hlo_module_summary.h).
#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/hlo_module_summary.h"
#include "axe/xla/sizes.h"

namespace axe::sharding {
namespace hlo_memory {
namespace {

absl::Status Add(int64_t& total, int64_t bytes) {
  std::optional<int64_t> sum = CheckedAdd(total, bytes);
  if (!sum) return absl::OutOfRangeError("a memory total overflows int64");
  total = *sum;
  return absl::OkStatus();
}

int64_t MemorySpaceOf(const xla::Shape& array) {
  return array.has_layout() ? array.layout().memory_space() : 0;
}

// Calls f(leaf index, array) for every array leaf of a shape (top-level tuple elements get
// their index; nested tuples are walked with an explicit stack).
template <typename F>
absl::Status ForEachArray(const xla::Shape& shape, F f) {
  std::vector<std::pair<const xla::Shape*, int64_t>> stack = {{&shape, -1}};
  while (!stack.empty()) {
    auto [s, top_index] = stack.back();
    stack.pop_back();
    if (s->IsTuple()) {
      for (size_t i = s->tuple_shapes().size(); i-- > 0;) {
        stack.push_back({&s->tuple_shapes()[i],
                         top_index < 0 && s == &shape ? static_cast<int64_t>(i) : top_index});
      }
      continue;
    }
    const xla::Shape& array = s->array_shape();
    if (!array.IsArray()) continue;
    AXE_RETURN_IF_ERROR(f(top_index, array));
  }
  return absl::OkStatus();
}

// XLA's size of a value: ArraySize of every array leaf plus an 8-byte pointer per tuple
// element (ShapeUtil::ByteSizeOf with pointer size 8).
absl::StatusOr<int64_t> XlaBytes(const xla::Shape& shape) {
  int64_t total = 0;
  std::vector<const xla::Shape*> stack = {&shape};
  while (!stack.empty()) {
    const xla::Shape* s = stack.back();
    stack.pop_back();
    if (s->IsTuple()) {
      AXE_RETURN_IF_ERROR(Add(total, 8 * static_cast<int64_t>(s->tuple_shapes().size())));
      for (const xla::Shape& e : s->tuple_shapes()) stack.push_back(&e);
      continue;
    }
    const xla::Shape& array = s->array_shape();
    if (!array.IsArray()) continue;
    AXE_ASSIGN_OR_RETURN(int64_t bytes, xla::ArraySize(array));
    AXE_RETURN_IF_ERROR(Add(total, bytes));
  }
  return total;
}

absl::StatusOr<int64_t> ArrayLeafBytes(const xla::Shape& shape) {
  int64_t total = 0;
  AXE_RETURN_IF_ERROR(ForEachArray(shape, [&](int64_t, const xla::Shape& a) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(int64_t bytes, xla::ArraySize(a));
    return Add(total, bytes);
  }));
  return total;
}

absl::Status AtLine(const ModuleInstruction& ins, const absl::Status& st) {
  return absl::Status(st.code(),
                      absl::StrCat("line ", ins.line, ": ", ins.name, ": ", st.message()));
}

// The bytes device `device` holds of array `a` (leaf `index`) of an instruction with a
// sharding: its box's elements; the whole array without one.
absl::StatusOr<int64_t> DeviceBytes(const ModuleInstruction& ins, int64_t index,
                                    const xla::Shape& a, int64_t num_devices,
                                    std::vector<int64_t>& per_device) {
  const HloSharding* sharding = ins.sharding ? &*ins.sharding : nullptr;
  if (sharding && sharding->kind() == HloSharding::Kind::kTuple) {
    sharding = index >= 0 && static_cast<size_t>(index) < sharding->elements().size()
                   ? &sharding->elements()[index]
                   : nullptr;
  }
  AXE_ASSIGN_OR_RETURN(int64_t whole, xla::ByteSizeOf(a));
  if (!sharding || sharding->kind() == HloSharding::Kind::kManual ||
      sharding->kind() == HloSharding::Kind::kUnknown) {
    for (int64_t& d : per_device) AXE_RETURN_IF_ERROR(Add(d, whole));
    return whole;
  }
  AXE_ASSIGN_OR_RETURN(std::vector<DeviceShard> map,
                       DevicesIndicesMap(*sharding, a.dimensions(), num_devices));
  for (const DeviceShard& shard : map) {
    if (shard.device < 0 || shard.device >= num_devices) continue;
    int64_t elements = 1;
    for (const auto& [start, stop] : shard.index) elements *= stop - start;  // within the array
    AXE_ASSIGN_OR_RETURN(int64_t bytes, xla::ElementsToBytes(a, elements));
    AXE_RETURN_IF_ERROR(Add(per_device[shard.device], bytes));
  }
  return whole;
}

// The buffers of the entry computation and where each is defined and last used.
struct Buffer {
  size_t instruction = 0;  // index into module.instructions
  int64_t bytes = 0;
  int64_t memory_space = 0;
  size_t defined_at = 0;
  size_t last_use = 0;
};

bool Aliases(absl::string_view opcode) {
  return opcode == "tuple" || opcode == "get-tuple-element" || opcode == "bitcast";
}

absl::StatusOr<std::vector<Buffer>> Buffers(const HloModuleText& module,
                                            const ModuleComputation& entry) {
  std::vector<Buffer> buffers;
  // Per value name: the buffers it stands for (an alias stands for its operands').
  absl::flat_hash_map<std::string, std::vector<size_t>> sources;
  const size_t n = entry.end_instruction - entry.first_instruction;
  for (size_t p = 0; p < n; ++p) {
    const ModuleInstruction& ins = module.instructions[entry.first_instruction + p];
    std::vector<size_t> mine;
    for (const std::string& operand : ins.operand_names) {
      auto it = sources.find(operand);
      if (it == sources.end()) continue;
      for (size_t b : it->second) {
        buffers[b].last_use = std::max(buffers[b].last_use, p);
        if (Aliases(ins.opcode) && mine.size() < 64) mine.push_back(b);
      }
    }
    if (!Aliases(ins.opcode)) {
      Buffer b{entry.first_instruction + p, 0, 0, p, p};
      absl::StatusOr<int64_t> bytes = ArrayLeafBytes(ins.result);
      if (!bytes.ok()) return AtLine(ins, bytes.status());
      b.bytes = *bytes;
      ForEachArray(ins.result, [&](int64_t, const xla::Shape& a) {
        b.memory_space = MemorySpaceOf(a);
        return absl::OkStatus();
      }).IgnoreError();
      // Parameters (the caller's) and the output live throughout.
      if (ins.opcode == "parameter") b.defined_at = 0;
      if (ins.opcode == "parameter" || ins.is_root) b.last_use = n - 1;
      mine = {buffers.size()};
      buffers.push_back(b);
    }
    if (ins.is_root) {
      for (size_t b : mine) buffers[b].last_use = n - 1;
    }
    sources[ins.name] = std::move(mine);
  }
  return buffers;
}

absl::Status Liveness(const HloModuleText& module, const ModuleComputation& entry, size_t top,
                      MemorySummary& out) {
  AXE_ASSIGN_OR_RETURN(std::vector<Buffer> buffers, Buffers(module, entry));
  const size_t n = entry.end_instruction - entry.first_instruction;
  if (n == 0) return absl::OkStatus();
  std::vector<int64_t> delta(n + 1, 0);
  for (const Buffer& b : buffers) {
    AXE_RETURN_IF_ERROR(Add(delta[b.defined_at], b.bytes));
    AXE_RETURN_IF_ERROR(Add(delta[b.last_use + 1], -b.bytes));
  }
  int64_t live = 0;
  size_t peak = 0;
  for (size_t p = 0; p < n; ++p) {
    AXE_RETURN_IF_ERROR(Add(live, delta[p]));
    if (live > out.peak_live_bytes) {
      out.peak_live_bytes = live;
      peak = p;
    }
  }
  out.peak_at = module.instructions[entry.first_instruction + peak].name;
  std::vector<LiveValue> at_peak;
  for (const Buffer& b : buffers) {
    if (b.defined_at > peak || b.last_use < peak) continue;
    const ModuleInstruction& ins = module.instructions[b.instruction];
    at_peak.push_back(LiveValue{ins.name, ins.opcode, ins.line, b.bytes, b.memory_space,
                                b.defined_at, b.last_use});
  }
  std::stable_sort(at_peak.begin(), at_peak.end(),
                   [](const LiveValue& a, const LiveValue& b) { return a.bytes > b.bytes; });
  if (top != 0 && at_peak.size() > top) at_peak.resize(top);
  out.live_at_peak = std::move(at_peak);
  return absl::OkStatus();
}

// Parameters and outputs by memory space, and per device when the shapes are global.
absl::Status EdgeBytes(const HloModuleText& module, const ModuleComputation& entry, bool per_device,
                       int64_t num_devices, MemorySummary& out) {
  std::map<int64_t, MemorySpaceBytes> spaces;
  if (per_device) {
    out.parameter_bytes_per_device.assign(num_devices, 0);
    out.output_bytes_per_device.assign(num_devices, 0);
  }
  for (size_t i = entry.first_instruction; i < entry.end_instruction; ++i) {
    const ModuleInstruction& ins = module.instructions[i];
    const bool parameter = ins.opcode == "parameter";
    if (!parameter && !ins.is_root) continue;
    absl::StatusOr<int64_t> xla_bytes = XlaBytes(ins.result);
    if (!xla_bytes.ok()) return AtLine(ins, xla_bytes.status());
    AXE_RETURN_IF_ERROR(Add(parameter ? out.parameter_bytes : out.output_bytes, *xla_bytes));
    std::vector<int64_t>& devices =
        parameter ? out.parameter_bytes_per_device : out.output_bytes_per_device;
    absl::Status st =
        ForEachArray(ins.result, [&](int64_t index, const xla::Shape& a) -> absl::Status {
          MemorySpaceBytes& s = spaces[MemorySpaceOf(a)];
          s.memory_space = MemorySpaceOf(a);
          AXE_ASSIGN_OR_RETURN(int64_t bytes, xla::ArraySize(a));
          AXE_RETURN_IF_ERROR(Add(parameter ? s.parameter_bytes : s.output_bytes, bytes));
          if (per_device) {
            AXE_RETURN_IF_ERROR(DeviceBytes(ins, index, a, num_devices, devices).status());
          }
          return absl::OkStatus();
        });
    if (!st.ok()) return AtLine(ins, st);
  }
  for (const auto& [space, bytes] : spaces) out.spaces.push_back(bytes);
  return absl::OkStatus();
}

}  // namespace
}  // namespace hlo_memory

absl::StatusOr<MemorySummary> SummarizeMemory(const HloModuleText& module, bool partitioned,
                                              int64_t num_devices, size_t top) {
  using namespace hlo_memory;  // NOLINT(build/namespaces)
  MemorySummary out;
  if (!module.entry) return absl::InvalidArgumentError("the module has no ENTRY computation");
  const ModuleComputation& entry = module.computations[*module.entry];
  bool per_device = !partitioned && num_devices > 1;
  if (per_device) {
    // One device box per sharded parameter or output and device: bounded work.
    int64_t sharded = 0;
    for (size_t i = entry.first_instruction; i < entry.end_instruction; ++i) {
      const ModuleInstruction& ins = module.instructions[i];
      if (ins.sharding && (ins.opcode == "parameter" || ins.is_root)) {
        sharded += 1 + static_cast<int64_t>(ins.result.tuple_shapes().size());
      }
    }
    if (sharded > kMaxListedDeviceBoxes / num_devices) {
      per_device = false;
      out.per_device_note = absl::StrCat(
          "not computed: ", sharded, " sharded parameters and outputs on ", num_devices,
          " devices are more than ", kMaxListedDeviceBoxes, " device boxes");
    }
  }
  AXE_RETURN_IF_ERROR(EdgeBytes(module, entry, per_device, num_devices, out));
  AXE_RETURN_IF_ERROR(Liveness(module, entry, top, out));
  return out;
}

}  // namespace axe::sharding
