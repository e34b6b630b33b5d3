// EvalJaxprOnDevices on an MPI client: every rank runs the whole program; inside a shard_map
// body it computes only its own mesh position (the others hold copies of its values, for
// their types), the collectives move data with the MPI collectives of mpi_collectives.h, and
// each output's blocks are all-gathered over the mesh before they are assembled, so every
// rank ends with the whole result.
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/mpi_eval.h"
#include "axe/runtime/mpi_collectives.h"
#include "eval_collectives.h"
#include "eval_device_bytes.h"
#include "eval_spmd.h"

namespace axe::ir::internal {
namespace {

RuntimeCollectives MpiCollectives() {
  return {runtime::MpiAllReduce, runtime::MpiAllGather, runtime::MpiReduceScatter,
          runtime::MpiAllToAll, runtime::MpiCollectivePermute};
}

class MpiExecutor : public SpmdExecutor {
 public:
  explicit MpiExecutor(runtime::Client& client)
      : client_(client), rank_(client.addressable_devices().at(0)) {}

  absl::Status ForEachPosition(const SpmdScope& scope,
                               const std::function<absl::Status(int64_t)>& fn) override {
    if (scope.mesh == nullptr || scope.count != scope.mesh->num_devices()) {
      return SpmdExecutor::ForEachPosition(scope, fn);
    }
    AXE_RETURN_IF_ERROR(CheckMesh(*scope.mesh));
    AXE_ASSIGN_OR_RETURN(int64_t position, scope.mesh->PositionOf(rank_));
    return fn(position);
  }

  bool IsLive(const sharding::Mesh& mesh, int64_t position) const override {
    return mesh.DeviceAtPosition(position) == rank_;
  }

  absl::StatusOr<Replicas> Collective(const sharding::Mesh& mesh, const Eqn& eqn, const Replicas& x,
                                      const ShapedArray& out_aval) override {
    AXE_RETURN_IF_ERROR(CheckMesh(mesh));
    AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, CollectiveAxes(eqn));
    AXE_ASSIGN_OR_RETURN(runtime::DeviceValues in, ToDevices(client_, mesh, x));
    AXE_ASSIGN_OR_RETURN(runtime::DeviceValues out,
                         RunRuntimeCollective(MpiCollectives(), mesh, eqn, axes, in));
    AXE_ASSIGN_OR_RETURN(int64_t me, mesh.PositionOf(rank_));
    AXE_ASSIGN_OR_RETURN(HostArray mine, FromDevice(out, mesh, me, out_aval));
    return Replicas(static_cast<size_t>(mesh.num_devices()), mine);
  }

  // All-gathers the blocks over every mesh axis (member order = mesh position order).
  absl::StatusOr<Replicas> ShareBlocks(const sharding::Mesh& mesh, Replicas blocks) override {
    AXE_RETURN_IF_ERROR(CheckMesh(mesh));
    std::vector<std::string> axes;
    for (const sharding::MeshAxis& a : mesh.axes()) axes.push_back(a.name);
    const ShapedArray& block = blocks[0].aval;
    AXE_ASSIGN_OR_RETURN(runtime::DeviceValues in, ToDevices(client_, mesh, blocks));
    AXE_ASSIGN_OR_RETURN(runtime::DeviceValues all,
                         runtime::MpiAllGather(mesh, axes, in, 0, /*tiled=*/false));
    std::vector<int64_t> stacked = block.shape();
    stacked.insert(stacked.begin(), mesh.num_devices());
    AXE_ASSIGN_OR_RETURN(int64_t me, mesh.PositionOf(rank_));
    AXE_ASSIGN_OR_RETURN(HostArray every, FromDevice(all, mesh, me, block.WithShape(stacked)));
    size_t size = blocks[0].values.size();
    for (size_t p = 0; p < blocks.size(); ++p) {
      auto begin = every.values.begin() + static_cast<std::ptrdiff_t>(p * size);
      blocks[p].values.assign(begin, begin + static_cast<std::ptrdiff_t>(size));
    }
    return blocks;
  }

 private:
  absl::Status CheckMesh(const sharding::Mesh& mesh) const {
    if (mesh.num_devices() != client_.num_devices()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the shard_map's mesh ", mesh.ToString(), " has ", mesh.num_devices(), " devices but ",
          client_.num_devices(), " MPI ranks run; use mpirun -n ", mesh.num_devices()));
    }
    return absl::OkStatus();
  }

  runtime::Client& client_;
  int rank_;
};

absl::StatusOr<std::vector<HostArray>> EvalOnMpi(const ClosedJaxpr& jaxpr,
                                                 absl::Span<const HostArray> args,
                                                 runtime::Client& client) {
  MpiExecutor executor(client);
  return EvalTopLevel(jaxpr, args, executor);
}

}  // namespace
}  // namespace axe::ir::internal

namespace axe::ir {

void EnableMpiEvaluation() { internal::SetMpiEvaluator(&internal::EvalOnMpi); }

}  // namespace axe::ir
