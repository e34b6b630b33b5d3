// NamedSharding(mesh, spec, memory_kind) and SingleDeviceSharding(device) (spec
// jax-layout-format.md §8.2-8.3).
//
// Dimension i of a value is split over the mesh axes of spec entry i (the first major);
// mesh axes the spec does not mention replicate. Create() checks what JAX checks when the
// sharding is built (unknown and duplicate axes), CheckShape() what it checks when the
// sharding meets a value (rank, divisibility), with JAX's texts:
//
//   NamedSharding s = *NamedSharding::Create(*Mesh::Parse("x=2,y=2"),
//   *PartitionSpec::Parse("P('x')")); s.ToString();              // NamedSharding(mesh=Mesh('x': 2,
//   'y': 2), spec=P('x',)) s.ShardShape({8, 8});      // (4, 8)
//
// Memory kinds are `device`, `pinned_host` and `unpinned_host` (XLA memory spaces 0, 5, 6).
// No memory kind means the devices' default, `device` (JAX fills it in when the sharding is
// built, on CPU, GPU and TPU alike), so == and the hash treat "none" and `device` as the same
// (JAX: NamedSharding(m, P('x')) == NamedSharding(m, P('x'), memory_kind='device')); what
// prints (and memory_kind()) keeps the difference.
#ifndef AXE_SHARDING_NAMED_SHARDING_H_
#define AXE_SHARDING_NAMED_SHARDING_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/partition_spec.h"

namespace axe::sharding {

// OK for device, pinned_host, unpinned_host; InvalidArgument naming the text otherwise.
absl::Status CheckMemoryKind(absl::string_view kind);
// The memory kind a sharding built with `kind` has: `kind`, or `device` (the default) for none.
inline absl::string_view EffectiveMemoryKind(const std::optional<std::string>& kind) {
  return kind ? absl::string_view(*kind) : absl::string_view("device");
}
// The XLA memory space of a valid memory kind (0, 5, 6).
int64_t MemorySpaceOfMemoryKind(absl::string_view kind);

class NamedSharding {
 public:
  // Errors (InvalidArgument, JAX's texts):
  //   Resource axis: z of P('z',) is not found in mesh: ('x', 'y').
  //   A single NamedSharding spec specification can map every mesh axis to at most one
  //   positional dimension, but P('x', 'x') has duplicate entries for `x`
  // and an unknown memory kind.
  static absl::StatusOr<NamedSharding> Create(Mesh mesh, PartitionSpec spec,
                                              std::optional<std::string> memory_kind = {});

  const Mesh& mesh() const { return mesh_; }
  const PartitionSpec& spec() const { return spec_; }
  const std::optional<std::string>& memory_kind() const { return memory_kind_; }

  // Indices into mesh().axes() of the axes sharding dimension i (major first; empty when
  // dimension i is not sharded).
  std::vector<size_t> DimAxes(size_t i) const;
  // Indices of the mesh axes the spec does not mention (in mesh order): they replicate.
  std::vector<size_t> ReplicatedAxes() const;
  // The number of pieces dimension i is split into (product of its axes' sizes).
  int64_t DimPieces(size_t i) const;
  // True when every device holds the whole value (no spec axis has size > 1).
  bool IsFullyReplicated() const;

  // The checks made when the sharding meets a value of `shape` (InvalidArgument):
  //   Sharding {s} is only valid for values of rank at least {n}, but was applied to a
  //   value of rank {r}.   (+ " For scalars the PartitionSpec should be P()" for r = 0)
  //   One of {what} was given the sharding of {s}, which implies that the global size of
  //   its dimension {i} should be divisible by {n} (mesh axes {axes}), but it is equal to
  //   {d} (full shape: {shape})
  // and a negative dimension size.
  absl::Status CheckShape(absl::Span<const int64_t> shape,
                          absl::string_view what = "the values") const;
  // The shape every device holds (after CheckShape).
  absl::StatusOr<std::vector<int64_t>> ShardShape(absl::Span<const int64_t> shape) const;

  // Python's repr: NamedSharding(mesh=Mesh('x': 2), spec=P('x',)[, memory_kind=device]).
  std::string ToString() const;
  // What JAX prints for it: NamedSharding(mesh=Mesh('x': 2, axis_types=(Auto,)),
  // spec=P('x',), memory_kind=device): the mesh as JAX's str (its axis types, no device ids)
  // and the memory kind always (device when none is given).
  std::string JaxRepr() const;

  // Equal mesh and spec and the same effective memory kind (none = `device`).
  friend bool operator==(const NamedSharding& a, const NamedSharding& b) {
    return a.mesh_ == b.mesh_ && a.spec_ == b.spec_ &&
           EffectiveMemoryKind(a.memory_kind_) == EffectiveMemoryKind(b.memory_kind_);
  }
  template <typename H>
  friend H AbslHashValue(H h, const NamedSharding& s) {
    return H::combine(std::move(h), s.mesh_, s.spec_, EffectiveMemoryKind(s.memory_kind_));
  }
  friend std::ostream& operator<<(std::ostream& os, const NamedSharding& s) {
    return os << s.ToString();
  }

 private:
  NamedSharding(Mesh mesh, PartitionSpec spec, std::optional<std::string> memory_kind)
      : mesh_(std::move(mesh)), spec_(std::move(spec)), memory_kind_(std::move(memory_kind)) {}

  Mesh mesh_;
  PartitionSpec spec_;
  std::optional<std::string> memory_kind_;
};

// The whole value on one device: equivalent to a NamedSharding over the mesh with no axes
// whose only device is `device`.
class SingleDeviceSharding {
 public:
  // Errors: a negative device id, an unknown memory kind.
  static absl::StatusOr<SingleDeviceSharding> Create(int64_t device,
                                                     std::optional<std::string> memory_kind = {});

  int64_t device() const { return device_; }
  const std::optional<std::string>& memory_kind() const { return memory_kind_; }
  // SingleDeviceSharding(device=3[, memory_kind=device]).
  std::string ToString() const;

  // The same device and effective memory kind (none = `device`).
  friend bool operator==(const SingleDeviceSharding& a, const SingleDeviceSharding& b) {
    return a.device_ == b.device_ &&
           EffectiveMemoryKind(a.memory_kind_) == EffectiveMemoryKind(b.memory_kind_);
  }
  template <typename H>
  friend H AbslHashValue(H h, const SingleDeviceSharding& s) {
    return H::combine(std::move(h), s.device_, EffectiveMemoryKind(s.memory_kind_));
  }

 private:
  SingleDeviceSharding(int64_t device, std::optional<std::string> memory_kind)
      : device_(device), memory_kind_(std::move(memory_kind)) {}
  int64_t device_ = 0;
  std::optional<std::string> memory_kind_;
};

}  // namespace axe::sharding

#endif  // AXE_SHARDING_NAMED_SHARDING_H_
