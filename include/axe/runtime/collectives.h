// Collectives over mesh axes with JAX's semantics (spec ir-and-shard-map.md §7), over the
// per-device values of a shard_map body (DeviceValues: one row-major value per device).
//
// A collective over axes (a_1, ..., a_k) of a mesh groups the devices that differ only in
// those axes; a device's index in its group is its coordinate along the axes, row-major in
// the order given. These functions are front doors: they check the call once (the errors
// below), then the values' client's backend (backend.h) runs it: in process, every device
// computes its result on its own worker by reading the other members' inputs from their
// memories; over MPI, by messages (mpi_collectives.h).
//
//   DeviceValues s = *AllReduce(mesh, {"x"}, ReduceOp::kSum, v);              // psum
//   DeviceValues g = *AllGather(mesh, {"x"}, v, /*dim=*/0, /*tiled=*/true);   // all_gather
//   DeviceValues i = *AxisIndex(client, mesh, {"x", "y"});                    // s32 scalars
//
// Errors use JAX's words where JAX has them: an axis the mesh does not have is "unbound
// axis name: z", a psum_scatter / all_to_all dimension of the wrong size gives JAX's
// sentence, ppermute pairs that repeat a source or destination give "ppermute sources and
// destinations must be unique, got ((0, 1), (0, 2))." (in Python's tuple notation).
#ifndef AXE_RUNTIME_COLLECTIVES_H_
#define AXE_RUNTIME_COLLECTIVES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/runtime/client.h"
#include "axe/runtime/device_values.h"
#include "axe/runtime/reduce_elements.h"
#include "axe/sharding/mesh.h"

