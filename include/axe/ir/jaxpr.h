// Jaxprs (spec ir-and-shard-map.md §3): typed variables, literals, drop vars, equations
// `outvars = primitive[params](inputs)`, output atoms, effects; a closed jaxpr adds the values
// of its constvars.
//
// Variables are indices (VarId) into the jaxpr's table `vars`, which holds each variable's
// abstract value; a drop var (`_`, an unused equation output) is a table entry marked
// `dropped`. Nested jaxprs (cond branches, pjit/shard_map bodies) are closed: they have their
// own tables and refer to nothing outside. Names are not stored: the printer assigns them.
//
// A jaxpr is *canonical* when its variables are numbered in binding order (constvars, then
// invars, then equation outputs in order) and the table holds nothing else; the builder and
// the parser produce canonical jaxprs, so two of them are equal (==) exactly when they print
// the same, up to weak types (which the text does not show).
#ifndef AXE_IR_JAXPR_H_
#define AXE_IR_JAXPR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "axe/ir/host_array.h"
#include "axe/ir/literal.h"
#include "axe/ir/param.h"
#include "axe/ir/shaped_array.h"

namespace axe::ir {

class Primitive;

using VarId = int32_t;

struct Var {
  ShapedArray aval;
  bool dropped = false;  // a DropVar: prints `_`

  friend bool operator==(const Var&, const Var&) = default;
};

// An equation input or a jaxpr output: a variable or a literal.
struct Atom {
  VarId var = -1;                  // when literal is empty
  std::optional<Literal> literal;  // set for a literal

  static Atom OfVar(VarId id) { return Atom{id, std::nullopt}; }
  static Atom OfLiteral(Literal l) { return Atom{-1, std::move(l)}; }
  bool is_literal() const { return literal.has_value(); }
  friend bool operator==(const Atom&, const Atom&) = default;
};

// Effects are names (e.g. "IO", "Ordered"); a set kept sorted.
using Effects = std::vector<std::string>;

struct Eqn {
  const Primitive* primitive = nullptr;
  Params params;
  std::vector<Atom> inputs;
  std::vector<VarId> outputs;
  Effects effects;

  friend bool operator==(const Eqn&, const Eqn&) = default;
};

struct Jaxpr {
  std::vector<Var> vars;  // the type of every VarId
  std::vector<VarId> constvars;
  std::vector<VarId> invars;
  std::vector<Eqn> eqns;
  std::vector<Atom> outvars;
  Effects effects;

  const ShapedArray& aval(VarId id) const { return vars[static_cast<size_t>(id)].aval; }
  // The type of an atom (a literal's own aval).
  const ShapedArray& aval(const Atom& atom) const {
    return atom.is_literal() ? atom.literal->aval() : aval(atom.var);
  }
  std::vector<ShapedArray> in_avals() const;
  std::vector<ShapedArray> out_avals() const;

  // A copy numbered in binding order without unbound table entries (see the header comment).
  // Vars used but never bound keep their relative order after the bound ones.
  Jaxpr Canonical() const;

  friend bool operator==(const Jaxpr&, const Jaxpr&) = default;
};

struct ClosedJaxpr {
  Jaxpr jaxpr;
  std::vector<HostArray> consts;  // one per constvar

  friend bool operator==(const ClosedJaxpr&, const ClosedJaxpr&) = default;
};

}  // namespace axe::ir

#endif  // AXE_IR_JAXPR_H_
