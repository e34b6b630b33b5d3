// The floating-point environment axe's kernels compute in: XLA:CPU's, where denormal floats are
// flushed to zero (inputs read as zero, results that would be denormal written as zero), so
// `1e-45f * 1` is 0, `0 == 1e-45f` holds and `log(1e-45f)` is -inf, as `jax.jit` on CPU gives.
// Bits are not arithmetic: copies, bitcasts, sorts and integer kernels keep denormals as they
// are.
//
//   { ScopedFlushDenormals flush;  ... float kernels ... }   // the caller's mode comes back
//
// ThreadPool's workers take on the calling thread's mode for the duration of a ParallelFor, so
// a kernel's result does not depend on which thread computed it.
#ifndef AXE_BASE_FLOAT_ENVIRONMENT_H_
#define AXE_BASE_FLOAT_ENVIRONMENT_H_

#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define AXE_HAS_MXCSR 1
#endif

namespace axe {

// The thread's floating-point control state (x86: MXCSR; elsewhere nothing).
inline uint32_t FloatControl() {
#ifdef AXE_HAS_MXCSR
  return _mm_getcsr();
#else
  return 0;
#endif
}

inline void SetFloatControl([[maybe_unused]] uint32_t control) {
#ifdef AXE_HAS_MXCSR
  _mm_setcsr(control);
#endif
}

// Sets `control` on this thread for the object's lifetime.
class ScopedFloatControl {
 public:
  explicit ScopedFloatControl(uint32_t control) : saved_(FloatControl()) {
    if (control != saved_) SetFloatControl(control);
  }
  ~ScopedFloatControl() {
    if (FloatControl() != saved_) SetFloatControl(saved_);
  }
  ScopedFloatControl(const ScopedFloatControl&) = delete;
  ScopedFloatControl& operator=(const ScopedFloatControl&) = delete;

 private:
  uint32_t saved_;
};

// MXCSR's flush-to-zero (results) and denormals-are-zero (inputs) bits.
inline constexpr uint32_t kFlushToZeroBit = 0x8000;
inline constexpr uint32_t kDenormalsAreZeroBit = 0x0040;

// Flushes denormals on this thread for the object's lifetime, as XLA:CPU runs its kernels.
class ScopedFlushDenormals {
 public:
  ScopedFlushDenormals() : control_(FloatControl() | kFlushToZeroBit | kDenormalsAreZeroBit) {}

 private:
  ScopedFloatControl control_;
};

// x with a denormal read as a zero of its sign, for functions that look at a float's bits
// rather than compute with it (the C library's log, lgamma, ...), so that they see what XLA:CPU's
// arithmetic sees. Right whether or not the thread flushes denormals (a flushed compare reads
// the denormal as zero, which is below the least normal too).
template <typename F>
F FlushDenormal(F x) {
  return std::fabs(x) < std::numeric_limits<F>::min() ? std::copysign(F(0), x) : x;
}

}  // namespace axe

#endif  // AXE_BASE_FLOAT_ENVIRONMENT_H_
