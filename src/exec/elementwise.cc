// Typed kernels of the elementwise primitives outside fused groups: arithmetic on every held
// type (integers wrap in their own width, with XLA's x / 0 == -1 and x rem 0 == x), the
// comparisons, bitwise and/or/not, select_n, is_finite and convert_element_type. An operand
// with one element broadcasts (a literal or a rank-0 value).
#include <cmath>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "exec/dtype_switch.h"
#include "exec/ew_ops.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

constexpr int64_t kParallelElements = int64_t{1} << 18;
constexpr int64_t kChunkElements = int64_t{1} << 16;

// Runs body(begin, end) over [0, n) in chunks on the context's threads when n is large.
template <typename Body>
void ForChunks(const RunContext& ctx, int64_t n, const Body& body) {
  if (n < kParallelElements || ctx.threads <= 1 || ctx.pool == nullptr) {
    body(0, n);
    return;
  }
  int64_t chunks = (n + kChunkElements - 1) / kChunkElements;
  ctx.pool->ParallelFor(
      chunks, [&](int64_t c) { body(c * kChunkElements, std::min(n, (c + 1) * kChunkElements)); },
      ctx.threads);
}

// Operand strides: 1 for a full operand, 0 for a one-element one; nullopt otherwise.
std::optional<std::vector<int>> Strides(const EqnView& v, size_t first = 0) {
  std::vector<int> strides;
  const int64_t n = NumElements(v.out[0]);
  for (size_t i = first; i < v.in.size(); ++i) {
    const int64_t m = NumElements(v.in[i]);
    if (m == n) {
      strides.push_back(1);
    } else if (m == 1) {
      strides.push_back(0);
    } else {
      return std::nullopt;
    }
  }
  return strides;
}

template <typename T>
T IntegerBinary(Ew op, T x, T y) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case Ew::kAdd: return static_cast<T>(static_cast<U>(x) + static_cast<U>(y));
    case Ew::kSub: return static_cast<T>(static_cast<U>(x) - static_cast<U>(y));
    case Ew::kMul: return static_cast<T>(static_cast<U>(x) * static_cast<U>(y));
    case Ew::kDiv:
      if (y == 0) return static_cast<T>(~U{0});
      if constexpr (std::is_signed_v<T>) {
        if (x == std::numeric_limits<T>::min() && y == -1) return x;
      }
      return static_cast<T>(x / y);
    case Ew::kRem:
      if (y == 0) return x;
      if constexpr (std::is_signed_v<T>) {
        if (y == -1) return 0;
      }
      return static_cast<T>(x % y);
    case Ew::kMax: return x > y ? x : y;
    case Ew::kMin: return x < y ? x : y;
    default: return x;
  }
}

template <typename T>
std::optional<T> IntegerUnary(const EwOp& op, T x) {
  using U = std::make_unsigned_t<T>;
  switch (op.op) {
    case Ew::kNeg: return static_cast<T>(U{0} - static_cast<U>(x));
    case Ew::kAbs: return x < 0 ? static_cast<T>(U{0} - static_cast<U>(x)) : x;
    case Ew::kSign: return static_cast<T>(x > 0 ? 1 : (x < 0 ? -1 : 0));
    case Ew::kSquare: return static_cast<T>(static_cast<U>(x) * static_cast<U>(x));
    case Ew::kCopy: return x;
    case Ew::kIntegerPow: {
      if (op.power < 0) return std::nullopt;
      U result = 1;
      U base = static_cast<U>(x);
      for (uint64_t e = static_cast<uint64_t>(op.power); e > 0; e >>= 1) {
        if ((e & 1) != 0) result = static_cast<U>(result * base);
        base = static_cast<U>(base * base);
      }
      return static_cast<T>(result);
    }
    default: return std::nullopt;
  }
}

bool IntegerSupports(const EwOp& op) {
  if (op.arity == 2) {
    return op.op == Ew::kAdd || op.op == Ew::kSub || op.op == Ew::kMul || op.op == Ew::kDiv ||
           op.op == Ew::kRem || op.op == Ew::kMax || op.op == Ew::kMin;
  }
  return IntegerUnary<int32_t>(op, 3).has_value();
}

// One element of a typed arithmetic operation.
template <typename T>
T ApplyOne(const EwOp& op, T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    return op.arity == 2 ? IntegerBinary(op.op, x, y) : *IntegerUnary(op, x);
  } else {
    using C = ComputeType<T>;
    C cx = static_cast<C>(x), cy = static_cast<C>(y), r;
    ApplyFloat(op, &cx, 0, &cy, 0, &r, 1);
    return T(r);
  }
}

template <typename T>
absl::Status ArithmeticKernel(const RunContext& ctx, const EwOp& op, const std::vector<int>& st,
                              absl::Span<const Value> in, Value& out) {
  const T* a = in[0].data<T>();
  const T* b = op.arity == 2 ? in[1].data<T>() : a;
  const int sa = st[0], sb = op.arity == 2 ? st[1] : 0;
  T* o = out.mutable_data<T>();
  ForChunks(ctx, out.num_elements(), [&](int64_t begin, int64_t end) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      ApplyFloat(op, a + begin * sa, sa, b + begin * sb, sb, o + begin,
                 static_cast<size_t>(end - begin));
    } else {
      for (int64_t i = begin; i < end; ++i) o[i] = ApplyOne<T>(op, a[i * sa], b[i * sb]);
    }
  });
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildArithmetic(const EqnView& v) {
  std::optional<EwOp> op = ClassifyElementwise(v.eqn);
  std::optional<std::vector<int>> st = Strides(v);
  const DType t = v.out[0].dtype();
  if (!op || !st || !IsHeld(t) || t == DType::kPred) return std::nullopt;
  for (const ir::ShapedArray& a : v.in) {
    if (a.dtype() != t) return std::nullopt;
  }
  if (IsIntegral(t) && !IntegerSupports(*op)) return std::nullopt;
  BuiltKernel k;
  k.description = "elementwise";
  k.work = NumElements(v.out[0]) * static_cast<int64_t>(v.in.size() + 1);
  EwOp o = *op;
  std::vector<int> strides = *st;
  ir::ShapedArray aval = v.out[0];
  k.kernel = [o, strides, t, aval](const RunContext& ctx, absl::Span<const Value> in,
                                   std::vector<Value>& out) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(aval));
    absl::Status s;
    DispatchDType(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>) s = ArithmeticKernel<T>(ctx, o, strides, in, out[0]);
    });
    return s;
  };
  return k;
}

}  // namespace

void AddElementwiseKernels(KernelTable& table) {
  for (const char* name :
       {"add",   "add_any",  "sub",   "mul",   "div",   "max",           "min",
        "pow",   "rem",      "neg",   "abs",   "sign",  "exp",           "log",
        "tanh",  "logistic", "sqrt",  "rsqrt", "sin",   "cos",           "log1p",
        "expm1", "square",   "floor", "ceil",  "round", "stop_gradient", "integer_pow"}) {
    table[name] = BuildArithmetic;
  }
}

}  // namespace axe::exec::internal
