// Impl rules of the built-in primitives against hand-computed values, dtype rounding, and
// EvalJaxpr's argument errors.
#include "axe/ir/eval.h"

#include <cmath>
#include <string>
#include <vector>

#include "axe/ir/parser.h"
#include "axe/ir/primitive.h"
#include "axe/ir/primitives.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace eval_test {
namespace {

using ::absl::StatusCode;
using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

HostArray A(const std::string& aval, std::vector<double> values) {
  return HostArray{*ShapedArray::ParseShort(aval), std::move(values)};
}

// Evaluates a jaxpr text on args; its single output's values.
std::vector<double> Eval1(const std::string& text, std::vector<HostArray> args, int output = 0) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  EXPECT_THAT(j, IsOk());
  if (!j.ok()) return {};
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(*j, args);
  EXPECT_THAT(out, IsOk());
  if (!out.ok()) return {};
  return (*out)[static_cast<size_t>(output)].values;
}

TEST(RoundToDTypeTest, FloatsRoundToNearestEven) {
  EXPECT_EQ(RoundToDType(1.0 + std::ldexp(1.0, -24), DType::kF32), 1.0);  // tie: even
  EXPECT_EQ(RoundToDType(1.0 + 3 * std::ldexp(1.0, -24), DType::kF32), 1.0 + std::ldexp(1.0, -22));
  EXPECT_EQ(RoundToDType(0.1, DType::kF32), static_cast<double>(0.1f));
  EXPECT_EQ(RoundToDType(1.00390625, DType::kBF16), 1.0);       // 1 + 2^-8: tie to even
  EXPECT_EQ(RoundToDType(1.01171875, DType::kBF16), 1.015625);  // 1 + 3 * 2^-8: up to even
  EXPECT_EQ(RoundToDType(65520.0, DType::kF16), HUGE_VAL);      // past 65504 + half ulp
  EXPECT_EQ(RoundToDType(65519.0, DType::kF16), 65504.0);
  EXPECT_EQ(RoundToDType(std::ldexp(1.0, -25), DType::kF16), 0.0);  // half the least subnormal
  EXPECT_EQ(RoundToDType(3e38 * 10, DType::kF32), HUGE_VAL);
  EXPECT_TRUE(std::isnan(RoundToDType(NAN, DType::kF16)));
}

TEST(RoundToDTypeTest, SixtyFourBitWrapIsIdempotent) {
  double top = RoundToDType(-1, DType::kU64);  // all ones: 2^64 - 1 is no double
  EXPECT_EQ(top, 18446744073709549568.0);
  EXPECT_EQ(RoundToDType(top, DType::kU64), top);
  EXPECT_EQ(RoundToDType(9223372036854774784.0, DType::kS64), 9223372036854774784.0);
  EXPECT_EQ(RoundToDType(9223372036854775808.0, DType::kS64), -9223372036854775808.0);  // 2^63
}

TEST(RoundToDTypeTest, IntegersWrap) {
  EXPECT_EQ(RoundToDType(128, DType::kS8), -128);
  EXPECT_EQ(RoundToDType(-129, DType::kS8), 127);
  EXPECT_EQ(RoundToDType(256, DType::kU8), 0);
  EXPECT_EQ(RoundToDType(-1, DType::kU8), 255);
  EXPECT_EQ(RoundToDType(-1, DType::kU32), 4294967295.0);
  EXPECT_EQ(RoundToDType(2147483648.0, DType::kS32), -2147483648.0);
  EXPECT_EQ(RoundToDType(2, DType::kPred), 1);
}

TEST(ConvertValueTest, FloatToIntTruncatesAndSaturates) {
  EXPECT_EQ(ConvertValue(-2.7, DType::kF32, DType::kS32), -2);
  EXPECT_EQ(ConvertValue(2.7, DType::kF32, DType::kS32), 2);
  EXPECT_EQ(ConvertValue(1e10, DType::kF32, DType::kS32), 2147483647);
  EXPECT_EQ(ConvertValue(-1e10, DType::kF32, DType::kS32), -2147483648.0);
  EXPECT_EQ(ConvertValue(-5, DType::kF32, DType::kU8), 0);
  EXPECT_EQ(ConvertValue(NAN, DType::kF32, DType::kS32), 0);
  EXPECT_EQ(ConvertValue(300, DType::kS32, DType::kU8), 44);  // integer -> integer wraps
  EXPECT_EQ(ConvertValue(0.5, DType::kF32, DType::kPred), 1);
}

