// The abstract-evaluation rules of the built-in primitives, through the Builder: result types
// and JAX's error texts.
#include "axe/ir/axis_env.h"
#include "axe/ir/builder.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace rules_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

ShapedArray F32(std::vector<int64_t> shape, std::vector<std::string> vma = {}) {
  return ShapedArray(std::move(shape), DType::kF32, false, std::move(vma));
}

std::string TypeOf(const absl::StatusOr<Tracer>& t) {
  return t.ok() ? t->aval.ShortString() : std::string(t.status().message());
}

TEST(RulesTest, ElementwiseAndComparisons) {
  Builder b;
  Tracer x = b.Arg(F32({3})), y = b.Arg(F32({4})), i = b.Arg(ShapedArray({3}, DType::kS32));
  EXPECT_EQ(TypeOf(Add(x, b.Scalar(2, DType::kF32))), "f32[3]");
  EXPECT_EQ(TypeOf(Binary(*Builtins().lt, x, x)), "bool[3]");
  EXPECT_THAT(Add(x, y),
              StatusIs(kInvalid, "add got incompatible shapes for broadcasting: (3,), (4,)."));
  EXPECT_EQ(TypeOf(Mul(b.Arg(F32({4, 1})), b.Arg(F32({1, 3})))), "f32[4,3]");
  EXPECT_THAT(
      Mul(b.Arg(F32({4, 2})), b.Arg(F32({2}))),
      StatusIs(kInvalid, "mul: arrays must have the same number of dimensions, got {1, 2}"));
  EXPECT_THAT(Binary(*Builtins().lt, x, i),
              StatusIs(kInvalid,
                       "lax.lt requires arguments to have the same dtypes, got "
                       "float32, int32."));
  EXPECT_THAT(Sin(i), StatusIs(kInvalid,
                               "sin does not accept dtype int32. Accepted dtypes are "
                               "subtypes of floating, complexfloating."));
  EXPECT_EQ(TypeOf(Neg(i)), "i32[3]");
}

TEST(RulesTest, ShapeOperations) {
  Builder b;
  Tracer x = b.Arg(F32({2, 3}));
  EXPECT_EQ(TypeOf(BroadcastInDim(x, {4, 2, 3}, {1, 2})), "f32[4,2,3]");
  EXPECT_THAT(BroadcastInDim(b.Arg(F32({3})), {5}, {0}),
              StatusIs(kInvalid,
                       "broadcast_in_dim operand dimension sizes must either be 1, or be equal "
                       "to their corresponding dimensions in the target broadcast shape; got "
                       "operand of shape (3,), target broadcast shape (5,), broadcast_dimensions "
                       "(0,) "));
  EXPECT_EQ(TypeOf(Reshape(x, {6})), "f32[6]");
  EXPECT_THAT(Reshape(x, {5}), StatusIs(kInvalid, HasSubstr("reshape total size must be "
                                                            "unchanged, got new_sizes (5,)")));
  EXPECT_EQ(TypeOf(ExpandDims(x, {0, 3})), "f32[1,2,3,1]");
  EXPECT_EQ(TypeOf(Squeeze(b.Arg(F32({1, 3})), {0})), "f32[3]");
  EXPECT_THAT(Squeeze(b.Arg(F32({3})), {0}),
              StatusIs(kInvalid,
                       "cannot select an axis to squeeze out which has size not equal "
                       "to one, got shape=(3,) and dimensions=(0,)"));
  EXPECT_EQ(TypeOf(Transpose(x, {1, 0})), "f32[3,2]");
  EXPECT_THAT(Transpose(x, {0, 0}),
              StatusIs(kInvalid,
                       "transpose permutation isn't a permutation of operand "
                       "dimensions, got permutation (0, 0) for operand shape (2, 3)."));
  EXPECT_EQ(TypeOf(ReduceSum(x, {0})), "f32[3]");
  EXPECT_EQ(TypeOf(ReduceMax(x, {0, 1})), "f32[]");
  EXPECT_THAT(ReduceSum(x, {2}), StatusIs(kInvalid,
                                          "reduction axes (2,) contains "
                                          "out-of-bounds indices for float32[2,3]."));
  EXPECT_EQ(TypeOf(ConvertElementType(x, DType::kBF16)), "bf16[2,3]");
}

