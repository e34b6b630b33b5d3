// A literal operand of a jaxpr equation (spec ir-and-shard-map.md §3.1): a scalar constant
// with its abstract value, printed `value:type` — `3.0:f32[]`, `2:i32[]`, `True:bool[]`; a
// non-scalar constant shown inline prints `[...]:f32[3]` and carries no value.
#ifndef AXE_IR_LITERAL_H_
#define AXE_IR_LITERAL_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/hash/hash.h"
#include "axe/ir/shaped_array.h"

namespace axe::ir {

class Literal {
 public:
  enum class Kind { kBool, kInt, kFloat, kElided };

  // 0.0:f32[]
  Literal() : Literal(Kind::kFloat, 0, 0.0, ShapedArray({}, DType::kF32)) {}
  static Literal Bool(bool value) {
    return Literal(Kind::kBool, value ? 1 : 0, 0, ShapedArray({}, DType::kPred));
  }
  // `dtype` is an integral type (the caller checks the value fits).
  static Literal Int(int64_t value, DType dtype = DType::kS32) {
    return Literal(Kind::kInt, value, 0, ShapedArray({}, dtype));
  }
  // `dtype` is a floating-point type.
  static Literal Float(double value, DType dtype = DType::kF32) {
    return Literal(Kind::kFloat, 0, value, ShapedArray({}, dtype));
  }
  // A non-scalar constant shown inline as [...].
  static Literal Elided(ShapedArray aval) { return Literal(Kind::kElided, 0, 0, std::move(aval)); }
  // The scalar `value` converted to `dtype`'s kind (bool: value != 0; integral: truncated).
  static Literal OfDType(double value, DType dtype);

  Kind kind() const { return kind_; }
  const ShapedArray& aval() const { return aval_; }
  bool bool_value() const { return int_ != 0; }
  int64_t int_value() const { return int_; }
  double float_value() const { return float_; }
  // The value as a double (bool 0/1; elided: 0).
  double AsDouble() const;
  Literal WithAval(ShapedArray aval) const {
    Literal r = *this;
    r.aval_ = std::move(aval);
    return r;
  }

  // The value as JAX prints it: "True", "2", "0.5", "inf", "[...]".
  std::string ValueString() const;
  // "0.5:f32[]".
  std::string ToString() const;

  // Floats compare bitwise (nan == nan, 0.0 != -0.0).
  friend bool operator==(const Literal& a, const Literal& b);
  template <typename H>
  friend H AbslHashValue(H h, const Literal& l) {
    return H::combine(std::move(h), l.kind_, l.int_, l.float_ == 0 ? 0.0 : l.float_, l.aval_);
  }

 private:
  Literal(Kind kind, int64_t i, double f, ShapedArray aval)
      : kind_(kind), int_(i), float_(f), aval_(std::move(aval)) {}
  Kind kind_;
  int64_t int_;
  double float_;
  ShapedArray aval_;
};

}  // namespace axe::ir

#endif  // AXE_IR_LITERAL_H_
