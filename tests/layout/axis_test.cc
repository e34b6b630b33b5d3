#include "axe/layout/axis.h"

#include "absl/hash/hash.h"
#include "axe/layout/axis_catalog.h"
#include "axe/layout/coord.h"
#include "axe/layout/layout.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe {
namespace axis_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

TEST(Axis, BuiltinKinds) {
  EXPECT_EQ(Axis::Memory().name(), "m");
  EXPECT_EQ(Axis().name(), "m");
  for (const char* n : {"m", "reg", "P", "F", "Bank", "TCol", "TLane", "Col", "Lane"}) {
    EXPECT_EQ(Axis::Get(n).kind(), AxisKind::kMemory) << n;
  }
  for (const char* n :
       {"bx", "tx", "warpid", "laneid", "wgid", "tid_in_wg", "wid_in_wg", "lane", "warp"}) {
    EXPECT_EQ(Axis::Get(n).kind(), AxisKind::kThread) << n;
  }
  for (const char* n : {"gpuid", "gpuid_x", "gpuid_y", "pid"}) {
    EXPECT_EQ(Axis::Get(n).kind(), AxisKind::kDevice) << n;
  }
  // Case-sensitive: Lane (TMEM lane) is memory, lane (warp lane) is a thread.
  EXPECT_NE(Axis::Get("Lane"), Axis::Get("lane"));
}

TEST(Axis, NameAndKindAreTheIdentity) {
  Axis a = Axis::Get("axis_test_name");
  EXPECT_EQ(a.kind(), AxisKind::kThread);  // not in the standard catalogue
  Axis d = Axis::Get("axis_test_name", AxisKind::kDevice);
  EXPECT_EQ(d.kind(), AxisKind::kDevice);
  EXPECT_NE(a, d);
  // Building the device axis changed nothing about the thread axis.
  EXPECT_EQ(a.kind(), AxisKind::kThread);
  EXPECT_EQ(Axis::Get("axis_test_name"), a);
  EXPECT_EQ(Axis::Get("axis_test_name", AxisKind::kDevice), d);
  EXPECT_EQ(absl::HashOf(d), absl::HashOf(Axis::Get("axis_test_name", AxisKind::kDevice)));
  // A standard name may be used with another kind, as another axis.
  EXPECT_NE(Axis::Get("lane", AxisKind::kMemory), Axis::Get("lane"));
  EXPECT_EQ(Axis::Get("lane").kind(), AxisKind::kThread);
}

