#include "axe/sharding/mesh.h"

#include <random>
#include <string>

#include "absl/hash/hash_testing.h"
#include "axe/sharding/partition_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "test_util.h"

namespace axe::sharding {
namespace mesh_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

TEST(MeshTest, DefaultOrderIsRowMajor) {
  absl::StatusOr<Mesh> mesh = Mesh::Create({{"x", 2}, {"y", 3}});
  ASSERT_OK(mesh);
  EXPECT_EQ(mesh->num_devices(), 6);
  EXPECT_TRUE(mesh->has_default_devices());
  EXPECT_EQ(mesh->axis_stride(0), 3);
  EXPECT_EQ(mesh->axis_stride(1), 1);
  EXPECT_THAT(mesh->DeviceAt({1, 2}), IsOkAndHolds(5));
  EXPECT_THAT(mesh->CoordinateOf(4), IsOkAndHolds(std::vector<int64_t>{1, 1}));
  EXPECT_EQ(mesh->ToString(), "Mesh('x': 2, 'y': 3)");
  EXPECT_EQ(mesh->AxisNamesTuple(), "('x', 'y')");
}

TEST(MeshTest, ExplicitDeviceArray) {
  absl::StatusOr<Mesh> mesh = Mesh::Create({{"x", 2}, {"y", 2}}, {0, 2, 1, 3});
  ASSERT_OK(mesh);
  EXPECT_FALSE(mesh->has_default_devices());
  EXPECT_THAT(mesh->DeviceAt({0, 1}), IsOkAndHolds(2));
  EXPECT_THAT(mesh->PositionOf(2), IsOkAndHolds(1));
  EXPECT_THAT(mesh->CoordinateOf(1), IsOkAndHolds(std::vector<int64_t>{1, 0}));
  EXPECT_EQ(mesh->ToString(), "Mesh('x': 2, 'y': 2, devices=[0, 2, 1, 3])");
  // The identity array is the default order.
  EXPECT_EQ(MakeMesh({{"x", 2}}, {0, 1}), MakeMesh({{"x", 2}}));
}

// How many devices a client needs to hold the mesh: the largest id + 1, whatever the order.
TEST(MeshTest, DeviceIdBoundIsTheLargestIdPlusOne) {
  EXPECT_EQ(MakeMesh({{"x", 2}, {"y", 3}}).device_id_bound(), 6);
  EXPECT_EQ(MakeMesh({{"x", 4}}, {4, 5, 6, 7}).device_id_bound(), 8);
  EXPECT_EQ(MakeMesh({{"x", 2}, {"y", 2}}, {3, 0, 9, 1}).device_id_bound(), 10);
  EXPECT_EQ(Mesh().device_id_bound(), 1);
}

TEST(MeshTest, EmptyMeshHasOneDevice) {
  Mesh mesh;
  EXPECT_EQ(mesh.num_devices(), 1);
  EXPECT_EQ(mesh.ToString(), "Mesh()");
  EXPECT_THAT(Mesh::Parse("Mesh()"), IsOkAndHolds(mesh));
  EXPECT_EQ(mesh.AxisNamesTuple(), "()");
}

// The strings JAX 0.10.2 printed for repr(mesh) and str(mesh) (8 CPU devices); neither names
// the device ids, so a permuted mesh prints as the default one.
TEST(MeshTest, JaxReprAndStrAsJaxPrintsThem) {
  const Mesh auto_axes = MakeMesh({{"x", 2}, {"y", 4}});
  EXPECT_EQ(auto_axes.JaxRepr(),
            "Mesh(axis_sizes=(2, 4), axis_names=('x', 'y'), axis_types=(Auto, Auto))");
  EXPECT_EQ(auto_axes.JaxStr(), "Mesh('x': 2, 'y': 4, axis_types=(Auto, Auto))");
  const Mesh typed =
      *Mesh::Create({{"x", 2}, {"y", 4}}, {}, {MeshAxisType::kManual, MeshAxisType::kExplicit});
  EXPECT_EQ(typed.JaxRepr(),
            "Mesh(axis_sizes=(2, 4), axis_names=('x', 'y'), axis_types=(Manual, Explicit))");
  EXPECT_EQ(typed.JaxStr(), "Mesh('x': 2, 'y': 4, axis_types=(Manual, Explicit))");
  const Mesh one_axis = MakeMesh({{"x", 2}});
  EXPECT_EQ(one_axis.JaxRepr(), "Mesh(axis_sizes=(2,), axis_names=('x',), axis_types=(Auto,))");
  EXPECT_EQ(one_axis.JaxStr(), "Mesh('x': 2, axis_types=(Auto,))");
  EXPECT_EQ(Mesh().JaxRepr(), "Mesh(axis_sizes=(), axis_names=(), axis_types=())");
  EXPECT_EQ(Mesh().JaxStr(), "Mesh(, axis_types=())");
  const Mesh permuted = MakeMesh({{"x", 2}, {"y", 4}}, {0, 2, 1, 3, 4, 6, 5, 7});
  EXPECT_EQ(permuted.JaxRepr(), auto_axes.JaxRepr());
  EXPECT_EQ(permuted.JaxStr(), auto_axes.JaxStr());
  // The canonical text keeps what JAX's leaves out, and str reads back.
  EXPECT_EQ(permuted.ToString(), "Mesh('x': 2, 'y': 4, devices=[0, 2, 1, 3, 4, 6, 5, 7])");
  for (const Mesh& m : {auto_axes, typed, one_axis, Mesh()}) {
    EXPECT_THAT(Mesh::Parse(m.JaxStr()), IsOkAndHolds(m)) << m.JaxStr();
    EXPECT_THAT(Mesh::Parse(m.JaxRepr()), IsOkAndHolds(m)) << m.JaxRepr();
  }
}

TEST(MeshTest, ParsesJaxReprTuples) {
  EXPECT_THAT(Mesh::Parse("Mesh(axis_sizes=(2, 4), axis_names=('x', 'y'), devices=[7, 6, 5, 4, "
                          "3, 2, 1, 0])"),
              IsOkAndHolds(MakeMesh({{"x", 2}, {"y", 4}}, {7, 6, 5, 4, 3, 2, 1, 0})));
  EXPECT_THAT(Mesh::Parse("Mesh(axis_names=(\"x\",), axis_sizes=(8,))"),
              IsOkAndHolds(MakeMesh({{"x", 8}})));
  // An axis may still be called axis_sizes.
  EXPECT_THAT(Mesh::Parse("axis_sizes=2"), IsOkAndHolds(MakeMesh({{"axis_sizes", 2}})));
  EXPECT_THAT(Mesh::Parse("Mesh(axis_sizes=(2, 4), axis_types=(Auto, Auto))"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 5: axis_sizes= and axis_names= are given together")));
  EXPECT_THAT(
      Mesh::Parse("Mesh(axis_sizes=(2, 4), axis_names=('x',))"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 axis_names for 2 axis_sizes")));
  EXPECT_THAT(Mesh::Parse("Mesh('x': 2, axis_sizes=(2,), axis_names=('x',))"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("axis_sizes= with axes written as 'name': size")));
  EXPECT_THAT(Mesh::Parse("Mesh(axis_sizes=(2, 0), axis_names=('x', 'y'))"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'y'")));
  EXPECT_THAT(Mesh::Parse("Mesh(axis_sizes=(2, 4), axis_names=(x, y))"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a quoted mesh axis name")));
  EXPECT_THAT(Mesh::Parse("Mesh(axis_sizes=(2 4), axis_names=('x', 'y'))"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("',' or ')'")));
}

TEST(MeshTest, ParsesAllForms) {
  const Mesh want = MakeMesh({{"x", 2}, {"y", 2}});
  for (const char* text : {"Mesh('x': 2, 'y': 2)", "{x:2, y:2}", "x=2,y=2", " x = 2 , y = 2 ",
                           "{'x': 2, \"y\": 2}", "Mesh('x': 2, 'y': 2,)"}) {
    EXPECT_THAT(Mesh::Parse(text), IsOkAndHolds(want)) << text;
  }
  const Mesh permuted = MakeMesh({{"x", 2}, {"y", 2}}, {3, 2, 1, 0});
  for (const char* text : {"Mesh('x': 2, 'y': 2, devices=[3, 2, 1, 0])", "x=2,y=2,devices=3,2,1,0",
                           "{x:2, y:2, devices=[3,2,1,0]}", "x=2,y=2,devices=[3,2,1,0]"}) {
    EXPECT_THAT(Mesh::Parse(text), IsOkAndHolds(permuted)) << text;
  }
  EXPECT_THAT(Mesh::Parse("Mesh=2"), IsOkAndHolds(MakeMesh({{"Mesh", 2}})));
}

TEST(MeshTest, RejectsBadMeshes) {
  EXPECT_THAT(Mesh::Create({{"x", 2}, {"x", 3}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("axis name 'x' is used twice (axes 0 and 1)")));
  EXPECT_THAT(Mesh::Create({{"x", 0}}), StatusIs(absl::StatusCode::kInvalidArgument,
                                                 HasSubstr("axis 'x' has size 0 (must be >= 1)")));
  EXPECT_THAT(Mesh::Create({{"1x", 2}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("axis 0 has the name '1x'")));
  EXPECT_THAT(Mesh::Create({{"x", 2}}, {0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("device id 0 appears twice (again at position 1)")));
  EXPECT_THAT(Mesh::Create({{"x", 2}}, {0, 65536}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("device id 65536 at position 1 is outside [0, 65536)")));
  EXPECT_THAT(Mesh::Create({{"x", 2}}, {0, -2}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("device id -2 at position 1 is outside [0, 65536)")));
  // Any distinct ids: a mesh on part of a machine.
  EXPECT_TRUE(Mesh::Create({{"x", 2}}, {0, 2}).ok());
  EXPECT_THAT(Mesh::Create({{"x", 2}}, {0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the device array has 1 entries but the mesh has 2 devices")));
  EXPECT_THAT(Mesh::Create({{"a", 1 << 10}, {"b", 1 << 10}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("more than 65536 devices (at axis 'b')")));
  EXPECT_THAT(Mesh::Create({{"a", INT64_MAX}, {"b", INT64_MAX}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than 65536 devices")));
}

// Mesh axis names follow the identifier rule of Axis names (Axis::IsValidName). `m` is a
// valid mesh axis name, as in JAX; only per_axis layouts, whose device axes take the mesh
// axes' names, refuse it (to_axe_test).
TEST(MeshTest, AxisNamesFollowTheAxisRules) {
  EXPECT_OK(Mesh::Create({{"x", 2}, {"m", 2}}));
  EXPECT_OK(Mesh::Parse("Mesh('x': 2, 'm': 2)"));
  EXPECT_THAT(Mesh::Create({{"1x", 2}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("mesh: axis 0 has the name '1x', which is not an identifier")));
  EXPECT_THAT(Mesh::Create({{"x-y", 2}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is not an identifier")));
  EXPECT_OK(Mesh::Create({{"_m2", 2}, {"mm", 2}}));
  EXPECT_THAT(
      PartitionSpec::Create({{"x y"}}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("PartitionSpec: entry 0 names 'x y', which is not an identifier")));
}

TEST(MeshTest, ParseErrorsNamePositions) {
  EXPECT_THAT(Mesh::Parse("x=2,y"), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("position 5: expected ':' or '='")));
  EXPECT_THAT(Mesh::Parse("x=2;y=2"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 3: expected ',' or end of input")));
  EXPECT_THAT(Mesh::Parse("{x:-2}"), StatusIs(absl::StatusCode::kInvalidArgument,
                                              HasSubstr("position 3: mesh axis 'x' has size -2")));
  EXPECT_THAT(Mesh::Parse("Mesh('x': 2"), StatusIs(absl::StatusCode::kInvalidArgument,
                                                   HasSubstr("position 11: expected ',' or ')'")));
  EXPECT_THAT(Mesh::Parse("Mesh('x y': 2)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 6: 'x y' is not an identifier")));
  EXPECT_THAT(Mesh::Parse("x=99999999999999999999"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 2")));
  EXPECT_THAT(Mesh::Parse(std::string(Mesh::kMaxTextLength + 1, ' ')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("characters (at most")));
  EXPECT_THAT(Mesh::Parse("x=2,devices=[1,0] y=1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected end of input")));
}

TEST(MeshTest, RandomMeshesRoundTripAndInvert) {
  std::mt19937_64 rng(testing_support::TestSeed(1001));
  std::vector<Mesh> meshes;
  for (int trial = 0; trial < 300; ++trial) {
    const auto [axes, devices] = RandomMesh(rng, 4);
    absl::StatusOr<Mesh> mesh = Mesh::Create(axes, devices);
    const int64_t n = mesh.ok() ? mesh->num_devices() : 0;
    ASSERT_OK(mesh);
    EXPECT_THAT(Mesh::Parse(mesh->ToString()), IsOkAndHolds(*mesh)) << mesh->ToString();
    for (int64_t d = 0; d < n; ++d) {
      absl::StatusOr<std::vector<int64_t>> c = mesh->CoordinateOf(d);
      ASSERT_OK(c);
      EXPECT_THAT(mesh->DeviceAt(*c), IsOkAndHolds(d));
    }
    meshes.push_back(*mesh);
  }
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly(meshes));
}

}  // namespace
}  // namespace mesh_test
}  // namespace axe::sharding

namespace axe::sharding {
namespace mesh_test {
namespace {

// JAX 0.10 prints axis types in every Mesh repr; axe keeps them (they are part of the value)
// and prints them only when one is not Auto.
TEST(MeshAxisTypesTest, ReadsJaxReprAndKeepsNonAutoTypes) {
  absl::StatusOr<Mesh> m = Mesh::Parse("Mesh('x': 2, 'y': 2, axis_types=(Auto, Auto))");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->ToString(), "Mesh('x': 2, 'y': 2)");
  EXPECT_TRUE(m->has_default_axis_types());

  m = Mesh::Parse("Mesh('x': 2, 'y': 2, axis_types=(Explicit, AxisType.Manual))");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->ToString(), "Mesh('x': 2, 'y': 2, axis_types=(Explicit, Manual))");
  EXPECT_EQ(m->axis_type(1), MeshAxisType::kManual);
  EXPECT_NE(*m, *Mesh::Parse("x=2,y=2"));
  EXPECT_EQ(*Mesh::Parse(m->ToString()), *m);

  // JAX's repr of the mesh with no axes.
  m = Mesh::Parse("Mesh(, axis_types=())");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->ToString(), "Mesh()");

  m = Mesh::Parse("Mesh('x': 2, axis_types=(Explicit,), devices=[1, 0])");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->ToString(), "Mesh('x': 2, devices=[1, 0], axis_types=(Explicit,))");
  EXPECT_EQ(*Mesh::Parse(m->ToString()), *m);
}

TEST(MeshAxisTypesTest, Errors) {
  EXPECT_THAT(Mesh::Parse("Mesh('x': 2, axis_types=(Auto, Auto))"),
              testing_support::StatusIs(absl::StatusCode::kInvalidArgument,
                                        ::testing::HasSubstr("2 axis types for 1 axes")));
  EXPECT_THAT(Mesh::Parse("Mesh('x': 2, axis_types=(Sideways,))"),
              testing_support::StatusIs(absl::StatusCode::kInvalidArgument,
                                        ::testing::HasSubstr("an axis type (Auto, Explicit or "
                                                             "Manual)")));
  EXPECT_THAT(Mesh::Parse("Mesh('x': 2, axis_types=(Auto,), 'y': 2)"),
              testing_support::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("expected devices=, axis_types=, axis_sizes= or "
                                       "axis_names= (after the axes)")));
}

}  // namespace
}  // namespace mesh_test
}  // namespace axe::sharding
