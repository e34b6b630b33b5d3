// What `axe hlo summary` says about a whole HLO module (hlo_module.h): whether it is
// partitioned and why, every sharded value (global shape, one device's shard, which devices
// hold which elements), every collective with its device groups and the bytes it moves, and
// per device and memory space the parameter and output bytes and the values live at the
// peak of the entry computation's schedule.
//
// Bytes a collective moves follow the ring model: in a group of g devices each device sends
// and receives
//   all-reduce        2 (g-1)/g x its operand bytes (a reduce-scatter, then an all-gather)
//   all-gather        (g-1) x its operand bytes (the result is g operands)
//   reduce-scatter    (g-1)/g x its operand bytes
//   all-to-all        (g-1)/g x its operand bytes (it keeps 1/g)
//   collective-permute its operand bytes, once per pair it is the source (target) of
// rounded down to whole bytes. The -start of an async pair carries the traffic; its -done
// moves nothing. A collective inside a loop body is counted once (per execution).
//
// Memory, per device: parameters and outputs are the entry computation's, summed by memory
// space (S(n) in the layout); an output tuple adds XLA's 8-byte pointer per element, as
// compiled.memory_analysis() counts it. Liveness is simple: the entry computation's
// instructions in the order printed (the schedule of a scheduled module), a value live from
// its instruction to its last use, parameters and outputs live throughout; tuple,
// get-tuple-element and bitcast alias their operands and define nothing.
#ifndef AXE_SHARDING_HLO_MODULE_SUMMARY_H_
#define AXE_SHARDING_HLO_MODULE_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/hlo_module.h"
#include "axe/sharding/hlo_sharding.h"

namespace axe::sharding {

struct PartitioningEvidence {
  bool partitioned = false;
  int64_t num_partitions = 1;         // the header's (1 when absent)
  std::string decision;               // one sentence: what was decided from what
  std::vector<std::string> evidence;  // each fact looked at, one line each
};

struct ShardedValue {
  std::string instruction;  // "%param.1", "{1}" appended for a tuple element
  std::string computation;
  std::string opcode;
  size_t line = 0;
  std::string shape;            // as written (one device's when partitioned)
  std::vector<int64_t> global;  // the whole array's dims
  std::vector<int64_t> shard;   // the largest shard's dims (every device's for even splits)
  HloSharding sharding;
  int64_t global_bytes = 0;  // elements x element bytes (no layout padding)
  int64_t shard_bytes = 0;   // the largest shard's
  // Which devices hold which elements (logical ids); empty when the sharding places none or
  // the device count is unknown.
  std::vector<DeviceShard> devices;
};

struct CollectiveSummary {
  std::string instruction;
  std::string computation;
  std::string opcode;  // "all-reduce", "all-gather-start", ...
  size_t line = 0;
  std::optional<int64_t> channel_id;
  std::string groups_text;  // replica_groups or source_target_pairs as written
  int64_t num_groups = 0;   // replica groups (or pairs)
  int64_t group_size = 0;   // 0 when the groups differ in size
  // The devices of each group: filled for the collectives SummarizeHloModule lists (the
  // --top cut), empty from SummarizeCollectives (an iota of 65,536 devices stays unexpanded).
  std::vector<std::vector<int64_t>> groups;
  std::vector<std::pair<int64_t, int64_t>> pairs;  // collective-permute
  std::string operand_shapes;                      // "f32[16,16]{1,0}", joined by ", "
  std::string result_shape;
  int64_t operand_bytes = 0;  // per device
  int64_t devices = 0;        // devices that take part
  // Per device under the ring model: the most any device sends and receives.
  int64_t max_send_bytes = 0;
  int64_t max_receive_bytes = 0;
  int64_t total_bytes = 0;  // sent by all devices together
};

struct MemorySpaceBytes {
  int64_t memory_space = 0;
  int64_t parameter_bytes = 0;
  int64_t output_bytes = 0;  // array leaves only
};

struct LiveValue {
  std::string instruction;
  std::string opcode;
  size_t line = 0;
  int64_t bytes = 0;
  int64_t memory_space = 0;
  size_t defined_at = 0;  // position in the entry computation (0-based)
  size_t last_use = 0;
};

struct MemorySummary {
  std::vector<MemorySpaceBytes> spaces;  // increasing memory space
  int64_t parameter_bytes = 0;           // compiled.memory_analysis().argument_size_in_bytes
  int64_t output_bytes = 0;              // ...output_size_in_bytes (tuple pointers included)
  int64_t peak_live_bytes = 0;
  std::string peak_at;                  // the instruction at which the peak is reached
  std::vector<LiveValue> live_at_peak;  // largest first
  // Unpartitioned modules with shardings: per device, the parameter and output bytes its
  // shards take (array leaves; empty otherwise: every device holds what the text writes).
  std::vector<int64_t> parameter_bytes_per_device;
  std::vector<int64_t> output_bytes_per_device;
  // Why the per-device lists are empty for such a module (more than kMaxListedDeviceBoxes
  // shard boxes to compute); empty otherwise.
  std::string per_device_note;
};

struct SummaryOptions {
  // The longest lists kept: sharded values (largest global bytes first), collectives (most
  // bytes first), values live at the peak (largest first). 0 keeps every entry.
  size_t top = 10;
};

struct OpcodeCount {
  std::string opcode;
  int64_t count = 0;
  int64_t total_bytes = 0;
};

struct HloModuleSummary {
  std::string name;
  size_t lines = 0;
  size_t computations = 0;
  size_t instructions = 0;
  std::string entry;
  PartitioningEvidence partitioning;
  int64_t num_devices = 1;
  size_t sharded_count = 0;  // before the --top cut
  std::vector<ShardedValue> sharded;
  std::vector<std::string> skipped;  // shardings with no array to place: "line N %x: why"
  size_t collective_count = 0;       // before the --top cut
  std::vector<OpcodeCount> collectives_by_opcode;  // alphabetical
  std::vector<CollectiveSummary> collectives;
  int64_t collective_total_bytes = 0;
  MemorySummary memory;
};

// Errors: a module without an ENTRY computation; replica groups, source-target pairs or a
// sharding that do not fit the module (rank, device ids), naming the line and column; sizes
// that overflow int64.
absl::StatusOr<HloModuleSummary> SummarizeHloModule(const HloModuleText& module,
                                                    const SummaryOptions& options = {});

// Parts of the summary (SummarizeHloModule calls them).
PartitioningEvidence DecidePartitioning(const HloModuleText& module);
absl::StatusOr<std::vector<CollectiveSummary>> SummarizeCollectives(const HloModuleText& module,
                                                                    int64_t num_devices);
// `top` limits live_at_peak (0: all). Errors: a size that overflows int64, a sharding of a
// parameter or output that does not fit its shape.
absl::StatusOr<MemorySummary> SummarizeMemory(const HloModuleText& module, bool partitioned,
                                              int64_t num_devices, size_t top);
// The sharded values of a module, largest global bytes first, the first `top` kept (0: all)
// with their device maps; `count` gets how many there are in all and `skipped` the
// shardings that place no array ("line N %x: why"). Errors: a sharding that does not fit
// its shape, more than kMaxListedDeviceBoxes device boxes in the maps of the values listed.
inline constexpr int64_t kMaxListedDeviceBoxes = int64_t{1} << 22;
absl::StatusOr<std::vector<ShardedValue>> ShardedValues(const HloModuleText& module,
                                                        bool partitioned, int64_t num_devices,
                                                        size_t top, size_t& count,
                                                        std::vector<std::string>& skipped);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_HLO_MODULE_SUMMARY_H_
