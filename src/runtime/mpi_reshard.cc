#include "axe/runtime/mpi_reshard.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/box_copy.h"
#include "axe/relayout/strided_box.h"
#include "src/runtime/mpi_state.h"

namespace axe::runtime {

using relayout::BoxElements;
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
  int64_t send_bytes = 0, receive_bytes = 0, local_bytes = 0;
};

RankWork WorkOf(const ReshardPlan& plan, int rank) {
  RankWork w;
  for (const ReshardMessage& m : plan.messages) {
    if (m.src_device == rank) {
      w.sends.push_back(&m);
      w.send_bytes += m.bytes;
    }
    if (m.dst_device == rank) {
      w.receives.push_back(&m);
      w.receive_bytes += m.bytes;
    }
  }
  for (const ReshardMessage& m : plan.local_copies) {
    if (m.dst_device == rank) {
      w.local.push_back(&m);
      w.local_bytes += m.bytes;
    }
  }
  return w;
}

// A part of a message that travels at once (a message is cut along its outermost dimension
// of extent > 1 when it exceeds the staging bound).
struct StagedPiece {
  const ReshardMessage* message;
  IndexBox box;
  int64_t bytes;
};

// The rounds of a reshard, the same on every rank: pieces in plan order, a new round
// whenever a piece would take a rank's bytes sent or received in the round past `bound`
// (0: no bound, one round).
std::vector<std::vector<StagedPiece>> Rounds(const ReshardPlan& plan, int64_t bound, int ranks) {
  std::vector<std::vector<StagedPiece>> rounds(1);
  std::vector<int64_t> sent(static_cast<size_t>(ranks), 0), received(sent.size(), 0);
  const int64_t eb = plan.element_bytes;
  for (const ReshardMessage& m : plan.messages) {
    std::vector<IndexBox> boxes;
    SplitBox(m.box, bound > 0 ? std::max<int64_t>(1, bound / eb) : INT64_MAX, boxes);
    for (IndexBox& box : boxes) {
      const int64_t bytes = BoxElements(box).value_or(0) * eb;
      auto& s = sent[static_cast<size_t>(m.src_device)];
      auto& r = received[static_cast<size_t>(m.dst_device)];
      if (bound > 0 && !rounds.back().empty() && (s + bytes > bound || r + bytes > bound)) {
        rounds.emplace_back();
        std::fill(sent.begin(), sent.end(), 0);
        std::fill(received.begin(), received.end(), 0);
      }
      s += bytes;
      r += bytes;
      rounds.back().push_back({&m, std::move(box), bytes});
    }
  }
  return rounds;
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

// How MPI can move `box` straight from or into a shard (MpiInPlaceView), or nullopt.
absl::StatusOr<std::optional<MpiBoxView>> InPlace(const Side& shard, const IndexBox& box,
                                                  int element_bytes, MpiTypes& types) {
  return MpiInPlaceView(shard.storage.layout, shard.storage.shape, Relative(box, shard.origin),
                        element_bytes, shard.data, types);
}

// This rank's side of one piece: in place, or at `offset` in its staging buffer.
struct Transfer {
  const StagedPiece* piece;
  std::optional<MpiBoxView> in_place;
  int64_t offset = 0;
};

// The pieces of `round` this rank sends (sending) or receives, each in place where MPI can
// read or write the shard directly; the staging bytes the others need.
absl::StatusOr<std::vector<Transfer>> Transfers(const std::vector<StagedPiece>& round,
                                                const Side& shard, int me, bool sending,
                                                int element_bytes, MpiTypes& types,
                                                int64_t& staging) {
  std::vector<Transfer> out;
  staging = 0;
  for (const StagedPiece& p : round) {
    if ((sending ? p.message->src_device : p.message->dst_device) != me) continue;
    AXE_RETURN_IF_ERROR(MpiCount(p.bytes, "reshard").status());
    Transfer t{&p, std::nullopt, staging};
    AXE_ASSIGN_OR_RETURN(t.in_place, InPlace(shard, p.box, element_bytes, types));
    if (!t.in_place) staging += p.bytes;
    out.push_back(std::move(t));
  }
  return out;
}

// After a failed wait MPI may still write into the target shard: the client keeps it, and
// `out` gets a fresh buffer of the same size (kept as it is if that allocation fails).
void KeepTargetAlive(MpiClient& client, Array& out) {
  DeviceBuffer* buffer = out.mutable_shard_buffer(client.rank());
  if (buffer == nullptr) return;
  absl::StatusOr<DeviceBuffer> fresh = client.device(client.rank()).Allocate(buffer->size());
  if (!fresh.ok()) return;
  client.state().KeepAlive(std::exchange(*buffer, *std::move(fresh)));
}

// One round on this rank: the staged sends packed by a relayout, receives posted (straight
// into the target shard where MPI can write it, else into staging), sends posted (straight
// from the source shard, else from staging), `meanwhile` run while the messages travel, all
// completed, the staged receives unpacked (relayout).
absl::Status RunRound(MpiClient& client, const Array& array, Array& out,
                      const std::vector<StagedPiece>& round, int tag,
                      const std::function<absl::Status()>& meanwhile) {
  const int me = client.rank();
  const int eb = array.element_bytes();
  const DeviceShard* from_shard = ShardOf(array, me);
  const DeviceShard* to_shard = ShardOf(out, me);
  // A rank outside a mesh sends or receives nothing from that side.
  Side src{array.storage(),
           from_shard ? const_cast<uint8_t*>(array.shard_buffer(me)->data()) : nullptr,
           from_shard ? from_shard->index : IndexBox{}};
  Side dst{out.storage(), to_shard ? out.mutable_shard_buffer(me)->data() : nullptr,
           to_shard ? to_shard->index : IndexBox{}};
  MpiTypes types;
  int64_t send_bytes = 0, receive_bytes = 0;
  AXE_ASSIGN_OR_RETURN(std::vector<Transfer> receives,
                       Transfers(round, dst, me, false, eb, types, receive_bytes));
  AXE_ASSIGN_OR_RETURN(std::vector<Transfer> sends,
                       Transfers(round, src, me, true, eb, types, send_bytes));
  AXE_RETURN_IF_ERROR(Reserve(client, client.state().send_staging, send_bytes));
  AXE_RETURN_IF_ERROR(Reserve(client, client.state().receive_staging, receive_bytes));
  uint8_t* send = client.state().send_staging.data();
  uint8_t* receive = client.state().receive_staging.data();
  std::vector<MPI_Request> req;
  req.reserve(receives.size() + sends.size());
  for (const Transfer& t : sends) {  // packed before any message is posted
    if (!t.in_place) {
      AXE_RETURN_IF_ERROR(PackOrUnpack(src, t.piece->box, send + t.offset, true, eb));
    }
  }
  for (const Transfer& t : receives) {
    const MpiBoxView v = t.in_place.value_or(
        MpiBoxView{receive + t.offset, MPI_BYTE, static_cast<int>(t.piece->bytes)});
    req.emplace_back();
    AXE_RETURN_IF_ERROR(
        MpiStatus(MPI_Irecv(v.base, v.count, v.type, static_cast<int>(t.piece->message->src_device),
                            tag, client.state().world, &req.back()),
                  "MPI_Irecv"));
  }
  for (const Transfer& t : sends) {
    const MpiBoxView v = t.in_place.value_or(
        MpiBoxView{send + t.offset, MPI_BYTE, static_cast<int>(t.piece->bytes)});
    req.emplace_back();
    AXE_RETURN_IF_ERROR(
        MpiStatus(MPI_Isend(v.base, v.count, v.type, static_cast<int>(t.piece->message->dst_device),
                            tag, client.state().world, &req.back()),
                  "MPI_Isend"));
  }
  absl::Status local = meanwhile ? meanwhile() : absl::OkStatus();
  // On failure the client is broken and keeps the buffers MPI may still use (its staging
  // buffers stay with it; the target shard is handed over).
  if (absl::Status s = WaitAll(client, req, "reshard"); !s.ok()) {
    KeepTargetAlive(client, out);
    return s;
  }
  AXE_RETURN_IF_ERROR(local);
  for (const Transfer& t : receives) {
    if (!t.in_place)
      AXE_RETURN_IF_ERROR(PackOrUnpack(dst, t.piece->box, receive + t.offset, false, eb));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status MpiExchangeReshard(MpiClient& mpi, const Array& array, Array& out,
                                const ReshardPlan& plan, int64_t staging_bytes,
                                ReshardStats* stats) {
  MpiClient* client = &mpi;
  AXE_RETURN_IF_ERROR(CheckUsable(mpi));
  const int me = client->rank();
  const RankWork w = WorkOf(plan, me);
  const DeviceShard* from_shard = ShardOf(array, me);
  const DeviceShard* to_shard = ShardOf(out, me);
  const int eb = array.element_bytes();
  const auto start = std::chrono::steady_clock::now();
  int64_t local = 0;
  // The local part: one relayout per copy, done while the first round's messages travel:
  // on the device's worker thread where the rank has a CPU for it, else between posting the
  // messages and completing them. The buffers are taken now: after a timeout the round hands
  // the target's buffer over to the client while the worker may still be writing it.
  const StoredTensor from{array.storage().layout, array.storage().shape,
                          w.local.empty() ? nullptr : array.shard_buffer(me)->data()};
  const MutableStoredTensor to{out.storage().layout, out.storage().shape,
                               w.local.empty() ? nullptr : out.mutable_shard_buffer(me)->data()};
  auto copy_local = [&]() -> absl::Status {
    for (const ReshardMessage* m : w.local) {
      AXE_RETURN_IF_ERROR(CopyBox(from, Relative(m->box, from_shard->index), to,
                                  Relative(m->box, to_shard->index), eb));
      local += m->bytes;
    }
    return absl::OkStatus();
  };
  const bool on_worker = client->LocalCopiesOnWorker(w.local_bytes);
  std::future<absl::Status> copied;
  if (on_worker) {
    auto task = std::make_shared<std::packaged_task<absl::Status()>>(copy_local);
    copied = task->get_future();
    client->device(me).Enqueue([task] { (*task)(); });
  }
  // Every way out waits for the worker: its copy reads this frame and both arrays.
  absl::Cleanup wait_for_worker = [&copied] {
    if (copied.valid()) copied.wait();
  };
  const std::vector<std::vector<StagedPiece>> rounds =
      Rounds(plan, staging_bytes, client->num_devices());
  for (size_t k = 0; k < rounds.size(); ++k) {
    AXE_RETURN_IF_ERROR(
        RunRound(*client, array, out, rounds[k], static_cast<int>(k & 0x7fff),
                 k == 0 && !on_worker ? copy_local : std::function<absl::Status()>()));
  }
  if (on_worker) AXE_RETURN_IF_ERROR(copied.get());
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (stats == nullptr) return absl::OkStatus();
  return GatherStats(*client, w.receive_bytes, local, static_cast<int64_t>(w.receives.size()),
                     elapsed.count(), *stats);
}

namespace {

absl::Status CheckMpiArray(const Array& array) {
  if (AsMpiClient(array.client()) != nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("MpiReshard needs an array on an MPI client, not on the '",
                   array.client().backend(), "' backend"));
}

}  // namespace

absl::Status MpiReshardInto(const Array& array, Array& out, const ReshardPlan& plan,
                            ReshardStats* stats, int64_t staging_bytes) {
  AXE_RETURN_IF_ERROR(CheckMpiArray(array));
  return ReshardInto(array, out, plan, {ReshardTransport::kStaged, staging_bytes}, stats);
}

absl::StatusOr<Array> MpiReshard(const Array& array, const sharding::Format& target,
                                 ReshardStats* stats, int64_t staging_bytes) {
  AXE_RETURN_IF_ERROR(CheckMpiArray(array));
  return Reshard(array, target, {ReshardTransport::kStaged, staging_bytes}, stats);
}

}  // namespace axe::runtime
