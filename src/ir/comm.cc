// Static communication count (comm.h): a walk over the jaxpr and its nested bodies with the
// manual axes of the enclosing shard_maps in scope.
#include "axe/ir/comm.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/dtype.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/param.h"
#include "axe/ir/primitive.h"

namespace axe::ir {
namespace {

enum class Kind { kNone, kAllReduce, kAllGather, kReduceScatter, kAllToAll, kPermute };

struct CollectiveInfo {
  Kind kind;
  const char* axes_param;
};

// The collectives this count knows, by primitive name; nullopt for every other primitive.
std::optional<CollectiveInfo> Classify(absl::string_view prim) {
  if (prim == "psum" || prim == "psum_invariant" || prim == "pmax" || prim == "pmin") {
    return CollectiveInfo{Kind::kAllReduce, "axes"};
  }
  if (prim == "pvary") return CollectiveInfo{Kind::kNone, "axes"};
  if (prim == "all_gather" || prim == "all_gather_invariant") {
    return CollectiveInfo{Kind::kAllGather, "axis_name"};
  }
  if (prim == "reduce_scatter") return CollectiveInfo{Kind::kReduceScatter, "axis_name"};
  if (prim == "all_to_all") return CollectiveInfo{Kind::kAllToAll, "axis_name"};
  if (prim == "ppermute") return CollectiveInfo{Kind::kPermute, "axis_name"};
  return std::nullopt;
}

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kNone: return "none";
    case Kind::kAllReduce: return "all-reduce";
    case Kind::kAllGather: return "all-gather";
    case Kind::kReduceScatter: return "reduce-scatter";
    case Kind::kAllToAll: return "all-to-all";
    case Kind::kPermute: return "collective-permute";
  }
  return "none";
}

absl::Status Overflow(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("communication count: ", what, " exceeds 2^63 - 1 bytes"));
}

// The bytes of one device's copy of `aval` (sub-byte elements packed, rounded up).
absl::StatusOr<int64_t> LocalBytes(const ShapedArray& aval) {
  std::optional<int64_t> elements = aval.NumElements();
  std::optional<int64_t> bits;
  if (elements) bits = CheckedMul(*elements, BitWidth(aval.dtype()));
  if (!bits) return Overflow(aval.ShortString());
  return CeilDiv(*bits, 8);
}

// Whether some (source, destination) pair of ppermute's perm moves data.
absl::StatusOr<bool> PermuteMoves(const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* perm, GetParam(params, "ppermute", "perm"));
  for (const Param& pair : perm->items()) {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> p, pair.AsInts("perm"));
    if (p.size() == 2 && p[0] != p[1]) return true;
  }
  return false;
}

// One run's bytes per device for S = `bytes` over a group of `n`.
absl::StatusOr<int64_t> RunBytes(Kind kind, int64_t bytes, int64_t n, const Params& params) {
  if (n <= 1 || kind == Kind::kNone) return int64_t{0};
  std::optional<int64_t> scaled;
  switch (kind) {
    case Kind::kAllReduce:
      scaled = CheckedMul(n - 1, 2);
      if (scaled) scaled = CheckedMul(bytes, *scaled);
      if (!scaled) return Overflow("an all-reduce");
      return CeilDiv(*scaled, n);
    case Kind::kAllGather:
      scaled = CheckedMul(bytes, n - 1);
      if (!scaled) return Overflow("an all-gather");
      return *scaled;
    case Kind::kReduceScatter:
    case Kind::kAllToAll:
      // S splits into n equal pieces (the abstract-evaluation rules check it); n - 1 leave.
      scaled = CheckedMul(bytes, n - 1);
      if (!scaled) return Overflow("a reduce-scatter or all-to-all");
      return CeilDiv(*scaled, n);
    case Kind::kPermute: {
      AXE_ASSIGN_OR_RETURN(bool moves, PermuteMoves(params));
      return moves ? bytes : int64_t{0};
    }
    case Kind::kNone: break;
  }
  return int64_t{0};
}

