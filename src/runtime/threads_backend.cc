#include "runtime/threads_backend.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/box_copy.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/device_values.h"

namespace axe::runtime::internal {

using relayout::BufferLayout;
using relayout::CopyBox;
using relayout::IndexBox;
using relayout::MutableStoredTensor;
using relayout::RowMajorBuffer;
using relayout::StoredTensor;
using relayout::WholeBox;

namespace {

// One RunOnDevices call, shared with the device tasks: after a timeout the caller returns
// while a task may still run, and the task then finds this state alive (never the caller's).
struct DeviceRun {
  std::function<absl::Status(int)> fn;
  std::vector<absl::Status> results;
  std::vector<bool> finished;
  std::mutex mu;
  std::condition_variable done;
  size_t remaining = 0;
};

// OK, or the lowest-numbered device's error, prefixed "device <id>: ".
absl::Status FirstError(const std::vector<absl::Status>& results) {
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) {
      return absl::Status(results[i].code(),
                          absl::StrCat("device ", i, ": ", results[i].message()));
    }
  }
  return absl::OkStatus();
}

int64_t Product(absl::Span<const int64_t> dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];  // within a value that fits
  return p;
}

// An all_to_all in its tiled form (as JAX lowers the untiled one): the input x' (x with a
// dimension of 1 inserted for an untiled concat axis), the output out' (the same rank: the
// untiled result with its split axis kept, of size 1), and the two axes in those shapes.
// Row-major, x' and out' have the bytes of x and of the result.
struct TiledAllToAll {
  std::vector<int64_t> in, out;
  size_t split = 0, concat = 0;
};

TiledAllToAll MakeTiled(std::vector<int64_t> shape, size_t split, size_t concat, bool tiled,
                        int64_t group_size) {
  TiledAllToAll t{std::move(shape), {}, split, concat};
  if (!tiled && split != concat) {
    if (split < concat) ++t.concat;  // concat names a position after split is removed
    t.in.insert(t.in.begin() + static_cast<std::ptrdiff_t>(t.concat), 1);
    if (split > concat) ++t.split;
  }
  t.out = t.in;
  t.out[t.split] /= group_size;
  t.out[t.concat] *= group_size;
  return t;
}

}  // namespace

absl::Status ThreadsBackend::RunOnDevices(const std::function<absl::Status(int)>& fn) {
  if (Device::Current() != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("RunOnDevices called from the worker of device ", Device::Current()->id(),
                     ": a device cannot wait for itself"));
  }
  if (broken_.load()) {
    return absl::FailedPreconditionError(
        "the in-process client is broken by an earlier timeout (a device's task never "
        "finished)");
  }
  const size_t n = static_cast<size_t>(client_.num_devices());
  if (timeout_seconds_ <= 0) return RunAndWait(fn, n);
  auto run = std::make_shared<DeviceRun>();
  run->fn = fn;
  run->results.resize(n);
  run->finished.assign(n, false);
  run->remaining = n;
  for (size_t i = 0; i < n; ++i) {
    client_.device(static_cast<int>(i)).Enqueue([run, i] {
      absl::Status s = run->fn(static_cast<int>(i));
      std::lock_guard<std::mutex> lock(run->mu);
      run->results[i] = std::move(s);
      run->finished[i] = true;
      if (--run->remaining == 0) run->done.notify_all();
    });
  }
  std::unique_lock<std::mutex> lock(run->mu);
  if (!run->done.wait_for(lock, std::chrono::duration<double>(timeout_seconds_),
                          [&] { return run->remaining == 0; })) {
    broken_.store(true);
    size_t late = 0;
    while (run->finished[late]) ++late;
    return absl::DeadlineExceededError(
        absl::StrCat("device ", late, ": no answer within ", timeout_seconds_,
                     " s (the device died or stalls); the in-process client is now broken"));
  }
  return FirstError(run->results);
}

