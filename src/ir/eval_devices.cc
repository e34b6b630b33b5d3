// EvalJaxprOnDevices: the SPMD interpreter with an executor that runs positions on a
// runtime client's device workers and collectives through the runtime.
#include "axe/ir/eval_devices.h"

#include <cstdint>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/primitives.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/device_values.h"
#include "eval_collectives.h"
#include "eval_device_bytes.h"
#include "eval_spmd.h"

namespace axe::ir {
namespace {

using internal::Replicas;
using internal::SpmdScope;

class DeviceExecutor : public internal::SpmdExecutor {
 public:
  explicit DeviceExecutor(runtime::Client& client) : client_(client) {}

  absl::Status ForEachPosition(const SpmdScope& scope,
                               const std::function<absl::Status(int64_t)>& fn) override {
    if (scope.mesh == nullptr || scope.count != scope.mesh->num_devices()) {
      return SpmdExecutor::ForEachPosition(scope, fn);  // on the host
    }
    AXE_RETURN_IF_ERROR(CheckMesh(*scope.mesh));
    const sharding::Mesh& mesh = *scope.mesh;
    return client_.RunOnDevices([&](int device) -> absl::Status {
      absl::StatusOr<int64_t> position = mesh.PositionOf(device);
      if (!position.ok()) return absl::OkStatus();  // a device outside the mesh
      return fn(*position);
    });
  }

  absl::StatusOr<Replicas> Collective(const sharding::Mesh& mesh, const Eqn& eqn, const Replicas& x,
                                      const ShapedArray& out_aval) override {
    AXE_RETURN_IF_ERROR(CheckMesh(mesh));
    AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, internal::CollectiveAxes(eqn));
    AXE_ASSIGN_OR_RETURN(runtime::DeviceValues in, internal::ToDevices(client_, mesh, x));
    AXE_ASSIGN_OR_RETURN(
        runtime::DeviceValues out,
        internal::RunRuntimeCollective(internal::InProcessCollectives(), mesh, eqn, axes, in));
    return internal::FromDevices(out, mesh, out_aval);
  }

 private:
  absl::Status CheckMesh(const sharding::Mesh& mesh) const {
    if (mesh.num_devices() > client_.num_devices()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the shard_map's mesh ", mesh.ToString(), " has ", mesh.num_devices(),
                       " devices but the client has ", client_.num_devices()));
    }
    for (int64_t p = 0; p < mesh.num_devices(); ++p) {
      int64_t d = mesh.DeviceAtPosition(p);
      if (d < 0 || d >= client_.num_devices() || !client_.IsAddressable(static_cast<int>(d))) {
        return absl::InvalidArgumentError(absl::StrCat("the shard_map's mesh names device ", d,
                                                       ", which the client does not hold"));
      }
    }
    return absl::OkStatus();
  }

  runtime::Client& client_;
};

}  // namespace

int64_t DevicesNeeded(const ClosedJaxpr& jaxpr) {
  int64_t most = 1;
  for (const Eqn& eqn : jaxpr.jaxpr.eqns) {
    if (eqn.primitive == Builtins().shard_map) {
      auto it = eqn.params.find("mesh");
      if (it != eqn.params.end()) {
        absl::StatusOr<sharding::Mesh> mesh = it->second.AsMesh("mesh");
        if (mesh.ok()) most = std::max(most, mesh->num_devices());
      }
    }
    for (const auto& [name, param] : eqn.params) {
      if (param.kind() == Param::Kind::kJaxpr && param.jaxpr() != nullptr) {
        most = std::max(most, DevicesNeeded(*param.jaxpr()));
      }
      for (const Param& item : param.items()) {
        if (item.kind() == Param::Kind::kJaxpr && item.jaxpr() != nullptr) {
          most = std::max(most, DevicesNeeded(*item.jaxpr()));
        }
      }
    }
  }
  return most;
}

namespace {
std::atomic<internal::MpiEvaluator> g_mpi_evaluator{nullptr};
}  // namespace

void internal::SetMpiEvaluator(MpiEvaluator evaluator) { g_mpi_evaluator.store(evaluator); }

absl::StatusOr<std::vector<HostArray>> EvalJaxprOnDevices(const ClosedJaxpr& jaxpr,
                                                          absl::Span<const HostArray> args,
                                                          runtime::Client& client,
                                                          const MemoryBudget* memory) {
  if (client.backend() == "mpi") {
    internal::MpiEvaluator evaluator = g_mpi_evaluator.load();
    if (evaluator != nullptr) return evaluator(jaxpr, args, client);
    return absl::UnimplementedError(absl::StrCat(
        "the ", client.backend(),
        " client cannot run jaxprs until ir::EnableMpiEvaluation() (axe/ir/mpi_eval.h, "
        "target axe::ir_run_mpi) is called"));
  }
  if (static_cast<int>(client.addressable_devices().size()) != client.num_devices()) {
    return absl::UnimplementedError(
        absl::StrCat("EvalJaxprOnDevices needs every device of the client in this process; the ",
                     client.backend(), " client holds ", client.addressable_devices().size(),
                     " of ", client.num_devices()));
  }
  DeviceExecutor executor(client);
  return internal::EvalTopLevel(jaxpr, args, executor, memory);
}

}  // namespace axe::ir