namespace axe::runtime {

// The groups of a collective over `axes`: groups[g] lists the devices of group g in member
// order; member_of[device] = (group, index), or (-1, -1) for a device id below the mesh's
// largest that the mesh does not use (a mesh on devices 4-7). Errors (InvalidArgument): an axis the
// mesh does not have ("unbound axis name: z. The mesh has the axes ('x', 'y')"), an axis named
// twice.
struct CollectiveGroups {
  std::vector<std::vector<int64_t>> groups;
  std::vector<std::pair<int64_t, int64_t>> member_of;  // index: device id
  int64_t group_size() const { return groups.empty() ? 1 : static_cast<int64_t>(groups[0].size()); }
  // (group, index) of a device of the mesh; nullopt for any other device.
  std::optional<std::pair<int64_t, int64_t>> Member(int64_t device) const {
    if (device < 0 || static_cast<size_t>(device) >= member_of.size() ||
        member_of[static_cast<size_t>(device)].first < 0) {
      return std::nullopt;
    }
    return member_of[static_cast<size_t>(device)];
  }
};
absl::StatusOr<CollectiveGroups> MakeCollectiveGroups(const sharding::Mesh& mesh,
                                                      absl::Span<const std::string> axes);

// psum / pmax / pmin: every member gets the elementwise reduction over its group (folded in
// member order; see reduce_elements.h for the arithmetic per type).
absl::StatusOr<DeviceValues> AllReduce(const sharding::Mesh& mesh,
                                       absl::Span<const std::string> axes, ReduceOp op,
                                       const DeviceValues& x);

// all_gather(x, axis=dim, tiled): untiled stacks the members' values along a new dimension
// `dim` (0 <= dim <= rank) of the group size; tiled concatenates them along `dim`
// (0 <= dim < rank).
absl::StatusOr<DeviceValues> AllGather(const sharding::Mesh& mesh,
                                       absl::Span<const std::string> axes, const DeviceValues& x,
                                       int64_t dim, bool tiled);

// psum_scatter(x, scatter_dimension=dim, tiled) with reduction `op`: reduce over the group,
// then member g keeps piece g along dim (untiled: dim's size must be the group size and the
// dimension goes; tiled: it must be divisible by the group size).
absl::StatusOr<DeviceValues> ReduceScatter(const sharding::Mesh& mesh,
                                           absl::Span<const std::string> axes, ReduceOp op,
                                           const DeviceValues& x, int64_t dim, bool tiled);

// all_to_all(x, split_axis, concat_axis, tiled): member g's chunk j along split_axis goes to
// member j, which concatenates what it receives along concat_axis in member order. Untiled:
// x.shape[split_axis] must equal the group size, the split axis goes and a new axis of the
// group size appears at concat_axis (of the result). Tiled: split_axis is divided by and
// concat_axis multiplied by the group size.
// The result shape of all_to_all on an operand of `shape` over a group of `group_size`
// devices (shared by both backends). Errors (JAX's texts): axes out of range, a split_axis
// the group size does not divide (tiled) or differs from (untiled).
absl::StatusOr<std::vector<int64_t>> AllToAllShape(absl::Span<const int64_t> shape,
                                                   absl::Span<const std::string> axes,
                                                   int64_t split_axis, int64_t concat_axis,
                                                   bool tiled, int64_t group_size);

// The result shape of all_gather(x, axis=dim, tiled) on an operand of `shape` over a group
// of `group_size` devices (shared by both backends). Errors: dim out of range ("all_gather:
// axis 3 is out of bounds for a value of rank 3").
absl::StatusOr<std::vector<int64_t>> AllGatherShape(absl::Span<const int64_t> shape, int64_t dim,
                                                    bool tiled, int64_t group_size);

// The result shape of psum_scatter(x, scatter_dimension=dim, tiled) (shared by both
// backends). Errors (JAX's texts): dim out of range; a scatter dimension that the group size
// does not divide (tiled) or that differs from it (untiled).
absl::StatusOr<std::vector<int64_t>> ReduceScatterShape(absl::Span<const int64_t> shape,
                                                        int64_t dim, bool tiled,
                                                        int64_t group_size);

// ppermute's pairs as the source of each member of a group of `group_size` (-1: the member
// receives nothing; shared by both backends). Errors: an index outside [0, group_size); a
// repeated source or destination (JAX's message).
absl::StatusOr<std::vector<int64_t>> PermuteSources(
    absl::Span<const std::pair<int64_t, int64_t>> perm, int64_t group_size);

absl::StatusOr<DeviceValues> AllToAll(const sharding::Mesh& mesh,
                                      absl::Span<const std::string> axes, const DeviceValues& x,
                                      int64_t split_axis, int64_t concat_axis, bool tiled);

// ppermute(x, perm): perm lists (source index, destination index) pairs within each group;
// a member that is no destination gets zeros. Errors: an index outside [0, group size);
// a repeated source or destination (JAX's message).
absl::StatusOr<DeviceValues> CollectivePermute(const sharding::Mesh& mesh,
                                               absl::Span<const std::string> axes,
                                               const DeviceValues& x,
                                               absl::Span<const std::pair<int64_t, int64_t>> perm);

// axis_index(axes): each device's index in its group, as an s32 scalar.
absl::StatusOr<DeviceValues> AxisIndex(Client& client, const sharding::Mesh& mesh,
                                       absl::Span<const std::string> axes);

// Raw exchanges on one device's own bytes, for a process that runs one device's program (the
// executor's shard_map position on an MPI rank; see Backend::AllGatherBytes): the processes
// agree on the call, the mesh, the axes and `device`'s membership are checked as for the
// collectives above, then the client's backend moves the bytes straight between the members'
// buffers. Errors: those of the checks (JAX's words), the backend's (DeadlineExceeded after its
// timeout; Unimplemented on a backend whose devices share one process).
//
// all_gather of `bytes` per member into `receive` (group size x bytes, member order).
absl::Status AllGatherBytes(Client& client, const sharding::Mesh& mesh,
                            absl::Span<const std::string> axes, int device, const void* send,
                            int64_t bytes, void* receive);
// ppermute: `device` receives the `bytes` of member source_of[its index] (-1: none, `receive`
// untouched) and sends its own to every member whose source it is.
absl::Status PermuteBytes(Client& client, const sharding::Mesh& mesh,
                          absl::Span<const std::string> axes, int device, const void* send,
                          int64_t bytes, absl::Span<const int64_t> source_of, void* receive);
// all_to_all of blocks of `block` bytes: `send` holds block j for member j, `receive` gets
// member j's block for `device` at j.
absl::Status AllToAllBytes(Client& client, const sharding::Mesh& mesh,
                           absl::Span<const std::string> axes, int device, const void* send,
                           int64_t block, void* receive);

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_COLLECTIVES_H_
