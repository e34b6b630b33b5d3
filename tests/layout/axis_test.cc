#include "axe/layout/axis.h"
#include "axe/layout/coord.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe {
namespace {

using ::testing::HasSubstr;

TEST(Axis, BuiltinKinds) {
  EXPECT_EQ(Axis::Memory().name(), "m");
  EXPECT_EQ(Axis().name(), "m");
  for (const char* n : {"m", "reg", "P", "F", "Bank", "TCol", "TLane", "Col", "Lane"}) {
    EXPECT_EQ(Axis::Get(n).kind(), AxisKind::kMemory) << n;
  }
  for (const char* n : {"bx", "tx", "warpid", "laneid", "wgid", "tid_in_wg", "wid_in_wg", "lane", "warp"}) {
    EXPECT_EQ(Axis::Get(n).kind(), AxisKind::kThread) << n;
  }
  for (const char* n : {"gpuid", "gpuid_x", "gpuid_y", "pid"}) {
    EXPECT_EQ(Axis::Get(n).kind(), AxisKind::kDevice) << n;
  }
  // Case-sensitive: Lane (TMEM lane) is memory, lane (warp lane) is a thread.
  EXPECT_NE(Axis::Get("Lane"), Axis::Get("lane"));
}

TEST(Axis, UndeclaredNamesDefaultToThreadAndMayBeDeclaredOnce) {
  Axis a = Axis::Get("axis_test_undeclared");
  EXPECT_EQ(a.kind(), AxisKind::kThread);
  ASSERT_TRUE(Axis::Declare("axis_test_undeclared", AxisKind::kDevice).ok());
  EXPECT_EQ(a.kind(), AxisKind::kDevice);
  EXPECT_TRUE(Axis::Declare("axis_test_undeclared", AxisKind::kDevice).ok());
  absl::StatusOr<Axis> again = Axis::Declare("axis_test_undeclared", AxisKind::kMemory);
  EXPECT_THAT(std::string(again.status().message()), HasSubstr("already a device axis"));
  EXPECT_FALSE(Axis::Declare("lane", AxisKind::kMemory).ok());
  EXPECT_EQ(Axis::Declare("axis_test_fresh", AxisKind::kMemory)->kind(), AxisKind::kMemory);
}

TEST(Axis, NamesAreValidated) {
  EXPECT_FALSE(Axis::Find("9x").ok());
  EXPECT_FALSE(Axis::Find("").ok());
  EXPECT_FALSE(Axis::Declare("a-b", AxisKind::kDevice).ok());
  EXPECT_TRUE(Axis::IsValidName("_x9"));
}

TEST(Axis, OrderingIsByName) {
  EXPECT_LT(Axis::Get("lane"), Axis::Get("warp"));
  EXPECT_LT(Axis::Get("Bank"), Axis::Get("m"));
  EXPECT_EQ(Axis::Get("warp"), Axis::Get("warp"));
}

TEST(Axis, KindNames) {
  EXPECT_EQ(*ParseAxisKind("device"), AxisKind::kDevice);
  EXPECT_EQ(AxisKindName(AxisKind::kMemory), "memory");
  EXPECT_FALSE(ParseAxisKind("gpu").ok());
}

TEST(PhysCoord, ParseAndPrint) {
  PhysCoord p = *PhysCoord::Parse("warp=6,lane=8,reg=1,m=0");
  EXPECT_EQ(p.ToString(), "{lane:8, reg:1, warp:6}");
  EXPECT_EQ(*PhysCoord::Parse("{warp:6, lane:8, reg:1}"), p);
  EXPECT_EQ(*PhysCoord::Parse(p.ToString()), p);
  EXPECT_TRUE(PhysCoord::Parse("")->empty());
  EXPECT_THAT(std::string(PhysCoord::Parse("warp=1,warp=2").status().message()), HasSubstr("given twice"));
  EXPECT_THAT(std::string(PhysCoord::Parse("warp:1").status().message()), HasSubstr("expected '='"));
  EXPECT_THAT(std::string(PhysCoord::Parse("warp=").status().message()), HasSubstr("expected an integer"));
}

}  // namespace
}  // namespace axe
