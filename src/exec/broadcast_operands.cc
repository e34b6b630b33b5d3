// Elementwise equations whose operands the typed kernels do not take as they are, adapted
// first, then run by the equation's own typed kernel:
// - operands that broadcast against each other through size-1 dimensions (JAX prints
//   `lt i32[1,5] i32[3,1]` with a bool[3,5] result for `iota[None, :] < n[:, None]`): each is
//   expanded to the result's shape by one strided copy (stride 0 along its size-1 dimensions);
// - pow's integer exponent under a float base (`x ** 2` with an int32 array): converted to the
//   base's type first, as JAX lowers it (a convert, then XLA's power).
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_split.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitive.h"
#include "exec/dtype_switch.h"
#include "exec/permute.h"
#include "exec/plan.h"

namespace axe::exec::internal {
// A named namespace: the unity build shares anonymous namespaces between files.
namespace broadcast_operands {

// The elementwise primitives whose operands may broadcast through size-1 dimensions.
bool BroadcastsOperands(const std::string& primitive) {
  static const auto* names = new absl::flat_hash_set<std::string>(absl::StrSplit(
      "add add_any sub mul div rem pow max min and or xor eq ne lt le gt ge eq_to le_to lt_to "
      "atan2 nextafter shift_left shift_right_logical shift_right_arithmetic select_n clamp",
      ' '));
  return names->contains(primitive);
}

// One operand made into what the typed kernel takes.
struct Adapted {
  size_t operand = 0;
  ir::ShapedArray aval;             // the result's shape; the base's dtype for pow's exponent
  std::optional<StridedCopy> copy;  // the broadcast, in the operand's own dtype
  std::optional<ir::ShapedArray> expanded;  // the broadcast's result before a conversion
  DType from = DType::kInvalid;             // a conversion from this integer type, or kInvalid
};

// to[i] = from[i] converted (an integer to a float type, as XLA's convert rounds).
void Convert(DType from, DType to, const Value& in, Value& out) {
  const int64_t n = in.num_elements();
  DispatchDType(from, [&](auto from_tag) {
    using I = typename decltype(from_tag)::type;
    DispatchDType(to, [&](auto to_tag) {
      using F = typename decltype(to_tag)::type;
      if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool> &&
                    (std::is_floating_point_v<F> || kIsHalf<F>)) {
        const I* x = in.data<I>();
        F* o = out.mutable_data<F>();
        for (int64_t i = 0; i < n; ++i) {
          o[i] = static_cast<F>(static_cast<ComputeType<F>>(x[i]));
        }
      }
    });
  });
}

// `a` adapted for operand k of `v`, or nullopt when it needs nothing; an error status when it
// cannot be adapted (then the equation falls back).
absl::StatusOr<std::optional<Adapted>> Adapt(const EqnView& v, size_t k) {
  const ir::ShapedArray& a = v.in[k];
  const std::vector<int64_t>& shape = v.out[0].shape();
  Adapted adapted;
  adapted.operand = k;
  adapted.aval = a;
  const DType result = v.out[0].dtype();
  if (v.eqn.primitive->name() == "pow" && k == 1 && IsIntegral(a.dtype()) &&
      IsFloatingPoint(result)) {
    adapted.from = a.dtype();
    adapted.aval = a.WithDType(result);
  }
  if (a.rank() != 0 && a.shape() != shape) {
    if (a.rank() != shape.size()) return absl::InvalidArgumentError("ranks differ");
    const std::vector<int64_t> strides = RowMajorStrides(a.shape());
    std::vector<int64_t> src(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      if (a.shape()[d] != shape[d] && a.shape()[d] != 1) {
        return absl::InvalidArgumentError("no size-1 broadcast");
      }
      src[d] = a.shape()[d] == 1 ? 0 : strides[d];
    }
    AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(a.dtype()));
    AXE_ASSIGN_OR_RETURN(StridedCopy copy,
                         StridedCopy::Plan(shape, src, RowMajorStrides(shape),
                                           static_cast<int>(bytes), v.options.num_threads));
    adapted.copy = std::move(copy);
    adapted.expanded = a.WithShape(shape);
    adapted.aval = adapted.aval.WithShape(shape);
  }
  if (!adapted.copy && adapted.from == DType::kInvalid) return std::nullopt;
  return adapted;
}

// Operand `e.operand` of `in` made into `e.aval` (storage from the run's pool).
absl::StatusOr<Value> Run(const Adapted& e, const RunContext& ctx, const Value& in) {
  Value value = in;
  if (e.copy) {
    AXE_ASSIGN_OR_RETURN(Value expanded, ctx.Allocate(*e.expanded));
    AXE_RETURN_IF_ERROR(e.copy->Run(in.bytes(), expanded.mutable_bytes()));
    value = std::move(expanded);
  }
  if (e.from == DType::kInvalid) return value;
  AXE_ASSIGN_OR_RETURN(Value converted, ctx.Allocate(e.aval));
  Convert(e.from, e.aval.dtype(), value, converted);
  if (e.copy && ctx.values != nullptr) ctx.values->Give(std::move(value));
  return converted;
}

}  // namespace broadcast_operands

absl::StatusOr<std::optional<BuiltKernel>> BuildWithBroadcastOperands(
    const EqnView& v, const KernelBuilder& builder) {
  using broadcast_operands::Adapted;
  if (v.out.size() != 1 || !broadcast_operands::BroadcastsOperands(v.eqn.primitive->name())) {
    return std::nullopt;
  }
  std::vector<ir::ShapedArray> in = v.in;
  std::vector<Adapted> adapted;
  int64_t scratch = 0;
  for (size_t k = 0; k < v.in.size(); ++k) {
    absl::StatusOr<std::optional<Adapted>> a = broadcast_operands::Adapt(v, k);
    if (!a.ok()) return std::nullopt;  // the interpreter's rule (and its typing error)
    if (!*a) continue;
    in[k] = (*a)->aval;
    AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(in[k].dtype()));
    scratch += 2 * NumElements(in[k]) * static_cast<int64_t>(bytes);
    adapted.push_back(**std::move(a));
  }
  if (adapted.empty()) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(std::optional<BuiltKernel> inner,
                       builder(EqnView{v.eqn, in, v.out, v.options, v.unread}));
  if (!inner) return std::nullopt;
  BuiltKernel k = *std::move(inner);
  k.description = "operands adapted, " + k.description;
  k.work += 2 * scratch;
  k.scratch_bytes += scratch;
  auto shared = std::make_shared<const std::vector<Adapted>>(std::move(adapted));
  k.kernel = [shared, kernel = std::move(k.kernel)](const RunContext& ctx,
                                                    absl::Span<const Value> in,
                                                    std::vector<Value>& out) -> absl::Status {
    std::vector<Value> full(in.begin(), in.end());
    for (const Adapted& e : *shared) {
      AXE_ASSIGN_OR_RETURN(full[e.operand], broadcast_operands::Run(e, ctx, in[e.operand]));
    }
    absl::Status s = kernel(ctx, full, out);
    if (ctx.values != nullptr) {
      for (const Adapted& e : *shared) ctx.values->Give(std::move(full[e.operand]));
    }
    return s;
  };
  return k;
}

}  // namespace axe::exec::internal
