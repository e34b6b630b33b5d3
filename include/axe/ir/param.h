// Equation parameters (spec ir-and-shard-map.md §3.1): the static values a primitive is bound
// with, e.g. `axes=(0,)`, `new_dtype=int32`, `mesh=Mesh('x': 4, axis_types=(Auto,))`,
// `jaxpr={ lambda ; ... }`.
//
// A Param is a small tree of Python-like values, so that every parameter JAX prints can be
// read and printed back unchanged, including ones axe does not interpret:
//
//   kind       prints as                    example
//   kNone      None
//   kBool      True / False
//   kInt       decimal                      -1
//   kFloat     Python's repr                0.5, 1e-06, inf
//   kString    Python's repr (quoted)       'x'
//   kSymbol    the text itself              float32 is a kDType; f, <lambda>, Auto, x
//   kDType     the long (NumPy) name        int32
//   kTuple     Python's tuple repr          (), (0,), (0, 1)
//   kList      [a, b]                       [1]
//   kSet       {a, b}                       {'x', 'y'} (inside frozenset(...))
//   kCall      name(args)                   P('x',), Mesh('x': 4, axis_types=(Auto,))
//   kKeyword   key=value  (inside a call)   axis_types=(Auto,)
//   kPair      key: value (inside a call)   'x': 4
//   kJaxpr     the nested jaxpr             { lambda ; a:f32[]. let  in (a,) }
//
// Typed readers (AsInt, AsInts, AsDType, AsAxisNames, AsMesh, AsPartitionSpec) interpret the
// tree and return InvalidArgument naming the parameter when it has another form.
#ifndef AXE_IR_PARAM_H_
#define AXE_IR_PARAM_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/base/dtype.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/partition_spec.h"

namespace axe::ir {

struct ClosedJaxpr;

class Param {
 public:
  enum class Kind {
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kSymbol,
    kDType,
    kTuple,
    kList,
    kSet,
    kCall,
    kKeyword,
    kPair,
    kJaxpr,
  };

  Param() = default;  // None
  static Param None() { return Param(); }
  static Param Bool(bool value);
  static Param Int(int64_t value);
  static Param Float(double value);
  static Param String(std::string value);
  // Printed verbatim; the caller keeps it free of whitespace and brackets.
  static Param Symbol(std::string text);
  static Param OfDType(DType dtype);
  static Param Tuple(std::vector<Param> items);
  static Param List(std::vector<Param> items);
  static Param Set(std::vector<Param> items);
  static Param Call(std::string name, std::vector<Param> args);
  static Param Keyword(std::string key, Param value);
  static Param Pair(Param key, Param value);
  static Param Jaxpr(std::shared_ptr<const ClosedJaxpr> jaxpr);
  // Conveniences: a tuple of ints, a tuple of names ('x', 'y'), a tuple of jaxprs.
  static Param Ints(const std::vector<int64_t>& values);
  static Param Names(const std::vector<std::string>& names);
  static Param Jaxprs(std::vector<std::shared_ptr<const ClosedJaxpr>> jaxprs);
  // P('x',) as a call (its repr), a Mesh as JAX prints it: Mesh('x': 4, axis_types=(Auto,)).
  static Param OfPartitionSpec(const sharding::PartitionSpec& spec);
  static Param OfMesh(const sharding::Mesh& mesh);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool bool_value() const { return int_ != 0; }
  int64_t int_value() const { return int_; }
  double float_value() const { return float_; }
  // kString: the value; kSymbol: the text; kCall: the callee; kKeyword: the key.
  const std::string& text() const { return text_; }
  DType dtype() const { return static_cast<DType>(int_); }
  // kTuple, kList, kSet: the items; kCall: the arguments; kKeyword: {value};
  // kPair: {key, value}.
  const std::vector<Param>& items() const { return items_; }
  const std::shared_ptr<const ClosedJaxpr>& jaxpr() const { return jaxpr_; }
  // True for a kTuple whose items are all jaxprs (printed one per line when broken).
  bool IsJaxprTuple() const;

  // Python-like text; nested jaxprs print on one line (the jaxpr printer lays them out).
  std::string ToString() const;

  // Typed readers; `name` is the parameter's name for the error message.
  absl::StatusOr<int64_t> AsInt(absl::string_view name) const;
  absl::StatusOr<bool> AsBool(absl::string_view name) const;
  // A tuple or list of ints: (0, 1), [1], ().
  absl::StatusOr<std::vector<int64_t>> AsInts(absl::string_view name) const;
  // kDType, or a symbol naming a dtype.
  absl::StatusOr<DType> AsDType(absl::string_view name) const;
  // ('x', 'y'), ('x',), 'x' or the bare symbol x (JAX prints axis_name=x for one name).
  absl::StatusOr<std::vector<std::string>> AsAxisNames(absl::string_view name) const;
  absl::StatusOr<sharding::PartitionSpec> AsPartitionSpec(absl::string_view name) const;
  absl::StatusOr<sharding::Mesh> AsMesh(absl::string_view name) const;

  // Structural equality (floats bitwise, so nan == nan; nested jaxprs by value).
  friend bool operator==(const Param& a, const Param& b);
  friend bool operator!=(const Param& a, const Param& b) { return !(a == b); }

 private:
  Kind kind_ = Kind::kNone;
  int64_t int_ = 0;
  double float_ = 0;
  std::string text_;
  std::vector<Param> items_;
  std::shared_ptr<const ClosedJaxpr> jaxpr_;
};

// An equation's parameters by name; iteration is in sorted name order, as printed.
using Params = std::map<std::string, Param, std::less<>>;

// The parameter `name`, or NotFound "primitive '<prim>' needs the parameter '<name>'".
absl::StatusOr<const Param*> GetParam(const Params& params, absl::string_view primitive,
                                      absl::string_view name);

}  // namespace axe::ir

#endif  // AXE_IR_PARAM_H_
