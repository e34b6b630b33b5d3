// Programs in dense layouts: transposes at the edges, then folded where the layouts make them
// free (see axe/exec/layouts.h).
#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/exec/layouts.h"
#include "axe/ir/primitives.h"

namespace axe::exec {
namespace {

using Perm = std::vector<int64_t>;

bool IsIdentity(const Perm& p) {
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

Perm Inverse(const Perm& p) {
  Perm inv(p.size());
  for (size_t i = 0; i < p.size(); ++i) inv[static_cast<size_t>(p[i])] = static_cast<int64_t>(i);
  return inv;
}

// Dimensions major to minor: the reversed minor_to_major.
Perm MajorToMinor(absl::Span<const int64_t> minor_to_major) {
  return Perm(minor_to_major.rbegin(), minor_to_major.rend());
}

absl::Status CheckPermutation(absl::Span<const int64_t> m, size_t rank, absl::string_view what) {
  std::vector<bool> seen(rank, false);
  bool ok = m.size() == rank;
  for (int64_t d : m) {
    if (!ok || d < 0 || static_cast<size_t>(d) >= rank || seen[static_cast<size_t>(d)]) {
      ok = false;
      break;
    }
    seen[static_cast<size_t>(d)] = true;
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what, ": minor_to_major {", absl::StrJoin(m, ","),
                                                 "} is not a permutation of its ", rank,
                                                 " dimensions"));
}

ir::Params TransposeParams(const Perm& perm) {
  ir::Params p;
  p["permutation"] = ir::Param::Ints(perm);
  return p;
}

ir::VarId NewVar(ir::Jaxpr& jaxpr, ir::ShapedArray aval) {
  jaxpr.vars.push_back(ir::Var{std::move(aval), false});
  return static_cast<ir::VarId>(jaxpr.vars.size() - 1);
}

ir::Eqn TransposeEqn(ir::Atom in, ir::VarId out, const Perm& perm) {
  ir::Eqn e;
  e.primitive = ir::Builtins().transpose;
  e.params = TransposeParams(perm);
  e.inputs = {std::move(in)};
  e.outputs = {out};
  return e;
}

// Primitives computed element by element whose params do not depend on the shape.
bool IsElementwise(const std::string& name) {
  static const auto* const kNames = new absl::flat_hash_set<std::string>{
      "add",   "sub",      "mul",      "div",      "max",       "min",  "pow",
      "rem",   "neg",      "abs",      "sign",     "exp",       "exp2", "log",
      "tanh",  "logistic", "sqrt",     "rsqrt",    "sin",       "cos",  "log1p",
      "expm1", "square",   "floor",    "ceil",     "round",     "erf",  "integer_pow",
      "eq",    "ne",       "lt",       "le",       "gt",        "ge",   "and",
      "or",    "not",      "xor",      "select_n", "is_finite", "copy", "convert_element_type",
      "atan2", "tan",      "nextafter"};
  return kNames->contains(name);
}

// A transpose recorded while folding: its result is `source` transposed by `perm`.
struct Transposed {
  ir::VarId source;
  Perm perm;
};

class Folder {
 public:
  explicit Folder(ir::Jaxpr& jaxpr) : jaxpr_(jaxpr), uses_(jaxpr.vars.size(), 0) {
    for (const ir::Eqn& e : jaxpr.eqns) {
      for (const ir::Atom& a : e.inputs) Use(a, 1);
    }
    for (const ir::Atom& a : jaxpr.outvars) Use(a, 1);
  }

