// Typed kernels of the elementwise functions of src/ir/family_math.cc: the floating ones
// (erf erfc erf_inv tan atan asin acos sinh cosh asinh acosh atanh cbrt exp2 atan2 nextafter
// lgamma digamma)
// compute each element in double and round to the type (as the interpreter does, so both give
// the same bits); the integer ones (shift_left shift_right_logical shift_right_arithmetic xor
// population_count clz) work on the type's own bits, with XLA's shifts: an amount of the bit
// width or more (a negative one too, read as unsigned) gives 0, or the sign fill for the
// arithmetic shift. An operand with one element broadcasts. expm1 is elementwise.cc's.
#include <bit>
#include <cmath>
#include <numbers>
#include <type_traits>

#include "axe/base/float_environment.h"
#include "axe/base/numerics.h"
#include "axe/base/status_macros.h"
#include "exec/dtype_switch.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace math_kernels {

using FloatFn = double (*)(double, double);

double Erf(double x, double) { return std::erf(x); }
double Erfc(double x, double) { return std::erfc(x); }
double ErfInvOf(double x, double) { return ErfInv(x); }
double Tan(double x, double) { return std::tan(x); }
double Atan(double x, double) { return std::atan(x); }
double Asin(double x, double) { return std::asin(x); }
double Acos(double x, double) { return std::acos(x); }
double Sinh(double x, double) { return std::sinh(x); }
double Cosh(double x, double) { return std::cosh(x); }
double Asinh(double x, double) { return std::asinh(x); }
double Acosh(double x, double) { return std::acosh(x); }
double Atanh(double x, double) { return std::atanh(x); }
double Cbrt(double x, double) { return std::cbrt(x); }
double Exp2(double x, double) { return std::exp2(x); }
double Atan2(double x, double y) { return std::atan2(x, y); }
double LGamma(double x, double) { return std::lgamma(x); }
double DigammaOf(double x, double) { return Digamma(x); }

// exp2 of a 16-bit float as XLA computes it: exp(x * ln2) with ln2 and the product rounded
// to the type (exp2(10) is 1026 in f16, 1000 in bf16), exp in f32.
template <typename T>
T HalfExp2(T x) {
  const T ln2(std::numbers::ln2_v<float>);
  const T product(static_cast<float>(x) * static_cast<float>(ln2));
  return T(std::exp(static_cast<float>(product)));
}

template <typename T>
void RunFloat(FloatFn fn, const std::vector<int64_t>& st, absl::Span<const Value> in, Value& out) {
  const T* a = in[0].data<T>();
  const T* b = in.size() > 1 ? in[1].data<T>() : a;
  const int64_t sa = st[0], sb = st.size() > 1 ? st[1] : 0;
  T* o = out.mutable_data<T>();
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    if constexpr (kIsHalf<T>) {
      if (fn == Exp2) {
        o[i] = HalfExp2(a[i * sa]);
        continue;
      }
    }
    // Denormal inputs read as zeros, as XLA:CPU's arithmetic reads them (its f64 atan2 reads
    // them as they are).
    double x = ToDouble(a[i * sa]), y = ToDouble(b[i * sb]);
    if (fn != Atan2) {
      x = FlushDenormal(x);
      y = FlushDenormal(y);
    }
    o[i] = static_cast<T>(static_cast<ComputeType<T>>(fn(x, y)));
  }
}

template <typename T>
void RunNextAfter(const std::vector<int64_t>& st, absl::Span<const Value> in, Value& out) {
  const T* a = in[0].data<T>();
  const T* b = in[1].data<T>();
  T* o = out.mutable_data<T>();
  for (int64_t i = 0; i < out.num_elements(); ++i)
    o[i] = std::nextafter(a[i * st[0]], b[i * st[1]]);
}

enum class IntOp { kShiftLeft, kShiftRightLogical, kShiftRightArithmetic, kXor, kPopcount, kClz };

template <typename T>
T ApplyInt(IntOp op, T x, T y) {
  if constexpr (std::is_same_v<T, bool>) {
    return x != y;  // xor is the only one on bool
  } else {
    using U = std::make_unsigned_t<T>;
    constexpr int kBits = sizeof(T) * 8;
    const U ux = static_cast<U>(x), uy = static_cast<U>(y);
    switch (op) {
      case IntOp::kShiftLeft: return uy >= kBits ? T(0) : static_cast<T>(static_cast<U>(ux << uy));
      case IntOp::kShiftRightLogical: return uy >= kBits ? T(0) : static_cast<T>(ux >> uy);
      case IntOp::kShiftRightArithmetic: {
        const bool negative = (ux >> (kBits - 1)) != 0;
        const U fill = negative ? static_cast<U>(~U{0}) : U{0};
        if (uy >= kBits) return static_cast<T>(fill);
        if (uy == 0) return x;
        return static_cast<T>(static_cast<U>((ux >> uy) | static_cast<U>(fill << (kBits - uy))));
      }
      case IntOp::kXor: return static_cast<T>(ux ^ uy);
      case IntOp::kPopcount: return static_cast<T>(std::popcount(ux));
      case IntOp::kClz: return static_cast<T>(std::countl_zero(ux));
    }
    return x;
  }
}

template <typename T>
void RunInt(IntOp op, const std::vector<int64_t>& st, absl::Span<const Value> in, Value& out) {
  const T* a = in[0].data<T>();
  const T* b = in.size() > 1 ? in[1].data<T>() : a;
  const int64_t sa = st[0], sb = st.size() > 1 ? st[1] : 0;
  T* o = out.mutable_data<T>();
  for (int64_t i = 0; i < out.num_elements(); ++i) o[i] = ApplyInt<T>(op, a[i * sa], b[i * sb]);
}

