// JAX prints some integer parameters as NumPy scalars (vmap's output, e.g. `np.int64(1)`):
// they read as integers and print back unchanged.
#include <string>

#include "axe/ir/param.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace param_numpy_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(NumpyScalarParams, ReadAsIntegersAndPrintBack) {
  const std::string text = R"({ lambda ; a:f32[3,4]. let
    b:f32[4,3] = transpose[permutation=(np.int64(1), np.int64(0))] a
    c:f32[4] = reduce_sum[axes=(np.int64(1),) out_sharding=None] b
  in (c,) })";
  absl::StatusOr<ClosedJaxpr> jaxpr = ParseJaxpr(text);
  ASSERT_OK(jaxpr.status());
  EXPECT_EQ(PrintJaxpr(*jaxpr), text);
  const Params& params = jaxpr->jaxpr.eqns[0].params;
  EXPECT_THAT(params.at("permutation").AsInts("permutation"), IsOkAndHolds(ElementsAre(1, 0)));
}

TEST(NumpyScalarParams, OtherCallsAreNotIntegers) {
  const Param call = Param::Call("np.float32", {Param::Int(1)});
  EXPECT_THAT(call.AsInt("x"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("x")));
  const Param two = Param::Call("np.int64", {Param::Int(1), Param::Int(2)});
  EXPECT_FALSE(two.AsInt("x").ok());
  EXPECT_THAT(Param::Call("np.int32", {Param::Int(-3)}).AsInt("x"), IsOkAndHolds(-3));
}

}  // namespace
}  // namespace param_numpy_test
}  // namespace axe::ir
