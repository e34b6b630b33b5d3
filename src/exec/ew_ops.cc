// Elementwise operations: which primitive is which, and the float loops.
#include "exec/ew_ops.h"

#include <cmath>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "axe/ir/primitive.h"
#include "exec/fold.h"

namespace axe::exec::internal {
namespace {

const absl::flat_hash_map<std::string, EwOp>& ElementwiseByName() {
  static const auto* table = new absl::flat_hash_map<std::string, EwOp>{
      {"add", {Ew::kAdd, 2}},
      {"add_any", {Ew::kAdd, 2}},
      {"sub", {Ew::kSub, 2}},
      {"mul", {Ew::kMul, 2}},
      {"div", {Ew::kDiv, 2}},
      {"max", {Ew::kMax, 2}},
      {"min", {Ew::kMin, 2}},
      {"pow", {Ew::kPow, 2}},
      {"rem", {Ew::kRem, 2}},
      {"neg", {Ew::kNeg, 1}},
      {"abs", {Ew::kAbs, 1}},
      {"sign", {Ew::kSign, 1}},
      {"exp", {Ew::kExp, 1}},
      {"log", {Ew::kLog, 1}},
      {"tanh", {Ew::kTanh, 1}},
      {"logistic", {Ew::kLogistic, 1}},
      {"sqrt", {Ew::kSqrt, 1}},
      {"rsqrt", {Ew::kRsqrt, 1}},
      {"sin", {Ew::kSin, 1}},
      {"cos", {Ew::kCos, 1}},
      {"log1p", {Ew::kLog1p, 1}},
      {"expm1", {Ew::kExpm1, 1}},
      {"square", {Ew::kSquare, 1}},
      {"floor", {Ew::kFloor, 1}},
      {"ceil", {Ew::kCeil, 1}},
      {"stop_gradient", {Ew::kCopy, 1}},
      {"integer_pow", {Ew::kIntegerPow, 1}},
  };
  return *table;
}

// out[i] = fn(a[i * sa], b[i * sb]) with the strides fixed per loop, so each loop vectorizes.
template <typename F, typename Fn>
void BinaryLoop(const F* a, int sa, const F* b, int sb, F* out, size_t n, Fn fn) {
  if (sa == 1 && sb == 1) {
    for (size_t i = 0; i < n; ++i) out[i] = fn(a[i], b[i]);
  } else if (sa == 1) {
    const F y = b[0];
    for (size_t i = 0; i < n; ++i) out[i] = fn(a[i], y);
  } else if (sb == 1) {
    const F x = a[0];
    for (size_t i = 0; i < n; ++i) out[i] = fn(x, b[i]);
  } else {
    const F v = fn(a[0], b[0]);
    for (size_t i = 0; i < n; ++i) out[i] = v;
  }
}

template <typename F>
void BinaryFloat(Ew op, const F* a, int sa, const F* b, int sb, F* out, size_t n) {
  switch (op) {
    case Ew::kAdd: return BinaryLoop(a, sa, b, sb, out, n, [](F x, F y) { return x + y; });
    case Ew::kSub: return BinaryLoop(a, sa, b, sb, out, n, [](F x, F y) { return x - y; });
    case Ew::kMul: return BinaryLoop(a, sa, b, sb, out, n, [](F x, F y) { return x * y; });
    case Ew::kDiv: return BinaryLoop(a, sa, b, sb, out, n, [](F x, F y) { return x / y; });
    case Ew::kMax:  // NaN in either operand propagates and +0 > -0, as in XLA
      return BinaryLoop(a, sa, b, sb, out, n, [](F x, F y) { return FloatMax(x, y); });
    case Ew::kMin: return BinaryLoop(a, sa, b, sb, out, n, [](F x, F y) { return FloatMin(x, y); });
    case Ew::kPow: return BinaryLoop(a, sa, b, sb, out, n, [](F x, F y) { return std::pow(x, y); });
    case Ew::kRem:
      return BinaryLoop(a, sa, b, sb, out, n, [](F x, F y) { return std::fmod(x, y); });
    default: return BinaryLoop(a, sa, b, sb, out, n, [](F x, F) { return x; });
  }
}

template <typename F>
F IntegerPower(F x, int64_t y) {
  bool invert = y < 0;
  uint64_t e = static_cast<uint64_t>(invert ? -y : y);
  F result = 1;
  for (F base = x; e > 0; e >>= 1) {  // square and multiply, as XLA expands integer_pow
    if ((e & 1) != 0) result *= base;
    base *= base;
  }
  return invert ? F(1) / result : result;
}

template <typename F, typename Fn>
void UnaryLoop(const F* a, int sa, F* out, size_t n, Fn fn) {
  if (sa == 1) {
    for (size_t i = 0; i < n; ++i) out[i] = fn(a[i]);
  } else {
    const F v = fn(a[0]);
    for (size_t i = 0; i < n; ++i) out[i] = v;
  }
}

template <typename F>
void UnaryFloat(const EwOp& op, const F* a, int sa, F* out, size_t n) {
  switch (op.op) {
    case Ew::kNeg: return UnaryLoop(a, sa, out, n, [](F x) { return -x; });
    case Ew::kAbs: return UnaryLoop(a, sa, out, n, [](F x) { return std::fabs(x); });
    case Ew::kSign:
      return UnaryLoop(a, sa, out, n,
                       [](F x) { return (x != x || x == 0) ? x : (x > 0 ? F(1) : F(-1)); });
    case Ew::kSquare: return UnaryLoop(a, sa, out, n, [](F x) { return x * x; });
    case Ew::kFloor: return UnaryLoop(a, sa, out, n, [](F x) { return std::floor(x); });
    case Ew::kCeil: return UnaryLoop(a, sa, out, n, [](F x) { return std::ceil(x); });
    case Ew::kRoundAway: return UnaryLoop(a, sa, out, n, [](F x) { return std::round(x); });
    case Ew::kRoundEven:
      return UnaryLoop(a, sa, out, n, [](F x) { return std::copysign(std::nearbyint(x), x); });
    case Ew::kIntegerPow: {
      const int64_t y = op.power;
      // x**2 (a variance's squares) as the vectorizable x * x: IntegerPower's 1 * (x * x).
      if (y == 2) return UnaryLoop(a, sa, out, n, [](F x) { return x * x; });
      return UnaryLoop(a, sa, out, n, [y](F x) { return IntegerPower(x, y); });
    }
    default: return UnaryLoop(a, sa, out, n, [](F x) { return x; });
  }
}

std::optional<MathFn> AsMath(Ew op) {
  switch (op) {
    case Ew::kExp: return MathFn::kExp;
    case Ew::kLog: return MathFn::kLog;
    case Ew::kTanh: return MathFn::kTanh;
    case Ew::kLogistic: return MathFn::kLogistic;
    case Ew::kSqrt: return MathFn::kSqrt;
    case Ew::kRsqrt: return MathFn::kRsqrt;
    case Ew::kSin: return MathFn::kSin;
    case Ew::kCos: return MathFn::kCos;
    case Ew::kLog1p: return MathFn::kLog1p;
    case Ew::kExpm1: return MathFn::kExpm1;
    default: return std::nullopt;
  }
}

template <typename F>
void ApplyFloatT(const EwOp& op, const F* a, int a_stride, const F* b, int b_stride, F* out,
                 size_t n) {
  const bool square = op.op == Ew::kIntegerPow && op.power == 2;  // x**2 as x * x
  if (VectorArith(square ? Ew::kSquare : op.op, a, a_stride, op.arity == 2 ? b : a,
                  op.arity == 2 ? b_stride : a_stride, out, n)) {
    return;
  }
  if (op.arity == 2) return BinaryFloat(op.op, a, a_stride, b, b_stride, out, n);
  if (std::optional<MathFn> fn = AsMath(op.op)) {
    if (a_stride == 1) {
      VectorMath(*fn, a, out, n);
    } else {
      F v;
      VectorMath(*fn, a, &v, 1);
      for (size_t i = 0; i < n; ++i) out[i] = v;
    }
    return;
  }
  UnaryFloat(op, a, a_stride, out, n);
}

}  // namespace

std::optional<EwOp> ClassifyElementwise(const ir::Eqn& eqn) {
  const std::string& name = eqn.primitive->name();
  if (name == "round") {
    auto it = eqn.params.find("rounding_method");
    int64_t method = 0;
    if (it != eqn.params.end()) method = it->second.AsInt("rounding_method").value_or(0);
    return EwOp{method == 0 ? Ew::kRoundAway : Ew::kRoundEven, 1};
  }
  auto it = ElementwiseByName().find(name);
  if (it == ElementwiseByName().end()) return std::nullopt;
  EwOp op = it->second;
  if (op.op == Ew::kIntegerPow) {
    auto y = eqn.params.find("y");
    if (y == eqn.params.end()) return std::nullopt;
    absl::StatusOr<int64_t> power = y->second.AsInt("y");
    if (!power.ok()) return std::nullopt;
    op.power = *power;
  }
  if (static_cast<int>(eqn.inputs.size()) != op.arity || eqn.outputs.size() != 1) {
    return std::nullopt;
  }
  return op;
}

void ApplyFloat(const EwOp& op, const float* a, int a_stride, const float* b, int b_stride,
                float* out, size_t n) {
  ApplyFloatT(op, a, a_stride, b, b_stride, out, n);
}
void ApplyFloat(const EwOp& op, const double* a, int a_stride, const double* b, int b_stride,
                double* out, size_t n) {
  ApplyFloatT(op, a, a_stride, b, b_stride, out, n);
}

}  // namespace axe::exec::internal
