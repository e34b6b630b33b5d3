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

}  // namespace
}  // namespace axe::ir