  void Run() {
    std::vector<ir::Eqn> eqns = std::move(jaxpr_.eqns);
    jaxpr_.eqns.clear();
    for (ir::Eqn& e : eqns) {
      for (ir::Atom& a : e.inputs) Substitute(a);
      const std::string& name = e.primitive->name();
      if (name == "transpose") {
        FoldTranspose(e);
        continue;
      }
      if (name == "stop_gradient" && e.outputs.size() == 1 && !e.inputs[0].is_literal()) {
        alias_[e.outputs[0]] = e.inputs[0].var;  // the identity when the program runs
        Use(e.inputs[0], -1);
        continue;
      }
      if (name == "dot_general") {
        FoldDotOperands(e);
        dot_of_[e.outputs[0]] = jaxpr_.eqns.size();
      }
      if ((name == "reduce_sum" || name == "reduce_max" || name == "reduce_min") &&
          FoldReduction(e)) {
        continue;
      }
      if (name == "slice" && FoldSlice(e)) continue;
      if (IsElementwise(name) && SinkElementwise(e)) continue;
      if (name == "broadcast_in_dim") broadcast_of_[e.outputs[0]] = jaxpr_.eqns.size();
      jaxpr_.eqns.push_back(std::move(e));
    }
    for (ir::Atom& a : jaxpr_.outvars) Substitute(a);
    DropDeadCopies();
    RelabelUnitTransposes();
  }

 private:
  void Use(const ir::Atom& a, int delta) {
    if (!a.is_literal()) uses_[static_cast<size_t>(a.var)] += delta;
  }
  void Substitute(ir::Atom& a) {
    if (a.is_literal()) return;
    auto it = alias_.find(a.var);
    if (it == alias_.end()) return;
    Use(a, -1);
    a.var = it->second;
    Use(a, 1);
  }
  const Transposed* ProducerOf(const ir::Atom& a) const {
    if (a.is_literal()) return nullptr;
    auto it = transposed_.find(a.var);
    return it == transposed_.end() ? nullptr : &it->second;
  }
  ir::VarId Grow(ir::ShapedArray aval) {
    uses_.push_back(0);
    return NewVar(jaxpr_, std::move(aval));
  }
  // transpose(transpose(x, p1), p2) = transpose(x, p1[p2]); the identity is x itself.
  void FoldTranspose(ir::Eqn& e) {
    absl::StatusOr<std::vector<int64_t>> perm = e.params.at("permutation").AsInts("permutation");
    if (!perm.ok() || e.inputs[0].is_literal()) {
      jaxpr_.eqns.push_back(std::move(e));
      return;
    }
    Perm p2 = *std::move(perm);
    if (const Transposed* inner = ProducerOf(e.inputs[0])) {
      Perm q(p2.size());
      for (size_t i = 0; i < q.size(); ++i) q[i] = inner->perm[static_cast<size_t>(p2[i])];
      const ir::VarId source = inner->source;
      Use(e.inputs[0], -1);
      e.inputs[0] = ir::Atom::OfVar(source);
      Use(e.inputs[0], 1);
      p2 = std::move(q);
      e.params = TransposeParams(p2);
    }
    const ir::VarId source = e.inputs[0].var;
    if (IsIdentity(p2) || SwapDotOperands(source, p2)) {
      alias_[e.outputs[0]] = source;
      Use(e.inputs[0], -1);
      return;
    }
    transposed_[e.outputs[0]] = Transposed{source, p2};
    jaxpr_.eqns.push_back(std::move(e));
  }

  void FoldDotOperands(ir::Eqn& e);
  bool SwapDotOperands(ir::VarId dot_result, const Perm& perm);
  bool FoldReduction(ir::Eqn& e);
  bool SinkElementwise(ir::Eqn& e);
  bool FoldSlice(ir::Eqn& e);
  void TransposeAfter(ir::Eqn e, const Perm& perm, std::vector<int64_t> shape);
  std::optional<std::vector<int64_t>> PermutedBroadcastDims(ir::VarId var, const Perm& perm) const;
  ir::VarId PermuteBroadcast(ir::VarId var, const Perm& perm, std::vector<int64_t> dims);
  void DropDeadCopies();
  void RelabelUnitTransposes();