TEST(EvalTest, ElementwiseF32RoundsEveryResult) {
  // 0.1 + 0.2 in f32 is 0.300000011920928955078125, not the double 0.30000000000000004.
  EXPECT_THAT(Eval1("{ lambda ; a:f32[1] b:f32[1]. let c:f32[1] = add a b in (c,) }",
                    {A("f32[1]", {0.1}), A("f32[1]", {0.2})}),
              ElementsAre(static_cast<double>(0.1f + 0.2f)));
  EXPECT_THAT(Eval1("{ lambda ; a:f32[2]. let b:f32[2] = mul a 3.0:f32[] in (b,) }",
                    {A("f32[2]", {1.5, -2})}),
              ElementsAre(4.5, -6));
}

TEST(EvalTest, IntegerArithmeticWraps) {
  EXPECT_THAT(Eval1("{ lambda ; a:i8[2] b:i8[2]. let c:i8[2] = add a b in (c,) }",
                    {A("i8[2]", {100, -100}), A("i8[2]", {100, -100})}),
              ElementsAre(-56, 56));
  EXPECT_THAT(
      Eval1("{ lambda ; a:i32[1]. let b:i32[1] = mul a a in (b,) }", {A("i32[1]", {65536})}),
      ElementsAre(0));
  EXPECT_THAT(Eval1("{ lambda ; a:u8[1]. let b:u8[1] = sub a 1:u8[] in (b,) }", {A("u8[1]", {0})}),
              ElementsAre(255));
  // Division truncates toward zero; x / 0 is -1; INT_MIN / -1 wraps to INT_MIN.
  EXPECT_THAT(Eval1("{ lambda ; a:i32[4] b:i32[4]. let c:i32[4] = div a b in (c,) }",
                    {A("i32[4]", {-7, 7, 5, -2147483648.0}), A("i32[4]", {2, -2, 0, -1})}),
              ElementsAre(-3, -3, -1, -2147483648.0));
  EXPECT_THAT(
      Eval1("{ lambda ; a:i32[1]. let b:i32[1] = neg a in (b,) }", {A("i32[1]", {-2147483648.0})}),
      ElementsAre(-2147483648.0));
}

TEST(EvalTest, ComparisonsAndNan) {
  std::string text =
      "{ lambda ; a:f32[3] b:f32[3]. let c:bool[3] = lt a b; d:bool[3] = ne a b;"
      " e:f32[3] = max a b in (c, d, e) }";
  std::vector<HostArray> args = {A("f32[3]", {1, NAN, 3}), A("f32[3]", {2, 1, 3})};
  EXPECT_THAT(Eval1(text, args, 0), ElementsAre(1, 0, 0));
  EXPECT_THAT(Eval1(text, args, 1), ElementsAre(1, 1, 0));
  std::vector<double> m = Eval1(text, args, 2);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0], 2);
  EXPECT_TRUE(std::isnan(m[1]));
}

TEST(EvalTest, ConvertElementType) {
  EXPECT_THAT(Eval1("{ lambda ; a:f32[4]. let b:i8[4] = convert_element_type[new_dtype=int8 "
                    "weak_type=False] a in (b,) }",
                    {A("f32[4]", {-1.9, 200, -300, 2.5})}),
              ElementsAre(-1, 127, -128, 2));
  EXPECT_THAT(Eval1("{ lambda ; a:f32[2]. let b:bf16[2] = convert_element_type[new_dtype=bfloat16 "
                    "weak_type=False] a in (b,) }",
                    {A("f32[2]", {1.00390625, 3.14159})}),
              ElementsAre(1.0, 3.140625));
  EXPECT_THAT(Eval1("{ lambda ; a:f32[3]. let b:bool[3] = convert_element_type[new_dtype=bool "
                    "weak_type=False] a in (b,) }",
                    {A("f32[3]", {0, -0.5, 2})}),
              ElementsAre(0, 1, 1));
}

