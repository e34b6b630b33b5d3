#include "axe/runtime/reshard.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/box_copy.h"

namespace axe::runtime {

using relayout::BoxElements;
using relayout::BoxFromIndex;
using relayout::BufferLayout;
using relayout::CopyBox;
using relayout::IndexBox;
using relayout::MutableStoredTensor;
using relayout::Relative;
using relayout::RowMajorBuffer;
using relayout::SplitBox;
using relayout::StoredTensor;
using relayout::WholeBox;

namespace {

using sharding::DeviceShard;

// The shards of the two arrays by device id.
struct Sides {
  const Array& from;
  Array& to;
  std::vector<const DeviceShard*> from_box, to_box;  // index: device id
};

absl::Status CopyMessage(Sides& s, const ReshardMessage& m, const ReshardOptions& options,
                         DeviceBuffer* staging) {
  const auto src = static_cast<int>(m.src_device), dst = static_cast<int>(m.dst_device);
  const DeviceBuffer* from_buffer = s.from.shard_buffer(src);
  DeviceBuffer* to_buffer = s.to.mutable_shard_buffer(dst);
  if (from_buffer == nullptr || to_buffer == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("the plan sends from device ", src, " to ", dst,
                                                   ", which hold no such shards"));
  }
  const IndexBox from_origin = BoxFromIndex(s.from_box[static_cast<size_t>(src)]->index);
  const IndexBox to_origin = BoxFromIndex(s.to_box[static_cast<size_t>(dst)]->index);
  StoredTensor from{s.from.storage().layout, s.from.storage().shape, from_buffer->data()};
  MutableStoredTensor to{s.to.storage().layout, s.to.storage().shape, to_buffer->data()};
  const int eb = s.from.element_bytes();
  if (staging == nullptr || src == dst) {
    return CopyBox(from, Relative(m.box, from_origin), to, Relative(m.box, to_origin), eb);
  }
  std::vector<IndexBox> chunks;
  SplitBox(m.box, std::max<int64_t>(1, options.staging_bytes / eb), chunks);
  for (const IndexBox& chunk : chunks) {
    std::vector<int64_t> extents;
    for (const Interval& r : chunk) extents.push_back(r.size());
    AXE_ASSIGN_OR_RETURN(BufferLayout packed, RowMajorBuffer(extents));
    MutableStoredTensor pack{packed, extents, staging->data()};
    AXE_RETURN_IF_ERROR(CopyBox(from, Relative(chunk, from_origin), pack, WholeBox(extents), eb));
    StoredTensor unpack{packed, extents, staging->data()};
    AXE_RETURN_IF_ERROR(CopyBox(unpack, WholeBox(extents), to, Relative(chunk, to_origin), eb));
  }
  return absl::OkStatus();
}

std::string ShapeText(absl::Span<const int64_t> shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) absl::StrAppend(&out, i ? ", " : "", shape[i]);
  return out + ")";
}

absl::Status CheckPlan(const Array& array, const sharding::NamedSharding& target,
                       const ReshardPlan& plan) {
  if (plan.shape != array.shape()) {
    return absl::InvalidArgumentError(absl::StrCat("the plan is for shape ", ShapeText(plan.shape),
                                                   ", the array has ", ShapeText(array.shape())));
  }
  if (plan.element_bytes != array.element_bytes()) {
    return absl::InvalidArgumentError(absl::StrCat("the plan moves elements of ",
                                                   plan.element_bytes, " bytes, the array's have ",
                                                   array.element_bytes()));
  }
  if (!plan.from.empty() && plan.from != array.sharding().ToString()) {
    return absl::InvalidArgumentError(absl::StrCat("the plan starts from ", plan.from,
                                                   ", the array is ", array.sharding().ToString()));
  }
  if (!plan.to.empty() && plan.to != target.ToString()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the plan goes to ", plan.to, ", the target is ", target.ToString()));
  }
  return absl::OkStatus();
}

// The local copies and messages each device receives, by device id.
absl::StatusOr<std::vector<std::vector<const ReshardMessage*>>> WorkPerDevice(
    const ReshardPlan& plan, size_t devices) {
  std::vector<std::vector<const ReshardMessage*>> work(devices);
  for (const auto* list : {&plan.local_copies, &plan.messages}) {
    for (const ReshardMessage& m : *list) {
      if (m.dst_device < 0 || static_cast<size_t>(m.dst_device) >= devices || m.src_device < 0 ||
          static_cast<size_t>(m.src_device) >= devices) {
        return absl::InvalidArgumentError(absl::StrCat("the plan sends from device ", m.src_device,
                                                       " to ", m.dst_device, "; the client has ",
                                                       devices, " devices"));
      }
      work[static_cast<size_t>(m.dst_device)].push_back(&m);
    }
  }
  return work;
}

}  // namespace

