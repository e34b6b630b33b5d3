// EvalJaxprOnDevices: the SPMD interpreter with an executor that runs positions on a
// runtime client's device workers and collectives through the runtime.
#include "axe/ir/eval_devices.h"

#include <cstdint>

#include <algorithm>
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

// Runs shard_map bodies on a runtime client's devices, whatever its backend: each process
// computes the mesh positions of the devices it holds (all of them in process, its own rank
// on MPI) on their workers, the collectives go through the runtime's front doors (and so to
// the client's backend), and where a process holds only some devices it all-gathers each
// output's blocks before they are assembled, so that every process ends with the whole
// result. The positions a process does not compute hold copies of one it does, for their
// types.
class DeviceExecutor : public internal::SpmdExecutor {
 public:
  explicit DeviceExecutor(runtime::Client& client)
      : client_(client),
        holds_all_(static_cast<int>(client.addressable_devices().size()) == client.num_devices()) {}

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

  bool IsLive(const sharding::Mesh& mesh, int64_t position) const override {
    return holds_all_ || client_.IsAddressable(static_cast<int>(mesh.DeviceAtPosition(position)));
  }

  absl::StatusOr<Replicas> Collective(const sharding::Mesh& mesh, const Eqn& eqn, const Replicas& x,
                                      const ShapedArray& out_aval) override {
    AXE_RETURN_IF_ERROR(CheckMesh(mesh));
    AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, internal::CollectiveAxes(eqn));
    AXE_ASSIGN_OR_RETURN(runtime::DeviceValues in, internal::ToDevices(client_, mesh, x));
    AXE_ASSIGN_OR_RETURN(runtime::DeviceValues out,
                         internal::RunRuntimeCollective(mesh, eqn, axes, in));
    if (holds_all_) return internal::FromDevices(out, mesh, out_aval);
    AXE_ASSIGN_OR_RETURN(int64_t me, mesh.PositionOf(client_.addressable_devices().at(0)));
    AXE_ASSIGN_OR_RETURN(HostArray mine, internal::FromDevice(out, mesh, me, out_aval));
    return Replicas(static_cast<size_t>(mesh.num_devices()), mine);
  }

  // All-gathers the blocks over every mesh axis (member order = mesh position order) where
  // this process holds only its own device's.
  absl::StatusOr<Replicas> ShareBlocks(const sharding::Mesh& mesh, Replicas blocks) override {
    if (holds_all_) return blocks;
    AXE_RETURN_IF_ERROR(CheckMesh(mesh));
    std::vector<std::string> axes;
    for (const sharding::MeshAxis& a : mesh.axes()) axes.push_back(a.name);
    const ShapedArray& block = blocks[0].aval;
    AXE_ASSIGN_OR_RETURN(runtime::DeviceValues in, internal::ToDevices(client_, mesh, blocks));
    AXE_ASSIGN_OR_RETURN(runtime::DeviceValues all,
                         runtime::AllGather(mesh, axes, in, 0, /*tiled=*/false));
    std::vector<int64_t> stacked = block.shape();
    stacked.insert(stacked.begin(), mesh.num_devices());
    AXE_ASSIGN_OR_RETURN(int64_t me, mesh.PositionOf(client_.addressable_devices().at(0)));
    AXE_ASSIGN_OR_RETURN(HostArray every,
                         internal::FromDevice(all, mesh, me, block.WithShape(stacked)));
    const size_t size = blocks[0].values.size();
    for (size_t p = 0; p < blocks.size(); ++p) {
      auto begin = every.values.begin() + static_cast<std::ptrdiff_t>(p * size);
      blocks[p].values.assign(begin, begin + static_cast<std::ptrdiff_t>(size));
    }
    return blocks;
  }

 private:
  absl::Status CheckMesh(const sharding::Mesh& mesh) const {
    if (!holds_all_ && mesh.num_devices() != client_.num_devices()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the shard_map's mesh ", mesh.ToString(), " has ", mesh.num_devices(), " devices but ",
          client_.num_devices(), " MPI ranks run; use mpirun -n ", mesh.num_devices()));
    }
    if (mesh.num_devices() > client_.num_devices()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the shard_map's mesh ", mesh.ToString(), " has ", mesh.num_devices(),
                       " devices but the client has ", client_.num_devices()));
    }
    for (int64_t p = 0; p < mesh.num_devices(); ++p) {
      const int64_t d = mesh.DeviceAtPosition(p);
      if (d < 0 || d >= client_.num_devices()) {
        return absl::InvalidArgumentError(absl::StrCat("the shard_map's mesh names device ", d,
                                                       ", which the client does not hold"));
      }
    }
    return absl::OkStatus();
  }

  runtime::Client& client_;
  const bool holds_all_;  // every device in this process
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

absl::StatusOr<std::vector<HostArray>> EvalJaxprOnDevices(const ClosedJaxpr& jaxpr,
                                                          absl::Span<const HostArray> args,
                                                          runtime::Client& client,
                                                          const MemoryBudget* memory) {
  DeviceExecutor executor(client);
  return internal::EvalTopLevel(jaxpr, args, executor, memory);
}

}  // namespace axe::ir