TEST(EvalTest, BroadcastReshapeTransposeSqueeze) {
  EXPECT_THAT(
      Eval1("{ lambda ; a:f32[3]. let b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)"
            " shape=(2, 3) sharding=None] a in (b,) }",
            {A("f32[3]", {1, 2, 3})}),
      ElementsAre(1, 2, 3, 1, 2, 3));
  EXPECT_THAT(
      Eval1("{ lambda ; a:f32[2]. let b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(0,)"
            " shape=(2, 3) sharding=None] a in (b,) }",
            {A("f32[2]", {1, 2})}),
      ElementsAre(1, 1, 1, 2, 2, 2));
  EXPECT_THAT(
      Eval1("{ lambda ; a:f32[2,3]. let b:f32[3,2] = transpose[permutation=(1, 0)] a in (b,) }",
            {A("f32[2,3]", {0, 1, 2, 3, 4, 5})}),
      ElementsAre(0, 3, 1, 4, 2, 5));
  EXPECT_THAT(Eval1("{ lambda ; a:f32[2,3]. let b:f32[3,2] = reshape[dimensions=None "
                    "new_sizes=(3, 2) sharding=None] a in (b,) }",
                    {A("f32[2,3]", {0, 1, 2, 3, 4, 5})}),
              ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_THAT(Eval1("{ lambda ; a:f32[1,2]. let b:f32[2] = squeeze[dimensions=(0,)] a in (b,) }",
                    {A("f32[1,2]", {7, 8})}),
              ElementsAre(7, 8));
}

TEST(EvalTest, Reductions) {
  std::string text =
      "{ lambda ; a:f32[2,3]. let b:f32[3] = reduce_sum[axes=(0,) out_sharding=None] a;"
      " c:f32[2] = reduce_max[axes=(1,) out_sharding=None] a in (b, c) }";
  std::vector<HostArray> args = {A("f32[2,3]", {1, 5, 2, -1, 0, 7})};
  EXPECT_THAT(Eval1(text, args, 0), ElementsAre(0, 5, 9));
  EXPECT_THAT(Eval1(text, args, 1), ElementsAre(5, 7));
  EXPECT_THAT(Eval1("{ lambda ; a:i8[3]. let b:i8[] = reduce_sum[axes=(0,) out_sharding=None] a "
                    "in (b,) }",
                    {A("i8[3]", {100, 100, 100})}),
              ElementsAre(44));  // 300 wraps
}

TEST(EvalTest, DotGeneralWithBatchDims) {
  // Batched matmul: [2,2,3] x [2,3,1] -> [2,2,1].
  std::string text =
      "{ lambda ; a:f32[2,2,3] b:f32[2,3,1]. let c:f32[2,2,1] = dot_general["
      "dimension_numbers=(([2], [1]), ([0], [0])) out_sharding=None precision=None "
      "preferred_element_type=float32] a b in (c,) }";
  EXPECT_THAT(Eval1(text, {A("f32[2,2,3]", {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0}),
                           A("f32[2,3,1]", {1, 1, 1, 7, 8, 9})}),
              ElementsAre(6, 15, 7, 8));
}

TEST(EvalTest, SliceAndDynamicSliceClamp) {
  EXPECT_THAT(Eval1("{ lambda ; a:f32[6]. let b:f32[2] = slice[limit_indices=(5,) "
                    "start_indices=(1,) strides=(2,)] a in (b,) }",
                    {A("f32[6]", {0, 1, 2, 3, 4, 5})}),
              ElementsAre(1, 3));
  std::string ds =
      "{ lambda ; a:f32[5] b:i32[]. let c:f32[2] = dynamic_slice[slice_sizes=(2,)] a b "
      "in (c,) }";
  HostArray x = A("f32[5]", {0, 1, 2, 3, 4});
  EXPECT_THAT(Eval1(ds, {x, A("i32[]", {1})}), ElementsAre(1, 2));
  EXPECT_THAT(Eval1(ds, {x, A("i32[]", {4})}), ElementsAre(3, 4));   // clamped to 3
  EXPECT_THAT(Eval1(ds, {x, A("i32[]", {-2})}), ElementsAre(0, 1));  // clamped to 0
  std::string dus =
      "{ lambda ; a:f32[5] u:f32[2] b:i32[]. let c:f32[5] = dynamic_update_slice a u b "
      "in (c,) }";
  EXPECT_THAT(Eval1(dus, {x, A("f32[2]", {9, 9}), A("i32[]", {7})}), ElementsAre(0, 1, 2, 9, 9));
}

TEST(EvalTest, ConcatenateSelectIota) {
  EXPECT_THAT(Eval1("{ lambda ; a:f32[2] b:f32[1]. let c:f32[3] = concatenate[dimension=0] a b "
                    "in (c,) }",
                    {A("f32[2]", {1, 2}), A("f32[1]", {3})}),
              ElementsAre(1, 2, 3));
  EXPECT_THAT(Eval1("{ lambda ; p:bool[3] a:f32[3] b:f32[3]. let c:f32[3] = select_n p a b "
                    "in (c,) }",
                    {A("bool[3]", {1, 0, 1}), A("f32[3]", {1, 2, 3}), A("f32[3]", {4, 5, 6})}),
              ElementsAre(4, 2, 6));
  EXPECT_THAT(Eval1("{ lambda ; . let a:i32[2,3] = iota[dimension=1 dtype=int32 shape=(2, 3) "
                    "sharding=None] in (a,) }",
                    {}),
              ElementsAre(0, 1, 2, 0, 1, 2));
}

TEST(EvalTest, WrongArgumentsNamePositionAndTypes) {
  absl::StatusOr<ClosedJaxpr> j =
      ParseJaxpr("{ lambda ; a:f32[2] b:i32[]. let c:f32[2] = mul a a in (c,) }");
  ASSERT_THAT(j, IsOk());
  EXPECT_THAT(EvalJaxpr(*j, {A("f32[2]", {1, 2})}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("takes 2 arguments, got 1")));
  EXPECT_THAT(EvalJaxpr(*j, {A("f32[2]", {1, 2}), A("f32[]", {1})}),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("argument 1 has type f32[] but the jaxpr's input 1 is i32[]")));
}

