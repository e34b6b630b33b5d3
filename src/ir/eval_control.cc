// Calls, cond and scan in the SPMD interpreter; shard_map at the top level.
#include "eval_control.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "eval_util.h"
#include "rule_util.h"

namespace axe::ir::internal {

absl::StatusOr<const ClosedJaxpr*> JaxprParam(const Eqn& eqn, absl::string_view name) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(eqn.params, eqn.primitive->name(), name));
  if (p->kind() != Param::Kind::kJaxpr || p->jaxpr() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("parameter ", name, " of ", eqn.primitive->name(), " must be a jaxpr"));
  }
  return p->jaxpr().get();
}

namespace {

// The values of position p only.
std::vector<Replicas> AtPosition(const std::vector<Replicas>& in, int64_t p) {
  std::vector<Replicas> out;
  for (const Replicas& r : in) out.push_back(Replicas{r[static_cast<size_t>(p)]});
  return out;
}

SpmdResult EvalCond(const Eqn& eqn, const std::vector<Replicas>& in, const SpmdScope& scope) {
  AXE_ASSIGN_OR_RETURN(const Param* branches, GetParam(eqn.params, "cond", "branches"));
  const std::vector<Param>& items = branches->items();
  if (in.empty() || items.empty() || !branches->IsJaxprTuple()) {
    return absl::InvalidArgumentError("cond needs an index operand and a tuple of branches");
  }
  int64_t last = static_cast<int64_t>(items.size()) - 1;
  std::vector<int64_t> index;
  std::optional<int64_t> live_index;
  bool uniform = true;
  for (int64_t p = 0; p < static_cast<int64_t>(in[0].size()); ++p) {
    index.push_back(std::clamp<int64_t>(ScalarIndex(in[0][static_cast<size_t>(p)]), 0, last));
    bool live =
        scope.mesh == nullptr || scope.executor->IsLive(*scope.mesh, scope.first_position + p);
    if (!live) continue;
    if (live_index && *live_index != index.back()) uniform = false;
    if (!live_index) live_index = index.back();
  }
  std::vector<Replicas> operands(in.begin() + 1, in.end());
  if (uniform) {  // every position this process computes takes the same branch
    return EvalSpmd(*items[static_cast<size_t>(live_index.value_or(0))].jaxpr(), operands, scope);
  }
  // The branch differs between positions: each runs alone (no collectives possible there).
  std::vector<Replicas> out;
  for (int64_t p = 0; p < scope.count; ++p) {
    SpmdScope one = scope;
    one.first_position = scope.first_position + p;
    one.count = 1;
    AXE_ASSIGN_OR_RETURN(
        std::vector<Replicas> r,
        EvalSpmd(*items[static_cast<size_t>(index[p])].jaxpr(), AtPosition(operands, p), one));
    if (out.empty()) out.resize(r.size());
    for (size_t i = 0; i < r.size() && i < out.size(); ++i) out[i].push_back(std::move(r[i][0]));
  }
  return out;
}

// Row `i` of a value with a leading dimension.
HostArray Row(const HostArray& a, int64_t i) {
  std::vector<int64_t> shape(a.aval.shape().begin() + 1, a.aval.shape().end());
  size_t row = a.aval.shape()[0] == 0 ? 0 : a.values.size() / a.aval.shape()[0];
  auto begin = a.values.begin() + static_cast<std::ptrdiff_t>(row * static_cast<size_t>(i));
  return HostArray{a.aval.WithShape(std::move(shape)),
                   std::vector<double>(begin, begin + static_cast<std::ptrdiff_t>(row))};
}

void SetRow(HostArray& a, int64_t i, const HostArray& row) {
  std::copy(row.values.begin(), row.values.end(),
            a.values.begin() + static_cast<std::ptrdiff_t>(row.values.size() * i));
}

struct ScanShape {
  int64_t length, num_consts, num_carry;
  bool reverse = false;
};

absl::StatusOr<ScanShape> ReadScan(const Eqn& eqn, size_t operands, size_t outputs) {
  ScanShape s{};
  AXE_ASSIGN_OR_RETURN(s.length, RequiredInt(eqn.params, "scan", "length"));
  AXE_ASSIGN_OR_RETURN(s.num_consts, RequiredInt(eqn.params, "scan", "num_consts"));
  AXE_ASSIGN_OR_RETURN(s.num_carry, RequiredInt(eqn.params, "scan", "num_carry"));
  if (auto it = eqn.params.find("reverse"); it != eqn.params.end()) {
    AXE_ASSIGN_OR_RETURN(s.reverse, it->second.AsBool("reverse"));
  }
  int64_t n = static_cast<int64_t>(operands);
  AXE_RETURN_IF_ERROR(CheckScanLength(s.length));
  if (s.num_consts < 0 || s.num_carry < 0 || s.num_consts + s.num_carry > n ||
      s.num_carry > static_cast<int64_t>(outputs)) {
    return absl::InvalidArgumentError(
        absl::StrCat("scan with ", n, " operands cannot have num_consts=", s.num_consts,
                     " and num_carry=", s.num_carry));
  }
  return s;
}

// The xs operands have `length` rows; the ys binders have `length` rows of the body's outputs.
absl::Status CheckScanShapes(const ScanShape& s, const std::vector<Replicas>& in,
                             absl::Span<const ShapedArray> out_avals) {
  for (size_t k = static_cast<size_t>(s.num_consts + s.num_carry); k < in.size(); ++k) {
    const ShapedArray& a = in[k][0].aval;
    if (a.rank() == 0 || a.shape()[0] != s.length) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scan of length ", s.length, " got xs operand ", k, " of type ", a.ShortString()));
    }
  }
  for (size_t k = static_cast<size_t>(s.num_carry); k < out_avals.size(); ++k) {
    if (out_avals[k].rank() == 0 || out_avals[k].shape()[0] != s.length) {
      return absl::InvalidArgumentError(absl::StrCat("scan of length ", s.length,
                                                     " has a stacked output of type ",
                                                     out_avals[k].ShortString()));
    }
  }
  return absl::OkStatus();
}

