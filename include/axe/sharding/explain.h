// Everything `axe shard explain` shows about a sharded array: the sharding in each notation
// that has it (JAX NamedSharding, XLA HLO, Shardy, Axe layout with device iters, each with the
// reason when it has none), the shard shape, the per-device index boxes and replica groups
// (JAX's devices_indices_map), the local layout of a shard, and a picture.
//
//   ExplainNamedSharding({8, 8}, Named("x=2,y=2", "P('x')"), {})
//   // named: NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',))
//   // hlo:   {devices=[2,1,2]<=[4] last_tile_dim_replicate}
//   // axe:   S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]
//   // shard shape (4, 8); devices 0, 1: [[0, 4], [0, 8]]; devices 2, 3: [[4, 8], [0, 8]]
#ifndef AXE_SHARDING_EXPLAIN_H_
#define AXE_SHARDING_EXPLAIN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/sharding/local_layout.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/named_sharding.h"
#include "axe/sharding/sharding.h"
#include "axe/sharding/shardy.h"
#include "axe/sharding/to_axe.h"
#include "axe/xla/layout.h"

namespace axe::sharding {

struct ExplainOptions {
  DType dtype = DType::kF32;
  // The XLA layout of every shard (none: row-major).
  std::optional<xla::Layout> local_layout;
  // The JAX Layout as the caller has it, for the `format` line (JAX's `x.format`): kept as
  // given, e.g. an int4 array's sub_byte_element_size_in_bits=0, where `local_layout` holds
  // XLA's packed E(4). None: the format line is made from `local_layout`.
  std::optional<LocalLayout> jax_layout;
  DeviceAxisMode mode = DeviceAxisMode::kFlat;
};

// A text, or the reason there is none.
struct TextOrReason {
  std::optional<std::string> text;
  std::string reason;  // set when text is empty
};

struct ShardingExplanation {
  std::vector<int64_t> global_shape;
  DType dtype = DType::kF32;
  TextOrReason named;       // NamedSharding(...)
  std::string named_jax;    // what JAX prints for it (NamedSharding::JaxRepr; empty: none)
  TextOrReason hlo;         // {devices=...}
  TextOrReason axe;         // the Axe layout with device iters
  TextOrReason shardy;      // #sdy.sharding<@mesh, [...]>
  TextOrReason format;      // JAX's Format(layout=Layout(...), sharding=...) of a shard
  std::string shardy_mesh;  // sdy.mesh @mesh = <[...]> (empty when shardy has no text)
  // The program's device assignment when it is not the identity: the HLO and Shardy forms
  // and the Axe form's gpuid number devices LOGICALLY (as JAX lowers a NamedSharding), and
  // logical id k is device device_assignment[k]. `devices` below are real device ids.
  std::vector<int64_t> device_assignment;
  std::vector<int64_t> shard_shape;  // the largest shard (XLA pads the last tile)
  bool fully_replicated = false;
  int64_t num_devices = 1;
  std::string local_shape;  // one shard as an XLA shape with its layout: f32[4,8]{1,0}
  TextOrReason local_axe;   // that shard's memory layout as an Axe layout
  std::vector<DeviceShard> devices;
  std::vector<std::string> picture;
  // What the explanation assumed or what the user should know (one sentence each).
  std::vector<std::string> notes;
};

// Errors: the sharding's errors for this shape (JAX's texts: rank, divisibility) and a
// local layout that does not fit the shard.
absl::StatusOr<ShardingExplanation> ExplainNamedSharding(absl::Span<const int64_t> shape,
                                                         const NamedSharding& sharding,
                                                         const ExplainOptions& options);

// `mesh`, when given, is the mesh the NamedSharding form is expressed on (and fixes the
// device count); otherwise the device count is `num_devices` when > 0, else one more than
// the largest device id the sharding names (1 for {replicated}); a negative `num_devices` or
// one above Mesh::kMaxDevices is refused (CheckNumDevices). Errors: tuple and manual
// shardings (they have no device map), a rank that differs from the tiled rank, device ids
// beyond the count.
absl::StatusOr<ShardingExplanation> ExplainHloSharding(absl::Span<const int64_t> shape,
                                                       const HloSharding& sharding,
                                                       const std::optional<Mesh>& mesh,
                                                       int64_t num_devices,
                                                       const ExplainOptions& options);

// A JAX sharding: a NamedSharding as above, a SingleDeviceSharding as the whole array on
// its device (HLO {maximal device=k}).
absl::StatusOr<ShardingExplanation> ExplainSharding(absl::Span<const int64_t> shape,
                                                    const Sharding& sharding,
                                                    const ExplainOptions& options);

// An Axe layout with device iters, read back as a sharding (ShardingFromAxe, on `mesh` when
// given) and explained as that sharding with the local layout it implies (which replaces
// options.local_layout). Errors: ShardingFromAxe's "not expressible: ..." and shape errors.
absl::StatusOr<ShardingExplanation> ExplainAxeLayout(absl::Span<const int64_t> shape,
                                                     const axe::Layout& layout,
                                                     const std::optional<Mesh>& mesh,
                                                     ExplainOptions options);

// A Shardy sharding on `mesh` (unless it inlines its own): explained through its NamedSharding
// on the refined mesh (sub-axes become axes); the JAX form is the exact NamedSharding on the
// sharding's own mesh, or the reason it has none. Errors: ShardySharding::Check's for this
// rank, and the refined sharding's errors for this shape.
absl::StatusOr<ShardingExplanation> ExplainShardySharding(absl::Span<const int64_t> shape,
                                                          const ShardySharding& sharding,
                                                          const std::optional<ShardyMesh>& mesh,
                                                          const ExplainOptions& options);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_EXPLAIN_H_
