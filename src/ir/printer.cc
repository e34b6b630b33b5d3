#include "axe/ir/printer.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "axe/ir/primitive.h"
#include "doc.h"
#include "shared_jaxprs.h"

namespace axe::ir {

using internal::Brk;
using internal::Concat;
using internal::Doc;
using internal::Group;
using internal::Join;
using internal::Nest;
using internal::Nil;
using internal::Text;

std::string VarName(size_t n) {
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('a' + n % 26));
    n /= 26;
  } while (n > 0);
  return out;
}

namespace {

// JAX's JaxprPpContext: names are assigned when a variable is first printed.
class Printer {
 public:
  // JAX's pp_toplevel_jaxpr: the shared jaxprs as `let name = { ... } in` items, then `top`.
  Doc TopDoc(const Jaxpr& top);
  Doc JaxprDoc(const Jaxpr& j);
  Doc EqnDoc(const Jaxpr& j, const Eqn& e);
  // The name assigned to `v` of `j` so far, or "".
  std::string NameIfAssigned(const Jaxpr& j, VarId v) const {
    if (v >= 0 && static_cast<size_t>(v) < j.vars.size() && j.vars[v].dropped) return "_";
    auto it = names_.find(Key{&j, v});
    return it == names_.end() ? "" : it->second;
  }

 private:
  using Key = std::pair<const Jaxpr*, VarId>;

  const std::string& Name(const Jaxpr& j, VarId v);
  Doc Vars(const Jaxpr& j, const std::vector<Atom>& atoms, const std::string& sep, bool binder);
  Doc ParamsDoc(const Eqn& e);
  Doc ValueDoc(absl::string_view key, const Param& p);
  void SuggestNames(const Jaxpr& inner, const std::vector<Atom>& for_vars, const Jaxpr& outer,
                    const std::vector<Atom>& like);

  Doc SkeletonDoc(const Jaxpr& j);
  void FindShared(const Jaxpr& top);