class Counter {
 public:
  absl::StatusOr<std::vector<CollectiveCount>> Walk(const Jaxpr& jaxpr, int64_t times);

 private:
  absl::StatusOr<CollectiveCount> Collective(const Jaxpr& jaxpr, const Eqn& eqn,
                                             const CollectiveInfo& info, int64_t times);
  absl::StatusOr<std::vector<CollectiveCount>> Nested(const Eqn& eqn, int64_t times);
  absl::StatusOr<std::vector<CollectiveCount>> WorstBranch(const Param& branches, int64_t times);
  absl::StatusOr<int64_t> AxisSize(const std::string& name, absl::string_view prim) const;

  std::vector<ManualAxis> axes_;  // the manual axes in scope, outermost shard_map first
};

absl::StatusOr<int64_t> Counter::AxisSize(const std::string& name, absl::string_view prim) const {
  for (auto it = axes_.rbegin(); it != axes_.rend(); ++it) {
    if (it->name == name) return it->size;
  }
  std::string api = prim == "psum_invariant" ? "psum" : std::string(prim);
  if (prim == "reduce_scatter") api = "psum_scatter";
  return absl::InvalidArgumentError(absl::StrCat("Found an unbound axis name: ", name,
                                                 ". To fix this, please call ", api,
                                                 " under `jax.shard_map`."));
}

absl::StatusOr<CollectiveCount> Counter::Collective(const Jaxpr& jaxpr, const Eqn& eqn,
                                                    const CollectiveInfo& info, int64_t times) {
  CollectiveCount c;
  c.primitive = eqn.primitive->name();
  c.kind = KindName(info.kind);
  c.count = times;
  AXE_ASSIGN_OR_RETURN(const Param* axes, GetParam(eqn.params, c.primitive, info.axes_param));
  AXE_ASSIGN_OR_RETURN(c.axes, axes->AsAxisNames(info.axes_param));
  for (const std::string& a : c.axes) {
    AXE_ASSIGN_OR_RETURN(int64_t size, AxisSize(a, c.primitive));
    std::optional<int64_t> n = CheckedMul(c.group_size, size);
    if (!n) return Overflow("a group size");
    c.group_size = *n;
  }
  std::vector<std::string> operands;
  for (const Atom& in : eqn.inputs) {
    const ShapedArray& aval = jaxpr.aval(in);
    operands.push_back(aval.ShortString());
    AXE_ASSIGN_OR_RETURN(int64_t bytes, LocalBytes(aval));
    AXE_ASSIGN_OR_RETURN(int64_t run, RunBytes(info.kind, bytes, c.group_size, eqn.params));
    std::optional<int64_t> all = CheckedMul(run, times);
    std::optional<int64_t> sum = all ? CheckedAdd(c.bytes_per_device, *all) : std::nullopt;
    if (!sum) return Overflow(c.primitive);
    c.bytes_per_device = *sum;
  }
  c.operand = absl::StrJoin(operands, " ");
  return c;
}

// The sum of the entries' bytes; nullopt past 2^63 - 1.
std::optional<int64_t> Total(const std::vector<CollectiveCount>& entries) {
  std::optional<int64_t> total = 0;
  for (const CollectiveCount& c : entries) {
    if (total) total = CheckedAdd(*total, c.bytes_per_device);
  }
  return total;
}

absl::StatusOr<std::vector<CollectiveCount>> Counter::WorstBranch(const Param& branches,
                                                                  int64_t times) {
  std::vector<CollectiveCount> worst;
  int64_t worst_total = -1;
  for (const Param& branch : branches.items()) {
    if (branch.kind() != Param::Kind::kJaxpr || branch.jaxpr() == nullptr) continue;
    AXE_ASSIGN_OR_RETURN(std::vector<CollectiveCount> got, Walk(branch.jaxpr()->jaxpr, times));
    std::optional<int64_t> total = Total(got);
    if (!total) return Overflow("a cond branch");
    if (*total > worst_total) {
      worst_total = *total;
      worst = std::move(got);
    }
  }
  return worst;
}