TEST(EvalTest, MissingImplRuleGivesTheRegistryText) {
  Primitive::Options options;
  options.name = "eval_test_no_impl";
  absl::StatusOr<const Primitive*> p = Primitive::Define(std::move(options));
  ASSERT_THAT(p, IsOk());
  RegisterAbstractEval(**p, [](absl::Span<const ShapedArray> avals, const Params&) {
    return absl::StatusOr<std::vector<ShapedArray>>(std::vector<ShapedArray>{avals[0]});
  });
  ClosedJaxpr j;
  j.jaxpr.vars = {Var{ShapedArray({2}, DType::kF32)}, Var{ShapedArray({2}, DType::kF32)}};
  j.jaxpr.invars = {0};
  j.jaxpr.eqns = {Eqn{*p, {}, {Atom::OfVar(0)}, {1}, {}}};
  j.jaxpr.outvars = {Atom::OfVar(1)};
  EXPECT_THAT(EvalJaxpr(j, {A("f32[2]", {1, 2})}),
              StatusIs(StatusCode::kUnimplemented,
                       HasSubstr("Evaluation rule for 'eval_test_no_impl' not implemented")));
}

TEST(EvalTest, CollectiveOutsideShardMapIsUnbound) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(
      "{ lambda ; a:f32[2]. let b:f32[2] = psum_invariant[axes=('x',) axis_index_groups=None] a "
      "in (b,) }");
  ASSERT_THAT(j, IsOk());
  EXPECT_THAT(EvalJaxpr(*j, {A("f32[2]", {1, 2})}),
              StatusIs(StatusCode::kNotFound, HasSubstr("Found an unbound axis name: x")));
}

