// Sharding equivalence across notations: two shardings of an array are equivalent when
// every device holds the same elements under both (spec jax-layout-format.md §8-9). A
// NamedSharding and the HLO string XLA prints for it are equivalent; so is the Axe layout
// ShardedToAxe gives for it.
//
//   Equivalent({8, 8}, Notation(Named(...P('x')...)), Notation(Hlo("{devices=[2,1,2]<=[4]
//   last_tile_dim_replicate}")))  // equivalent
#ifndef AXE_SHARDING_EQUIVALENT_H_
#define AXE_SHARDING_EQUIVALENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/layout/layout.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/named_sharding.h"

namespace axe::sharding {

// A sharding in one of the notations axe reads.
struct ShardingNotation {
  std::variant<NamedSharding, HloSharding, axe::Layout> value;
  // For an Axe layout whose device axes are mesh axes (per_axis form): the mesh that numbers
  // its devices. For an HLO sharding, whose ids are logical: the mesh whose device array is
  // the device assignment. Unused otherwise.
  std::optional<Mesh> mesh;
  // The Shardy text this was read from (`value` then holds its NamedSharding on the refined
  // mesh), empty otherwise.
  std::string shardy;

  // Reads text in any notation, by its first characters: `{` an HLO sharding, `P(` /
  // `PartitionSpec(` a spec on `mesh` (required), `#sdy.sharding<` / `<@` / `<mesh` a Shardy
  // sharding (on `mesh` unless it inlines one), anything else an Axe layout (device axes
  // named after mesh axes take the device kind when `mesh` is given). Errors are the
  // notation's parser's, prefixed with what was tried.
  static absl::StatusOr<ShardingNotation> Parse(absl::string_view text,
                                                const std::optional<Mesh>& mesh);
  // "named", "hlo", "shardy" or "axe".
  std::string KindName() const;
  std::string ToString() const;
};

// The device map of an Axe layout with device iters, enumerating its elements (at most
// kMaxEnumeratedPoints): device axes are either `gpuid` alone (its value is the device id)
// or all axes of `mesh` (device = mesh.DeviceAt(their values)). Errors: a layout that does
// not admit `shape`, other device axes, a device that holds elements that are not a box of
// the array (naming the device).
absl::StatusOr<std::vector<DeviceShard>> DevicesIndicesMap(const axe::Layout& layout,
                                                           absl::Span<const int64_t> shape,
                                                           const std::optional<Mesh>& mesh);

// The device map of any notation; `num_devices` is used for HLO shardings (see
// DevicesIndicesMap(HloSharding...)): 0 = one more than the largest id they name.
absl::StatusOr<std::vector<DeviceShard>> DevicesIndicesMap(const ShardingNotation& sharding,
                                                           absl::Span<const int64_t> shape,
                                                           int64_t num_devices);

struct EquivalenceResult {
  bool equivalent = false;
  std::optional<DeviceMapDifference> difference;  // when not equivalent
};

// The device count is the larger of the two sides' counts (a NamedSharding's mesh, an
// HLO sharding's largest id + 1, an Axe layout's largest device + 1), so that {replicated}
// is compared over the devices the other side uses. Errors: each side's device-map errors.
absl::StatusOr<EquivalenceResult> Equivalent(absl::Span<const int64_t> shape,
                                             const ShardingNotation& first,
                                             const ShardingNotation& second);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_EQUIVALENT_H_