// The collectives of the jaxprs nested in `eqn`'s params.
absl::StatusOr<std::vector<CollectiveCount>> Counter::Nested(const Eqn& eqn, int64_t times) {
  const std::string& prim = eqn.primitive->name();
  std::vector<CollectiveCount> out;
  if (prim == "cond") {
    auto it = eqn.params.find("branches");
    if (it != eqn.params.end()) return WorstBranch(it->second, times);
    return out;
  }
  size_t outer_axes = axes_.size();
  int64_t body_times = times;
  if (prim == "scan") {
    AXE_ASSIGN_OR_RETURN(const Param* length, GetParam(eqn.params, "scan", "length"));
    AXE_ASSIGN_OR_RETURN(int64_t n, length->AsInt("length"));
    std::optional<int64_t> t = CheckedMul(times, n < 0 ? 0 : n);
    if (!t) return Overflow("a scan's repetitions");
    body_times = *t;
  }
  if (prim == "shard_map") {
    AXE_ASSIGN_OR_RETURN(const Param* mesh, GetParam(eqn.params, "shard_map", "mesh"));
    AXE_ASSIGN_OR_RETURN(sharding::Mesh m, mesh->AsMesh("mesh"));
    for (const sharding::MeshAxis& a : m.axes()) axes_.push_back(ManualAxis{a.name, a.size});
  }
  absl::Status status = absl::OkStatus();
  for (const auto& [name, param] : eqn.params) {
    if (param.kind() != Param::Kind::kJaxpr || param.jaxpr() == nullptr) continue;
    absl::StatusOr<std::vector<CollectiveCount>> got = Walk(param.jaxpr()->jaxpr, body_times);
    if (!got.ok()) {
      status = got.status();
      break;
    }
    for (CollectiveCount& c : *got) out.push_back(std::move(c));
  }
  axes_.resize(outer_axes);
  AXE_RETURN_IF_ERROR(status);
  return out;
}

absl::StatusOr<std::vector<CollectiveCount>> Counter::Walk(const Jaxpr& jaxpr, int64_t times) {
  std::vector<CollectiveCount> out;
  for (const Eqn& eqn : jaxpr.eqns) {
    if (eqn.primitive == nullptr) continue;
    if (std::optional<CollectiveInfo> info = Classify(eqn.primitive->name())) {
      AXE_ASSIGN_OR_RETURN(CollectiveCount c, Collective(jaxpr, eqn, *info, times));
      out.push_back(std::move(c));
      continue;
    }
    AXE_ASSIGN_OR_RETURN(std::vector<CollectiveCount> nested, Nested(eqn, times));
    for (CollectiveCount& c : nested) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

absl::StatusOr<CommunicationCount> CountCommunication(const Jaxpr& jaxpr) {
  Counter counter;
  CommunicationCount result;
  AXE_ASSIGN_OR_RETURN(result.collectives, counter.Walk(jaxpr, 1));
  std::optional<int64_t> total = Total(result.collectives);
  if (!total) return Overflow("the total");
  result.total_bytes_per_device = *total;
  return result;
}

absl::StatusOr<CommunicationCount> CountCommunication(const ClosedJaxpr& jaxpr) {
  return CountCommunication(jaxpr.jaxpr);
}

std::string CommunicationTable(const CommunicationCount& count) {
  std::string out = absl::StrFormat("%-22s %-18s %-8s %5s %6s %-24s %s\n", "collective", "kind",
                                    "axes", "group", "runs", "operand", "bytes/device");
  for (const CollectiveCount& c : count.collectives) {
    absl::StrAppendFormat(&out, "%-22s %-18s %-8s %5d %6d %-24s %d\n", c.primitive, c.kind,
                          absl::StrJoin(c.axes, ","), c.group_size, c.count, c.operand,
                          c.bytes_per_device);
  }
  absl::StrAppendFormat(&out, "total bytes per device: %d\n", count.total_bytes_per_device);
  return out;
}

}  // namespace axe::ir
