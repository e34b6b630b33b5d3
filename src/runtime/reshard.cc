#include "axe/runtime/reshard.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/backend.h"

namespace axe::runtime {

namespace {

std::string ShapeText(absl::Span<const int64_t> shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) absl::StrAppend(&out, i ? ", " : "", shape[i]);
  return out + ")";
}

absl::Status CheckPlan(const Array& array, const sharding::NamedSharding& target,
                       const ReshardPlan& plan) {
  if (plan.shape != array.shape()) {
    return absl::InvalidArgumentError(absl::StrCat("the plan is for shape ", ShapeText(plan.shape),
                                                   ", the array has ", ShapeText(array.shape())));
  }
  if (plan.element_bytes != array.element_bytes()) {
    return absl::InvalidArgumentError(absl::StrCat("the plan moves elements of ",
                                                   plan.element_bytes, " bytes, the array's have ",
                                                   array.element_bytes()));
  }
  if (!plan.from.empty() && plan.from != array.sharding().ToString()) {
    return absl::InvalidArgumentError(absl::StrCat("the plan starts from ", plan.from,
                                                   ", the array is ", array.sharding().ToString()));
  }
  if (!plan.to.empty() && plan.to != target.ToString()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the plan goes to ", plan.to, ", the target is ", target.ToString()));
  }
  return absl::OkStatus();
}

// The description the processes of a job compare before a reshard (Backend::AgreeOnCall).
std::string CallText(const Array& array, const sharding::Format& target) {
  return absl::StrCat(XlaName(array.dtype()), "[", absl::StrJoin(array.shape(), ","), "] ",
                      array.format().ToString(), " -> ", target.ToString());
}

absl::Status CheckStaging(const Array& array, const ReshardOptions& options) {
  if (options.transport != ReshardTransport::kStaged) return absl::OkStatus();
  if (options.staging_bytes < 0 ||
      (options.staging_bytes > 0 && options.staging_bytes < array.element_bytes())) {
    return absl::InvalidArgumentError(absl::StrCat("a staging buffer of ", options.staging_bytes,
                                                   " bytes cannot hold one element of ",
                                                   array.element_bytes(), " bytes"));
  }
  return absl::OkStatus();
}

// ReshardInto once the processes agree on the call: every check, then the backend's exchange.
absl::Status CheckedReshardInto(const Array& array, Array& out, const ReshardPlan& plan,
                                const ReshardOptions& options, ReshardStats* stats) {
  if (&out.client() != &array.client() || out.shape() != array.shape() ||
      out.dtype() != array.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the destination array differs from the source in its client, shape or element type: ",
        ShapeText(out.shape()), " ", XlaName(out.dtype()), " vs ", ShapeText(array.shape()), " ",
        XlaName(array.dtype())));
  }
  AXE_RETURN_IF_ERROR(MarkSameOnEveryRank(CheckReshard(array, out.format())));
  AXE_RETURN_IF_ERROR(MarkSameOnEveryRank(CheckPlan(array, out.sharding(), plan)));
  AXE_RETURN_IF_ERROR(MarkSameOnEveryRank(CheckStaging(array, options)));
  return array.client().ops().ExchangeReshard(array, out, plan, options, stats);
}

// ExecuteReshard once the processes agree on the call.
absl::StatusOr<Array> CheckedExecuteReshard(const Array& array, const sharding::Format& target,
                                            const ReshardPlan& plan, const ReshardOptions& options,
                                            ReshardStats* stats) {
  absl::StatusOr<sharding::NamedSharding> named = ArraySharding(target);
  if (!named.ok()) return MarkSameOnEveryRank(named.status());
  AXE_RETURN_IF_ERROR(MarkSameOnEveryRank(CheckPlan(array, *named, plan)));
  AXE_RETURN_IF_ERROR(MarkSameOnEveryRank(CheckStaging(array, options)));
  Client& client = array.client();
  client.ops().ReleaseStaging();  // what this reshard stages counts in its peak
  client.ResetPeaks();
  AXE_ASSIGN_OR_RETURN(Array out, Array::Allocate(client, array.shape(), array.dtype(), target));
  AXE_RETURN_IF_ERROR(CheckedReshardInto(array, out, plan, options, stats));
  return out;
}

}  // namespace

absl::Status CheckReshard(const Array& array, const sharding::Format& target) {
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding named, ArraySharding(target));
  const sharding::Mesh& mesh = named.mesh();
  if (mesh.num_devices() > array.client().num_devices()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the target mesh ", mesh.ToString(), " has ", mesh.num_devices(),
                     " devices but the client has ", array.client().num_devices()));
  }
  AXE_RETURN_IF_ERROR(named.CheckShape(array.shape(), "the resharded values"));
  return MakeShardStorage(array.shape(), array.dtype(), target).status();
}

absl::StatusOr<Array> Reshard(const Array& array, const sharding::Format& target,
                              const ReshardOptions& options, ReshardStats* stats) {
  AXE_RETURN_IF_ERROR(
      array.client().ops().AgreeOnCall("reshard", [&] { return CallText(array, target); }));
  AXE_RETURN_IF_ERROR(MarkSameOnEveryRank(CheckReshard(array, target)));
  absl::StatusOr<sharding::NamedSharding> named = ArraySharding(target);
  if (!named.ok()) return MarkSameOnEveryRank(named.status());
  absl::StatusOr<ReshardPlan> plan =
      PlanReshard(array.shape(), array.element_bytes(), array.sharding(), *named);
  if (!plan.ok()) return MarkSameOnEveryRank(plan.status());
  return CheckedExecuteReshard(array, target, *plan, options, stats);
}

absl::StatusOr<Array> ExecuteReshard(const Array& array, const sharding::Format& target,
                                     const ReshardPlan& plan, const ReshardOptions& options,
                                     ReshardStats* stats) {
  AXE_RETURN_IF_ERROR(
      array.client().ops().AgreeOnCall("reshard", [&] { return CallText(array, target); }));
  AXE_RETURN_IF_ERROR(MarkSameOnEveryRank(CheckReshard(array, target)));
  return CheckedExecuteReshard(array, target, plan, options, stats);
}

absl::Status ReshardInto(const Array& array, Array& out, const ReshardPlan& plan,
                         const ReshardOptions& options, ReshardStats* stats) {
  AXE_RETURN_IF_ERROR(
      array.client().ops().AgreeOnCall("reshard", [&] { return CallText(array, out.format()); }));
  return CheckedReshardInto(array, out, plan, options, stats);
}

}  // namespace axe::runtime
