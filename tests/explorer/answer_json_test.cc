#include "axe/explorer/answer_json.h"
#include "axe/explorer/handler.h"

#include <limits>
#include <string>

#include "axe/sharding/explain.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/named_sharding.h"
#include "axe/sharding/partition_spec.h"
#include "axe/xla/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/status_matchers.h"

namespace axe::explorer {
namespace answer_json_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;
using Json = nlohmann::json;

TEST(AnswerJsonTest, LayoutShowKeepsTheFieldOrder) {
  absl::StatusOr<Layout> l = Layout::Parse("S[(2,2):(2,1)]");
  ASSERT_TRUE(l.ok());
  EXPECT_THAT(LayoutShowJson(*l, {2, 2}, {}),
              IsOkAndHolds(R"({"layout":"S[(2,2):(2,1)]","shape":[2,2],"shown":[2,2],)"
                           R"("axes":["m"],"replica":null,"grid":[[{"m":0},{"m":1}],)"
                           R"([{"m":2},{"m":3}]]})"));
  EXPECT_THAT(LayoutShowJson(*l, {3, 2}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has size 4")));
}

TEST(AnswerJsonTest, XlaTuplesNest) {
  absl::StatusOr<xla::Shape> s = xla::ParseShape("(f32[2]{0}, (s8[4]{0}))");
  ASSERT_TRUE(s.ok());
  absl::StatusOr<std::string> j = XlaShapeJson(*s);
  ASSERT_TRUE(j.ok());
  Json parsed = Json::parse(*j);
  EXPECT_EQ(parsed["tuple"][0]["element_type"], "f32");
  EXPECT_EQ(parsed["tuple"][1]["tuple"][0]["byte_width"], 1);
}

TEST(AnswerJsonTest, ShardingJsonListsDevices) {
  absl::StatusOr<sharding::NamedSharding> named = sharding::NamedSharding::Create(
      *sharding::Mesh::Parse("x=2"), *sharding::PartitionSpec::Parse("P('x')"));
  ASSERT_TRUE(named.ok());
  absl::StatusOr<sharding::ShardingExplanation> e =
      sharding::ExplainNamedSharding({4, 2}, *named, {});
  ASSERT_TRUE(e.ok());
  Json j = Json::parse(ShardingJson(*e));
  EXPECT_EQ(j["devices"][1], Json::parse(R"({"id":1,"index":[[2,4],[0,2]],"replica_group":1})"))
      << j.dump();
  EXPECT_EQ(j["num_devices"], 2);
}

TEST(AnswerJsonTest, GridOutputWritesNonFiniteAsNull) {
  absl::StatusOr<pallas::AnyArray> a = pallas::AnyArray::Zeros(DType::kF32, {3});
  ASSERT_TRUE(a.ok());
  a->data_as<float>()[0] = std::numeric_limits<float>::quiet_NaN();
  a->data_as<float>()[1] = 2.5f;
  EXPECT_EQ(GridShowJson(*a, {}), R"({"output":[null,2.5,0]})");
}

// An empty output is one empty list: /api/grid?shape=4294967295,0&block=2,0&grid=4,6 built
// 2^32 nested empty lists and hung (found by make test's mutation run of the explorer_request
// target, from the corpus entry of the previous finding on that request;
// fuzz/corpus/explorer_request/empty-array-huge-dim-regression).
TEST(AnswerJsonTest, GridOutputWithoutElementsIsOneEmptyList) {
  absl::StatusOr<pallas::AnyArray> a = pallas::AnyArray::Zeros(DType::kS32, {4294967295, 0});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(GridShowJson(*a, {}), R"({"output":[]})");
  Response r = HandleRequest("GET", "/api/grid?shape=4294967295%2C0&block=2%2C0&grid=4%2C6", "");
  EXPECT_EQ(r.status, 200) << r.body;
}

// A clamped window of a huge empty dimension ends past INT64_MAX: grid point 1 of
// /api/grid?shape=8922717654926806824,0&grid=2,6 asks for
// [8922717654926806824:17845435309853613648] (the end overflowed int64, UB;
// fuzz/corpus/explorer_request/clamp-window-end-past-int64-regression). The end is written exactly,
// as an unsigned number, in the JSON and in the message.
TEST(AnswerJsonTest, ClampedWindowEndingPastInt64IsWrittenExactly) {
  // int8: NumPy's rule refuses int32 here (the byte strides would pass 2^63).
  Response r =
      HandleRequest("GET", "/api/grid?shape=0008922717654926806824%2C0&grid=2%2C6&dtype=int8", "");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr(R"("requested":[[8922717654926806824,17845435309853613648],)"));
  EXPECT_THAT(r.body, HasSubstr("[8922717654926806824:17845435309853613648, 0:0]"));
  r = HandleRequest("GET", "/api/grid?shape=0008922717654926806824%2C0&grid=2%2C6", "");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body,
              HasSubstr(R"("field":"shape","error":"an array of int32(8922717654926806824, )"
                        R"(0) is too large to allocate)"));
}

}  // namespace
}  // namespace answer_json_test
}  // namespace axe::explorer