absl::Status ThreadsBackend::RunAndWait(const std::function<absl::Status(int)>& fn, size_t n) {
  std::vector<absl::Status> results(n);
  std::mutex mu;
  std::condition_variable done;
  size_t remaining = n;
  for (size_t i = 0; i < n; ++i) {
    client_.device(static_cast<int>(i)).Enqueue([&, i] {
      absl::Status s = fn(static_cast<int>(i));
      std::lock_guard<std::mutex> lock(mu);
      results[i] = std::move(s);
      if (--remaining == 0) done.notify_all();
    });
  }
  std::unique_lock<std::mutex> lock(mu);
  done.wait(lock, [&] { return remaining == 0; });
  return FirstError(results);
}

absl::Status ThreadsBackend::ForEachMember(
    const CollectiveCall& call,
    const std::function<absl::Status(int, const std::vector<int64_t>&, int64_t)>& fn) {
  return client_.RunOnDevices([&](int device) -> absl::Status {
    const std::optional<std::pair<int64_t, int64_t>> member = call.groups.Member(device);
    if (!member) return absl::OkStatus();
    const auto [group, index] = *member;
    return fn(device, call.groups.groups[static_cast<size_t>(group)], index);
  });
}

absl::StatusOr<DeviceValues> ThreadsBackend::AllocateResult(const CollectiveCall& call,
                                                            const DeviceValues& x) {
  return DeviceValues::Allocate(x.client(), call.out_shape, x.dtype(),
                                call.mesh.num_devices() < x.client().num_devices());
}

absl::StatusOr<DeviceValues> ThreadsBackend::AllReduce(const CollectiveCall& call, ReduceOp op,
                                                       const DeviceValues& x) {
  AXE_ASSIGN_OR_RETURN(DeviceValues out, AllocateResult(call, x));
  AXE_RETURN_IF_ERROR(
      ForEachMember(call, [&](int device, const std::vector<int64_t>& members, int64_t) {
        std::vector<const uint8_t*> inputs;
        for (int64_t m : members) inputs.push_back(x.data(static_cast<int>(m)));
        return ReduceElements(op, x.dtype(), inputs, x.elements(), out.mutable_data(device));
      }));
  return out;
}

absl::StatusOr<DeviceValues> ThreadsBackend::AllGather(const CollectiveCall& call,
                                                       const DeviceValues& x, int64_t dim, bool) {
  AXE_ASSIGN_OR_RETURN(DeviceValues out, AllocateResult(call, x));
  const int64_t g_size = call.groups.group_size();
  const auto d = static_cast<size_t>(dim);
  const int64_t outer = Product(x.shape(), 0, d);
  const int64_t inner = Product(x.shape(), d, x.shape().size()) * x.element_bytes();
  AXE_RETURN_IF_ERROR(
      ForEachMember(call, [&](int device, const std::vector<int64_t>& members, int64_t) {
        uint8_t* o = out.mutable_data(device);
        for (int64_t k = 0; k < outer; ++k) {
          for (size_t j = 0; j < members.size(); ++j) {
            const uint8_t* in = x.data(static_cast<int>(members[j]));
            std::memcpy(o + (k * g_size + static_cast<int64_t>(j)) * inner, in + k * inner,
                        static_cast<size_t>(inner));
          }
        }
        return absl::OkStatus();
      }));
  return out;
}

absl::StatusOr<DeviceValues> ThreadsBackend::ReduceScatter(const CollectiveCall& call, ReduceOp op,
                                                           const DeviceValues& x, int64_t dim,
                                                           bool) {
  AXE_ASSIGN_OR_RETURN(DeviceValues out, AllocateResult(call, x));
  const int64_t g_size = call.groups.group_size();
  const auto d = static_cast<size_t>(dim);
  const int64_t n = x.shape()[d];
  const int64_t outer = Product(x.shape(), 0, d);
  const int64_t inner = Product(x.shape(), d + 1, x.shape().size());
  const int64_t chunk = n / g_size * inner;  // elements each member keeps per outer index
  const int64_t eb = x.element_bytes();
  AXE_RETURN_IF_ERROR(ForEachMember(
      call, [&](int device, const std::vector<int64_t>& members, int64_t g) -> absl::Status {
        std::vector<const uint8_t*> inputs(members.size());
        for (int64_t o = 0; o < outer; ++o) {
          for (size_t j = 0; j < members.size(); ++j) {
            inputs[j] = x.data(static_cast<int>(members[j])) + (o * n * inner + g * chunk) * eb;
          }
          AXE_RETURN_IF_ERROR(ReduceElements(op, x.dtype(), inputs, chunk,
                                             out.mutable_data(device) + o * chunk * eb));
        }
        return absl::OkStatus();
      }));
  return out;
}