absl::Status CheckReshard(const Array& array, const sharding::Format& target) {
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding named, ArraySharding(target));
  const sharding::Mesh& mesh = named.mesh();
  if (mesh.num_devices() > array.client().num_devices()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the target mesh ", mesh.ToString(), " has ", mesh.num_devices(),
                     " devices but the client has ", array.client().num_devices()));
  }
  AXE_RETURN_IF_ERROR(named.CheckShape(array.shape(), "the resharded values"));
  return MakeShardStorage(array.shape(), array.dtype(), target).status();
}

absl::StatusOr<Array> Reshard(const Array& array, const sharding::Format& target,
                              const ReshardOptions& options, ReshardStats* stats) {
  AXE_RETURN_IF_ERROR(CheckReshard(array, target));
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding named, ArraySharding(target));
  AXE_ASSIGN_OR_RETURN(ReshardPlan plan,
                       PlanReshard(array.shape(), array.element_bytes(), array.sharding(), named));
  return ExecuteReshard(array, target, plan, options, stats);
}

absl::StatusOr<Array> ExecuteReshard(const Array& array, const sharding::Format& target,
                                     const ReshardPlan& plan, const ReshardOptions& options,
                                     ReshardStats* stats) {
  AXE_RETURN_IF_ERROR(CheckReshard(array, target));
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding named, ArraySharding(target));
  AXE_RETURN_IF_ERROR(CheckPlan(array, named, plan));
  array.client().ResetPeaks();
  AXE_ASSIGN_OR_RETURN(Array out,
                       Array::Allocate(array.client(), array.shape(), array.dtype(), target));
  AXE_RETURN_IF_ERROR(ReshardInto(array, out, plan, options, stats));
  return out;
}

absl::Status ReshardInto(const Array& array, Array& out, const ReshardPlan& plan,
                         const ReshardOptions& options, ReshardStats* stats) {
  if (&out.client() != &array.client() || out.shape() != array.shape() ||
      out.dtype() != array.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the destination array differs from the source in its client, shape or element type: ",
        ShapeText(out.shape()), " ", XlaName(out.dtype()), " vs ", ShapeText(array.shape()), " ",
        XlaName(array.dtype())));
  }
  AXE_RETURN_IF_ERROR(CheckPlan(array, out.sharding(), plan));
  if (options.transport == ReshardTransport::kStaged &&
      options.staging_bytes < array.element_bytes()) {
    return absl::InvalidArgumentError(absl::StrCat("a staging buffer of ", options.staging_bytes,
                                                   " bytes cannot hold one element of ",
                                                   array.element_bytes(), " bytes"));
  }
  Client& client = array.client();
  const auto n = static_cast<size_t>(client.num_devices());
  Sides sides{array, out, std::vector<const DeviceShard*>(n), std::vector<const DeviceShard*>(n)};
  for (const DeviceShard& s : array.device_map()) {
    sides.from_box[static_cast<size_t>(s.device)] = &s;
  }
  for (const DeviceShard& s : out.device_map()) sides.to_box[static_cast<size_t>(s.device)] = &s;
  AXE_ASSIGN_OR_RETURN(auto work, WorkPerDevice(plan, n));
  std::vector<int64_t> received(n, 0);
  std::atomic<int64_t> moved{0}, local{0}, messages{0};
  const auto start = std::chrono::steady_clock::now();
  AXE_RETURN_IF_ERROR(client.RunOnDevices([&](int device) -> absl::Status {
    const auto& mine = work[static_cast<size_t>(device)];
    int64_t largest = 0;
    for (const ReshardMessage* m : mine) {
      if (m->src_device != m->dst_device) largest = std::max(largest, m->bytes);
    }
    std::optional<DeviceBuffer> staging;
    if (options.transport == ReshardTransport::kStaged && largest > 0) {
      AXE_ASSIGN_OR_RETURN(
          staging, client.device(device).Allocate(std::min(largest, options.staging_bytes)));
    }
    for (const ReshardMessage* m : mine) {
      AXE_RETURN_IF_ERROR(CopyMessage(sides, *m, options, staging ? &*staging : nullptr));
      if (m->src_device == m->dst_device) {
        local.fetch_add(m->bytes);
      } else {
        moved.fetch_add(m->bytes);
        messages.fetch_add(1);
        received[static_cast<size_t>(device)] += m->bytes;
      }
    }
    return absl::OkStatus();
  }));
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (stats != nullptr) {
    stats->bytes_moved = moved.load();
    stats->local_bytes = local.load();
    stats->messages = messages.load();
    stats->bytes_received = std::move(received);
    stats->peak_bytes = client.PeakBytes();
    stats->seconds = elapsed.count();
  }
  return absl::OkStatus();
}

}  // namespace axe::runtime
