// A concrete JAX sharding: a NamedSharding or a SingleDeviceSharding (what a Format's
// sharding argument holds, spec jax-layout-format.md §3), with their reprs, a parser for
// both, and the queries dispatched to the one held.
//
//   Sharding s = *Sharding::Parse("NamedSharding(Mesh('x': 2, 'y': 2), P('x'))");
//   s.ToString();  // NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',))
//   Sharding::Parse("SingleDeviceSharding(device=3, memory_kind=pinned_host)");
//
// Parse reads keyword and positional arguments (`mesh=`, `spec=`, `memory_kind=`;
// `device=`, `memory_kind=`), hands the mesh and spec texts to Mesh::Parse and
// PartitionSpec::Parse, and accepts a memory kind with or without quotes and a device written
// as JAX prints one (`CpuDevice(id=3)`, `TpuDevice(id=3, ...)`). A mesh's `axis_types=(...)`
// is Mesh::Parse's to read (and the mesh keeps it). Errors name the character position in the whole
// text.
#ifndef AXE_SHARDING_SHARDING_H_
#define AXE_SHARDING_SHARDING_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/named_sharding.h"

namespace axe::sharding {

class Sharding {
 public:
  // The longest text Parse reads (a mesh with an explicit device array of the largest size
  // and the longest spec print within it).
  static constexpr size_t kMaxTextLength = size_t{4} << 20;

  Sharding(NamedSharding named) : value_(std::move(named)) {}           // NOLINT: implicit
  Sharding(SingleDeviceSharding single) : value_(std::move(single)) {}  // NOLINT: implicit

  static absl::StatusOr<Sharding> Parse(absl::string_view text);

  // The NamedSharding held, or null.
  const NamedSharding* named() const { return std::get_if<NamedSharding>(&value_); }
  // The SingleDeviceSharding held, or null.
  const SingleDeviceSharding* single_device() const {
    return std::get_if<SingleDeviceSharding>(&value_);
  }
  const std::optional<std::string>& memory_kind() const;
  // The largest device id it names + 1: the devices a client needs to hold it.
  int64_t device_id_bound() const;

  // The repr of the sharding held.
  std::string ToString() const;

  friend bool operator==(const Sharding&, const Sharding&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const Sharding& s) {
    if (const NamedSharding* n = s.named()) return H::combine(std::move(h), 0, *n);
    return H::combine(std::move(h), 1, *s.single_device());
  }
  friend std::ostream& operator<<(std::ostream& os, const Sharding& s) {
    return os << s.ToString();
  }

 private:
  std::variant<NamedSharding, SingleDeviceSharding> value_;
};

// DevicesIndicesMap of the sharding held (device_map.h).
absl::StatusOr<std::vector<DeviceShard>> DevicesIndicesMap(const Sharding& sharding,
                                                           absl::Span<const int64_t> shape);
// The shape every device holds: the NamedSharding's ShardShape, the whole shape for a
// SingleDeviceSharding (errors: CheckShape's, a negative dimension).
absl::StatusOr<std::vector<int64_t>> ShardShape(const Sharding& sharding,
                                                absl::Span<const int64_t> shape);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_SHARDING_H_