TEST(AxisCatalog, KindsOfNames) {
  const AxisCatalog& standard = AxisCatalog::Standard();
  EXPECT_EQ(standard.KindOf("m"), AxisKind::kMemory);
  EXPECT_EQ(standard.KindOf("gpuid"), AxisKind::kDevice);
  EXPECT_EQ(standard.KindOf("not_a_catalogue_name"), AxisKind::kThread);
  EXPECT_EQ(standard.Find("not_a_catalogue_name"), std::nullopt);
  absl::StatusOr<AxisCatalog> c =
      standard.With({{"x", AxisKind::kDevice}, {"lane", AxisKind::kMemory}});
  ASSERT_OK(c);
  EXPECT_EQ(c->KindOf("x"), AxisKind::kDevice);
  EXPECT_EQ(c->KindOf("lane"), AxisKind::kMemory);
  EXPECT_EQ(standard.KindOf("lane"), AxisKind::kThread);  // the standard catalogue is unchanged
  EXPECT_THAT(standard.With({{"m", AxisKind::kDevice}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'m' is the memory axis")));
  EXPECT_THAT(standard.With({{"x", AxisKind::kDevice}, {"x", AxisKind::kThread}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'x' is given twice")));
  EXPECT_THAT(standard.With({{"a-b", AxisKind::kDevice}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid axis name 'a-b'")));
}

TEST(AxisCatalog, ParsingWithACatalogueAndWithAWhereClause) {
  absl::StatusOr<AxisCatalog> c = AxisCatalog::Standard().With({{"x", AxisKind::kDevice}});
  ASSERT_OK(c);
  Layout thread_x = *Layout::Parse("S[(2,4):(1@x,1)]");
  Layout device_x = *Layout::Parse("S[(2,4):(1@x,1)]", *c);
  EXPECT_EQ(thread_x.shard()[0].axis.kind(), AxisKind::kThread);
  EXPECT_EQ(device_x.shard()[0].axis.kind(), AxisKind::kDevice);
  EXPECT_NE(thread_x, device_x);
  // The canonical text names the kind that the standard catalogue would not give.
  EXPECT_EQ(thread_x.ToString(), "S[(2,4):(1@x,1)]");
  EXPECT_EQ(device_x.ToString(), "S[(2,4):(1@x,1)] where x:device");
  EXPECT_THAT(Layout::Parse(device_x.ToString()), IsOkAndHolds(device_x));
  EXPECT_THAT(Layout::Parse("S[4:1@gpuid] + R[2:1@lane] where gpuid:thread, lane:memory"),
              IsOkAndHolds(Layout::Create({Iter{4, 1, Axis::Get("gpuid", AxisKind::kThread)}},
                                          {Iter{2, 1, Axis::Get("lane", AxisKind::kMemory)}})
                               .value()));
  // The where clause wins over the caller's catalogue.
  EXPECT_THAT(Layout::Parse("S[4:1@x] where x:memory", *c),
              IsOkAndHolds(*Layout::Parse("S[4:1@x] where x:memory")));
  EXPECT_THAT(Layout::Parse("S[4:1@x] where x:gpu"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 17: expected memory, thread or device")));
  EXPECT_THAT(Layout::Parse("S[4:1@x] where x:device, x:thread"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("axis 'x' given twice")));
  EXPECT_THAT(Layout::Parse("S[4:1] where m:device"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'m' is the memory axis")));
  EXPECT_THAT(Layout::Parse("S[4:1] where"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("an axis name")));
}

TEST(AxisCatalog, WhereClauseRules) {
  // The parts are read before any kind-dependent check: reg as a thread axis does not count
  // toward the memory span, so this layout is valid and its text parses back.
  const std::string big = "S[(2,2):(4611686018427387904@reg,4611686018427387904)] where reg:thread";
  absl::StatusOr<Layout> l = Layout::Parse(big);
  ASSERT_OK(l);
  EXPECT_EQ(l->ToString(), big);
  EXPECT_THAT(Layout::Parse(l->ToString()), IsOkAndHolds(*l));
  // A where clause naming an axis the layout does not use is a typo.
  EXPECT_THAT(Layout::Parse("S[4:1@gpuid] where gpuid_z:device"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 19: axis 'gpuid_z' in the 'where' clause is not used")));
}

TEST(AxisCatalog, MIsAlwaysMemory) {
  EXPECT_THAT(Axis::Find("m", AxisKind::kDevice),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'m' is the memory axis")));
  EXPECT_DEATH(Axis::Get("m", AxisKind::kThread), "memory axis");
  EXPECT_EQ(Axis::Get("m", AxisKind::kMemory), Axis::Memory());
}

TEST(AxisCatalog, Declarations) {
  absl::StatusOr<AxisCatalog> c =
      AxisCatalog::Standard().WithDeclarations({"x=device", "lane=memory"});
  ASSERT_OK(c);
  EXPECT_EQ(c->KindOf("x"), AxisKind::kDevice);
  EXPECT_EQ(c->KindOf("lane"), AxisKind::kMemory);
  EXPECT_THAT(AxisCatalog::Standard().WithDeclarations({"x"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'x': expected NAME=KIND")));
  EXPECT_THAT(
      AxisCatalog::Standard().WithDeclarations({"x=gpu"}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'x=gpu': unknown axis kind 'gpu'")));
  EXPECT_THAT(AxisCatalog::Standard().WithDeclarations({"x=device", "x=thread"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'x' is given twice")));
}

TEST(AxisCatalog, OneNameHasOneKindInALayout) {
  EXPECT_THAT(
      Layout::Create({Iter{2, 1, Axis::Get("x")}, Iter{2, 1, Axis::Get("x", AxisKind::kDevice)}}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("axis 'x' is used as both a thread axis and a device axis")));
}

TEST(Axis, NamesAreValidated) {
  EXPECT_FALSE(Axis::Find("9x").ok());
  EXPECT_FALSE(Axis::Find("").ok());
  EXPECT_THAT(Axis::Find("a-b", AxisKind::kDevice),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid axis name 'a-b'")));
  EXPECT_TRUE(Axis::IsValidName("_x9"));
}

TEST(Axis, OrderingIsByName) {
  EXPECT_LT(Axis::Get("lane"), Axis::Get("warp"));
  EXPECT_LT(Axis::Get("Bank"), Axis::Get("m"));
  EXPECT_EQ(Axis::Get("warp"), Axis::Get("warp"));
  EXPECT_LT(Axis::Get("x", AxisKind::kMemory), Axis::Get("x", AxisKind::kThread));
  EXPECT_LT(Axis::Get("x", AxisKind::kThread), Axis::Get("x", AxisKind::kDevice));
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
  EXPECT_THAT(std::string(PhysCoord::Parse("warp=1,warp=2").status().message()),
              HasSubstr("given twice"));
  EXPECT_THAT(std::string(PhysCoord::Parse("warp:1").status().message()),
              HasSubstr("expected '='"));
  EXPECT_THAT(std::string(PhysCoord::Parse("warp=").status().message()),
              HasSubstr("expected an integer"));
}

}  // namespace
}  // namespace axis_test
}  // namespace axe
