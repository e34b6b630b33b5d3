// The executor's exchange over a runtime client's backend, for a process that holds one
// device of the client (an MPI rank): it runs the mesh position of that device, and every
// exchange of a collective over mesh axes is one all_gather of the members' bytes through the
// runtime's front door (runtime::AllGather), so that the ranks meet in the backend's own
// collective, with its argument agreement and its timeouts. The members' values come back in
// member order, as the in-process rendezvous returns them, so the collectives' folds run in
// the same order on threads and on ranks (the same bits).
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "axe/base/status_macros.h"
#include "axe/exec/communicator.h"
#include "axe/runtime/client.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/device_values.h"
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

  absl::StatusOr<std::vector<Value>> ExchangeOverAxes(absl::Span<const std::string> axes,
                                                      absl::Span<const int64_t> group,
                                                      int64_t member, uint64_t,
                                                      Value value) override {
    AXE_RETURN_IF_ERROR(first_error());
    if (group.size() <= 1) return std::vector<Value>{std::move(value)};
    absl::StatusOr<std::vector<Value>> all = AllGather(axes, group.size(), member, value);
    if (!all.ok()) Abort(all.status());
    return all;
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
  // The members' values of `value`'s type, stacked by the backend's all_gather.
  absl::StatusOr<std::vector<Value>> AllGather(absl::Span<const std::string> axes, size_t members,
                                               int64_t member, const Value& value) {
    const int64_t bytes = static_cast<int64_t>(value.num_bytes());
    AXE_ASSIGN_OR_RETURN(runtime::DeviceValues x,
                         runtime::DeviceValues::Allocate(client_, {bytes}, DType::kU8));
    if (bytes > 0) std::memcpy(x.mutable_data(device_), value.bytes(), static_cast<size_t>(bytes));
    AXE_ASSIGN_OR_RETURN(runtime::DeviceValues all,
                         runtime::AllGather(mesh_, axes, x, 0, /*tiled=*/false));
    if (all.bytes() != static_cast<int64_t>(members) * bytes) {
      return absl::InternalError(absl::StrCat("an exchange of ", bytes, " bytes over ", members,
                                              " members gathered ", all.bytes(), " bytes"));
    }
    std::vector<Value> out;
    out.reserve(members);
    const uint8_t* from = all.data(device_);
    for (size_t m = 0; m < members; ++m) {
      if (static_cast<int64_t>(m) == member) {
        out.push_back(value);
        continue;
      }
      AXE_ASSIGN_OR_RETURN(Value v, Value::Uninitialized(value.aval()));
      if (bytes > 0) {
        std::memcpy(v.mutable_bytes(), from + m * static_cast<size_t>(bytes),
                    static_cast<size_t>(bytes));
      }
      out.push_back(std::move(v));
    }
    return out;
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
