// The collectives of spec ir-and-shard-map.md §7 computed on the host from every position's
// value (the simulated mesh). Reductions fold in member order as the runtime does: f32/f64
// round after every step, f16/bf16 accumulate in f32 and round once, integers wrap, bool sums
// are OR.
#include <algorithm>
#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/primitives.h"
#include "eval_collectives.h"
#include "eval_spmd.h"
#include "eval_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

struct Groups {
  std::vector<std::vector<int64_t>> positions;  // [group][member index]
  std::vector<Member> of;                       // [position]
  int64_t size = 1;
};

absl::StatusOr<Groups> MakeGroups(const sharding::Mesh& mesh, const Eqn& eqn) {
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, CollectiveAxes(eqn));
  Groups g;
  AXE_ASSIGN_OR_RETURN(g.of, GroupMembers(mesh, axes, eqn.primitive->name(), g.size));
  int64_t count = mesh.num_devices() / std::max<int64_t>(g.size, 1);
  g.positions.assign(static_cast<size_t>(count), std::vector<int64_t>(static_cast<size_t>(g.size)));
  for (size_t p = 0; p < g.of.size(); ++p) {
    g.positions[static_cast<size_t>(g.of[p].group)][static_cast<size_t>(g.of[p].index)] =
        static_cast<int64_t>(p);
  }
  return g;
}

absl::StatusOr<int64_t> IntParam(const Eqn& eqn, absl::string_view name, int64_t fallback) {
  auto it = eqn.params.find(name);
  if (it == eqn.params.end() || it->second.is_none()) return fallback;
  return it->second.AsInt(name);
}

absl::StatusOr<bool> BoolParam(const Eqn& eqn, absl::string_view name) {
  auto it = eqn.params.find(name);
  if (it == eqn.params.end() || it->second.is_none()) return false;
  return it->second.AsBool(name);
}

double FoldElement(char op, DType t, double acc, double v) {
  if (t == DType::kPred) return op == '<' ? (acc != 0 && v != 0) : (acc != 0 || v != 0);
  if (op == '+') {
    double s = acc + v;
    return (t == DType::kF16 || t == DType::kBF16) ? RoundToDType(s, DType::kF32)
                                                   : RoundToDType(s, t);
  }
  if (std::isnan(acc) || std::isnan(v)) return NAN;
  return op == '>' ? std::max(acc, v) : std::min(acc, v);
}

// Every position gets the reduction over its group.
absl::StatusOr<Replicas> Reduce(const Groups& g, const Replicas& x, char op) {
  Replicas out = x;
  for (const std::vector<int64_t>& members : g.positions) {
    HostArray acc = x[static_cast<size_t>(members[0])];
    DType t = acc.aval.dtype();
    for (size_t m = 1; m < members.size(); ++m) {
      const HostArray& v = x[static_cast<size_t>(members[m])];
      for (size_t i = 0; i < acc.values.size(); ++i)
        acc.values[i] = FoldElement(op, t, acc.values[i], v.values[i]);
    }
    for (double& v : acc.values) v = RoundToDType(v, t);
    for (int64_t p : members) out[static_cast<size_t>(p)].values = acc.values;
  }
  return out;
}

// out[p] at multi-index o = source(p, o) -> (position, flat index).
using Source = std::function<std::pair<int64_t, int64_t>(int64_t p, std::vector<int64_t>& o)>;
absl::StatusOr<Replicas> Fill(const Replicas& x, const ShapedArray& aval, const Source& source) {
  Replicas out;
  for (size_t p = 0; p < x.size(); ++p) {
    AXE_ASSIGN_OR_RETURN(HostArray a, ZeroArray(aval));
    std::vector<int64_t> index(aval.rank(), 0);
    for (size_t i = 0; i < a.values.size(); ++i, NextIndex(index, aval.shape())) {
      std::vector<int64_t> o = index;
      auto [q, flat] = source(static_cast<int64_t>(p), o);
      if (q >= 0) a.values[i] = x[static_cast<size_t>(q)].values[static_cast<size_t>(flat)];
    }
    out.push_back(std::move(a));
  }
  return out;
}

