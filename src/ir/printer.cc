#include "axe/ir/printer.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "axe/ir/primitive.h"
#include "doc.h"

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
  Doc ValueDoc(const Param& p);
  void SuggestNames(const Jaxpr& inner, const std::vector<VarId>& for_vars, const Jaxpr& outer,
                    const std::vector<Atom>& like);

  absl::flat_hash_map<Key, std::string> names_;
  size_t counter_ = 0;
};

const std::string& Printer::Name(const Jaxpr& j, VarId v) {
  static const std::string kDrop = "_";
  static const std::string kInvalid = "<invalid>";
  if (v < 0 || static_cast<size_t>(v) >= j.vars.size()) return kInvalid;
  if (j.vars[v].dropped) return kDrop;
  auto [it, inserted] = names_.try_emplace(Key{&j, v});
  if (inserted) it->second = VarName(counter_++);
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

void Printer::SuggestNames(const Jaxpr& inner, const std::vector<VarId>& for_vars,
                           const Jaxpr& outer, const std::vector<Atom>& like) {
  if (for_vars.size() != like.size()) return;
  absl::flat_hash_set<VarId> used;
  for (size_t i = 0; i < like.size(); ++i) {
    if (like[i].is_literal() || !used.insert(like[i].var).second) continue;
    VarId f = for_vars[i];
    if (f < 0 || static_cast<size_t>(f) >= inner.vars.size()) continue;
    if (names_.contains(Key{&inner, f})) continue;
    std::string name = Name(outer, like[i].var);
    names_[Key{&inner, f}] = std::move(name);
  }
}

Doc Printer::ValueDoc(const Param& p) {
  if (p.IsJaxprTuple()) {
    std::vector<Doc> docs;
    for (const Param& item : p.items()) docs.push_back(JaxprDoc(item.jaxpr()->jaxpr));
    return Group(
        Concat({Nest(2, Concat({Text("("), Brk(""), Join(Brk(), docs)})), Brk(""), Text(")")}));
  }
  if (p.kind() == Param::Kind::kJaxpr && p.jaxpr() != nullptr) return JaxprDoc(p.jaxpr()->jaxpr);
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
    pairs.push_back(Concat({Text(absl::StrCat(name, "=")), ValueDoc(shown.at(name))}));
  }
  return Group(
      Concat({Nest(2, Concat({Text("["), Brk(""), Join(Brk(), pairs)})), Brk(""), Text("]")}));
}

Doc Printer::EqnDoc(const Jaxpr& j, const Eqn& e) {
  Doc lhs = Vars(j, AsAtoms(e.outputs), "", true);
  const std::string& suggest = e.primitive->options().param_named_like_operands;
  if (!suggest.empty()) {
    auto it = e.params.find(suggest);
    if (it != e.params.end() && it->second.kind() == Param::Kind::kJaxpr && it->second.jaxpr()) {
      const Jaxpr& inner = it->second.jaxpr()->jaxpr;
      SuggestNames(inner, inner.invars, j, e.inputs);
      std::vector<VarId> inner_outs;
      bool all_vars = true;
      for (const Atom& a : inner.outvars) {
        if (a.is_literal()) all_vars = false;
        inner_outs.push_back(a.var);
      }
      if (all_vars) SuggestNames(inner, inner_outs, j, AsAtoms(e.outputs));
    }
  }
  Doc params = ParamsDoc(e);
  Doc inputs = Concat({Text(" "), Vars(j, e.inputs, "", false)});
  Doc rhs = Concat({Text(e.primitive->name()), params, inputs});
  if (e.outputs.empty()) return rhs;
  return Concat({lhs, Text(" = "), rhs});
}

Doc Printer::JaxprDoc(const Jaxpr& j) {
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
  return internal::Format(p.JaxprDoc(jaxpr), width);
}

std::string PrintJaxpr(const ClosedJaxpr& jaxpr, size_t width) {
  return PrintJaxpr(jaxpr.jaxpr, width);
}

std::string PrintEqn(const Jaxpr& jaxpr, size_t index, size_t width) {
  if (index >= jaxpr.eqns.size()) return "";
  Printer p;
  p.JaxprDoc(jaxpr);
  return internal::Format(Nest(2, p.EqnDoc(jaxpr, jaxpr.eqns[index])), width);
}

std::vector<std::string> PrintedVarNames(const Jaxpr& jaxpr) {
  Printer p;
  p.JaxprDoc(jaxpr);
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
