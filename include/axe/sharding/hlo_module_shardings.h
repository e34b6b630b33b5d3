// The shardings of a whole HLO module as printed by XLA (a dump, lowered.as_text(dialect=
// "hlo"), compiled.as_text()), each with its instruction's shape, and whether that shape is
// the whole array's or one device's.
//
// After SPMD partitioning a module is split per device: every shape in it is one device's
// shape, while each `sharding={...}` still describes the whole array. A module says it is
// partitioned when its header has `num_partitions=N` with N > 1 AND its entry computation is
// the partitioner's (`ENTRY %main.0_spmd`: XLA's SPMD partitioner names it `..._spmd`).
// Before partitioning (a dump before optimizations, lowered text) the same header may carry
// num_partitions but shapes are global. Without an HloModule header line the text says
// nothing: shapes are taken as global unless the caller says otherwise.
//
// The global shape of a per-device shape is dim * tiles per dimension: exact when every
// sharded dimension divides evenly (JAX requires that of jit arguments); XLA pads a dimension
// that does not, and then the global size lies in ((dim - 1) * tiles, dim * tiles].
#ifndef AXE_SHARDING_HLO_MODULE_SHARDINGS_H_
#define AXE_SHARDING_HLO_MODULE_SHARDINGS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/xla/shape.h"

namespace axe::sharding {

// The module header's facts about partitioning.
struct ModulePartitioning {
  bool has_header = false;     // an `HloModule name, ...` line
  int64_t num_partitions = 1;  // num_partitions=N (1 when absent)
  std::string entry_name;      // the ENTRY computation's name, without '%'
  bool partitioned = false;    // shapes are per device (see the header comment)
  std::string reason;          // why `partitioned` is what it is, for the user
};

// One array an instruction's sharding annotates (a tuple result gives one per element).
struct ModuleSharding {
  std::string instruction;      // `%param.1`, with `{1}` appended for tuple element 1
  size_t line = 0;              // 1-based line of the instruction
  xla::Shape shape;             // as written: per device when the module is partitioned
  HloSharding sharding;         // never a tuple
  std::vector<int64_t> global;  // the whole array's dims
};

struct ModuleShardings {
  ModulePartitioning partitioning;
  std::vector<ModuleSharding> shardings;
  // Instructions whose sharding has no single array to explain (a tuple sharding on a
  // non-tuple shape, {manual}, token shapes): "line N: why".
  std::vector<std::string> skipped;
};

// True when the text has an `HloModule` header line (a whole module, not a line of one).
bool IsHloModule(absl::string_view text);

// Reads the header and entry name. Errors: num_partitions that is not a positive integer.
absl::StatusOr<ModulePartitioning> ReadModulePartitioning(absl::string_view text);

// The global dims of an array whose per-device dims are `local` under `sharding` (a tiled
// sharding multiplies each data dim by its tile count; others keep the dims). Errors: a rank
// that differs from the sharding's tiled rank, a product that overflows.
absl::StatusOr<std::vector<int64_t>> GlobalDimsFromLocal(absl::Span<const int64_t> local,
                                                         const HloSharding& sharding);

// Every instruction line with a `sharding=` attribute. `shapes_are_local` forces the
// per-device reading (the module's own rule otherwise). Errors name the line.
absl::StatusOr<ModuleShardings> ReadModuleShardings(absl::string_view text,
                                                    bool shapes_are_local = false);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_HLO_MODULE_SHARDINGS_H_
