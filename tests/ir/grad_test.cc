// Reverse mode (ad.h): Linearize, Vjp and Grad, structure and error texts; grad of a
// data-parallel loss inside shard_map.
#include "axe/base/status_macros.h"
#include "axe/ir/ad.h"
#include "axe/ir/check.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "axe/ir/shard_map.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

ClosedJaxpr Parse(const char* text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  EXPECT_THAT(j, IsOk());
  return j.ok() ? *j : ClosedJaxpr{};
}

TEST(GradTest, Scratch) {
  for (const char* t : {
           "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = sin a; d:f32[3] = mul c b; "
           "e:f32[] = reduce_sum[axes=(0,) out_sharding=None] d in (e,) }",
       }) {
    ClosedJaxpr f = Parse(t);
    absl::StatusOr<ClosedJaxpr> g = Grad(f, {0, 1});
    ASSERT_THAT(g, IsOk());
    std::cout << PrintJaxpr(*g) << "\n";
    EXPECT_THAT(CheckJaxpr(*g), IsOk());
    absl::StatusOr<ClosedJaxpr> v = Vjp(f);
    ASSERT_THAT(v, IsOk());
    std::cout << PrintJaxpr(*v) << "\n";
    absl::StatusOr<ClosedJaxpr> j = Jvp(f);
    ASSERT_THAT(j, IsOk());
    std::cout << PrintJaxpr(*j) << "\n";
  }
}

ShapedArray F32(std::vector<int64_t> shape) { return ShapedArray(std::move(shape), DType::kF32); }

// loss(w, x) = sum over devices of sum((x_local . w)^2): w replicated, x split by rows over
// mesh (4,) axis x.
ClosedJaxpr DataParallelLoss() {
  Builder b;
  Tracer w = b.Arg(F32({4}));
  Tracer x = b.Arg(F32({16, 4}));
  using P = sharding::PartitionSpec;
  ShardMapSpec spec{*sharding::Mesh::Create({{"x", 4}}), {P(), *P::Create({{"x"}})}, {P()}};
  absl::StatusOr<std::vector<Tracer>> out = ShardMap(
      {w, x}, spec,
      [](Builder&, absl::Span<const Tracer> a) -> absl::StatusOr<std::vector<Tracer>> {
        AXE_ASSIGN_OR_RETURN(
            std::vector<Tracer> y,
            BindWithAutoPvary(*Builtins().dot_general, {a[1], a[0]},
                              {{"dimension_numbers",
                                Param::Tuple({Param::Tuple({Param::Ints({1}), Param::Ints({0})}),
                                              Param::Tuple({Param::Ints({}), Param::Ints({})})})},
                               {"preferred_element_type", Param::OfDType(DType::kF32)}}));
        AXE_ASSIGN_OR_RETURN(Tracer sq, Mul(y[0], y[0]));
        AXE_ASSIGN_OR_RETURN(Tracer l, ReduceSum(sq, {0}));
        AXE_ASSIGN_OR_RETURN(Tracer s, Psum(l, {"x"}));
        return std::vector<Tracer>{s};
      });
  EXPECT_THAT(out, IsOk());
  return *b.Build(*out);
}

TEST(GradTest, DataParallelLossInsideShardMap) {
  ClosedJaxpr f = DataParallelLoss();
  std::cout << PrintJaxpr(f) << "\n";
  absl::StatusOr<ClosedJaxpr> g = Grad(f, {0});
  ASSERT_THAT(g, IsOk());
  std::cout << PrintJaxpr(*g) << "\n";
  EXPECT_THAT(CheckJaxpr(*g), IsOk());
}

}  // namespace
}  // namespace axe::ir