SpmdResult EvalScan(const Eqn& eqn, const std::vector<Replicas>& in,
                    absl::Span<const ShapedArray> out_avals, const SpmdScope& scope) {
  AXE_ASSIGN_OR_RETURN(const ClosedJaxpr* body, JaxprParam(eqn, "jaxpr"));
  AXE_ASSIGN_OR_RETURN(ScanShape s, ReadScan(eqn, in.size(), out_avals.size()));
  AXE_RETURN_IF_ERROR(CheckScanShapes(s, in, out_avals));
  AXE_RETURN_IF_ERROR(CheckAffordable(s.length, body->jaxpr, scope));
  size_t fixed = static_cast<size_t>(s.num_consts + s.num_carry);
  std::vector<Replicas> carry(in.begin() + s.num_consts,
                              in.begin() + static_cast<std::ptrdiff_t>(fixed));
  std::vector<Replicas> ys;
  for (size_t k = static_cast<size_t>(s.num_carry); k < out_avals.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(HostArray zero, ZeroArray(out_avals[k]));
    ys.push_back(Replicas(static_cast<size_t>(scope.count), zero));
  }
  for (int64_t t = 0; t < s.length; ++t) {
    int64_t i = s.reverse ? s.length - 1 - t : t;
    std::vector<Replicas> args(in.begin(), in.begin() + s.num_consts);
    for (Replicas& c : carry) args.push_back(c);
    for (size_t k = fixed; k < in.size(); ++k) {
      Replicas x;
      for (const HostArray& a : in[k]) x.push_back(Row(a, i));
      args.push_back(std::move(x));
    }
    AXE_ASSIGN_OR_RETURN(std::vector<Replicas> out, EvalSpmd(*body, std::move(args), scope));
    if (out.size() != out_avals.size()) {
      return absl::InvalidArgumentError("the scan body's outputs do not match the scan's");
    }
    for (size_t c = 0; c < carry.size(); ++c) carry[c] = std::move(out[c]);
    for (size_t k = 0; k < ys.size(); ++k) {
      const HostArray& row = out[carry.size() + k][0];
      if (row.values.size() * static_cast<size_t>(s.length) != ys[k][0].values.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("scan's stacked output ", k, " of type ", ys[k][0].aval.ShortString(),
                         " cannot hold rows of type ", row.aval.ShortString()));
      }
      for (size_t p = 0; p < ys[k].size(); ++p) SetRow(ys[k][p], i, out[carry.size() + k][p]);
    }
  }
  for (Replicas& y : ys) carry.push_back(std::move(y));
  return carry;
}

SpmdResult EvalShardMap(const Eqn& eqn, const std::vector<Replicas>& in, const SpmdScope& scope) {
  if (scope.mesh != nullptr || scope.count != 1) {
    return absl::UnimplementedError("evaluating a shard_map nested in another is not supported");
  }
  std::vector<HostArray> args;
  for (const Replicas& r : in) args.push_back(r[0]);
  AXE_ASSIGN_OR_RETURN(std::vector<HostArray> out,
                       RunShardMap(eqn, args, *scope.executor, scope.budget, scope.memory));
  std::vector<Replicas> result;
  for (HostArray& a : out) result.push_back(Replicas{std::move(a)});
  return result;
}

}  // namespace

std::optional<SpmdResult> EvalSpecial(const Eqn& eqn, const std::vector<Replicas>& in,
                                      absl::Span<const ShapedArray> out_avals,
                                      const SpmdScope& scope) {
  const BuiltinPrimitives& b = Builtins();
  const Primitive* p = eqn.primitive;
  // The custom calls run their call_jaxpr on the caller's mesh (a shard_map body's relu holds
  // a pvary, and may hold collectives).
  if (p == b.jit || p == b.closed_call || p == b.custom_jvp_call || p == b.custom_vjp_call) {
    absl::StatusOr<const ClosedJaxpr*> body = JaxprParam(eqn, p == b.jit ? "jaxpr" : "call_jaxpr");
    if (!body.ok()) return SpmdResult(body.status());
    return EvalSpmd(**body, in, scope);
  }
  if (p == b.remat2) {
    absl::StatusOr<const ClosedJaxpr*> body = JaxprParam(eqn, "jaxpr");
    if (!body.ok()) return SpmdResult(body.status());
    return EvalSpmd(**body, in, scope);
  }
  if (p == b.cond) return EvalCond(eqn, in, scope);
  if (p == b.scan) return EvalScan(eqn, in, out_avals, scope);
  if (p == b.shard_map) return EvalShardMap(eqn, in, scope);
  if (p == b.while_) return EvalWhileSpecial(eqn, in, scope);
  return EvalCollective(eqn, in, out_avals, scope);
}

}  // namespace axe::ir::internal