absl::StatusOr<DeviceValues> ThreadsBackend::AllToAll(const CollectiveCall& call,
                                                      const DeviceValues& x, int64_t split_axis,
                                                      int64_t concat_axis, bool tiled) {
  const int64_t g_size = call.groups.group_size();
  const TiledAllToAll t = MakeTiled(x.shape(), static_cast<size_t>(split_axis),
                                    static_cast<size_t>(concat_axis), tiled, g_size);
  AXE_ASSIGN_OR_RETURN(BufferLayout in_layout, RowMajorBuffer(t.in));
  AXE_ASSIGN_OR_RETURN(BufferLayout out_layout, RowMajorBuffer(t.out));
  AXE_ASSIGN_OR_RETURN(DeviceValues out, AllocateResult(call, x));
  // Member g's chunk of member j: piece g along split of x'_j, to piece j along concat of out'.
  const int64_t chunk = t.in[t.split] / g_size;
  const int64_t received = t.out[t.concat] / g_size;
  AXE_RETURN_IF_ERROR(ForEachMember(
      call, [&](int device, const std::vector<int64_t>& members, int64_t g) -> absl::Status {
        MutableStoredTensor to{out_layout, t.out, out.mutable_data(device)};
        for (size_t j = 0; j < members.size(); ++j) {
          StoredTensor from{in_layout, t.in, x.data(static_cast<int>(members[j]))};
          IndexBox src = WholeBox(t.in), dst = WholeBox(t.out);
          src[t.split] = {g * chunk, (g + 1) * chunk};
          const auto jj = static_cast<int64_t>(j);
          dst[t.concat] = {jj * received, (jj + 1) * received};
          AXE_RETURN_IF_ERROR(CopyBox(from, src, to, dst, x.element_bytes()));
        }
        return absl::OkStatus();
      }));
  return out;
}

absl::StatusOr<DeviceValues> ThreadsBackend::CollectivePermute(
    const CollectiveCall& call, const DeviceValues& x, absl::Span<const int64_t> source_of) {
  AXE_ASSIGN_OR_RETURN(DeviceValues out, AllocateResult(call, x));
  AXE_RETURN_IF_ERROR(
      ForEachMember(call, [&](int device, const std::vector<int64_t>& members, int64_t g) {
        uint8_t* o = out.mutable_data(device);
        const int64_t src = source_of[static_cast<size_t>(g)];
        if (x.bytes() == 0) return absl::OkStatus();
        if (src < 0) {
          std::memset(o, 0, static_cast<size_t>(x.bytes()));
        } else {
          std::memcpy(o, x.data(static_cast<int>(members[static_cast<size_t>(src)])),
                      static_cast<size_t>(x.bytes()));
        }
        return absl::OkStatus();
      }));
  return out;
}

// The rounds of the raw exchanges, one per group of devices: members arrive, then copy, then
// leave; a round is reused once its last member has left.
struct RawRendezvous {
  struct Round {
    std::vector<const uint8_t*> senders;
    int64_t arrived = 0, copied = 0;
    bool leaving = false;  // every member arrived; the next round waits until they have left
    uint64_t generation = 0;
  };
  std::mutex mu;
  std::condition_variable changed;
  std::map<std::vector<int64_t>, Round> rounds;
};

ThreadsBackend::ThreadsBackend(Client& client, double timeout_seconds)
    : client_(client),
      timeout_seconds_(timeout_seconds),
      rendezvous_(std::make_shared<RawRendezvous>()) {}