TEST(EvalTest, EveryBuiltinHasAnImplRule) {
  for (const char* name : {"add",
                           "sub",
                           "mul",
                           "div",
                           "max",
                           "min",
                           "pow",
                           "neg",
                           "sin",
                           "cos",
                           "exp",
                           "log",
                           "tanh",
                           "sqrt",
                           "abs",
                           "sign",
                           "eq",
                           "ne",
                           "lt",
                           "le",
                           "gt",
                           "ge",
                           "convert_element_type",
                           "broadcast_in_dim",
                           "reshape",
                           "squeeze",
                           "transpose",
                           "reduce_sum",
                           "reduce_max",
                           "dot_general",
                           "slice",
                           "dynamic_slice",
                           "dynamic_update_slice",
                           "concatenate",
                           "select_n",
                           "iota",
                           "layout_constraint",
                           "jit",
                           "closed_call",
                           "cond",
                           "scan",
                           "shard_map",
                           "psum",
                           "psum_invariant",
                           "pmax",
                           "pmin",
                           "pvary",
                           "all_gather",
                           "all_gather_invariant",
                           "reduce_scatter",
                           "all_to_all",
                           "ppermute",
                           "axis_index"}) {
    const Primitive* p = Primitive::Find(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_THAT(GetImplRule(*p), IsOk()) << name;
  }
}

TEST(EvalMemoryTest, LiveValuesAreMeteredAgainstTheBudget) {
  // Four values of 1024 elements (8 KiB each as doubles) held at once, plus the copies each
  // equation makes of its operands.
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(
      "{ lambda ; a:f32[1024]. let b:f32[1024] = add a a; c:f32[1024] = mul b b; "
      "d:f32[1024] = sub c b in (d) }");
  ASSERT_THAT(j, IsOk());
  const std::vector<HostArray> args = {A("f32[1024]", std::vector<double>(1024, 1.0))};
  const MemoryBudget roomy{1 << 20, "a test"};
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(*j, args, &roomy);
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ((*out)[0].values[0], 2.0);
  // The third equation's operand copies and result next to a, b and c: about 48 KiB.
  const MemoryBudget tight{45 << 10, "a test"};
  EXPECT_THAT(EvalJaxpr(*j, args, &tight),
              StatusIs(StatusCode::kResourceExhausted,
                       HasSubstr("evaluating sub (with the values already held) needs about")));
  // A value over the per-value cap keeps its own error, whatever the budget.
  absl::StatusOr<ClosedJaxpr> huge = ParseJaxpr(
      "{ lambda ; . let a:f32[16777217] = broadcast_in_dim[broadcast_dimensions=() "
      "shape=(16777217,) sharding=None] 1.0:f32[] in (a) }");
  ASSERT_THAT(huge, IsOk());
  EXPECT_THAT(EvalJaxpr(*huge, {}, &tight),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("more than 16777216 elements")));
}

}  // namespace
}  // namespace eval_test
}  // namespace axe::ir