  ir::Jaxpr& jaxpr_;
  std::vector<int> uses_;
  absl::flat_hash_map<ir::VarId, ir::VarId> alias_;
  absl::flat_hash_map<ir::VarId, Transposed> transposed_;
  absl::flat_hash_map<ir::VarId, size_t> dot_of_;        // a dot_general's result: its equation
  absl::flat_hash_map<ir::VarId, size_t> broadcast_of_;  // the same for broadcast_in_dim
};

// A list of ints printed as `like` is (JAX prints dot_general's dimensions as lists).
ir::Param IntsLike(const ir::Param& like, const std::vector<int64_t>& values) {
  if (like.kind() != ir::Param::Kind::kList) return ir::Param::Ints(values);
  std::vector<ir::Param> items;
  for (int64_t v : values) items.push_back(ir::Param::Int(v));
  return ir::Param::List(std::move(items));
}

std::vector<int64_t> Mapped(const Perm& perm, const std::vector<int64_t>& dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(perm[static_cast<size_t>(d)]);
  return out;
}

// The dimensions of a rank `rank` value outside `a` and `b`, in order.
std::vector<int64_t> Others(size_t rank, const std::vector<int64_t>& a,
                            const std::vector<int64_t>& b = {}) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end())
      out.push_back(d);
  }
  return out;
}

// dot_general(transpose(y, p), ...) = dot_general(y, ...) with the operand's contracting and
// batch dimensions mapped through p, when p keeps the free dimensions in order (they give the
// result's order).
void Folder::FoldDotOperands(ir::Eqn& e) {
  auto it = e.params.find("dimension_numbers");
  if (it == e.params.end() || it->second.items().size() != 2) return;
  ir::Param dn = it->second;
  for (size_t side = 0; side < 2 && side < e.inputs.size(); ++side) {
    const Transposed* t = ProducerOf(e.inputs[side]);
    if (t == nullptr) continue;
    const ir::Param& contract = dn.items()[0].items()[side];
    const ir::Param& batch = dn.items()[1].items()[side];
    absl::StatusOr<std::vector<int64_t>> c = contract.AsInts("dimension_numbers");
    absl::StatusOr<std::vector<int64_t>> b = batch.AsInts("dimension_numbers");
    if (!c.ok() || !b.ok()) return;
    const std::vector<int64_t> free = Mapped(t->perm, Others(t->perm.size(), *c, *b));
    if (!std::is_sorted(free.begin(), free.end())) continue;
    std::vector<ir::Param> cs = dn.items()[0].items(), bs = dn.items()[1].items();
    cs[side] = IntsLike(contract, Mapped(t->perm, *c));
    bs[side] = IntsLike(batch, Mapped(t->perm, *b));
    dn = ir::Param::Tuple({ir::Param::Tuple(std::move(cs)), ir::Param::Tuple(std::move(bs))});
    Use(e.inputs[side], -1);
    e.inputs[side] = ir::Atom::OfVar(t->source);
    Use(e.inputs[side], 1);
  }
  e.params["dimension_numbers"] = std::move(dn);
}

