// Helpers shared by the built-in abstract-evaluation rules (internal to src/ir).
#ifndef AXE_SRC_IR_RULE_UTIL_H_
#define AXE_SRC_IR_RULE_UTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "axe/ir/param.h"
#include "axe/ir/primitive.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shaped_array.h"

namespace axe::ir::internal {

// Python's tuple repr of ints: (3,), (3, 2), ().
std::string PyTuple(absl::Span<const int64_t> values);
// The NumPy name of the dtype: float32.
std::string DTypeName(DType t);

inline absl::Status TypeError(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

// The variance set of an ordinary primitive's result: operands must agree inside a shard_map
// with check_vma (JAX's "requires varying manual axes to match" error); {} when check_vma is
// off.
absl::StatusOr<std::vector<std::string>> NaryVma(absl::string_view prim,
                                                 absl::Span<const ShapedArray> avals);

// Whether the parameter is given: present and not None.
bool Given(const Params& params, absl::string_view name);
// Reads an optional parameter: absent or None gives `fallback`.
absl::StatusOr<std::vector<int64_t>> OptionalInts(const Params& params, absl::string_view name,
                                                  std::vector<int64_t> fallback);
absl::StatusOr<std::vector<int64_t>> RequiredInts(const Params& params, absl::string_view prim,
                                                  absl::string_view name);
absl::StatusOr<int64_t> RequiredInt(const Params& params, absl::string_view prim,
                                    absl::string_view name);

// A scan's `length` parameter: JAX's "invalid scan param length of type int, non-negative int
// required: -5" below 0.
absl::Status CheckScanLength(int64_t length);

// Checks the operand count (InvalidArgument "{prim} takes N operands, got M").
absl::Status ExpectArity(absl::string_view prim, absl::Span<const ShapedArray> avals, size_t n);

using Rule = AbstractEvalRule;
// One result.
inline absl::StatusOr<std::vector<ShapedArray>> One(ShapedArray a) {
  return std::vector<ShapedArray>{std::move(a)};
}

// Rule registration per family (each file registers its rules into the built-ins).
// Primitive::Define without first registering the built-ins (which it does for everyone else,
// so that a third party cannot take a built-in name).
absl::StatusOr<const Primitive*> DefinePrimitive(Primitive::Options options);
// DefinePrimitive for a built-in: its name is a fixed identifier, defined once (aborts
// otherwise).
const Primitive* DefineBuiltin(Primitive::Options options);
// A one-result built-in with `params`.
const Primitive* DefineOneResult(std::string name, std::vector<ParamSpec> params = {});
// A unary built-in with JAX's `accuracy` param (printed only when not None).
const Primitive* DefineUnaryWithAccuracy(std::string name);
// The options of a built-in with several results.
Primitive::Options MultiResultOptions(std::string name, std::vector<ParamSpec> params);
// Printing that drops the params equal to None (JAX's pp rules drop accuracy=None and
// sharding=None), and parsing that sets them to None when absent.
std::function<Params(const Params&)> DropIfNone(std::vector<std::string> names);
std::function<void(Params&, absl::Span<const ShapedArray>)> DefaultNone(
    std::vector<std::string> names);

// The rank of `a` as int64.
inline int64_t Rank(const ShapedArray& a) { return static_cast<int64_t>(a.rank()); }
// The operands' shapes as Python tuples joined by ", ": (3,), (4, 2).
std::string Shapes(absl::Span<const ShapedArray> avals);
// The jaxpr in `param` of a call-like primitive (InvalidArgument naming it when absent;
// family_control_flow.cc).
absl::StatusOr<const ClosedJaxpr*> CalledJaxprParam(const Params& params, absl::string_view prim,
                                                    absl::string_view param);

// The older families, one file each: their definitions and every rule (family_elementwise.cc,
// family_reduce.cc, family_shape.cc, family_dot.cc, family_control_flow.cc,
// family_shard_map.cc, family_collectives.cc).
void DefineElementwise(BuiltinPrimitives& p);
void RegisterElementwiseRules(const BuiltinPrimitives& p);
void DefineReduce(BuiltinPrimitives& p);
void RegisterReduceRules(const BuiltinPrimitives& p);
void DefineShape(BuiltinPrimitives& p);
void RegisterShapeRules(const BuiltinPrimitives& p);
void DefineDot(BuiltinPrimitives& p);
void RegisterDotRules(const BuiltinPrimitives& p);
void DefineControlFlow(BuiltinPrimitives& p);
void RegisterControlFlowRules(const BuiltinPrimitives& p);
void DefineShardMap(BuiltinPrimitives& p);
void RegisterShardMapRules(const BuiltinPrimitives& p);
void DefineCollectives(BuiltinPrimitives& p);
void RegisterCollectiveRules(const BuiltinPrimitives& p);
// gather and the scatter family: definitions and every rule (family_indexing.cc).
void DefineIndexing(BuiltinPrimitives& p);
void RegisterIndexingRules(const BuiltinPrimitives& p);
// conv_general_dilated: its definition and every rule (family_conv.cc).
void DefineConv(BuiltinPrimitives& p);
void RegisterConvRules(const BuiltinPrimitives& p);
// The primitive families (family_<name>.cc): their definitions, then every rule.
void DefineSort(BuiltinPrimitives& p);
void RegisterSortRules(const BuiltinPrimitives& p);
void DefineRemat(BuiltinPrimitives& p);
void RegisterRematRules(const BuiltinPrimitives& p);
void DefineReshard(BuiltinPrimitives& p);
void RegisterReshardRules(const BuiltinPrimitives& p);
void DefineCopy(BuiltinPrimitives& p);
void RegisterCopyRules(const BuiltinPrimitives& p);
void DefineStack(BuiltinPrimitives& p);
void RegisterStackRules(const BuiltinPrimitives& p);
void DefineTotalOrder(BuiltinPrimitives& p);
void RegisterTotalOrderRules(const BuiltinPrimitives& p);
void DefinePlatformIndex(BuiltinPrimitives& p);
void RegisterPlatformIndexRules(const BuiltinPrimitives& p);
void DefineReducePrecision(BuiltinPrimitives& p);
void RegisterReducePrecisionRules(const BuiltinPrimitives& p);
// Abstract evaluation of a call of the jaxpr in `param` (JAX's _check_call;
// family_control_flow.cc).
AbstractEvalRule CallRule(std::string prim, std::string param);
// while: its definition and every rule (family_while.cc).
void DefineWhile(BuiltinPrimitives& p);
void RegisterWhileRules(const BuiltinPrimitives& p);
// The more elementwise functions: their definitions and every rule (family_math.cc).
void DefineMath(BuiltinPrimitives& p);
void RegisterMathRules(const BuiltinPrimitives& p);
// Shared with the family files: unary math typing (floating operands, integers too when
// allowed; JAX's "does not accept dtype" words) and lax's broadcasting of equal dtypes
// (family_elementwise.cc).
Rule UnaryMathRule(std::string name, bool integers_allowed);
absl::StatusOr<ShapedArray> BroadcastOperands(absl::string_view name,
                                              absl::Span<const ShapedArray> avals);
// The PRNG family (family_prng.cc): random_seed, random_wrap, random_unwrap, random_split,
// random_fold_in, random_bits, threefry2x32.
void DefinePrng(BuiltinPrimitives& p);
void RegisterPrngRules(const BuiltinPrimitives& p);
// bitcast_convert_type (family_bitcast.cc).
void DefineBitcast(BuiltinPrimitives& p);
void RegisterBitcastRules(const BuiltinPrimitives& p);
// The windowed reductions (family_window.cc).
void DefineWindow(BuiltinPrimitives& p);
void RegisterWindowRules(const BuiltinPrimitives& p);
// cholesky and triangular_solve (family_linalg.cc).
void DefineLinalg(BuiltinPrimitives& p);
void RegisterLinalgRules(const BuiltinPrimitives& p);
// checkpoint_name's `name` (family_checkpoint_name.cc).
void DefineCheckpointName(BuiltinPrimitives& p);
void RegisterCheckpointNameRules(const BuiltinPrimitives& p);
// jax.debug.print's debug_print (family_debug.cc).
void DefineDebug(BuiltinPrimitives& p);
void RegisterDebugRules(const BuiltinPrimitives& p);

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_RULE_UTIL_H_