absl::Status ThreadsBackend::Meet(
    const CollectiveCall& call, int device, const void* send,
    const std::function<void(const std::vector<const uint8_t*>&, int64_t)>& copy) {
  if (broken_.load()) {
    return absl::FailedPreconditionError(
        absl::StrCat(call.what, ": the in-process client is broken by an earlier timeout"));
  }
  const auto member = call.groups.Member(device);
  if (!member) return absl::OkStatus();  // outside the mesh: nothing to exchange
  const auto& [group_index, index] = *member;
  const std::vector<int64_t>& group = call.groups.groups[static_cast<size_t>(group_index)];
  const auto n = static_cast<int64_t>(group.size());
  RawRendezvous& r = *rendezvous_;
  std::unique_lock<std::mutex> lock(r.mu);
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::duration<double>(timeout_seconds_ > 0 ? timeout_seconds_ : 1e9));
  // A member that timed out has left its round: the others must not read its buffer.
  auto broken = [&] {
    return absl::FailedPreconditionError(absl::StrCat(
        call.what, ": the in-process client was broken by a timeout of another member"));
  };
  auto wait = [&](const std::function<bool()>& ready) -> absl::Status {
    if (r.changed.wait_until(lock, deadline, [&] { return ready() || broken_.load(); })) {
      return broken_.load() ? broken() : absl::OkStatus();
    }
    broken_.store(true);
    r.changed.notify_all();
    return absl::DeadlineExceededError(
        absl::StrCat(call.what, ": device ", device, " waited ", timeout_seconds_,
                     " s for the other members of its group (one died or stalls); the "
                     "in-process client is now broken"));
  };
  RawRendezvous::Round& round = r.rounds[group];
  AXE_RETURN_IF_ERROR(wait([&] { return !round.leaving; }));
  if (round.arrived == 0) round.senders.assign(static_cast<size_t>(n), nullptr);
  round.senders[static_cast<size_t>(index)] = static_cast<const uint8_t*>(send);
  const uint64_t generation = round.generation;
  if (++round.arrived == n) {
    round.leaving = true;
    r.changed.notify_all();
  }
  AXE_RETURN_IF_ERROR(wait([&] { return round.leaving && round.generation == generation; }));
  const std::vector<const uint8_t*> senders = round.senders;
  lock.unlock();
  copy(senders, index);
  lock.lock();
  if (++round.copied == n) {
    round.arrived = round.copied = 0;
    round.leaving = false;
    ++round.generation;
    r.changed.notify_all();
    return absl::OkStatus();
  }
  return wait([&] { return round.generation != generation; });
}

absl::Status ThreadsBackend::AllGatherBytes(const CollectiveCall& call, int device,
                                            const void* send, int64_t bytes, void* receive) {
  return Meet(call, device, send, [&](const std::vector<const uint8_t*>& senders, int64_t) {
    for (size_t j = 0; j < senders.size(); ++j) {
      if (bytes > 0) {
        std::memcpy(static_cast<uint8_t*>(receive) + j * static_cast<size_t>(bytes), senders[j],
                    static_cast<size_t>(bytes));
      }
    }
  });
}

absl::Status ThreadsBackend::PermuteBytes(const CollectiveCall& call, int device, const void* send,
                                          int64_t bytes, absl::Span<const int64_t> source_of,
                                          void* receive) {
  return Meet(call, device, send, [&](const std::vector<const uint8_t*>& senders, int64_t index) {
    const int64_t from = source_of[static_cast<size_t>(index)];
    if (from >= 0 && bytes > 0 && receive != senders[static_cast<size_t>(from)]) {
      std::memcpy(receive, senders[static_cast<size_t>(from)], static_cast<size_t>(bytes));
    }
  });
}

absl::Status ThreadsBackend::AllToAllBytes(const CollectiveCall& call, int device, const void* send,
                                           int64_t block, void* receive) {
  return Meet(call, device, send, [&](const std::vector<const uint8_t*>& senders, int64_t index) {
    const auto b = static_cast<size_t>(block);
    for (size_t j = 0; j < senders.size(); ++j) {
      if (b > 0) {
        std::memcpy(static_cast<uint8_t*>(receive) + j * b,
                    senders[j] + static_cast<size_t>(index) * b, b);
      }
    }
  });
}

}  // namespace axe::runtime::internal
