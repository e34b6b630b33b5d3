// eq_to, le_to and lt_to (JAX's comparisons in the IEEE total order: what `jnp.searchsorted`
// and `jnp.interp` print), with every rule. Floats compare as
// -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN, so NaN equals itself and -0 is below +0;
// integers and bools compare as usual. Bool results, no tangent, elementwise batching.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace total_order_family {

enum class TotalOrder { kEq, kLe, kLt };

// The key of x in the IEEE total order (-NaN < -inf < -0 < +0 < inf < +NaN), as an integer.
int64_t TotalOrderKey(double x) {
  const int64_t bits = std::bit_cast<int64_t>(x);
  return bits < 0 ? bits ^ std::numeric_limits<int64_t>::max() : bits;
}

absl::StatusOr<std::vector<ShapedArray>> TotalOrderRule(const Primitive* prim,
                                                        absl::Span<const ShapedArray> avals) {
  AXE_RETURN_IF_ERROR(ExpectArity(prim->name(), avals, 2));
  AXE_ASSIGN_OR_RETURN(ShapedArray out, BroadcastOperands(prim->name(), avals));
  return One(out.WithDType(DType::kPred).WithWeakType(false));
}

double Compare(TotalOrder order, double x, double y) {
  const int64_t a = TotalOrderKey(x), b = TotalOrderKey(y);
  switch (order) {
    case TotalOrder::kEq: return a == b;
    case TotalOrder::kLe: return a <= b;
    case TotalOrder::kLt: return a < b;
  }
  return 0;
}

const Primitive* Define(const char* name) {
  Primitive::Options o;
  o.name = name;
  absl::StatusOr<const Primitive*> p = DefinePrimitive(std::move(o));
  AXE_CHECK(p.ok()) << p.status();  // fixed identifiers, defined once
  return *p;
}

}  // namespace total_order_family

void DefineTotalOrder(BuiltinPrimitives& p) {
  p.eq_to = total_order_family::Define("eq_to");
  p.le_to = total_order_family::Define("le_to");
  p.lt_to = total_order_family::Define("lt_to");
}

void RegisterTotalOrderRules(const BuiltinPrimitives& p) {
  const std::pair<const Primitive*, total_order_family::TotalOrder> comparisons[] = {
      {p.eq_to, total_order_family::TotalOrder::kEq},
      {p.le_to, total_order_family::TotalOrder::kLe},
      {p.lt_to, total_order_family::TotalOrder::kLt}};
  for (const auto& [prim, order] : comparisons) {
    const Primitive* q = prim;
    const total_order_family::TotalOrder o = order;
    RegisterAbstractEval(*q, [q](absl::Span<const ShapedArray> avals, const Params&) {
      return total_order_family::TotalOrderRule(q, avals);
    });
    RegisterImpl(*q, ElementwiseImplRule(*q, [o](absl::Span<const double> v, DType, const Params&) {
      return total_order_family::Compare(o, v[0], v[1]);
    }));
    RegisterJvp(*q, ZeroTangentJvpRule(q));
    RegisterBatching(*q, ElementwiseBatching(q));
  }
}

}  // namespace axe::ir::internal