// transpose(dot_general(a, b), p), where p swaps the two operands' free dimensions and the
// dot's result is read only there, is dot_general(b, a): the result comes out transposed.
bool Folder::SwapDotOperands(ir::VarId dot_result, const Perm& perm) {
  auto found = dot_of_.find(dot_result);
  if (found == dot_of_.end() || uses_[static_cast<size_t>(dot_result)] != 1) return false;
  ir::Eqn& dot = jaxpr_.eqns[found->second];
  auto it = dot.params.find("dimension_numbers");
  if (it == dot.params.end() || it->second.items().size() != 2 || dot.inputs.size() != 2) {
    return false;
  }
  const ir::Param& dn = it->second;
  if (dn.items()[0].items().size() != 2 || dn.items()[1].items().size() != 2) return false;
  absl::StatusOr<std::vector<int64_t>> contract = dn.items()[0].items()[0].AsInts("contract");
  absl::StatusOr<std::vector<int64_t>> batch = dn.items()[1].items()[0].AsInts("batch");
  if (!contract.ok() || !batch.ok()) return false;
  const int64_t nb = static_cast<int64_t>(batch->size());
  const int64_t nl = static_cast<int64_t>(jaxpr_.aval(dot.inputs[0]).rank()) - nb -
                     static_cast<int64_t>(contract->size());
  const int64_t nr = static_cast<int64_t>(perm.size()) - nb - nl;
  Perm swapped(static_cast<size_t>(nb));
  std::iota(swapped.begin(), swapped.end(), 0);
  for (int64_t d = 0; d < nr; ++d) swapped.push_back(nb + nl + d);
  for (int64_t d = 0; d < nl; ++d) swapped.push_back(nb + d);
  if (perm != swapped) return false;
  std::swap(dot.inputs[0], dot.inputs[1]);
  it->second =
      ir::Param::Tuple({ir::Param::Tuple({dn.items()[0].items()[1], dn.items()[0].items()[0]}),
                        ir::Param::Tuple({dn.items()[1].items()[1], dn.items()[1].items()[0]})});
  ir::Var& var = jaxpr_.vars[static_cast<size_t>(dot_result)];
  std::vector<int64_t> shape;
  for (int64_t d : perm) shape.push_back(var.aval.shape()[static_cast<size_t>(d)]);
  var.aval = var.aval.WithShape(std::move(shape));
  dot_of_.erase(found);
  return true;
}

// reduce(transpose(y, p), axes) = reduce(y, p[axes]), transposed after when p reorders the
// kept dimensions (a transpose of the smaller result).
bool Folder::FoldReduction(ir::Eqn& e) {
  const Transposed* t = ProducerOf(e.inputs[0]);
  auto it = e.params.find("axes");
  if (t == nullptr || it == e.params.end() || e.outputs.size() != 1) return false;
  absl::StatusOr<std::vector<int64_t>> axes = it->second.AsInts("axes");
  if (!axes.ok()) return false;
  std::vector<int64_t> new_axes = Mapped(t->perm, *axes);
  std::sort(new_axes.begin(), new_axes.end());
  const std::vector<int64_t> kept = Mapped(t->perm, Others(t->perm.size(), *axes));
  std::vector<int64_t> sorted_kept = kept;
  std::sort(sorted_kept.begin(), sorted_kept.end());
  Perm after(kept.size());
  for (size_t k = 0; k < kept.size(); ++k) {
    after[k] =
        std::lower_bound(sorted_kept.begin(), sorted_kept.end(), kept[k]) - sorted_kept.begin();
  }
  e.params["axes"] = ir::Param::Ints(new_axes);
  Use(e.inputs[0], -1);
  const ir::VarId source = t->source;
  e.inputs[0] = ir::Atom::OfVar(source);
  Use(e.inputs[0], 1);
  if (IsIdentity(after)) {
    jaxpr_.eqns.push_back(std::move(e));
    return true;
  }
  std::vector<int64_t> shape;
  for (int64_t d : sorted_kept)
    shape.push_back(jaxpr_.aval(source).shape()[static_cast<size_t>(d)]);
  TransposeAfter(std::move(e), after, std::move(shape));
  return true;
}

