// The §8 transpose rules of the collectives, applied directly (no jaxpr transposition yet).
#include "axe/ir/linear.h"

#include "axe/ir/axis_env.h"
#include "axe/ir/check.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace linear_test {
namespace {

using ::axe::testing_support::IsOk;
using ::testing::HasSubstr;

ShapedArray F32(std::vector<int64_t> shape, std::vector<std::string> vma = {}) {
  return ShapedArray(std::move(shape), DType::kF32, false, std::move(vma));
}

// Transposes `prim` (params) for a linear operand of type `in`, given a cotangent of type
// `ct_type`; returns the printed jaxpr ct -> cotangent of the operand.
std::string Transposed(const Primitive& prim, const Params& params, const ShapedArray& in,
                       const ShapedArray& ct_type) {
  Builder b;
  Tracer ct = b.Arg(ct_type);
  absl::StatusOr<TransposeRule> rule = GetTransposeRule(prim);
  if (!rule.ok()) return std::string(rule.status().message());
  absl::StatusOr<std::vector<std::optional<Tracer>>> cts =
      (*rule)(b, {ct}, {TransposeArg::Undefined(in)}, params);
  if (!cts.ok()) return std::string(cts.status().message());
  if (!(*cts)[0]) return "zero";
  absl::StatusOr<ClosedJaxpr> j = b.Build({*(*cts)[0]});
  if (!j.ok()) return std::string(j.status().message());
  absl::Status check = CheckJaxpr(*j);
  if (!check.ok()) return std::string(check.message());
  EXPECT_EQ((*cts)[0]->aval, in) << "the cotangent has the operand's type";
  return PrintJaxpr(*j);
}

class LinearTest : public ::testing::Test {
 protected:
  ScopedAxisEnv scope_{AxisEnv{{{"x", 4}}, true}};
  const BuiltinPrimitives& p_ = Builtins();
};

TEST_F(LinearTest, PvaryAndPsumInvariantAreEachOthersTranspose) {
  Params axes = {{"axes", Param::Names({"x"})}};
  EXPECT_EQ(Transposed(*p_.pvary, axes, F32({8}), F32({8}, {"x"})),
            "{ lambda ; a:f32[8]{V:x}. let b:f32[8] = psum_invariant[axes=('x',)] a in (b,) }");
  EXPECT_EQ(Transposed(*p_.psum_invariant, axes, F32({8}, {"x"}), F32({8})),
            "{ lambda ; a:f32[8]. let b:f32[8]{V:x} = pvary[axes=('x',)] a in (b,) }");
}

TEST_F(LinearTest, AllGatherAndReduceScatterAreEachOthersTranspose) {
  Params gather = {{"all_gather_dimension", Param::Int(0)},
                   {"axis_index_groups", Param::None()},
                   {"axis_name", Param::Names({"x"})},
                   {"axis_size", Param::Int(4)},
                   {"tiled", Param::Bool(true)}};
  EXPECT_EQ(Transposed(*p_.all_gather, gather, F32({2}, {"x"}), F32({8}, {"x"})),
            "{ lambda ; a:f32[8]{V:x}. let\n"
            "    b:f32[2]{V:x} = reduce_scatter[\n"
            "      axis_index_groups=None\n"
            "      axis_name=('x',)\n"
            "      axis_size=4\n"
            "      scatter_dimension=0\n"
            "      tiled=True\n"
            "    ] a\n"
            "  in (b,) }");
  Params scatter = {{"axis_index_groups", Param::None()},
                    {"axis_name", Param::Names({"x"})},
                    {"axis_size", Param::Int(4)},
                    {"scatter_dimension", Param::Int(0)},
                    {"tiled", Param::Bool(true)}};
  EXPECT_THAT(Transposed(*p_.reduce_scatter, scatter, F32({8}, {"x"}), F32({2}, {"x"})),
              HasSubstr("b:f32[8]{V:x} = all_gather[\n      all_gather_dimension=0\n"));
}

TEST_F(LinearTest, SelfDualCollectives) {
  Params permute = {{"axis_name", Param::Names({"x"})},
                    {"perm", Param::Tuple({Param::Ints({0, 1}), Param::Ints({1, 2}),
                                           Param::Ints({2, 3}), Param::Ints({3, 0})})}};
  EXPECT_THAT(Transposed(*p_.ppermute, permute, F32({4}, {"x"}), F32({4}, {"x"})),
              HasSubstr("perm=((1, 0), (2, 1), (3, 2), (0, 3))"));
  Params a2a = {{"axis_index_groups", Param::None()},
                {"axis_name", Param::Symbol("x")},
                {"concat_axis", Param::Int(1)},
                {"split_axis", Param::Int(0)},
                {"tiled", Param::Bool(true)}};
  std::string t = Transposed(*p_.all_to_all, a2a, F32({8, 2}, {"x"}), F32({2, 8}, {"x"}));
  EXPECT_THAT(t, HasSubstr("concat_axis=0"));
  EXPECT_THAT(t, HasSubstr("split_axis=1"));
}

// all_gather_invariant transposes to the JEP's pscatter: pvary, then this member's piece.
TEST_F(LinearTest, AllGatherInvariantTransposesWithoutCommunication) {
  Params gather = {{"all_gather_dimension", Param::Int(0)},
                   {"axis_index_groups", Param::None()},
                   {"axis_name", Param::Names({"x"})},
                   {"axis_size", Param::Int(4)},
                   {"tiled", Param::Bool(true)}};
  std::string t = Transposed(*p_.all_gather_invariant, gather, F32({2}, {"x"}), F32({8}));
  EXPECT_THAT(t, HasSubstr("pvary[axes=('x',)] a"));
  EXPECT_THAT(t, HasSubstr("axis_index[axis_name=x]"));
  EXPECT_THAT(t, HasSubstr("= dynamic_slice[slice_sizes=(2,)]"));
  EXPECT_THAT(t, ::testing::Not(HasSubstr("psum")));
  gather["tiled"] = Param::Bool(false);
  std::string untiled = Transposed(*p_.all_gather_invariant, gather, F32({2}, {"x"}), F32({4, 2}));
  EXPECT_THAT(untiled, HasSubstr("squeeze[dimensions=(0,)]"));
}

TEST_F(LinearTest, ZeroCotangentsStayZeroAndJvpIsLinear) {
  Builder b;
  absl::StatusOr<std::vector<std::optional<Tracer>>> cts = (*GetTransposeRule(*p_.pvary))(
      b, {std::nullopt}, {TransposeArg::Undefined(F32({8}))}, {{"axes", Param::Names({"x"})}});
  ASSERT_THAT(cts, IsOk());
  EXPECT_FALSE((*cts)[0].has_value());

  Tracer x = b.Arg(F32({8})), t = b.Arg(F32({8}));
  absl::StatusOr<JvpResult> jvp =
      (*GetJvpRule(*p_.pvary))(b, {x}, {t}, {{"axes", Param::Names({"x"})}});
  ASSERT_THAT(jvp, IsOk());
  ASSERT_TRUE(jvp->tangents_out[0].has_value());
  EXPECT_EQ(jvp->tangents_out[0]->aval.ShortString(), "f32[8]{V:x}");
  absl::StatusOr<JvpResult> zero =
      (*GetJvpRule(*p_.pvary))(b, {x}, {std::nullopt}, {{"axes", Param::Names({"x"})}});
  ASSERT_THAT(zero, IsOk());
  EXPECT_FALSE(zero->tangents_out[0].has_value());
}

TEST_F(LinearTest, ZerosLikeKeepsTheVarianceSet) {
  Builder b;
  absl::StatusOr<Tracer> z = ZerosLike(b, F32({2, 3}, {"x"}));
  ASSERT_THAT(z, IsOk());
  EXPECT_EQ(z->aval.ShortString(), "f32[2,3]{V:x}");
  EXPECT_EQ(PrintJaxpr(*b.Build({*z})),
            "{ lambda ; . let\n"
            "    a:f32[2,3] = broadcast_in_dim 0.0:f32[]\n"
            "    b:f32[2,3]{V:x} = pvary[axes=('x',)] a\n"
            "  in (b,) }");
}

}  // namespace
}  // namespace linear_test
}  // namespace axe::ir