// A kernel when every operand has the result's dtype and broadcasts simply; `run` fills out.
template <typename Run>
std::optional<BuiltKernel> MakeKernel(const EqnView& v, const char* description, Run run) {
  std::optional<std::vector<int64_t>> unit = UnitStrides(v);
  if (!unit || v.out.size() != 1) return std::nullopt;
  std::vector<int64_t> strides = *std::move(unit);
  for (const ir::ShapedArray& a : v.in) {
    if (a.dtype() != v.out[0].dtype()) return std::nullopt;
  }
  BuiltKernel k;
  k.description = description;
  k.work = NumElements(v.out[0]) * static_cast<int64_t>(v.in.size() + 1) * 8;
  ir::ShapedArray aval = v.out[0];
  k.kernel = [run, strides, aval](const RunContext& ctx, absl::Span<const Value> in,
                                  std::vector<Value>& out) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(aval));
    run(strides, in, out[0]);
    return absl::OkStatus();
  };
  return k;
}

bool IsFloatType(DType t) {
  return t == DType::kF16 || t == DType::kBF16 || t == DType::kF32 || t == DType::kF64;
}

KernelBuilder FloatKernel(FloatFn fn) {
  return [fn](const EqnView& v) -> absl::StatusOr<std::optional<BuiltKernel>> {
    const DType t = v.out.empty() ? DType::kInvalid : v.out[0].dtype();
    if (!IsFloatType(t)) return std::nullopt;
    return MakeKernel(
        v, "math", [fn, t](const std::vector<int64_t>& st, absl::Span<const Value> in, Value& out) {
          DispatchDType(t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            if constexpr (!std::is_integral_v<T>) RunFloat<T>(fn, st, in, out);
          });
        });
  };
}

// nextafter of a 16-bit float as XLA's: NaN in, NaN out; equal operands (compared as floats, so
// a denormal equals zero) give y; a zero steps to the least denormal towards y; anything else,
// a denormal too, steps its bits by one.
template <typename T>
void RunNextAfterHalf(const std::vector<int64_t>& st, absl::Span<const Value> in, Value& out) {
  const T* a = in[0].data<T>();
  const T* b = in[1].data<T>();
  T* o = out.mutable_data<T>();
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    const T x = a[i * st[0]], y = b[i * st[1]];
    const float fx = static_cast<float>(x), fy = static_cast<float>(y);
    if (std::isnan(fx) || std::isnan(fy)) {
      o[i] = T(NAN);
      continue;
    }
    if (fx == fy) {
      o[i] = y;
      continue;
    }
    uint16_t bits = std::bit_cast<uint16_t>(x), result;
    if ((bits & 0x7fff) == 0) {
      result = fy > 0 ? 1 : 0x8001;
    } else {
      const bool away = (fy > fx) == ((bits & 0x8000) == 0);  // away from zero
      result = static_cast<uint16_t>(away ? bits + 1 : bits - 1);
    }
    o[i] = std::bit_cast<T>(result);
  }
}

absl::StatusOr<std::optional<BuiltKernel>> BuildNextAfter(const EqnView& v) {
  const DType t = v.out.empty() ? DType::kInvalid : v.out[0].dtype();
  if (t == DType::kF32) return MakeKernel(v, "math", RunNextAfter<float>);
  if (t == DType::kF64) return MakeKernel(v, "math", RunNextAfter<double>);
  if (t == DType::kF16) return MakeKernel(v, "math", RunNextAfterHalf<Eigen::half>);
  if (t == DType::kBF16) return MakeKernel(v, "math", RunNextAfterHalf<Eigen::bfloat16>);
  return std::nullopt;
}

KernelBuilder IntKernel(IntOp op) {
  return [op](const EqnView& v) -> absl::StatusOr<std::optional<BuiltKernel>> {
    const DType t = v.out.empty() ? DType::kInvalid : v.out[0].dtype();
    const bool ok = IsIntegral(t) ? IsHeld(t) : (t == DType::kPred && op == IntOp::kXor);
    if (!ok) return std::nullopt;
    return MakeKernel(
        v, "bits", [op, t](const std::vector<int64_t>& st, absl::Span<const Value> in, Value& out) {
          DispatchDType(t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            if constexpr (std::is_integral_v<T>) RunInt<T>(op, st, in, out);
          });
        });
  };
}

}  // namespace math_kernels

void AddMathKernels(KernelTable& table) {
  using namespace math_kernels;  // NOLINT: the kernels of this file
  const std::pair<const char*, FloatFn> floats[] = {
      {"erf", Erf},          {"erfc", Erfc},   {"erf_inv", ErfInvOf}, {"tan", Tan},
      {"atan", Atan},        {"asin", Asin},   {"acos", Acos},        {"sinh", Sinh},
      {"cosh", Cosh},        {"asinh", Asinh}, {"acosh", Acosh},      {"atanh", Atanh},
      {"cbrt", Cbrt},        {"exp2", Exp2},   {"atan2", Atan2},      {"lgamma", LGamma},
      {"digamma", DigammaOf}};
  for (const auto& [name, fn] : floats) table[name] = FloatKernel(fn);
  table["nextafter"] = BuildNextAfter;
  table["shift_left"] = IntKernel(IntOp::kShiftLeft);
  table["shift_right_logical"] = IntKernel(IntOp::kShiftRightLogical);
  table["shift_right_arithmetic"] = IntKernel(IntOp::kShiftRightArithmetic);
  table["xor"] = IntKernel(IntOp::kXor);
  table["population_count"] = IntKernel(IntOp::kPopcount);
  table["clz"] = IntKernel(IntOp::kClz);
}

}  // namespace axe::exec::internal