namespace axe::ir {
namespace eval_test {
namespace {

TEST(EvalTest, UnsignedDivisionUsesUnsignedValues) {
  // u64: (2^64 - 2048) / (2^64 - 2048) is 1 (as int64 the divisor would be negative).
  double big = 18446744073709549568.0;
  EXPECT_THAT(Eval1("{ lambda ; a:u64[2] b:u64[2]. let c:u64[2] = div a b in (c,) }",
                    {A("u64[2]", {big, 7}), A("u64[2]", {big, 0})}),
              ElementsAre(1, big));  // x / 0: all ones (the largest double below 2^64)
}

TEST(EvalTest, ShardMapSpecNamingAnAxisTwiceIsAnError) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(
      "{ lambda ; a:f32[4,4]. let b:f32[4,4] = shard_map[check_vma=True "
      "in_specs=(P('x', 'x'),) jaxpr={ lambda ; c:f32[2,2]. let  in (c,) } "
      "mesh=Mesh('x': 2, axis_types=(Auto,)) out_specs=(P(),)] a in (b,) }");
  ASSERT_THAT(j, IsOk());
  EXPECT_THAT(EvalJaxpr(*j, {A("f32[4,4]", std::vector<double>(16, 1.0))}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("names the mesh axis 'x' twice")));
}

// Integers are exact in their own width: a product past 2^53 is wrapped on its bits, not
// rounded to a double first (the wrong answer was -1757895752).
TEST(EvalNumericsTest, IntegerProductsWrapOnTheirBits) {
  const int64_t big = 123456789;
  const double want = static_cast<double>(static_cast<int32_t>(
      static_cast<uint32_t>(static_cast<uint64_t>(big) * static_cast<uint64_t>(big))));
  EXPECT_EQ(want, -1757895751.0);
  EXPECT_THAT(Eval1("{ lambda ; a:i32[1] b:i32[1]. let c:i32[1] = mul a b in (c,) }",
                    {A("i32[1]", {123456789}), A("i32[1]", {123456789})}),
              ElementsAre(want));
  EXPECT_THAT(
      Eval1("{ lambda ; a:i32[1]. let b:i32[1] = square a in (b,) }", {A("i32[1]", {123456789})}),
      ElementsAre(want));
  EXPECT_THAT(Eval1("{ lambda ; a:i32[1]. let b:i32[1] = integer_pow[y=2] a in (b,) }",
                    {A("i32[1]", {123456789})}),
              ElementsAre(want));
  EXPECT_THAT(Eval1("{ lambda ; a:i32[1] b:i32[1]. let c:i32[1] = pow a b in (c,) }",
                    {A("i32[1]", {123456789}), A("i32[1]", {2})}),
              ElementsAre(want));
  EXPECT_THAT(Eval1("{ lambda ; a:i32[1,1] b:i32[1,1]. let "
                    "c:i32[1,1] = dot_general[dimension_numbers=(([1], [0]), ([], [])) "
                    "preferred_element_type=int32] a b in (c,) }",
                    {A("i32[1,1]", {123456789}), A("i32[1,1]", {123456789})}),
              ElementsAre(want));
}

// The u32 hash (ids * 2654435761) % 1000 of a JAX program, against uint32_t arithmetic.
TEST(EvalNumericsTest, UnsignedHashIsExact) {
  std::vector<double> ids = {0, 1, 7, 123456, 4000000000};
  std::vector<double> want;
  for (double id : ids) {
    uint32_t h = static_cast<uint32_t>(id) * 2654435761u;
    want.push_back(static_cast<double>(h % 1000u));
  }
  EXPECT_THAT(
      Eval1("{ lambda ; a:u32[5] b:u32[5] c:u32[5]. let d:u32[5] = mul a b; e:u32[5] = rem d c "
            "in (e,) }",
            {A("u32[5]", ids), A("u32[5]", std::vector<double>(5, 2654435761.0)),
             A("u32[5]", std::vector<double>(5, 1000))}),
      ::testing::ElementsAreArray(want));
}

// f32 sums are pairwise: 4096 x 0.1f is 409.6f give or take an ulp (a left-to-right fold
// rounded after every add gave 409.61578).
TEST(EvalNumericsTest, FloatSumsArePairwise) {
  std::vector<double> tenths(4096, static_cast<double>(0.1f));
  std::vector<double> out = Eval1(
      "{ lambda ; a:f32[4096]. let b:f32[] = reduce_sum[axes=(0,) out_sharding=None] a in (b,) }",
      {A("f32[4096]", tenths)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0], 409.6, 1e-4);
  // Over the rows of a matrix, each output its own pairwise sum.
  std::vector<double> m(2 * 4096, static_cast<double>(0.1f));
  out = Eval1(
      "{ lambda ; a:f32[4096,2]. let b:f32[2] = reduce_sum[axes=(0,) out_sharding=None] a "
      "in (b,) }",
      {A("f32[4096,2]", m)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0], 409.6, 1e-4);
  EXPECT_NEAR(out[1], 409.6, 1e-4);
}

// Rounding to nearest even keeps the sign of a zero result: round(-0.3) is -0.0 in JAX.
TEST(EvalNumericsTest, RoundKeepsTheSignOfZero) {
  std::vector<double> out =
      Eval1("{ lambda ; a:f32[3]. let b:f32[3] = round[rounding_method=1] a in (b,) }",
            {A("f32[3]", {-0.3, -0.5, 2.5})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], 0.0);
  EXPECT_TRUE(std::signbit(out[0]));
  EXPECT_TRUE(std::signbit(out[1]));
  EXPECT_EQ(out[2], 2.0);
  out = Eval1("{ lambda ; a:f32[1]. let b:f32[1] = round[rounding_method=0] a in (b,) }",
              {A("f32[1]", {-0.3})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(std::signbit(out[0]));
}

}  // namespace
}  // namespace eval_test
}  // namespace axe::ir
