// Vectorized math for the executor's float kernels, compiled once per SIMD target by Highway
// (foreach_target.h) and picked at run time, so one binary runs AVX-512 where the CPU has it
// and AVX2 or SSE4 elsewhere.
//
// Highway's approximations hold on a documented range of inputs (exp up to about 88 for f32,
// log on positive finite values, sin and cos within about 39000); a vector with a lane
// outside its function's range (NaN, infinities, overflow) computes those lanes with the C
// library instead, so every input gets IEEE's special values.
#include <cmath>
#include <cstddef>
#include <limits>

#include "axe/base/float_environment.h"
#include "exec/ew_ops.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "exec/simd_math.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// After highway.h, which foreach_target.h must precede (clang-format keeps this block apart).
#include "hwy/contrib/math/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace axe::exec::internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
T ScalarMath(MathFn fn, T x) {
  switch (fn) {
    case MathFn::kExp: return std::exp(x);
    case MathFn::kLog: return std::log(x);
    case MathFn::kTanh: return std::tanh(x);
    case MathFn::kLogistic: return T(1) / (T(1) + std::exp(-x));
    case MathFn::kSqrt: return std::sqrt(x);
    case MathFn::kRsqrt: return T(1) / std::sqrt(x);
    case MathFn::kSin: return std::sin(x);
    case MathFn::kCos: return std::cos(x);
    case MathFn::kLog1p: return std::log1p(x);
    case MathFn::kExpm1: return std::expm1(x);
  }
  return x;
}

// The inputs on which Highway's version is accurate, per function and type.
template <typename T>
void ValidRange(MathFn fn, T& lo, T& hi) {
  constexpr bool f32 = sizeof(T) == 4;
  const T max = f32 ? T(3.0e38) : T(1.7e308);
  lo = -max;
  hi = max;
  switch (fn) {
    case MathFn::kExp:
    case MathFn::kExpm1: hi = f32 ? T(88) : T(709); break;
    case MathFn::kLogistic: lo = f32 ? T(-88) : T(-709); break;
    case MathFn::kLog: lo = f32 ? T(1.2e-38) : T(2.3e-308); break;
    case MathFn::kSqrt:
    case MathFn::kRsqrt: lo = T(0); break;
    case MathFn::kLog1p: lo = T(-0.999); break;
    case MathFn::kSin:
    case MathFn::kCos:
      lo = T(-30000);
      hi = T(30000);
      break;
    case MathFn::kTanh: break;
  }
}

template <class D, class V>
HWY_INLINE V Compute(D d, MathFn fn, V x) {
  using T = hn::TFromD<D>;
  switch (fn) {
    case MathFn::kExp: return hn::Exp(d, x);
    case MathFn::kLog: return hn::Log(d, x);
    case MathFn::kTanh: return hn::Tanh(d, x);
    case MathFn::kLogistic: {
      const V one = hn::Set(d, T(1));
      return hn::Div(one, hn::Add(one, hn::Exp(d, hn::Neg(x))));
    }
    case MathFn::kSqrt: return hn::Sqrt(x);
    case MathFn::kRsqrt: return hn::Div(hn::Set(d, T(1)), hn::Sqrt(x));
    case MathFn::kSin: return hn::Sin(d, x);
    case MathFn::kCos: return hn::Cos(d, x);
    case MathFn::kLog1p: return hn::Log1p(d, x);
    case MathFn::kExpm1: return hn::Expm1(d, x);
  }
  return x;
}

// sin, tanh, log1p and expm1 are odd at zero: -0 gives -0 (Highway's approximations give +0).
bool KeepsZero(MathFn fn) {
  return fn == MathFn::kSin || fn == MathFn::kTanh || fn == MathFn::kLog1p || fn == MathFn::kExpm1;
}

template <typename T>
void MathLoop(MathFn fn, const T* in, T* out, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t lanes = hn::Lanes(d);
  T lo, hi;
  ValidRange(fn, lo, hi);
  const auto vlo = hn::Set(d, lo);
  const auto vhi = hn::Set(d, hi);
  HWY_ALIGN T xs[hn::MaxLanes(d)];
  HWY_ALIGN T rs[hn::MaxLanes(d)];
  const auto vmin = hn::Set(d, std::numeric_limits<T>::min());
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    // Denormals read as zeros of their sign, as XLA:CPU's arithmetic reads them (Highway's
    // log takes the bits apart and would see them).
    auto x = hn::LoadU(d, in + i);
    x = hn::IfThenElse(hn::Lt(hn::Abs(x), vmin), hn::CopySign(hn::Zero(d), x), x);
    auto r = Compute(d, fn, x);
    if (KeepsZero(fn)) r = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Mul(x, hn::Set(d, T(1))), r);
    const auto ok = hn::And(hn::Ge(x, vlo), hn::Le(x, vhi));  // false for NaN
    if (!hn::AllTrue(d, ok)) {
      hn::Store(x, d, xs);
      hn::Store(r, d, rs);
      for (size_t j = 0; j < lanes; ++j) {
        if (!(xs[j] >= lo && xs[j] <= hi)) rs[j] = ScalarMath(fn, xs[j]);
      }
      r = hn::Load(d, rs);
    }
    hn::StoreU(r, d, out + i);
  }
  for (; i < n; ++i) out[i] = ScalarMath(fn, FlushDenormal(in[i]));
}

void MathF32(MathFn fn, const float* in, float* out, size_t n) { MathLoop(fn, in, out, n); }
void MathF64(MathFn fn, const double* in, double* out, size_t n) { MathLoop(fn, in, out, n); }
int64_t MathTarget() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace axe::exec::internal
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace axe::exec::internal {

HWY_EXPORT(MathF32);
HWY_EXPORT(MathF64);
HWY_EXPORT(MathTarget);

void VectorMath(MathFn fn, const float* in, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(MathF32)(fn, in, out, n);
}
void VectorMath(MathFn fn, const double* in, double* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(MathF64)(fn, in, out, n);
}
int64_t CompiledMathTargets() { return HWY_TARGETS; }
int64_t DispatchedMathTarget() { return HWY_DYNAMIC_DISPATCH(MathTarget)(); }

}  // namespace axe::exec::internal
#endif  // HWY_ONCE
