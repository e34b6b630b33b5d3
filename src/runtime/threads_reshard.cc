// The in-process backend's reshard exchange: each device's worker copies the boxes it
// receives straight from the senders' shards (kDirect), or packs each into a staging buffer
// and unpacks it (kStaged, as a message-passing transport does).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/box_copy.h"
#include "axe/runtime/array.h"
#include "axe/runtime/reshard.h"
#include "runtime/threads_backend.h"

namespace axe::runtime::internal {

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

// Copies message `m` into its receiver's shard; through `staging` (of `staging_bytes`) in
// row-major chunks when given.
absl::Status CopyMessage(Sides& s, const ReshardMessage& m, DeviceBuffer* staging) {
  const auto src = static_cast<int>(m.src_device), dst = static_cast<int>(m.dst_device);
  const DeviceBuffer* from_buffer = s.from.shard_buffer(src);
  DeviceBuffer* to_buffer = s.to.mutable_shard_buffer(dst);
  if (from_buffer == nullptr || to_buffer == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("the plan sends from device ", src, " to ", dst,
                                                   ", which hold no such shards"));
  }
  const IndexBox& from_origin = s.from_box[static_cast<size_t>(src)]->index;
  const IndexBox& to_origin = s.to_box[static_cast<size_t>(dst)]->index;
  StoredTensor from{s.from.storage().layout, s.from.storage().shape, from_buffer->data()};
  MutableStoredTensor to{s.to.storage().layout, s.to.storage().shape, to_buffer->data()};
  const int eb = s.from.element_bytes();
  if (staging == nullptr || src == dst) {
    return CopyBox(from, Relative(m.box, from_origin), to, Relative(m.box, to_origin), eb);
  }
  std::vector<IndexBox> chunks;
  SplitBox(m.box, std::max<int64_t>(1, staging->size() / eb), chunks);
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

absl::Status ThreadsBackend::ExchangeReshard(const Array& array, Array& out,
                                             const ReshardPlan& plan, const ReshardOptions& options,
                                             ReshardStats* stats) {
  const auto n = static_cast<size_t>(client_.num_devices());
  Sides sides{array, out, std::vector<const DeviceShard*>(n), std::vector<const DeviceShard*>(n)};
  for (const DeviceShard& s : array.device_map()) {
    sides.from_box[static_cast<size_t>(s.device)] = &s;
  }
  for (const DeviceShard& s : out.device_map()) sides.to_box[static_cast<size_t>(s.device)] = &s;
  AXE_ASSIGN_OR_RETURN(auto work, WorkPerDevice(plan, n));
  std::vector<int64_t> received(n, 0);
  std::atomic<int64_t> moved{0}, local{0}, messages{0};
  const auto start = std::chrono::steady_clock::now();
  AXE_RETURN_IF_ERROR(client_.RunOnDevices([&](int device) -> absl::Status {
    const auto& mine = work[static_cast<size_t>(device)];
    int64_t largest = 0;
    for (const ReshardMessage* m : mine) {
      if (m->src_device != m->dst_device) largest = std::max(largest, m->bytes);
    }
    std::optional<DeviceBuffer> staging;
    if (options.transport == ReshardTransport::kStaged && largest > 0) {
      const int64_t bound = options.staging_bytes == 0 ? largest : options.staging_bytes;
      AXE_ASSIGN_OR_RETURN(staging, client_.device(device).Allocate(std::min(largest, bound)));
    }
    for (const ReshardMessage* m : mine) {
      AXE_RETURN_IF_ERROR(CopyMessage(sides, *m, staging ? &*staging : nullptr));
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
    stats->peak_bytes = client_.PeakBytes();
    stats->seconds = elapsed.count();
  }
  return absl::OkStatus();
}

}  // namespace axe::runtime::internal
