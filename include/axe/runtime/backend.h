// A runtime backend: the operations in which the ways of holding devices differ (in-process
// worker threads, one MPI rank per device, a fault-injecting wrapper for tests), behind one
// interface. Every Client owns one (Client::ops()).
//
// Callers do not call a backend's collectives or reshard exchange directly: the front doors
// of collectives.h and reshard.h (AllReduce, AllGather, ReduceScatter, AllToAll,
// CollectivePermute, Reshard, ExecuteReshard, ReshardInto) check their arguments once, with
// JAX's error texts, and then dispatch to the client's backend with a call it can trust:
// the groups are made, the result's shape is known, the plan matches the arrays.
//
// A new backend is one class deriving from Backend and one registration (backend_registry.h).
#ifndef AXE_RUNTIME_BACKEND_H_
#define AXE_RUNTIME_BACKEND_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/runtime/reduce_elements.h"

namespace axe::sharding {
class Mesh;
}  // namespace axe::sharding

namespace axe::runtime {

class Array;
class DeviceValues;
struct CollectiveGroups;
struct ReshardOptions;
struct ReshardPlan;
struct ReshardStats;

// A collective whose arguments the front door has checked: the groups of its mesh axes and
// the shape every device's result has.
struct CollectiveCall {
  const sharding::Mesh& mesh;
  absl::Span<const std::string> axes;
  const CollectiveGroups& groups;
  std::vector<int64_t> out_shape;
  absl::string_view what;  // JAX's name: "all_reduce", "all_gather", "ppermute", ...
};

class Backend {
 public:
  virtual ~Backend() = default;

  // "threads", "mpi", ...: the name the registry knows it by.
  virtual absl::string_view name() const = 0;

  // Runs fn(device id) on every addressable device and returns when all have finished: OK, or
  // the error of the lowest-numbered failing device, prefixed "device <id>: " (code kept).
  virtual absl::Status RunOnDevices(const std::function<absl::Status(int)>& fn) = 0;

  // Called by the front doors before they check a call: where several processes make the
  // call (MPI), they compare `describe()` and fail alike (InvalidArgument naming both texts)
  // when their arguments differ; a backend whose one process holds every device does nothing.
  virtual absl::Status AgreeOnCall(absl::string_view what,
                                   absl::FunctionRef<std::string()> describe);

  // The five collectives on checked calls; every addressable device's value of x is its
  // input. The results have call.out_shape; devices outside the mesh get zeros.
  virtual absl::StatusOr<DeviceValues> AllReduce(const CollectiveCall& call, ReduceOp op,
                                                 const DeviceValues& x) = 0;
  virtual absl::StatusOr<DeviceValues> AllGather(const CollectiveCall& call, const DeviceValues& x,
                                                 int64_t dim, bool tiled) = 0;
  virtual absl::StatusOr<DeviceValues> ReduceScatter(const CollectiveCall& call, ReduceOp op,
                                                     const DeviceValues& x, int64_t dim,
                                                     bool tiled) = 0;
  virtual absl::StatusOr<DeviceValues> AllToAll(const CollectiveCall& call, const DeviceValues& x,
                                                int64_t split_axis, int64_t concat_axis,
                                                bool tiled) = 0;
  // source_of[i]: the member whose value member i receives (-1: it gets zeros).
  virtual absl::StatusOr<DeviceValues> CollectivePermute(const CollectiveCall& call,
                                                         const DeviceValues& x,
                                                         absl::Span<const int64_t> source_of) = 0;

  // Raw exchanges on one device's own bytes, for a process that runs one device's program
  // (the executor's shard_map position on an MPI rank): `device` is this process's device in
  // `call.groups`; every member of its group makes the same call with the same byte counts,
  // and the bytes move straight between the members' buffers, nothing staged. After an
  // error, a transport may still write `receive` (a timeout): the caller keeps it alive.
  // By default Unimplemented (a backend whose process holds every device has no use for
  // them: its devices share memory).
  //
  // receive: the group's members' `bytes` each, in member order (own included).
  virtual absl::Status AllGatherBytes(const CollectiveCall& call, int device, const void* send,
                                      int64_t bytes, void* receive);
  // source_of[i]: the member whose bytes member i receives (-1: none; `receive` untouched).
  virtual absl::Status PermuteBytes(const CollectiveCall& call, int device, const void* send,
                                    int64_t bytes, absl::Span<const int64_t> source_of,
                                    void* receive);
  // send: group-size blocks of `block` bytes, block j for member j; receive: member j's
  // block for this member at j.
  virtual absl::Status AllToAllBytes(const CollectiveCall& call, int device, const void* send,
                                     int64_t block, void* receive);

  // Reshard's exchange: moves every box of `plan` (its messages and local copies) from
  // `array`'s shards into `out`'s, both on this backend's client, checked against the plan.
  // options.staging_bytes bounds the staging a message-passing transport uses (0: unbounded).
  virtual absl::Status ExchangeReshard(const Array& array, Array& out, const ReshardPlan& plan,
                                       const ReshardOptions& options, ReshardStats* stats) = 0;
  // Frees what the backend keeps between calls (staging buffers), so that the next reshard's
  // peak memory counts what it allocates.
  virtual void ReleaseStaging() {}

  // Returns when every device (every process) has reached it.
  virtual absl::Status Barrier() = 0;

  // How long one wait on other devices may take before DeadlineExceeded (0: no limit).
  virtual double timeout_seconds() const = 0;
  virtual void set_timeout_seconds(double seconds) = 0;
  // Whether a timeout has left work pending: every later call fails (FailedPrecondition).
  virtual bool broken() const = 0;
};

// Errors that every process of a job returns alike (their arguments were checked to agree):
// marked so that a program prints them once (from rank 0), where any other error is one
// process's own. MarkSameOnEveryRank returns `status` with the mark.
absl::Status MarkSameOnEveryRank(absl::Status status);
bool IsSameOnEveryRank(const absl::Status& status);

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_BACKEND_H_
