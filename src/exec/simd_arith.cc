// The float kernels' arithmetic (add, sub, mul, div, max, min, neg, abs, x * x) compiled once
// per SIMD target by Highway and picked at run time, like simd_math.cc: the portable loops in
// ew_ops.cc are compiled for x86-64's baseline (SSE2, four floats a step), these run eight
// (AVX2) or sixteen (AVX-512). Each operation is one IEEE operation per element, so every
// target gives the same bits; max and min propagate NaN and put +0 above -0 as XLA does.
#include <cstddef>

#include "exec/ew_ops.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "exec/simd_arith.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace axe::exec::internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

struct AddOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y) const {
    return hn::Add(x, y);
  }
};
struct SubOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y) const {
    return hn::Sub(x, y);
  }
};
struct MulOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y) const {
    return hn::Mul(x, y);
  }
};
struct DivOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y) const {
    return hn::Div(x, y);
  }
};
// (x > y || x != x) ? x : y, with IsNaN: Highway's Ne is an ordered compare, false for NaN.
// Equal operands give their bitwise and, so +0 is above -0 as in XLA.
struct MaxOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y) const {
    const V equal_or_y = hn::IfThenElse(hn::Eq(x, y), hn::And(x, y), y);
    return hn::IfThenElse(hn::Or(hn::Gt(x, y), hn::IsNaN(x)), x, equal_or_y);
  }
};
// (x < y || x != x) ? x : y; equal operands give their bitwise or, so -0 is below +0.
struct MinOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y) const {
    const V equal_or_y = hn::IfThenElse(hn::Eq(x, y), hn::Or(x, y), y);
    return hn::IfThenElse(hn::Or(hn::Lt(x, y), hn::IsNaN(x)), x, equal_or_y);
  }
};
struct NegOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V) const {
    return hn::Neg(x);
  }
};
struct AbsOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V) const {
    return hn::Abs(x);
  }
};
struct SquareOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V) const {
    return hn::Mul(x, x);
  }
};

// out[i] = op(a[i * sa], b[i * sb]) with each stride 1 or 0 (a broadcast scalar); the last
// partial vector through a masked-off scalar loop of the same operation.
template <typename T, class Op>
void Loop(Op op, const T* a, int sa, const T* b, int sb, T* out, size_t n) {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  if (sa == 1 && sb == 1) {
    for (; i + lanes <= n; i += lanes) {
      hn::StoreU(op(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, out + i);
    }
    for (; i < n; ++i) hn::StoreU(op(d1, hn::LoadU(d1, a + i), hn::LoadU(d1, b + i)), d1, out + i);
  } else if (sa == 1) {
    const auto y = hn::Set(d, b[0]);
    const auto y1 = hn::Set(d1, b[0]);
    for (; i + lanes <= n; i += lanes) hn::StoreU(op(d, hn::LoadU(d, a + i), y), d, out + i);
    for (; i < n; ++i) hn::StoreU(op(d1, hn::LoadU(d1, a + i), y1), d1, out + i);
  } else if (sb == 1) {
    const auto x = hn::Set(d, a[0]);
    const auto x1 = hn::Set(d1, a[0]);
    for (; i + lanes <= n; i += lanes) hn::StoreU(op(d, x, hn::LoadU(d, b + i)), d, out + i);
    for (; i < n; ++i) hn::StoreU(op(d1, x1, hn::LoadU(d1, b + i)), d1, out + i);
  } else {
    const T v = hn::GetLane(op(d1, hn::Set(d1, a[0]), hn::Set(d1, b[0])));
    for (; i < n; ++i) out[i] = v;
  }
}

template <typename T>
bool Arith(Ew ew, const T* a, int sa, const T* b, int sb, T* out, size_t n) {
  if (sa > 1 || sb > 1 || sa < 0 || sb < 0) return false;
  switch (ew) {
    case Ew::kAdd: Loop(AddOp(), a, sa, b, sb, out, n); return true;
    case Ew::kSub: Loop(SubOp(), a, sa, b, sb, out, n); return true;
    case Ew::kMul: Loop(MulOp(), a, sa, b, sb, out, n); return true;
    case Ew::kDiv: Loop(DivOp(), a, sa, b, sb, out, n); return true;
    case Ew::kMax: Loop(MaxOp(), a, sa, b, sb, out, n); return true;
    case Ew::kMin: Loop(MinOp(), a, sa, b, sb, out, n); return true;
    // Unary: `a` read for both operands.
    case Ew::kNeg: Loop(NegOp(), a, sa, a, sa, out, n); return true;
    case Ew::kAbs: Loop(AbsOp(), a, sa, a, sa, out, n); return true;
    case Ew::kSquare: Loop(SquareOp(), a, sa, a, sa, out, n); return true;
    default: return false;
  }
}

bool ArithF32(Ew ew, const float* a, int sa, const float* b, int sb, float* out, size_t n) {
  return Arith(ew, a, sa, b, sb, out, n);
}
bool ArithF64(Ew ew, const double* a, int sa, const double* b, int sb, double* out, size_t n) {
  return Arith(ew, a, sa, b, sb, out, n);
}

}  // namespace HWY_NAMESPACE
}  // namespace axe::exec::internal
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace axe::exec::internal {

HWY_EXPORT(ArithF32);
HWY_EXPORT(ArithF64);

bool VectorArith(Ew op, const float* a, int sa, const float* b, int sb, float* out, size_t n) {
  return HWY_DYNAMIC_DISPATCH(ArithF32)(op, a, sa, b, sb, out, n);
}
bool VectorArith(Ew op, const double* a, int sa, const double* b, int sb, double* out, size_t n) {
  return HWY_DYNAMIC_DISPATCH(ArithF64)(op, a, sa, b, sb, out, n);
}

}  // namespace axe::exec::internal
#endif  // HWY_ONCE
