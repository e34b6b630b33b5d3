// Collectives in the SPMD interpreter: which primitives communicate, their axes, the groups
// of positions they act on, axis_index and pvary (local), the rest through the executor.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/primitives.h"
#include "eval_collectives.h"
#include "eval_control.h"
#include "eval_util.h"

namespace axe::ir::internal {

absl::StatusOr<std::vector<std::string>> CollectiveAxes(const Eqn& eqn) {
  const Primitive* p = eqn.primitive;
  const BuiltinPrimitives& b = Builtins();
  bool uses_axes =
      p == b.psum || p == b.psum_invariant || p == b.pmax || p == b.pmin || p == b.pvary;
  absl::string_view name = uses_axes ? "axes" : "axis_name";
  AXE_ASSIGN_OR_RETURN(const Param* param, GetParam(eqn.params, p->name(), name));
  return param->AsAxisNames(name);
}

absl::StatusOr<std::vector<Member>> GroupMembers(const sharding::Mesh& mesh,
                                                 absl::Span<const std::string> axes,
                                                 absl::string_view api, int64_t& group_size) {
  std::vector<bool> in_group(mesh.rank(), false);
  std::vector<size_t> order;
  for (const std::string& a : axes) {
    std::optional<size_t> j = mesh.AxisIndex(a);
    if (!j) return ManualAxisSize(a, api).status();  // JAX's unbound-axis NameError text
    if (in_group[*j]) {
      return absl::InvalidArgumentError(absl::StrCat("axis name ", a, " is repeated in ", api));
    }
    in_group[*j] = true;
    order.push_back(*j);
  }
  group_size = 1;
  for (size_t j : order) group_size *= mesh.axes()[j].size;
  std::vector<Member> members;
  for (int64_t p = 0; p < mesh.num_devices(); ++p) {
    std::vector<int64_t> coord = mesh.CoordinateOfPosition(p);
    Member m{0, 0};
    for (size_t j : order) m.index = m.index * mesh.axes()[j].size + coord[j];
    for (size_t j = 0; j < mesh.rank(); ++j) {
      if (!in_group[j]) m.group = m.group * mesh.axes()[j].size + coord[j];
    }
    members.push_back(m);
  }
  return members;
}

namespace {

bool IsCommunicating(const Primitive* p) {
  const BuiltinPrimitives& b = Builtins();
  return p == b.psum || p == b.psum_invariant || p == b.pmax || p == b.pmin || p == b.all_gather ||
         p == b.all_gather_invariant || p == b.reduce_scatter || p == b.all_to_all ||
         p == b.ppermute;
}

absl::string_view Api(const Primitive* p) {
  if (p == Builtins().psum_invariant) return "psum";
  if (p == Builtins().reduce_scatter) return "psum_scatter";
  return p->name();
}

// The collective's result types on the operands' types, under the mesh's axes (check_vma
// off): what the equation's binders must say, since the collectives write by their binders.
absl::Status CheckOutputTypes(const Eqn& eqn, const std::vector<Replicas>& in,
                              absl::Span<const ShapedArray> out_avals, const sharding::Mesh& mesh) {
  AxisEnv env;
  env.check_vma = false;
  for (const sharding::MeshAxis& a : mesh.axes()) env.axes.push_back(ManualAxis{a.name, a.size});
  ScopedAxisEnv scope(std::move(env));
  std::vector<ShapedArray> avals;
  for (const Replicas& r : in) avals.push_back(r[0].aval.WithVma({}));
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> want,
                       AbstractEval(*eqn.primitive, avals, eqn.params));
  bool same = want.size() == out_avals.size();
  for (size_t i = 0; same && i < want.size(); ++i) {
    same = want[i].shape() == out_avals[i].shape() && want[i].dtype() == out_avals[i].dtype();
  }
  if (!same) {
    return absl::InvalidArgumentError(
        absl::StrCat("the outputs of ", eqn.primitive->name(), " are typed ",
                     out_avals.empty() ? "()" : out_avals[0].ShortString(),
                     " but its operands give ", want.empty() ? "()" : want[0].ShortString()));
  }
  return absl::OkStatus();
}

SpmdResult AxisIndexValues(const Eqn& eqn, const std::vector<std::string>& axes,
                           const SpmdScope& scope) {
  int64_t size = 0;
  AXE_ASSIGN_OR_RETURN(std::vector<Member> members,
                       GroupMembers(*scope.mesh, axes, "axis_index", size));
  Replicas out;
  for (int64_t p = 0; p < scope.count; ++p) {
    const Member& m = members[static_cast<size_t>(scope.first_position + p)];
    out.push_back(HostArray{ShapedArray({}, DType::kS32), {static_cast<double>(m.index)}});
  }
  (void)eqn;
  return std::vector<Replicas>{std::move(out)};
}

}  // namespace

std::optional<SpmdResult> EvalCollective(const Eqn& eqn, const std::vector<Replicas>& in,
                                         absl::Span<const ShapedArray> out_avals,
                                         const SpmdScope& scope) {
  const Primitive* p = eqn.primitive;
  const BuiltinPrimitives& b = Builtins();
  if (!IsCommunicating(p) && p != b.pvary && p != b.axis_index) return std::nullopt;
  absl::StatusOr<std::vector<std::string>> axes = CollectiveAxes(eqn);
  if (!axes.ok()) return SpmdResult(axes.status());
  if (scope.mesh == nullptr) {
    if (axes->empty()) return SpmdResult(in);
    return SpmdResult(ManualAxisSize(axes->front(), Api(p)).status());
  }
  if (p == b.axis_index) return AxisIndexValues(eqn, *axes, scope);
  int64_t size = 0;
  absl::StatusOr<std::vector<Member>> members = GroupMembers(*scope.mesh, *axes, Api(p), size);
  if (!members.ok()) return SpmdResult(members.status());
  if (p == b.pvary) return SpmdResult(in);
  if (scope.count != scope.mesh->num_devices()) {
    return SpmdResult(absl::UnimplementedError(
        absl::StrCat(p->name(), " inside a cond whose branch differs between devices cannot run")));
  }
  if (absl::Status s = CheckOutputTypes(eqn, in, out_avals, *scope.mesh); !s.ok()) {
    return SpmdResult(s);
  }
  std::vector<Replicas> out;
  for (size_t i = 0; i < in.size() && i < out_avals.size(); ++i) {
    absl::StatusOr<Replicas> r = scope.executor->Collective(*scope.mesh, eqn, in[i], out_avals[i]);
    if (!r.ok()) return SpmdResult(r.status());
    out.push_back(*std::move(r));
  }
  return SpmdResult(std::move(out));
}

}  // namespace axe::ir::internal