  absl::flat_hash_map<Key, std::string> names_;
  size_t counter_ = 0;
  // Shared jaxprs in printing order, their names, and the names (which variables skip).
  std::vector<const Jaxpr*> shared_order_;
  absl::flat_hash_map<const Jaxpr*, std::string> shared_;
  absl::flat_hash_set<std::string> shared_names_;
};

// The jaxprs among `e`'s params as JAX's jaxprs_in_params yields them (a jaxpr or a tuple of
// jaxprs; while's cond_jaxpr before its body_jaxpr, as in JAX's params order), each with
// whether its key may share it (internal::HoldsJaxpr).
struct ParamJaxpr {
  const Jaxpr* jaxpr;
  bool sharable;
};
std::vector<ParamJaxpr> JaxprsInParams(const Eqn& e) {
  std::vector<ParamJaxpr> out;
  std::vector<std::pair<const Param*, bool>> values;
  for (const auto& [key, value] : e.params) {
    const bool sharable = internal::HoldsJaxpr(key);
    if (key == "cond_jaxpr" && !values.empty() && e.params.count("body_jaxpr") != 0) {
      values.insert(values.begin(), {&value, sharable});
    } else {
      values.emplace_back(&value, sharable);
    }
  }
  for (const auto& [value, sharable] : values) {
    if (value->kind() == Param::Kind::kJaxpr && value->jaxpr() != nullptr) {
      out.push_back({&value->jaxpr()->jaxpr, sharable});
    } else if (value->kind() == Param::Kind::kTuple) {
      for (const Param& item : value->items()) {
        if (item.kind() == Param::Kind::kJaxpr && item.jaxpr() != nullptr) {
          out.push_back({&item.jaxpr()->jaxpr, sharable});
        }
      }
    }
  }
  return out;
}

// JAX's rule: walking breadth first from `top`, a jaxpr met more than once (one with more
// than 10 equations counts twice) is shared, named after the `name` param of the first
// equation with a name that holds it ("jaxpr" if none; a custom call's name does not count),
// "<>" stripped, repeats numbered.
// Only uses under keys that may share count (JAX's own primitives hold jaxprs nowhere else);
// a jaxpr held under another key is printed inline, and walked for the jaxprs inside it.
void Printer::FindShared(const Jaxpr& top) {
  absl::flat_hash_map<const Jaxpr*, size_t> counts;
  absl::flat_hash_map<const Jaxpr*, size_t> visits;
  absl::flat_hash_map<const Jaxpr*, std::string> names;
  std::vector<const Jaxpr*> first_seen;
  std::deque<ParamJaxpr> queue = {{&top, true}};
  while (!queue.empty()) {
    const auto [j, sharable] = queue.front();
    queue.pop_front();
    size_t& count = counts[j];
    if (count == 0 && sharable) first_seen.push_back(j);
    if (sharable) count += (j != &top && j->eqns.size() > 10) ? 2 : 1;
    // JAX walks every use again; past two visits a walk only repeats what the first found
    // (names, first sightings) and every count is already 2 or more, so it stops there.
    if (++visits[j] > 2) continue;
    for (const Eqn& e : j->eqns) {
      // A custom call's `name` is printed from its call_jaxpr's function name, not held as a
      // param, so JAX names no jaxpr after it.
      const bool custom_call =
          e.primitive != nullptr &&
          (e.primitive->name() == "custom_jvp_call" || e.primitive->name() == "custom_vjp_call");
      auto name_it = e.params.find("name");
      bool named = !custom_call && name_it != e.params.end() &&
                   (name_it->second.kind() == Param::Kind::kString ||
                    name_it->second.kind() == Param::Kind::kSymbol);
      std::string name;
      if (named) {
        name = name_it->second.text();
        size_t begin = name.find_first_not_of("<>");
        size_t end = name.find_last_not_of("<>");
        name = begin == std::string::npos ? "" : name.substr(begin, end - begin + 1);
      }
      for (const ParamJaxpr& sub : JaxprsInParams(e)) {
        queue.push_back(sub);
        if (named && sub.sharable) names.try_emplace(sub.jaxpr, name);
      }
    }
  }
  absl::flat_hash_map<std::string, size_t> name_counts;
  for (const Jaxpr* j : first_seen) {
    if (counts[j] <= 1) continue;
    auto it = names.find(j);
    std::string name = it == names.end() ? "jaxpr" : it->second;
    if (size_t count = name_counts[name]++; count > 0) {
      absl::StrAppend(&name, count);
      ++name_counts[name];
    }
    shared_names_.insert(name);
    shared_.emplace(j, name);
    shared_order_.push_back(j);
  }
}

const std::string& Printer::Name(const Jaxpr& j, VarId v) {
  static const std::string kDrop = "_";
  static const std::string kInvalid = "<invalid>";
  if (v < 0 || static_cast<size_t>(v) >= j.vars.size()) return kInvalid;
  if (j.vars[v].dropped) return kDrop;
  auto [it, inserted] = names_.try_emplace(Key{&j, v});
  if (inserted) {
    do {
      it->second = VarName(counter_++);
    } while (shared_names_.contains(it->second));
  }
  return it->second;
}

Doc Printer::Vars(const Jaxpr& j, const std::vector<Atom>& atoms, const std::string& sep,
                  bool binder) {
  std::vector<Doc> items;
  for (const Atom& a : atoms) {
    if (a.is_literal()) {
      items.push_back(Text(a.literal->ToString()));
    } else if (binder) {
      const std::string& name = Name(j, a.var);
      // JAX: the name, then the type as a separate (colored) node.
      items.push_back(Concat({Text(name), Text(absl::StrCat(":", j.aval(a.var).ShortString()))}));
    } else {
      items.push_back(Text(Name(j, a.var)));
    }
  }
  return Nest(2, Group(Join(Concat({Text(sep), Group(Brk())}), items)));
}

std::vector<Atom> AsAtoms(const std::vector<VarId>& vars) {
  std::vector<Atom> out;
  for (VarId v : vars) out.push_back(Atom::OfVar(v));
  return out;
}

// JAX's suggest_same_var_names: `for_vars[i]` (a variable not yet named) takes the name of
// `like[i]` (a variable of `outer` not suggested before); literals on either side are skipped.
void Printer::SuggestNames(const Jaxpr& inner, const std::vector<Atom>& for_vars,
                           const Jaxpr& outer, const std::vector<Atom>& like) {
  if (for_vars.size() != like.size()) return;
  absl::flat_hash_set<VarId> used;
  for (size_t i = 0; i < like.size(); ++i) {
    if (like[i].is_literal() || used.contains(like[i].var) || for_vars[i].is_literal()) continue;
    VarId f = for_vars[i].var;
    if (f < 0 || static_cast<size_t>(f) >= inner.vars.size()) continue;
    if (names_.contains(Key{&inner, f})) continue;
    used.insert(like[i].var);
    std::string name = Name(outer, like[i].var);
    names_[Key{&inner, f}] = std::move(name);
  }
}

Doc Printer::ValueDoc(absl::string_view key, const Param& p) {
  // A jaxpr under a key that may not share it is printed in full (shared_jaxprs.h).
  auto jaxpr_doc = [&](const Jaxpr& j) {
    return internal::HoldsJaxpr(key) ? JaxprDoc(j) : SkeletonDoc(j);
  };
  if (p.IsJaxprTuple()) {
    std::vector<Doc> docs;
    for (const Param& item : p.items()) docs.push_back(jaxpr_doc(item.jaxpr()->jaxpr));
    return Group(
        Concat({Nest(2, Concat({Text("("), Brk(""), Join(Brk(), docs)})), Brk(""), Text(")")}));
  }
  if (p.kind() == Param::Kind::kJaxpr && p.jaxpr() != nullptr) return jaxpr_doc(p.jaxpr()->jaxpr);
  return Text(p.ToString());
}

Doc Printer::ParamsDoc(const Eqn& e) {
  const Primitive::Options& opts = e.primitive->options();
  Params shown = opts.printed_params ? opts.printed_params(e.params) : e.params;
  if (shown.empty()) return Nil();
  std::vector<std::string> order;
  for (const std::string& first : opts.params_printed_first) {
    if (shown.count(first) != 0) order.push_back(first);
  }
  for (const auto& [name, value] : shown) {
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  }
  std::vector<Doc> pairs;
  for (const std::string& name : order) {
    pairs.push_back(Concat({Text(absl::StrCat(name, "=")), ValueDoc(name, shown.at(name))}));
  }
  return Group(
      Concat({Nest(2, Concat({Text("["), Brk(""), Join(Brk(), pairs)})), Brk(""), Text("]")}));
}

Doc Printer::EqnDoc(const Jaxpr& j, const Eqn& e) {
  Doc lhs = Vars(j, AsAtoms(e.outputs), "", true);
  const std::string& suggest = e.primitive->options().param_named_like_operands;
  if (!suggest.empty()) {
    auto it = e.params.find(suggest);
    // As JAX's jit rule: not for a shared jaxpr (named in the prelude on its own).
    if (it != e.params.end() && it->second.kind() == Param::Kind::kJaxpr && it->second.jaxpr() &&
        !shared_.contains(&it->second.jaxpr()->jaxpr)) {
      const Jaxpr& inner = it->second.jaxpr()->jaxpr;
      SuggestNames(inner, AsAtoms(inner.invars), j, e.inputs);
      SuggestNames(inner, inner.outvars, j, AsAtoms(e.outputs));
    }
  }
  Doc params = ParamsDoc(e);
  Doc inputs = Concat({Text(" "), Vars(j, e.inputs, "", false)});
  Doc rhs = Concat({Text(e.primitive->name()), params, inputs});
  if (e.outputs.empty()) return rhs;
  return Concat({lhs, Text(" = "), rhs});
}

Doc Printer::TopDoc(const Jaxpr& top) {
  FindShared(top);
  std::vector<Doc> docs;
  for (const Jaxpr* j : shared_order_) {
    docs.push_back(Concat(
        {Text("let "), Text(shared_.at(j)), Text(" = "), SkeletonDoc(*j), Text(" in"), Brk()}));
  }
  docs.push_back(SkeletonDoc(top));
  return Concat(std::move(docs));
}

Doc Printer::JaxprDoc(const Jaxpr& j) {
  auto it = shared_.find(&j);
  if (it != shared_.end()) return Text(it->second);
  return SkeletonDoc(j);
}

Doc Printer::SkeletonDoc(const Jaxpr& j) {
  Doc constvars = Vars(j, AsAtoms(j.constvars), "", true);
  Doc invars = Vars(j, AsAtoms(j.invars), "", true);
  std::vector<Doc> eqns;
  for (const Eqn& e : j.eqns) eqns.push_back(EqnDoc(j, e));
  Doc outvars =
      Concat({Text("("), Vars(j, j.outvars, ",", false), Text(j.outvars.size() == 1 ? ",)" : ")")});
  Doc body =
      Concat({Text("{ "), Text("lambda "), constvars, Text("; "), invars, Text(". "), Text("let"),
              Nest(2, Concat({Brk(), Join(Brk("; "), eqns)})), Brk(), Text("in "), outvars});
  return Group(Concat({Nest(2, body), Text(" }")}));  // JAX: " }" inside the group
}

}  // namespace