int64_t Flat(const std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < index.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

absl::StatusOr<Replicas> AllGather(const Groups& g, const Eqn& eqn, const Replicas& x,
                                   const ShapedArray& aval) {
  AXE_ASSIGN_OR_RETURN(int64_t dim, IntParam(eqn, "all_gather_dimension", 0));
  AXE_ASSIGN_OR_RETURN(bool tiled, BoolParam(eqn, "tiled"));
  std::vector<int64_t> in_shape = x[0].aval.shape();
  size_t d = static_cast<size_t>(dim);
  return Fill(x, aval, [&](int64_t p, std::vector<int64_t>& o) {
    int64_t member = tiled ? o[d] / in_shape[d] : o[d];
    if (tiled) {
      o[d] %= in_shape[d];
    } else {
      o.erase(o.begin() + dim);
    }
    int64_t q = g.positions[static_cast<size_t>(g.of[static_cast<size_t>(p)].group)]
                           [static_cast<size_t>(member)];
    return std::make_pair(q, Flat(o, in_shape));
  });
}

absl::StatusOr<Replicas> ReduceScatter(const Groups& g, const Eqn& eqn, const Replicas& x,
                                       const ShapedArray& aval) {
  AXE_ASSIGN_OR_RETURN(int64_t dim, IntParam(eqn, "scatter_dimension", 0));
  AXE_ASSIGN_OR_RETURN(bool tiled, BoolParam(eqn, "tiled"));
  AXE_ASSIGN_OR_RETURN(Replicas sum, Reduce(g, x, '+'));
  std::vector<int64_t> in_shape = x[0].aval.shape();
  size_t d = static_cast<size_t>(dim);
  int64_t piece = tiled ? in_shape[d] / g.size : 1;
  return Fill(sum, aval, [&](int64_t p, std::vector<int64_t>& o) {
    int64_t member = g.of[static_cast<size_t>(p)].index;
    if (tiled) {
      o[d] += member * piece;
    } else {
      o.insert(o.begin() + dim, member);
    }
    return std::make_pair(p, Flat(o, in_shape));
  });
}

// JAX's primitive: member i receives chunk i (along split_axis) of every member's operand and
// concatenates them in member order along concat_axis, whatever `tiled` says (lax.all_to_all
// inserts and squeezes the axes of its untiled form around the primitive).
absl::StatusOr<Replicas> AllToAll(const Groups& g, const Eqn& eqn, const Replicas& x,
                                  const ShapedArray& aval) {
  AXE_ASSIGN_OR_RETURN(int64_t split, IntParam(eqn, "split_axis", 0));
  AXE_ASSIGN_OR_RETURN(int64_t concat, IntParam(eqn, "concat_axis", 0));
  std::vector<int64_t> in_shape = x[0].aval.shape();
  size_t s = static_cast<size_t>(split), c = static_cast<size_t>(concat);
  int64_t chunk = in_shape[s] / g.size;
  int64_t concat_chunk = s == c ? chunk : in_shape[c];
  return Fill(x, aval, [&](int64_t p, std::vector<int64_t>& o) {
    const Member& me = g.of[static_cast<size_t>(p)];
    int64_t from = o[c] / concat_chunk;
    o[c] %= concat_chunk;
    o[s] += me.index * chunk;
    int64_t q = g.positions[static_cast<size_t>(me.group)][static_cast<size_t>(from)];
    return std::make_pair(q, Flat(o, in_shape));
  });
}

absl::StatusOr<Replicas> Ppermute(const Groups& g, const Eqn& eqn, const Replicas& x,
                                  const ShapedArray& aval) {
  AXE_ASSIGN_OR_RETURN(const Param* perm, GetParam(eqn.params, "ppermute", "perm"));
  std::vector<int64_t> source_of(static_cast<size_t>(g.size), -1);
  for (const Param& pair : perm->items()) {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> sd, pair.AsInts("perm"));
    if (sd.size() != 2 || sd[0] < 0 || sd[1] < 0 || sd[0] >= g.size || sd[1] >= g.size) {
      return absl::InvalidArgumentError(
          absl::StrCat("ppermute perm pairs must be (source, destination) in [0, ", g.size,
                       "), got ", pair.ToString()));
    }
    source_of[static_cast<size_t>(sd[1])] = sd[0];
  }
  return Fill(x, aval, [&](int64_t p, std::vector<int64_t>& o) {
    const Member& me = g.of[static_cast<size_t>(p)];
    int64_t src = source_of[static_cast<size_t>(me.index)];
    if (src < 0) return std::make_pair(int64_t{-1}, int64_t{0});
    int64_t q = g.positions[static_cast<size_t>(me.group)][static_cast<size_t>(src)];
    return std::make_pair(q, Flat(o, aval.shape()));
  });
}

}  // namespace

absl::StatusOr<Replicas> HostCollective(const sharding::Mesh& mesh, const Eqn& eqn,
                                        const Replicas& x, const ShapedArray& out_aval) {
  AXE_ASSIGN_OR_RETURN(Groups g, MakeGroups(mesh, eqn));
  const BuiltinPrimitives& b = Builtins();
  const Primitive* p = eqn.primitive;
  if (p == b.psum || p == b.psum_invariant) return Reduce(g, x, '+');
  if (p == b.pmax) return Reduce(g, x, '>');
  if (p == b.pmin) return Reduce(g, x, '<');
  if (p == b.all_gather || p == b.all_gather_invariant) return AllGather(g, eqn, x, out_aval);
  if (p == b.reduce_scatter) return ReduceScatter(g, eqn, x, out_aval);
  if (p == b.all_to_all) return AllToAll(g, eqn, x, out_aval);
  if (p == b.ppermute) return Ppermute(g, eqn, x, out_aval);
  return absl::InternalError(absl::StrCat(p->name(), " is not a collective"));
}

}  // namespace axe::ir::internal
