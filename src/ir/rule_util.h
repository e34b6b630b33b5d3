// Helpers shared by the built-in abstract-evaluation rules (internal to src/ir).
#ifndef AXE_SRC_IR_RULE_UTIL_H_
#define AXE_SRC_IR_RULE_UTIL_H_

#include <cstdint>
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

void RegisterElementwiseRules(const BuiltinPrimitives& p);
void RegisterShapeRules(const BuiltinPrimitives& p);
void RegisterCallRules(const BuiltinPrimitives& p);
void RegisterCollectiveRules(const BuiltinPrimitives& p);
void RegisterCollectiveTransposes(const BuiltinPrimitives& p);
void RegisterLinearRules(const BuiltinPrimitives& p);
// add_any and cumsum (rules_jvp_more.cc).
void RegisterMoreLinearRules(const BuiltinPrimitives& p);
// rev, split and pad: every rule (rules_rev_split_pad.cc).
void RegisterRevSplitPad(const BuiltinPrimitives& p);
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
// Abstract evaluation of a call of the jaxpr in `param` (JAX's _check_call).
AbstractEvalRule CallRule(std::string prim, std::string param);
// while: its definition and every rule (family_while.cc).
void DefineWhile(BuiltinPrimitives& p);
void RegisterWhileRules(const BuiltinPrimitives& p);
// The more elementwise functions: their definitions and every rule (family_math.cc).
void DefineMath(BuiltinPrimitives& p);
void RegisterMathRules(const BuiltinPrimitives& p);
// Shared with the family files: unary math typing (floating operands, integers too when
// allowed; JAX's "does not accept dtype" words) and lax's broadcasting of equal dtypes
// (rules_elementwise.cc).
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

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_RULE_UTIL_H_
