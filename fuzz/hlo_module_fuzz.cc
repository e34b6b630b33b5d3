// Whole HLO modules (sharding::ParseHloModule and SummarizeHloModule, what `axe hlo summary`
// reads) and the replica group forms alone. Laws: the summary's counts agree with its lists
// (the per-opcode counts sum to the collective count, no list is longer than its count), a
// collective's groups hold as many devices as it says, byte totals are never negative; the
// sizes of replica groups agree with the groups themselves.
#include <cstdint>
#include <string>

#include "axe/sharding/hlo_module.h"
#include "axe/sharding/hlo_module_summary.h"
#include "axe/sharding/hlo_replica_groups.h"
#include "fuzz_check.h"

namespace sh = axe::sharding;

namespace {

void CheckReplicaGroups(absl::string_view text) {
  absl::StatusOr<std::vector<std::vector<int64_t>>> groups = sh::ParseReplicaGroups(text, 8);
  absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> sizes = sh::ReplicaGroupSizes(text, 8);
  AXE_FUZZ_CHECK(groups.ok() == sizes.ok(), "groups and sizes parse alike: " + std::string(text));
  if (!groups.ok()) return;
  size_t g = 0;
  for (const auto& [size, count] : *sizes) {
    for (int64_t k = 0; k < count; ++k, ++g) {
      AXE_FUZZ_CHECK(g < groups->size() && static_cast<int64_t>((*groups)[g].size()) == size,
                     "the sizes are the groups': " + std::string(text));
    }
  }
  AXE_FUZZ_CHECK(g == groups->size(), "as many groups as sizes: " + std::string(text));
}

void CheckSummary(const sh::HloModuleSummary& s) {
  int64_t by_opcode = 0;
  for (const sh::OpcodeCount& o : s.collectives_by_opcode) {
    by_opcode += o.count;
    AXE_FUZZ_CHECK(o.total_bytes >= 0, "an opcode's bytes are not negative");
  }
  AXE_FUZZ_CHECK(by_opcode == static_cast<int64_t>(s.collective_count),
                 "the per-opcode counts sum to the collective count");
  AXE_FUZZ_CHECK(s.collectives.size() <= s.collective_count, "no more collectives listed");
  AXE_FUZZ_CHECK(s.sharded.size() <= s.sharded_count, "no more sharded values listed");
  for (const sh::CollectiveSummary& c : s.collectives) {
    AXE_FUZZ_CHECK(c.total_bytes >= 0 && c.max_send_bytes >= 0, "bytes are not negative");
    if (!c.groups.empty()) {
      int64_t devices = 0;
      for (const auto& group : c.groups) devices += static_cast<int64_t>(group.size());
      AXE_FUZZ_CHECK(devices == c.devices, "the groups hold the devices counted");
      AXE_FUZZ_CHECK(static_cast<int64_t>(c.groups.size()) == c.num_groups,
                     "the groups are as many as counted");
    }
  }
  AXE_FUZZ_CHECK(s.memory.peak_live_bytes >= 0, "the peak is not negative");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input = axe::fuzz::AsText(data, size);
  if (input.size() < 256 && input.find('\n') == absl::string_view::npos) {
    CheckReplicaGroups(input);
  }
  absl::StatusOr<sh::HloModuleText> module = sh::ParseHloModule(input);
  if (!module.ok()) return 0;
  absl::StatusOr<sh::HloModuleSummary> summary = sh::SummarizeHloModule(*module, {.top = 4});
  if (!summary.ok()) return 0;
  CheckSummary(*summary);
  return 0;
}
