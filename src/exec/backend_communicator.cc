// The executor's exchange over a runtime client's backend, for a process that holds one
// device of the client (an MPI rank): it runs the mesh position of that device, and every
// exchange of a collective over mesh axes moves the value's own bytes through the backend's
// raw exchanges (runtime::AllGatherBytes, PermuteBytes, AllToAllBytes), so that the ranks meet
// in the backend's own collectives, with its argument agreement and its timeouts, and nothing
// is staged: a psum's members arrive in one receive buffer, an all_gather's straight in its
// result, a ppermute's in the receiver's result. The members' bytes come in member order, as
// the in-process rendezvous returns them, so the collectives' folds run in the same order on
// threads and on ranks (the same bits).
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "axe/base/status_macros.h"
#include "axe/exec/communicator.h"
#include "axe/runtime/client.h"
#include "axe/runtime/collectives.h"
#include "axe/sharding/mesh.h"

namespace axe::exec {
namespace {

class BackendCommunicator : public Communicator {
 public:
  BackendCommunicator(runtime::Client& client, const sharding::Mesh& mesh)
      : client_(client), mesh_(mesh), device_(client.addressable_devices().at(0)) {}

  absl::StatusOr<std::vector<Value>> Exchange(absl::Span<const int64_t>, int64_t, uint64_t,
                                              Value) override {
    return absl::InvalidArgumentError(
        "an exchange over a runtime backend names the mesh axes of its group");
  }

  // One all_gather into one buffer; the members' values are views of it (the own one is
  // `value` itself).
  absl::StatusOr<std::vector<Value>> ExchangeOverAxes(absl::Span<const std::string> axes,
                                                      absl::Span<const int64_t> group,
                                                      int64_t member, uint64_t tag,
                                                      Value value) override {
    if (group.size() <= 1) {
      AXE_RETURN_IF_ERROR(first_error());
      return std::vector<Value>{std::move(value)};
    }
    const auto members = static_cast<int64_t>(group.size());
    AXE_ASSIGN_OR_RETURN(Value all,
                         Value::Uninitialized(ir::ShapedArray(
                             {members, static_cast<int64_t>(value.num_bytes())}, DType::kU8)));
    AXE_RETURN_IF_ERROR(GatherInto(axes, group, member, tag, value, all));
    auto type = std::make_shared<const ir::ShapedArray>(value.aval());
    std::vector<Value> out;
    out.reserve(group.size());
    for (int64_t m = 0; m < members; ++m) {
      out.push_back(m == member ? value
                                : all.View(type, static_cast<size_t>(m) * value.num_bytes()));
    }
    return out;
  }

  bool copies_between_processes() const override { return true; }

  absl::Status GatherInto(absl::Span<const std::string> axes, absl::Span<const int64_t> group,
                          int64_t, uint64_t, const Value& value, Value& into) override {
    return Run(value, into, group.size(), [&] {
      return runtime::AllGatherBytes(client_, mesh_, axes, device_, value.bytes(),
                                     static_cast<int64_t>(value.num_bytes()), into.mutable_bytes());
    });
  }

  absl::Status PermuteInto(absl::Span<const std::string> axes, absl::Span<const int64_t> group,
                           int64_t, uint64_t, const Value& value,
                           absl::Span<const int64_t> source_of, Value& into) override {
    return Run(value, into, group.size(), [&] {
      return runtime::PermuteBytes(client_, mesh_, axes, device_, value.bytes(),
                                   static_cast<int64_t>(value.num_bytes()), source_of,
                                   into.mutable_bytes());
    });
  }

  absl::Status AllToAllInto(absl::Span<const std::string> axes, absl::Span<const int64_t> group,
                            int64_t, uint64_t, const Value& send, int64_t block,
                            Value& into) override {
    return Run(send, into, group.size(), [&] {
      return runtime::AllToAllBytes(client_, mesh_, axes, device_, send.bytes(), block,
                                    into.mutable_bytes());
    });
  }

  void Abort(absl::Status status) override {
    absl::MutexLock lock(&mu_);
    if (error_.ok()) error_ = std::move(status);
  }

  void Finish(int64_t) override {}

  absl::Status first_error() const override {
    absl::MutexLock lock(&mu_);
    return error_;
  }

 private:
  // Runs one raw exchange from `sent` into `into` (a group of one exchanges nothing: the
  // callers handle it); its error aborts the run. After a timeout the transport may still
  // touch both buffers: they are kept until the process exits, as the MPI client keeps its own.
  template <typename Move>
  absl::Status Run(const Value& sent, const Value& into, size_t members, Move move) {
    AXE_RETURN_IF_ERROR(first_error());
    if (members <= 1) return absl::InternalError("a raw exchange over a group of one member");
    absl::Status status = move();
    if (!status.ok()) {
      if (absl::IsDeadlineExceeded(status)) KeepUntilExit({sent, into});
      Abort(status);
    }
    return status;
  }

  static void KeepUntilExit(std::vector<Value> values) {
    static absl::Mutex mu(absl::kConstInit);
    static auto* kept = new std::vector<Value>();  // never freed: pending transfers' buffers
    absl::MutexLock lock(&mu);
    for (Value& v : values) kept->push_back(std::move(v));
  }

  runtime::Client& client_;
  const sharding::Mesh& mesh_;
  const int device_;
  mutable absl::Mutex mu_;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

std::unique_ptr<Communicator> NewBackendCommunicator(runtime::Client& client,
                                                     const sharding::Mesh& mesh) {
  return std::make_unique<BackendCommunicator>(client, mesh);
}

}  // namespace axe::exec
