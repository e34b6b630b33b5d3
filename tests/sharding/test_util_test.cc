#include "test_util.h"

#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

namespace axe::sharding::test_util {
namespace test_util_test {
namespace {

// Regression: the helpers did `EXPECT_OK(s); return *s;`, so a bad fixture dereferenced a
// failed StatusOr and aborted the whole binary. Now it is one failure naming the input, and
// the helper returns its fallback.
TEST(ShardingTestUtilTest, ABadFixtureIsATestFailureNotAnAbort) {
  EXPECT_NONFATAL_FAILURE(ParseMesh("x=0"), "Mesh::Parse(\"x=0\")");
  EXPECT_NONFATAL_FAILURE(ParseSpec("P("), "PartitionSpec::Parse(\"P(\")");
  EXPECT_NONFATAL_FAILURE(Named("x=2", "P('z')"), "not found in mesh");
  EXPECT_NONFATAL_FAILURE(ParseHlo("{devices=[2]0,0}"), "is not unique in tile assignment");
  EXPECT_NONFATAL_FAILURE(XlaLayout("{1,0"), "xla::ParseLayout(\"{1,0\")");
  EXPECT_NONFATAL_FAILURE(Spec({{"1x"}}), "is not an identifier");
  EXPECT_NONFATAL_FAILURE(MakeMesh({{"x", 2}}, {0, 0}), "Mesh::Create");
}

TEST(ShardingTestUtilTest, FallbacksAndValues) {
  Mesh fallback;
  EXPECT_NONFATAL_FAILURE(fallback = ParseMesh("x=-1"), "Mesh::Parse");  // NOLINT
  EXPECT_EQ(fallback, Mesh());
  EXPECT_EQ(ParseMesh("x=2,y=3").num_devices(), 6);
  EXPECT_EQ(Named("x=2,y=2", "P('x')").ToString(),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',))");
  EXPECT_EQ(ParseHlo("{devices=[2]1,0}").ToString(), "{devices=[2]1,0}");
}

}  // namespace
}  // namespace test_util_test
}  // namespace axe::sharding::test_util