TEST(RulesTest, ContractionSlicingSelection) {
  Builder b;
  Tracer x = b.Arg(F32({2, 3})), y = b.Arg(F32({3, 4})), z = b.Arg(F32({4, 3}));
  EXPECT_EQ(TypeOf(DotGeneral(x, y, {1}, {0})), "f32[2,4]");
  EXPECT_THAT(DotGeneral(x, z, {1}, {0}),
              StatusIs(kInvalid,
                       "dot_general requires contracting dimensions to have the same "
                       "shape, got (3,) and (4,)."));
  Tracer v = b.Arg(F32({8}));
  EXPECT_EQ(TypeOf(Slice(v, {1}, {7})), "f32[6]");
  EXPECT_THAT(Slice(v, {1}, {9}),
              StatusIs(kInvalid,
                       "slice limit_indices must be less than or equal to operand "
                       "shape, got limit_indices (9,) for operand shape (8,)."));
  Tracer i = b.Arg(ShapedArray({}, DType::kS32));
  EXPECT_EQ(TypeOf(DynamicSlice(v, {i}, {2})), "f32[2]");
  EXPECT_THAT(DynamicSlice(v, {i}, {9}),
              StatusIs(kInvalid,
                       "slice slice_sizes must be less than or equal to operand "
                       "shape, got slice_sizes (9,) for operand shape (8,)."));
  EXPECT_EQ(TypeOf(DynamicUpdateSlice(v, b.Arg(F32({2})), {i})), "f32[8]");
  EXPECT_THAT(DynamicUpdateSlice(v, b.Arg(F32({9})), {i}),
              StatusIs(kInvalid,
                       "dynamic_update_slice update shape must be smaller than "
                       "operand shape, got update shape (9,) for operand shape (8,)."));
  EXPECT_EQ(TypeOf(Concatenate({x, x}, 1)), "f32[2,6]");
  EXPECT_THAT(Concatenate({x, y}, 0),
              StatusIs(kInvalid,
                       "Cannot concatenate arrays with shapes that differ in "
                       "dimensions other than the one being concatenated: "
                       "concatenating along dimension 0 for shapes (2, 3), (3, 4)."));
  Tracer p = b.Arg(ShapedArray({8}, DType::kPred));
  EXPECT_EQ(TypeOf(SelectN(p, {v, v})), "f32[8]");
  EXPECT_THAT(SelectN(v, {v, v}),
              StatusIs(kInvalid, "select `which` must be boolean or integer type, got float32."));
  EXPECT_EQ(TypeOf(Iota(b, DType::kS32, {4, 2}, 1)), "i32[4,2]");
}

TEST(RulesTest, CollectivesOutsideShardMapNameTheUnboundAxis) {
  Builder b;
  Tracer x = b.Arg(F32({3}));
  // [VT-20]
  EXPECT_THAT(PsumInvariant(x, {"x"}),
              StatusIs(absl::StatusCode::kNotFound,
                       "Found an unbound axis name: x. To fix this, please call psum under "
                       "`jax.shard_map`."));
  EXPECT_THAT(Pvary(x, {"x"}), StatusIs(kInvalid, "pvary should be called under jax.shard_map."));
}

TEST(RulesTest, VarianceTypingInsideShardMap) {
  ScopedAxisEnv scope(AxisEnv{{{"i", 2}, {"j", 2}}, true});
  Builder b;
  Tracer x = b.Arg(F32({3}, {"i"}));
  Tracer inv = b.Arg(F32({3}));
  // [VT-6]
  EXPECT_EQ(TypeOf(PsumInvariant(x, {"i"})), "f32[3]");
  EXPECT_THAT(PsumInvariant(inv, {"i"}),
              StatusIs(kInvalid,
                       "psum is a variant->invariant collective. This means that the axis names "
                       "mentioned in `axes` passed to `psum` must be present in "
                       "`jax.typeof(inp).mat.varying`. Got axes=('i',) and "
                       "jax.typeof(inp).mat.varying=frozenset()"));
  EXPECT_EQ(TypeOf(Pvary(x, {"j"})), "f32[3]{V:(i,j)}");
  EXPECT_THAT(Pvary(x, {"i"}),
              StatusIs(kInvalid, HasSubstr("pvary is a invariant->variant collective. This "
                                           "means that the axis names mentioned in `axes` "
                                           "passed to `pvary` must not be present in "
                                           "`jax.typeof(inp).mat.varying`. Got axes=('i',) and "
                                           "jax.typeof(inp)=float32[3]{V:i}")));
  EXPECT_THAT(Add(x, inv),
              StatusIs(kInvalid,
                       "Primitive add requires varying manual axes to match, but got "
                       "[frozenset({'i'}), frozenset()]. Please open an issue at "
                       "https://github.com/jax-ml/jax/issues and as a temporary workaround pass "
                       "the check_vma=False argument to `jax.shard_map`"));
  EXPECT_THAT(PsumInvariant(x, {"i", "i"}),
              StatusIs(kInvalid,
                       "psum_invariant: the axis name 'i' is repeated in axes=('i', "
                       "'i')"));
  absl::StatusOr<Tracer> idx = AxisIndex(b, "j");
  EXPECT_EQ(TypeOf(idx), "i32[]{V:j}");
  Params gather = {{"all_gather_dimension", Param::Int(0)},
                   {"axis_index_groups", Param::None()},
                   {"axis_name", Param::Names({"i"})},
                   {"axis_size", Param::Int(2)},
                   {"tiled", Param::Bool(false)}};
  EXPECT_EQ(TypeOf(b.Bind1(*Builtins().all_gather, {x}, gather)), "f32[2,3]{V:i}");
  EXPECT_EQ(TypeOf(b.Bind1(*Builtins().all_gather_invariant, {x}, gather)), "f32[2,3]");
  EXPECT_THAT(b.Bind1(*Builtins().all_gather, {inv}, gather),
              StatusIs(kInvalid, HasSubstr("Collective all_gather must be applied to a "
                                           "device-varying  type, but got frozenset() for "
                                           "collective acting over axis name ('i',).")));
}

TEST(RulesTest, CheckVmaOffTypesEverythingInvariant) {
  ScopedAxisEnv scope(AxisEnv{{{"i", 2}}, false});
  Builder b;
  Tracer x = b.Arg(F32({3}));
  EXPECT_EQ(TypeOf(b.Bind1(*Builtins().psum, {x}, {{"axes", Param::Names({"i"})}})), "f32[3]");
  EXPECT_EQ(TypeOf(AxisIndex(b, "i")), "i32[]");
}

}  // namespace
}  // namespace rules_test
}  // namespace axe::ir