// f(transpose(x1, p), transpose(x2, p), broadcasts, scalar literals) =
// transpose(f(x1, x2, broadcasts made in x's order), p) when each transpose and broadcast is
// read only here: the transpose of the result is then the one left (a softmax or layer norm of
// a column-major value keeps its reductions' broadcasts and loses its transposes).
bool Folder::SinkElementwise(ir::Eqn& e) {
  if (e.outputs.size() != 1 || !e.effects.empty()) return false;
  const Perm* perm = nullptr;
  for (const ir::Atom& a : e.inputs) {
    const Transposed* t = ProducerOf(a);
    if (t == nullptr || uses_[static_cast<size_t>(a.var)] != 1) continue;
    if (perm != nullptr && *perm != t->perm) return false;
    perm = &t->perm;
  }
  if (perm == nullptr) return false;
  const Perm p = *perm;
  std::vector<std::optional<std::vector<int64_t>>> broadcast_dims(e.inputs.size());
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    const ir::Atom& a = e.inputs[i];
    if (jaxpr_.aval(a).rank() == 0) continue;  // a scalar has no layout
    if (a.is_literal()) return false;
    const Transposed* t = ProducerOf(a);
    if (t != nullptr && uses_[static_cast<size_t>(a.var)] == 1) continue;
    broadcast_dims[i] = PermutedBroadcastDims(a.var, p);
    if (!broadcast_dims[i]) return false;
  }
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    ir::Atom& a = e.inputs[i];
    if (jaxpr_.aval(a).rank() == 0) continue;
    const ir::VarId stored = broadcast_dims[i]
                                 ? PermuteBroadcast(a.var, p, *std::move(broadcast_dims[i]))
                                 : ProducerOf(a)->source;
    Use(a, -1);
    a = ir::Atom::OfVar(stored);
    Use(a, 1);
  }
  const std::vector<int64_t> logical = jaxpr_.aval(e.outputs[0]).shape();
  std::vector<int64_t> shape(logical.size());
  for (size_t d = 0; d < p.size(); ++d) shape[static_cast<size_t>(p[d])] = logical[d];
  TransposeAfter(std::move(e), p, std::move(shape));
  return true;
}

// The broadcast_dimensions that make `var` (a broadcast_in_dim's result, read only by the
// equation being sunk) in the order of a value transposed by `perm`: operand dimension k lands
// on dimension perm[d] for d = its broadcast dimension; nullopt when those are out of order.
std::optional<std::vector<int64_t>> Folder::PermutedBroadcastDims(ir::VarId var,
                                                                  const Perm& perm) const {
  auto found = broadcast_of_.find(var);
  if (found == broadcast_of_.end() || uses_[static_cast<size_t>(var)] != 1) return std::nullopt;
  const ir::Eqn& b = jaxpr_.eqns[found->second];
  auto it = b.params.find("broadcast_dimensions");
  if (it == b.params.end() || jaxpr_.aval(var).rank() != perm.size()) return std::nullopt;
  absl::StatusOr<std::vector<int64_t>> dims = it->second.AsInts("broadcast_dimensions");
  if (!dims.ok()) return std::nullopt;
  std::vector<int64_t> mapped = Mapped(perm, *dims);
  if (std::adjacent_find(mapped.begin(), mapped.end(), std::greater_equal<int64_t>()) !=
      mapped.end()) {
    return std::nullopt;
  }
  return mapped;
}

// A new broadcast_in_dim (before the equation being sunk) of `var`'s operand into the order
// of a value transposed by `perm`, with broadcast dimensions `dims`; its result.
ir::VarId Folder::PermuteBroadcast(ir::VarId var, const Perm& perm, std::vector<int64_t> dims) {
  ir::Eqn b = jaxpr_.eqns[broadcast_of_.at(var)];
  const std::vector<int64_t> logical = jaxpr_.aval(var).shape();
  std::vector<int64_t> shape(logical.size());
  for (size_t d = 0; d < perm.size(); ++d) shape[static_cast<size_t>(perm[d])] = logical[d];
  b.params["shape"] = ir::Param::Ints(shape);
  b.params["broadcast_dimensions"] = ir::Param::Ints(dims);
  const ir::VarId stored = Grow(jaxpr_.aval(var).WithShape(shape));
  b.outputs = {stored};
  Use(b.inputs[0], 1);
  jaxpr_.eqns.push_back(std::move(b));
  return stored;
}

// Runs `e` with its one result in `shape` (the result's dimensions permuted back), then
// transposes that by `perm` into the result.
void Folder::TransposeAfter(ir::Eqn e, const Perm& perm, std::vector<int64_t> shape) {
  const ir::VarId out = e.outputs[0];
  const ir::VarId computed = Grow(jaxpr_.aval(out).WithShape(std::move(shape)));
  e.outputs[0] = computed;
  jaxpr_.eqns.push_back(std::move(e));
  Use(ir::Atom::OfVar(computed), 1);
  transposed_[out] = Transposed{computed, perm};
  jaxpr_.eqns.push_back(TransposeEqn(ir::Atom::OfVar(computed), out, perm));
}

