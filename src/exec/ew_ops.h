// The elementwise operations the executor runs typed (internal to src/exec): which primitive
// is which operation, and the float loops shared by the unfused kernels and fused groups.
#ifndef AXE_SRC_EXEC_EW_OPS_H_
#define AXE_SRC_EXEC_EW_OPS_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "axe/ir/jaxpr.h"

namespace axe::exec::internal {

enum class Ew {
  // binary
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMax,
  kMin,
  kPow,
  kRem,
  // unary
  kNeg,
  kAbs,
  kSign,
  kExp,
  kLog,
  kTanh,
  kLogistic,
  kSqrt,
  kRsqrt,
  kSin,
  kCos,
  kLog1p,
  kExpm1,
  kSquare,
  kFloor,
  kCeil,
  kRoundAway,
  kRoundEven,
  kCopy,
  kIntegerPow,
};

struct EwOp {
  Ew op = Ew::kCopy;
  int arity = 1;
  int64_t power = 0;  // integer_pow's y
};

// The operation of an elementwise equation whose result has its operands' dtype, or nullopt.
std::optional<EwOp> ClassifyElementwise(const ir::Eqn& eqn);

// out[i] = op(a[i], b[i]) over n elements of float or double; an operand with stride 0 is one
// value read for every i (a broadcast scalar). NaN propagates through max and min as in XLA;
// transcendental functions use Highway's vectorized implementations (within a few ulp of
// the correctly rounded result). `b` is ignored for unary operations.
void ApplyFloat(const EwOp& op, const float* a, int a_stride, const float* b, int b_stride,
                float* out, size_t n);
void ApplyFloat(const EwOp& op, const double* a, int a_stride, const double* b, int b_stride,
                double* out, size_t n);

// Vectorized math on contiguous arrays (simd_math.cc, dispatched to the CPU's best target).
enum class MathFn { kExp, kLog, kTanh, kLogistic, kSqrt, kRsqrt, kSin, kCos, kLog1p, kExpm1 };
void VectorMath(MathFn fn, const float* in, float* out, size_t n);
void VectorMath(MathFn fn, const double* in, double* out, size_t n);
// Vectorized add, sub, mul, div, max, min, neg, abs and square on operands of stride 1 or 0
// (simd_arith.cc, dispatched like VectorMath); false for any other operation or stride.
bool VectorArith(Ew op, const float* a, int sa, const float* b, int sb, float* out, size_t n);
bool VectorArith(Ew op, const double* a, int sa, const double* b, int sb, double* out, size_t n);
// Highway's bits of the targets simd_math.cc was compiled for, and of the one VectorMath
// dispatches to now (include/axe/exec/simd_targets.h).
int64_t CompiledMathTargets();
int64_t DispatchedMathTarget();

}  // namespace axe::exec::internal

#endif  // AXE_SRC_EXEC_EW_OPS_H_
