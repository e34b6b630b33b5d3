#include "axe/runtime/mpi_reshard.h"

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/box_copy.h"
#include "src/runtime/mpi_state.h"

namespace axe::runtime {

namespace {

using sharding::DeviceShard;

const DeviceShard* ShardOf(const Array& a, int64_t device) {
  for (const DeviceShard& s : a.device_map()) {
    if (s.device == device) return &s;
  }
  return nullptr;
}

std::vector<int64_t> Extents(const IndexBox& box) {
  std::vector<int64_t> out;
  for (const Interval& r : box) out.push_back(r.size());
  return out;
}

// One side of a copy: a rank's shard and the global box it holds.
struct Side {
  const ShardStorage& storage;
  uint8_t* data;
  IndexBox origin;
};

// Copies global box `box` between a shard and a dense row-major buffer (pack: shard ->
// buffer; else buffer -> shard), by one relayout plan.
absl::Status PackOrUnpack(const Side& shard, const IndexBox& box, uint8_t* buffer, bool pack,
                          int element_bytes) {
  const std::vector<int64_t> extents = Extents(box);
  AXE_ASSIGN_OR_RETURN(BufferLayout dense, RowMajorBuffer(extents));
  const IndexBox local = Relative(box, shard.origin);
  if (pack) {
    StoredTensor from{shard.storage.layout, shard.storage.shape, shard.data};
    MutableStoredTensor to{dense, extents, buffer};
    return CopyBox(from, local, to, WholeBox(extents), element_bytes);
  }
  StoredTensor from{dense, extents, buffer};
  MutableStoredTensor to{shard.storage.layout, shard.storage.shape, shard.data};
  return CopyBox(from, WholeBox(extents), to, local, element_bytes);
}

// Makes `buffer` (a staging buffer kept by the client) hold at least `bytes`.
absl::Status Reserve(MpiClient& client, DeviceBuffer& buffer, int64_t bytes) {
  if (buffer.size() >= bytes && buffer.device() != nullptr) return absl::OkStatus();
  buffer = DeviceBuffer();  // release first: the peak holds one of them
  AXE_ASSIGN_OR_RETURN(buffer, client.device(client.rank()).Allocate(bytes));
  return absl::OkStatus();
}

// This rank's part of a reshard: what it sends, receives and keeps.
struct RankWork {
  std::vector<const ReshardMessage*> sends, receives, local;
  int64_t send_bytes = 0, receive_bytes = 0;
};

absl::StatusOr<RankWork> WorkOf(const ReshardPlan& plan, int rank, absl::string_view what) {
  RankWork w;
  for (const ReshardMessage& m : plan.messages) {
    if (m.src_device == rank) {
      AXE_RETURN_IF_ERROR(MpiCount(m.bytes, what).status());
      w.sends.push_back(&m);
      w.send_bytes += m.bytes;
    }
    if (m.dst_device == rank) {
      w.receives.push_back(&m);
      w.receive_bytes += m.bytes;
    }
  }
  for (const ReshardMessage& m : plan.local_copies) {
    if (m.dst_device == rank) w.local.push_back(&m);
  }
  return w;
}

// Job-wide stats from this rank's counts.
absl::Status GatherStats(MpiClient& client, int64_t moved, int64_t local, int64_t messages,
                         double seconds, ReshardStats& stats) {
  const auto n = static_cast<size_t>(client.num_devices());
  const auto me = static_cast<size_t>(client.rank());
  // [moved, local, messages, received per device..., peak per device...]
  std::vector<int64_t> v(3 + 2 * n, 0);
  v[0] = moved;
  v[1] = local;
  v[2] = messages;
  v[3 + me] = moved;
  v[3 + n + me] = client.device(client.rank()).peak_bytes();
  AXE_RETURN_IF_ERROR(MpiAllreduceInPlace(client, v, MPI_SUM, "reshard statistics"));
  std::vector<double> t{seconds};
  AXE_RETURN_IF_ERROR(MpiAllreduceInPlace(client, t, MPI_MAX, "reshard statistics"));
  stats.bytes_moved = v[0];
  stats.local_bytes = v[1];
  stats.messages = v[2];
  stats.bytes_received.assign(v.begin() + 3, v.begin() + 3 + static_cast<std::ptrdiff_t>(n));
  stats.peak_bytes.assign(v.begin() + 3 + static_cast<std::ptrdiff_t>(n), v.end());
  stats.seconds = t[0];
  return absl::OkStatus();
}

std::string CallText(const Array& array, const ArrayFormat& target) {
  return absl::StrCat(XlaName(array.dtype()), "[", absl::StrJoin(array.shape(), ","), "] ",
                      array.format().ToString(), " -> ", target.ToString());
}

}  // namespace

absl::Status MpiReshardInto(const Array& array, Array& out, const ReshardPlan& plan,
                            ReshardStats* stats) {
  MpiClient* client = AsMpiClient(array.client());
  if (client == nullptr || &out.client() != &array.client()) {
    return absl::InvalidArgumentError(
        "a reshard over MPI needs both arrays on the same MPI client");
  }
  AXE_RETURN_IF_ERROR(AgreeOnCall(*client, "reshard", CallText(array, out.format())));
  AXE_RETURN_IF_ERROR(CheckReshard(array, out.format()));
  if (plan.shape != array.shape() || plan.element_bytes != array.element_bytes() ||
      plan.from != array.sharding().ToString() || plan.to != out.sharding().ToString()) {
    return absl::InvalidArgumentError(absl::StrCat("the plan (", plan.from, " -> ", plan.to,
                                                   ") is not for this reshard (",
                                                   CallText(array, out.format()), ")"));
  }
  const int me = client->rank();
  AXE_ASSIGN_OR_RETURN(RankWork w, WorkOf(plan, me, "reshard"));
  const DeviceShard* from_shard = ShardOf(array, me);
  const DeviceShard* to_shard = ShardOf(out, me);
  const int eb = array.element_bytes();
  const auto start = std::chrono::steady_clock::now();
  AXE_RETURN_IF_ERROR(Reserve(*client, client->state().send_staging, w.send_bytes));
  AXE_RETURN_IF_ERROR(Reserve(*client, client->state().receive_staging, w.receive_bytes));
  DeviceBuffer& send = client->state().send_staging;
  DeviceBuffer& receive = client->state().receive_staging;
  std::vector<MPI_Request> req;
  req.reserve(w.sends.size() + w.receives.size());
  int64_t offset = 0;
  for (const ReshardMessage* m : w.receives) {
    req.emplace_back();
    AXE_RETURN_IF_ERROR(
        MpiStatus(MPI_Irecv(receive.data() + offset, static_cast<int>(m->bytes), MPI_BYTE,
                            static_cast<int>(m->src_device), 0, client->state().world, &req.back()),
                  "MPI_Irecv"));
    offset += m->bytes;
  }
  offset = 0;
  for (const ReshardMessage* m : w.sends) {
    Side src{array.storage(), const_cast<uint8_t*>(array.shard_buffer(me)->data()),
             BoxFromIndex(from_shard->index)};
    AXE_RETURN_IF_ERROR(PackOrUnpack(src, m->box, send.data() + offset, true, eb));
    req.emplace_back();
    AXE_RETURN_IF_ERROR(
        MpiStatus(MPI_Isend(send.data() + offset, static_cast<int>(m->bytes), MPI_BYTE,
                            static_cast<int>(m->dst_device), 0, client->state().world, &req.back()),
                  "MPI_Isend"));
    offset += m->bytes;
  }
  int64_t local = 0;
  for (const ReshardMessage* m : w.local) {  // while the messages travel
    StoredTensor from{array.storage().layout, array.storage().shape,
                      array.shard_buffer(me)->data()};
    MutableStoredTensor to{out.storage().layout, out.storage().shape,
                           out.mutable_shard_buffer(me)->data()};
    AXE_RETURN_IF_ERROR(CopyBox(from, Relative(m->box, BoxFromIndex(from_shard->index)), to,
                                Relative(m->box, BoxFromIndex(to_shard->index)), eb));
    local += m->bytes;
  }
  // On failure the client is broken and keeps its staging buffers (MPI may still use them).
  AXE_RETURN_IF_ERROR(WaitAll(*client, req, "reshard"));
  offset = 0;
  for (const ReshardMessage* m : w.receives) {
    Side dst{out.storage(), out.mutable_shard_buffer(me)->data(), BoxFromIndex(to_shard->index)};
    AXE_RETURN_IF_ERROR(PackOrUnpack(dst, m->box, receive.data() + offset, false, eb));
    offset += m->bytes;
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (stats == nullptr) return absl::OkStatus();
  return GatherStats(*client, w.receive_bytes, local, static_cast<int64_t>(w.receives.size()),
                     elapsed.count(), *stats);
}

absl::StatusOr<Array> MpiReshard(const Array& array, const ArrayFormat& target,
                                 ReshardStats* stats) {
  MpiClient* client = AsMpiClient(array.client());
  if (client == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("MpiReshard needs an array on an MPI client, not on the '",
                     array.client().backend(), "' backend"));
  }
  AXE_RETURN_IF_ERROR(AgreeOnCall(*client, "reshard", CallText(array, target)));
  AXE_RETURN_IF_ERROR(CheckReshard(array, target));
  AXE_ASSIGN_OR_RETURN(ReshardPlan plan, PlanReshard(array.shape(), array.element_bytes(),
                                                     array.sharding(), target.sharding));
  client->ResetPeaks();
  AXE_ASSIGN_OR_RETURN(Array out, Array::Allocate(*client, array.shape(), array.dtype(), target));
  AXE_RETURN_IF_ERROR(MpiReshardInto(array, out, plan, stats));
  return out;
}

}  // namespace axe::runtime