// slice(transpose(y, p)) = transpose(slice(y) with the bounds and strides mapped through p, p):
// the slice reads the operand where it is stored, and only the (smaller) slice moves.
bool Folder::FoldSlice(ir::Eqn& e) {
  const Transposed* t = ProducerOf(e.inputs[0]);
  if (t == nullptr || e.outputs.size() != 1) return false;
  const Perm p = t->perm;
  const ir::VarId source = t->source;
  ir::Params params = e.params;
  for (const char* name : {"start_indices", "limit_indices", "strides"}) {
    auto it = params.find(name);
    if (it == params.end()) return false;
    if (it->second.is_none()) continue;
    absl::StatusOr<std::vector<int64_t>> v = it->second.AsInts(name);
    if (!v.ok() || v->size() != p.size()) return false;
    std::vector<int64_t> mapped(p.size());
    for (size_t d = 0; d < p.size(); ++d) mapped[static_cast<size_t>(p[d])] = (*v)[d];
    it->second = ir::Param::Ints(mapped);
  }
  const std::vector<int64_t>& sliced = jaxpr_.aval(e.outputs[0]).shape();
  std::vector<int64_t> shape(p.size());
  for (size_t d = 0; d < p.size(); ++d) shape[static_cast<size_t>(p[d])] = sliced[d];
  e.params = std::move(params);
  Use(e.inputs[0], -1);
  e.inputs[0] = ir::Atom::OfVar(source);
  Use(e.inputs[0], 1);
  TransposeAfter(std::move(e), p, std::move(shape));
  return true;
}

// Removes the transposes and broadcasts nothing reads any more (last to first, so whole chains
// go).
void Folder::DropDeadCopies() {
  std::vector<int> uses(jaxpr_.vars.size(), 0);
  for (const ir::Eqn& e : jaxpr_.eqns) {
    for (const ir::Atom& a : e.inputs) {
      if (!a.is_literal()) ++uses[static_cast<size_t>(a.var)];
    }
  }
  for (const ir::Atom& a : jaxpr_.outvars) {
    if (!a.is_literal()) ++uses[static_cast<size_t>(a.var)];
  }
  std::vector<bool> dead(jaxpr_.eqns.size(), false);
  for (size_t i = jaxpr_.eqns.size(); i-- > 0;) {
    const ir::Eqn& e = jaxpr_.eqns[i];
    const std::string& name = e.primitive->name();
    if ((name != "transpose" && name != "broadcast_in_dim") ||
        uses[static_cast<size_t>(e.outputs[0])] != 0) {
      continue;
    }
    dead[i] = true;
    if (!e.inputs[0].is_literal()) --uses[static_cast<size_t>(e.inputs[0].var)];
  }
  std::vector<ir::Eqn> kept;
  for (size_t i = 0; i < jaxpr_.eqns.size(); ++i) {
    if (!dead[i]) kept.push_back(std::move(jaxpr_.eqns[i]));
  }
  jaxpr_.eqns = std::move(kept);
}

// A transpose that moves only dimensions of extent 1 keeps every element where it is: a
// reshape (a relabel of the same storage).
void Folder::RelabelUnitTransposes() {
  for (ir::Eqn& e : jaxpr_.eqns) {
    if (e.primitive->name() != "transpose" || e.inputs[0].is_literal()) continue;
    absl::StatusOr<std::vector<int64_t>> perm = e.params.at("permutation").AsInts("permutation");
    if (!perm.ok()) continue;
    const std::vector<int64_t>& in = jaxpr_.aval(e.inputs[0].var).shape();
    int64_t last = -1;
    bool in_order = true;
    for (int64_t d : *perm) {
      if (in[static_cast<size_t>(d)] == 1) continue;
      in_order = in_order && d > last;
      last = d;
    }
    if (!in_order) continue;
    e.primitive = ir::Builtins().reshape;
    e.params.clear();
    e.params["dimensions"] = ir::Param::None();
    e.params["new_sizes"] = ir::Param::Ints(jaxpr_.aval(e.outputs[0]).shape());
    e.params["sharding"] = ir::Param::None();
  }
}

}  // namespace