std::string PrintJaxpr(const Jaxpr& jaxpr, size_t width) {
  Printer p;
  return internal::Format(p.TopDoc(jaxpr), width);
}

std::string PrintJaxpr(const ClosedJaxpr& jaxpr, size_t width) {
  return PrintJaxpr(jaxpr.jaxpr, width);
}

std::string PrintEqn(const Jaxpr& jaxpr, size_t index, size_t width) {
  if (index >= jaxpr.eqns.size()) return "";
  Printer p;
  p.JaxprDoc(jaxpr);  // JAX's check_jaxpr names as pp_jaxpr does: no prelude
  return internal::Format(Nest(2, p.EqnDoc(jaxpr, jaxpr.eqns[index])), width);
}

std::vector<std::string> PrintedVarNames(const Jaxpr& jaxpr) {
  Printer p;
  p.JaxprDoc(jaxpr);  // JAX's check_jaxpr names as pp_jaxpr does: no prelude
  std::vector<std::string> out;
  for (size_t v = 0; v < jaxpr.vars.size(); ++v) {
    out.push_back(p.NameIfAssigned(jaxpr, static_cast<VarId>(v)));
  }
  return out;
}

std::string PrintJaxprOneLine(const Jaxpr& jaxpr) {
  return PrintJaxpr(jaxpr, std::numeric_limits<size_t>::max() / 2);
}

}  // namespace axe::ir
