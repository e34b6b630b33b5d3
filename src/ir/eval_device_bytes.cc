// Values <-> device bytes, and collective equations on the runtime's collectives.
#include "eval_device_bytes.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/host_bytes.h"
#include "axe/ir/primitives.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/reduce_elements.h"

namespace axe::ir::internal {
namespace {

absl::StatusOr<int64_t> IntParam(const Eqn& eqn, absl::string_view name) {
  auto it = eqn.params.find(name);
  if (it == eqn.params.end() || it->second.is_none()) return 0;
  return it->second.AsInt(name);
}

absl::StatusOr<bool> Tiled(const Eqn& eqn) {
  auto it = eqn.params.find("tiled");
  if (it == eqn.params.end() || it->second.is_none()) return false;
  return it->second.AsBool("tiled");
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> Perm(const Eqn& eqn) {
  AXE_ASSIGN_OR_RETURN(const Param* perm, GetParam(eqn.params, "ppermute", "perm"));
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const Param& p : perm->items()) {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> sd, p.AsInts("perm"));
    if (sd.size() != 2) return absl::InvalidArgumentError("ppermute perm items must be pairs");
    pairs.emplace_back(sd[0], sd[1]);
  }
  return pairs;
}

}  // namespace

absl::StatusOr<runtime::DeviceValues> ToDevices(runtime::Client& client, const sharding::Mesh& mesh,
                                                const Replicas& x) {
  const ShapedArray& aval = x[0].aval;
  const size_t bytes = x[0].values.size() * static_cast<size_t>(ByteWidth(aval.dtype()));
  std::vector<std::vector<uint8_t>> host(static_cast<size_t>(client.num_devices()),
                                         std::vector<uint8_t>(bytes, 0));
  for (size_t p = 0; p < x.size(); ++p) {
    AXE_ASSIGN_OR_RETURN(host[static_cast<size_t>(mesh.DeviceAtPosition(static_cast<int64_t>(p)))],
                         HostArrayToBytes(x[p]));
  }
  return runtime::DeviceValues::FromHost(client, aval.shape(), aval.dtype(), host);
}

absl::StatusOr<HostArray> FromDevice(const runtime::DeviceValues& v, const sharding::Mesh& mesh,
                                     int64_t position, const ShapedArray& aval) {
  if (v.shape() != aval.shape() || v.dtype() != aval.dtype()) {
    return absl::InternalError(absl::StrCat("the runtime's collective gave a value of shape (",
                                            absl::StrJoin(v.shape(), ", "),
                                            ") where the jaxpr has ", aval.ShortString()));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> raw,
                       v.ToHost(static_cast<int>(mesh.DeviceAtPosition(position))));
  return HostArrayFromBytes(aval, raw);
}

absl::StatusOr<Replicas> FromDevices(const runtime::DeviceValues& v, const sharding::Mesh& mesh,
                                     const ShapedArray& aval) {
  Replicas out;
  for (int64_t p = 0; p < mesh.num_devices(); ++p) {
    AXE_ASSIGN_OR_RETURN(HostArray a, FromDevice(v, mesh, p, aval));
    out.push_back(std::move(a));
  }
  return out;
}

absl::StatusOr<runtime::DeviceValues> RunRuntimeCollective(const sharding::Mesh& mesh,
                                                           const Eqn& eqn,
                                                           const std::vector<std::string>& axes,
                                                           const runtime::DeviceValues& x) {
  const BuiltinPrimitives& b = Builtins();
  const Primitive* p = eqn.primitive;
  if (p == b.psum || p == b.psum_invariant)
    return runtime::AllReduce(mesh, axes, runtime::ReduceOp::kSum, x);
  if (p == b.pmax) return runtime::AllReduce(mesh, axes, runtime::ReduceOp::kMax, x);
  if (p == b.pmin) return runtime::AllReduce(mesh, axes, runtime::ReduceOp::kMin, x);
  AXE_ASSIGN_OR_RETURN(bool tiled, Tiled(eqn));
  if (p == b.all_gather || p == b.all_gather_invariant) {
    AXE_ASSIGN_OR_RETURN(int64_t dim, IntParam(eqn, "all_gather_dimension"));
    return runtime::AllGather(mesh, axes, x, dim, tiled);
  }
  if (p == b.reduce_scatter) {
    AXE_ASSIGN_OR_RETURN(int64_t dim, IntParam(eqn, "scatter_dimension"));
    return runtime::ReduceScatter(mesh, axes, runtime::ReduceOp::kSum, x, dim, tiled);
  }
  if (p == b.all_to_all) {
    AXE_ASSIGN_OR_RETURN(int64_t split, IntParam(eqn, "split_axis"));
    AXE_ASSIGN_OR_RETURN(int64_t concat, IntParam(eqn, "concat_axis"));
    // JAX's primitive has the tiled shapes whatever `tiled` says: the runtime's tiled form.
    return runtime::AllToAll(mesh, axes, x, split, concat, /*tiled=*/true);
  }
  if (p == b.ppermute) {
    AXE_ASSIGN_OR_RETURN(auto perm, Perm(eqn));
    return runtime::CollectivePermute(mesh, axes, x, perm);
  }
  return absl::InternalError(absl::StrCat(p->name(), " is not a collective"));
}

}  // namespace axe::ir::internal