std::vector<int64_t> PhysicalShape(absl::Span<const int64_t> shape,
                                   absl::Span<const int64_t> minor_to_major) {
  if (minor_to_major.empty()) return std::vector<int64_t>(shape.begin(), shape.end());
  std::vector<int64_t> out;
  for (int64_t d : MajorToMinor(minor_to_major)) out.push_back(shape[static_cast<size_t>(d)]);
  return out;
}

absl::StatusOr<ir::ClosedJaxpr> WithPhysicalEdges(const ir::ClosedJaxpr& closed,
                                                  const ProgramLayouts& layouts) {
  ir::ClosedJaxpr out = closed;
  ir::Jaxpr& j = out.jaxpr;
  const auto check_count = [](size_t got, size_t want, absl::string_view what) {
    if (got == 0 || got == want) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat(got, " ", what, " layouts for a program with ", want, " ", what, "s"));
  };
  AXE_RETURN_IF_ERROR(check_count(layouts.inputs.size(), j.invars.size(), "input"));
  AXE_RETURN_IF_ERROR(check_count(layouts.outputs.size(), j.outvars.size(), "output"));
  std::vector<ir::Eqn> prologue;
  for (size_t i = 0; i < layouts.inputs.size(); ++i) {
    const std::vector<int64_t>& m = layouts.inputs[i];
    const ir::ShapedArray aval = j.aval(j.invars[i]);
    if (m.empty()) continue;
    AXE_RETURN_IF_ERROR(CheckPermutation(m, aval.rank(), absl::StrCat("input ", i)));
    const Perm order = MajorToMinor(m);
    if (IsIdentity(order)) continue;
    const ir::VarId physical = NewVar(j, aval.WithShape(PhysicalShape(aval.shape(), m)));
    prologue.push_back(TransposeEqn(ir::Atom::OfVar(physical), j.invars[i], Inverse(order)));
    j.invars[i] = physical;
  }
  j.eqns.insert(j.eqns.begin(), std::make_move_iterator(prologue.begin()),
                std::make_move_iterator(prologue.end()));
  for (size_t i = 0; i < layouts.outputs.size(); ++i) {
    const std::vector<int64_t>& m = layouts.outputs[i];
    const ir::ShapedArray aval = j.aval(j.outvars[i]);
    if (m.empty()) continue;
    AXE_RETURN_IF_ERROR(CheckPermutation(m, aval.rank(), absl::StrCat("output ", i)));
    const Perm order = MajorToMinor(m);
    if (IsIdentity(order)) continue;
    const ir::VarId physical =
        NewVar(j, aval.WithShape(PhysicalShape(aval.shape(), m)).WithWeakType(false));
    j.eqns.push_back(TransposeEqn(j.outvars[i], physical, order));
    j.outvars[i] = ir::Atom::OfVar(physical);
  }
  out.jaxpr = j.Canonical();
  return out;
}

ir::ClosedJaxpr FoldTransposes(const ir::ClosedJaxpr& closed) {
  ir::ClosedJaxpr out = closed;
  Folder(out.jaxpr).Run();
  out.jaxpr = out.jaxpr.Canonical();
  return out;
}

absl::StatusOr<Executable> CompileInLayouts(const ir::ClosedJaxpr& jaxpr,
                                            const ProgramLayouts& layouts, ExecOptions options) {
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr physical, WithPhysicalEdges(jaxpr, layouts));
  return Executable::Compile(FoldTransposes(physical), std::move(options));
}

}  // namespace axe::exec
