#include "axe/sharding/format.h"

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/hash/hash.h"
#include "axe/base/python_error.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "test_util.h"

namespace axe::sharding {
namespace format_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Property;

const Sharding kFallbackSharding = SingleDeviceSharding::Create(0).value();

Sharding ParsedSharding(absl::string_view text) {
  return ValueOrFail(Sharding::Parse(text), std::string(text), kFallbackSharding);
}

Format ParsedFormat(absl::string_view text) {
  return ValueOrFail(Format::Parse(text), std::string(text), Format());
}

LocalLayout ParsedLayout(absl::string_view text) {
  return ValueOrFail(LocalLayout::Parse(text), std::string(text), LocalLayout::Create({}).value());
}

Format MakeFormat(Format::LayoutChoice layout, std::optional<Sharding> sharding) {
  return ValueOrFail(Format::Create(std::move(layout), std::move(sharding)), "Format::Create",
                     Format());
}

// ---- Sharding ----

TEST(ShardingTest, ParsesNamedShardingsInEveryForm) {
  const Sharding want = Named("x=2,y=2", "P('x')");
  for (const char* text : {
           "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',))",
           "NamedSharding(Mesh('x': 2, 'y': 2), P('x'))",
           "NamedSharding(spec=P('x'), mesh={x:2, y:2})",
           "jax.sharding.NamedSharding( Mesh('x': 2, 'y': 2) , PartitionSpec('x', ) )",
       }) {
    EXPECT_THAT(Sharding::Parse(text), IsOkAndHolds(want)) << text;
  }
  EXPECT_EQ(want.ToString(), "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',))");
  const Sharding pinned = ParsedSharding(
      "NamedSharding(mesh=Mesh('x': 2, 'y': 2, devices=[0, 2, 1, 3]), spec=P(('x', 'y'),), "
      "memory_kind=pinned_host)");
  ASSERT_NE(pinned.named(), nullptr);
  EXPECT_EQ(pinned.memory_kind(), "pinned_host");
  EXPECT_EQ(pinned.named()->mesh().device_array(), (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_THAT(Sharding::Parse(pinned.ToString()), IsOkAndHolds(pinned));
  EXPECT_THAT(Sharding::Parse("NamedSharding(Mesh('x': 2), P(), 'device')"),
              IsOkAndHolds(Property(&Sharding::memory_kind, std::optional<std::string>("device"))));
}

TEST(ShardingTest, ParsesSingleDeviceShardings) {
  for (const char* text : {"SingleDeviceSharding(device=3)", "SingleDeviceSharding(3)",
                           "SingleDeviceSharding(device=CpuDevice(id=3))",
                           "SingleDeviceSharding(TpuDevice(id=3, process_index=0, "
                           "coords=(1,1,0), core_on_chip=0))"}) {
    absl::StatusOr<Sharding> s = Sharding::Parse(text);
    ASSERT_OK(s) << text;
    ASSERT_NE(s->single_device(), nullptr) << text;
    EXPECT_EQ(s->single_device()->device(), 3) << text;
    EXPECT_EQ(s->ToString(), "SingleDeviceSharding(device=3)");
  }
  const Sharding host = ParsedSharding("SingleDeviceSharding(device=1, memory_kind=pinned_host)");
  EXPECT_EQ(host.ToString(), "SingleDeviceSharding(device=1, memory_kind=pinned_host)");
  EXPECT_THAT(Sharding::Parse(host.ToString()), IsOkAndHolds(host));
}

// What current JAX prints for an array's .format (TPU device, tiled layout).
TEST(ShardingTest, ReadsWhatJaxPrints) {
  EXPECT_THAT(
      Format::Parse("Format(layout=Layout(major_to_minor=(1, 0), tiling=((8, 128),), "
                    "sub_byte_element_size_in_bits=0), sharding=SingleDeviceSharding("
                    "device=TpuDevice(id=0, process_index=0, coords=(0,0,0), core_on_chip=0), "
                    "memory_kind=device))"),
      IsOkAndHolds(Property(&Format::ToString,
                            "Format(layout=Layout(major_to_minor=(1, 0), tiling=((8, 128),), "
                            "sub_byte_element_size_in_bits=0), sharding=SingleDeviceSharding("
                            "device=0, memory_kind=device))")));
  EXPECT_THAT(Sharding::Parse("NamedSharding(mesh=Mesh('x': 2, 'y': 2, axis_types=(Auto, Auto)), "
                              "spec=PartitionSpec('x',), memory_kind=device)"),
              IsOkAndHolds(Property(&Sharding::memory_kind, std::optional<std::string>("device"))));
  // Axis types (read by Mesh::Parse) are kept and do not change the device map.
  const Sharding explicit_types = ParsedSharding(
      "NamedSharding(Mesh('x': 2, 'y': 2, axis_types=(Explicit, Explicit)), P('x'))");
  EXPECT_THAT(explicit_types.ToString(), HasSubstr("axis_types=(Explicit, Explicit)"));
  EXPECT_THAT(Sharding::Parse(explicit_types.ToString()), IsOkAndHolds(explicit_types));
  absl::StatusOr<std::vector<DeviceShard>> map = DevicesIndicesMap(explicit_types, {8, 8});
  absl::StatusOr<std::vector<DeviceShard>> want =
      DevicesIndicesMap(Named("x=2,y=2", "P('x')"), {8, 8});
  ASSERT_OK(map);
  ASSERT_OK(want);
  EXPECT_EQ(FirstDifference(*map, *want), std::nullopt);
  EXPECT_THAT(
      Sharding::Parse("NamedSharding(Mesh('x': 2, 'y': 0, axis_types=(Auto, Auto)), P('x'))"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 14: in the mesh argument")));
}

TEST(ShardingTest, ParseErrors) {
  struct Bad {
    const char* text;
    const char* message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {"NamedSharding(Mesh('x': 2))",
            "position 0: NamedSharding() missing 1 required positional argument: 'spec'"},
           {"NamedSharding(Mesh('x': 0), P())", "position 14: in the mesh argument: "},
           {"NamedSharding(Mesh('x': 2), P('x'", "position 29: '(' is never closed"},
           {"NamedSharding(Mesh('x': 2, 'y': 2), P('z'))",
            "position 36: in the spec argument: Resource axis: z of P('z',) is not found in mesh: "
            "('x', 'y')."},
           {"NamedSharding(Mesh('x': 2), P(), memory_kind=disk)",
            "position 45: in the memory_kind argument: unknown memory kind 'disk'"},
           {"SingleDeviceSharding(device=-1)", "position 28: in the device argument: "},
           {"SingleDeviceSharding(device=CpuDevice(kind='cpu'))",
            "position 28: the device has no id"},
           {"SingleDeviceSharding(device=3 4)", "position 30: expected ',' or ')'"},
           {"PositionalSharding(3)",
            "position 0: expected NamedSharding(...) or SingleDeviceSharding(...)"},
           {"SingleDeviceSharding(3) + 1", "position 24: expected the end of the text"},
       }) {
    EXPECT_THAT(Sharding::Parse(bad.text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(bad.message)))
        << bad.text;
  }
  EXPECT_THAT(Sharding::Parse(std::string(Sharding::kMaxTextLength + 1, ' ')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("characters (at most")));
}

// The largest sharding (65536 devices in an explicit order, 16 axes with names of 256
// characters) prints within the text limit and parses back, inside a Format too.
TEST(ShardingTest, LargestValuesRoundTrip) {
  std::vector<MeshAxis> axes;
  std::vector<PartitionSpec::Entry> entries(2);
  for (int j = 0; j < 16; ++j) {
    axes.push_back({std::string(255, 'a') + static_cast<char>('a' + j), 2});
    entries[static_cast<size_t>(j % 2)].push_back(axes.back().name);
  }
  std::vector<int64_t> devices(int64_t{1} << 16);
  for (size_t d = 0; d < devices.size(); ++d)
    devices[d] = static_cast<int64_t>(devices.size() - 1 - d);
  const NamedSharding named = MakeNamed(MakeMesh(axes, devices), Spec(entries));
  ASSERT_EQ(named.mesh().num_devices(), int64_t{1} << 16);
  const Sharding s = named;
  EXPECT_LE(s.ToString().size(), Sharding::kMaxTextLength);
  EXPECT_THAT(Sharding::Parse(s.ToString()), IsOkAndHolds(s));
  const Format f = MakeFormat(ParsedLayout("Layout((1, 0), ((8, 128),))"), s);
  EXPECT_THAT(Format::Parse(f.ToString()), IsOkAndHolds(f));
}

TEST(ShardingTest, QueriesDispatch) {
  EXPECT_THAT(ShardShape(Named("x=2,y=2", "P('x')"), {8, 8}), IsOkAndHolds(ElementsAre(4, 8)));
  EXPECT_THAT(ShardShape(ParsedSharding("SingleDeviceSharding(device=3)"), {8, 8}),
              IsOkAndHolds(ElementsAre(8, 8)));
  EXPECT_THAT(ShardShape(ParsedSharding("SingleDeviceSharding(device=3)"), {8, -1}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dimension 1")));
  absl::StatusOr<std::vector<DeviceShard>> map =
      DevicesIndicesMap(ParsedSharding("SingleDeviceSharding(device=3)"), {8, 8});
  ASSERT_OK(map);
  ASSERT_EQ(map->size(), 1u);
  EXPECT_EQ((*map)[0].device, 3);
  absl::StatusOr<std::vector<DeviceShard>> named =
      DevicesIndicesMap(Named("x=2,y=2", "P('x')"), {8, 8});
  ASSERT_OK(named);
  EXPECT_EQ((*named)[2].IndexToString(), "[[4, 8], [0, 8]]");
}

// ---- Format ----

TEST(FormatTest, ReprAndLegalForms) {
  EXPECT_EQ(Format().ToString(), "Format(layout=None, sharding=None)");
  EXPECT_EQ(MakeFormat(AutoLayout{}, std::nullopt).ToString(),
            "Format(layout=AUTO, sharding=None)");
  const Format f = MakeFormat(ParsedLayout("Layout((1, 0))"), Named("x=2,y=2", "P('x')"));
  EXPECT_EQ(f.ToString(),
            "Format(layout=Layout(major_to_minor=(1, 0), tiling=None, "
            "sub_byte_element_size_in_bits=0), sharding=NamedSharding(mesh=Mesh('x': 2, 'y': 2), "
            "spec=P('x',)))");
  EXPECT_THAT(Format::Parse("Format()"), IsOkAndHolds(Format()));
  EXPECT_THAT(Format::Parse("Format(Layout.AUTO)"),
              IsOkAndHolds(MakeFormat(AutoLayout{}, std::nullopt)));
  EXPECT_THAT(Format::Parse("Format(AUTO, None)"),
              IsOkAndHolds(MakeFormat(AutoLayout{}, std::nullopt)));
  EXPECT_THAT(Format::Parse("Format(None, NamedSharding(Mesh('x': 2, 'y': 2), P('x')))"),
              IsOkAndHolds(MakeFormat({}, Named("x=2,y=2", "P('x')"))));
  for (const char* text : {
           "Format(Layout((1, 0)), NamedSharding(Mesh('x': 2, 'y': 2), P('x')))",
           "Format(sharding=NamedSharding(Mesh('x': 2, 'y': 2), P('x')), layout=Layout((1,0)))",
           "Format(device_local_layout=DeviceLocalLayout((1,0)), "
           "sharding=NamedSharding(Mesh('x': 2, 'y': 2), P('x')))",
       }) {
    EXPECT_THAT(Format::Parse(text), IsOkAndHolds(f)) << text;
  }
  EXPECT_THAT(Format::Parse(f.ToString()), IsOkAndHolds(f));
  EXPECT_TRUE(f.local_layout() != nullptr);
  EXPECT_FALSE(f.is_auto());
}

TEST(FormatTest, EqualityAndHash) {
  const Format none;
  const Format autof = MakeFormat(AutoLayout{}, std::nullopt);
  const Format auto_named = MakeFormat(AutoLayout{}, Named("x=2", "P('x')"));
  const Format concrete = MakeFormat(ParsedLayout("Layout((0,))"), Named("x=2", "P('x')"));
  const Format tiled = MakeFormat(ParsedLayout("Layout((0,), ())"), Named("x=2", "P('x')"));
  const Format single = MakeFormat(ParsedLayout("Layout((0,))"), kFallbackSharding);
  EXPECT_NE(concrete, tiled);
  EXPECT_NE(autof, none);
  const std::vector<Format> all = {none, autof, auto_named, concrete, tiled, single};
  for (size_t a = 0; a < all.size(); ++a) {
    for (size_t b = 0; b < all.size(); ++b) {
      EXPECT_EQ(all[a] == all[b], a == b) << all[a] << " vs " << all[b];
      if (a != b) {
        EXPECT_NE(absl::HashOf(all[a]), absl::HashOf(all[b])) << all[a];
      }
    }
    // An equal value built another way hashes the same.
    const Format again = ParsedFormat(all[a].ToString());
    EXPECT_EQ(again, all[a]);
    EXPECT_EQ(absl::HashOf(again), absl::HashOf(all[a]));
  }
}

// Spec §3's errors, with JAX's texts.
TEST(FormatTest, ConcreteLayoutNeedsASharding) {
  const char* kValueError =
      "Sharding has to be concrete when layout is of type <class 'jax._src.layout.Layout'>. "
      "Please pass a `jax.sharding.NamedSharding` or `jax.sharding.SingleDeviceSharding` to the "
      "sharding argument. Got sharding None";
  EXPECT_THAT(Format::Create(ParsedLayout("Layout((0,))")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(kValueError)));
  EXPECT_THAT(Format::Parse("Format(Layout((0,)))"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(std::string("position 0: ") + kValueError)));
  EXPECT_THAT(Format::Parse("Format(Layout((0,)), None)"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(kValueError)));
}

TEST(FormatTest, ParseTypeErrorsUseJaxsTexts) {
  const std::string layout_error =
      "Invalid value received for the layout argument. Expected values are `None`, "
      "`Layout.AUTO` or an instance of `Layout`. Got ";
  const std::string sharding_error =
      "Invalid value received for the sharding argument. Expected values are `None` or an "
      "instance of `jax.Sharding`. Got ";
  struct Bad {
    const char* text;
    std::string message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {"Format(5)", "position 7: " + layout_error + "5 of type <class 'int'>"},
           {"Format((1, 0))", layout_error + "(1, 0) of type <class 'tuple'>"},
           {"Format('AUTO')", layout_error + "AUTO of type <class 'str'>"},
           {"Format(NamedSharding(Mesh('x': 2), P('x')))",
            layout_error + "NamedSharding(Mesh('x': 2), P('x')) of type "
                           "<class 'jax._src.named_sharding.NamedSharding'>"},
           {"Format(SingleDeviceSharding(0))",
            layout_error + "SingleDeviceSharding(0) of type "
                           "<class 'jax._src.sharding_impls.SingleDeviceSharding'>"},
           {"Format(None, Layout((0,)))",
            "position 13: " + sharding_error +
                "Layout((0,)) of type <class 'jax._src.layout.Layout'>"},
           {"Format(None, Layout.AUTO)",
            sharding_error + "Layout.AUTO of type <class 'jax._src.layout.AutoLayout'>"},
           {"Format(None, [0, 1])", sharding_error + "[0, 1] of type <class 'list'>"},
           {"Format(None, PositionalSharding(devices))",
            sharding_error + "PositionalSharding(devices) of type <class 'PositionalSharding'>"},
           {"Format(None, 2.5)", sharding_error + "2.5 of type <class 'float'>"},
           {"Format(None, -1e5)", sharding_error + "-1e5 of type <class 'float'>"},
           {"Format(None, .5)", sharding_error + ".5 of type <class 'float'>"},
           {"Format(None, {})", sharding_error + "{} of type <class 'dict'>"},
           {"Format(None, {1})", sharding_error + "{1} of type <class 'set'>"},
           {"Format(True)", layout_error + "True of type <class 'bool'>"},
       }) {
    const absl::StatusOr<Format> parsed = Format::Parse(bad.text);
    EXPECT_THAT(parsed, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(bad.message)))
        << bad.text;
    EXPECT_TRUE(IsTypeError(parsed.status())) << bad.text;
  }
}

TEST(FormatTest, ParseErrorsNameThePosition) {
  struct Bad {
    const char* text;
    const char* message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {"Format(foo)", "position 7: expected a layout"},
           {"Format(-)", "position 7: expected a layout"},
           {"Format(1.2.3)", "position 7: expected a layout"},
           {"Format(None, 1e)", "position 13: expected a sharding"},
           {"Format(None, (1, 2) + 3)", "position 13: expected a sharding"},
           {"Format(None, bar)", "position 13: expected a sharding"},
           {"Format(Layout((1, 1, x)), SingleDeviceSharding(0))",
            "position 7: in the layout argument: position 14: expected an integer"},
           {"Format(Layout((0,)), NamedSharding(Mesh('x': 2), P('z')))",
            "in the sharding argument: position 28: in the spec argument: Resource axis: z"},
           {"Format(layout=None, layout=None)",
            "position 27: Format() got multiple values for argument 'layout'"},
           {"Format(None, None, None)", "position 19: Format() takes at most 2 arguments"},
           {"Formats()", "position 0: expected Format(...)"},
           {"Format(", "position 7: expected a value"},
           {"Format() Format()", "position 9: expected the end of the text"},
       }) {
    EXPECT_THAT(Format::Parse(bad.text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(bad.message)))
        << bad.text;
  }
  EXPECT_THAT(Format::Parse(std::string(Format::kMaxTextLength + 1, ' ')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("characters (at most")));
}

// parse(print(f)) == f over random layouts and shardings.
TEST(FormatTest, RandomFormatsRoundTrip) {
  std::mt19937_64 rng(testing_support::TestSeed(11));
  int checked = 0;
  for (int n = 0; n < 300; ++n) {
    Format::LayoutChoice layout;
    if (rng() % 3 == 1) layout = AutoLayout{};
    if (rng() % 3 == 2) {
      std::vector<int64_t> m2m(rng() % 4);
      for (size_t k = 0; k < m2m.size(); ++k) m2m[k] = static_cast<int64_t>(k);
      std::shuffle(m2m.begin(), m2m.end(), rng);
      std::optional<LocalLayout::Tiling> tiling;
      if (rng() % 2) tiling = LocalLayout::Tiling{{8, 128}, {2, 1}};
      layout = LocalLayout::Create(m2m, tiling, static_cast<int64_t>(rng() % 2) * 4).value();
    }
    std::optional<Sharding> sharding;
    if (rng() % 3 == 1) {
      const auto [axes, devices] = RandomMesh(rng, 3);
      const Mesh mesh = MakeMesh(axes, devices);
      const std::optional<std::string> kinds[] = {std::nullopt, "device", "pinned_host"};
      sharding = ValueOrFail(
          NamedSharding::Create(mesh, Spec(RandomSpecEntries(rng, axes, 3)), kinds[rng() % 3]),
          "NamedSharding::Create", NamedSharding::Create(Mesh(), {}).value());
    } else if (rng() % 2) {
      sharding = SingleDeviceSharding::Create(static_cast<int64_t>(rng() % 100)).value();
    }
    absl::StatusOr<Format> f = Format::Create(layout, sharding);
    if (!f.ok()) continue;
    ++checked;
    EXPECT_THAT(Format::Parse(f->ToString()), IsOkAndHolds(*f)) << *f;
  }
  EXPECT_GT(checked, 100);
}

// ---- Format -> Axe layout (spec §9) ----

std::string AxeOf(std::vector<int64_t> shape, absl::string_view format,
                  DeviceAxisMode mode = DeviceAxisMode::kFlat, DType dtype = DType::kF32) {
  absl::StatusOr<axe::Layout> l = FormatToAxe(shape, ParsedFormat(format), dtype, mode);
  if (!l.ok()) return std::string(l.status().message());
  return l->ToString();
}

TEST(FormatToAxeTest, SpecExamples) {
  EXPECT_EQ(
      AxeOf({4, 6}, "Format(Layout((0, 1)), NamedSharding(Mesh('x': 2, 'y': 3), P('x', 'y')))"),
      "S[(2,2,3,2):(3@gpuid,2,1@gpuid,1)]");
  EXPECT_EQ(
      AxeOf({4, 6}, "Format(Layout((1, 0)), NamedSharding(Mesh('x': 2, 'y': 3), P('x', 'y')))"),
      "S[(2,2,3,2):(3@gpuid,1,1@gpuid,2)]");
  EXPECT_EQ(
      AxeOf({12, 4}, "Format(Layout((0, 1)), NamedSharding(Mesh('x': 2, 'y': 3), P(('x', 'y'))))"),
      "S[(6,8):(1@gpuid,1)]");
  const char* split_replicate =
      "Format(Layout((0, 1)), NamedSharding(Mesh('x': 2, 'y': 2), P('x')))";
  EXPECT_EQ(AxeOf({8, 8}, split_replicate), "S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]");
  EXPECT_EQ(AxeOf({8, 8}, split_replicate, DeviceAxisMode::kPerAxis),
            "S[(2,32):(1@x,1)] + R[2:1@y] where x:device, y:device");
  absl::StatusOr<axe::Layout> l = FormatToAxe({8, 8}, ParsedFormat(split_replicate));
  ASSERT_OK(l);
  absl::StatusOr<std::vector<PhysCoord>> points = Apply(*l, {8, 8}, {5, 3});
  ASSERT_OK(points);
  ASSERT_EQ(points->size(), 2u);
  EXPECT_EQ((*points)[0].ToString(), "{gpuid:2, m:11}");
  EXPECT_EQ((*points)[1].ToString(), "{gpuid:3, m:11}");
  // A tiled local layout: f32[4,8] shards with tiling ((2,4),(2,1)).
  absl::StatusOr<axe::Layout> tiled = FormatToAxe(
      {8, 8}, ParsedFormat(
                  "Format(Layout((0, 1), ((2, 4), (2, 1))), NamedSharding(Mesh('x': 2), P('x')))"));
  absl::StatusOr<axe::Layout> want = axe::Layout::Parse("S[(2,2,2,2,4):(1@gpuid,16,1,8,2)]");
  ASSERT_OK(tiled);
  ASSERT_OK(want);
  EXPECT_THAT(Equivalent(*tiled, *want), IsOkAndHolds(true)) << *tiled;
}

// The example of format.h.
TEST(FormatToAxeTest, HeaderExample) {
  EXPECT_EQ(AxeOf({8, 8}, "Format(Layout((1, 0)), NamedSharding(Mesh('x': 2, 'y': 2), P('x')))"),
            "S[(2,4,8):(2@gpuid,1,4)] + R[2:1@gpuid]");
}

TEST(FormatToAxeTest, SingleDeviceIsAnOffset) {
  EXPECT_EQ(AxeOf({4, 6}, "Format(Layout((1, 0)), SingleDeviceSharding(device=3))"),
            "S[(4,6):(1,4)] + 3@gpuid");
  EXPECT_EQ(AxeOf({4, 6}, "Format(Layout((0, 1)), SingleDeviceSharding(device=0))"), "S[24:1]");
  // The E rule does not change the element map: s4 with a tiling.
  EXPECT_EQ(AxeOf({4, 256}, "Format(Layout((0, 1), ((2, 128),)), SingleDeviceSharding(0))",
                  DeviceAxisMode::kFlat, DType::kS4),
            "S[(2,2,2,128):(512,128,256,1)]");
}

TEST(FormatToAxeTest, Errors) {
  EXPECT_THAT(FormatToAxe({8}, ParsedFormat("Format(Layout.AUTO)")),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not expressible: the layout is AUTO; it is chosen at compile "
                                 "time")));
  EXPECT_THAT(FormatToAxe({8}, ParsedFormat("Format()")),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not expressible: the layout is None")));
  EXPECT_THAT(FormatToAxe({8}, ParsedFormat("Format(None, SingleDeviceSharding(0))")),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not expressible: the layout is None")));
  EXPECT_THAT(FormatToAxe({8}, ParsedFormat("Format(Layout((1, 0)), SingleDeviceSharding(0))")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Length of major_to_minor and the rank of the value should "
                                 "match. Got major_to_minor=(1, 0) and shape=(8,)")));
  EXPECT_THAT(FormatToAxe({8, 8}, ParsedFormat("Format(Layout((0, 0)), SingleDeviceSharding(0))")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("major_to_minor=(0, 0) is not a permutation")));
  EXPECT_THAT(
      FormatToAxe({6, 8},
                  ParsedFormat("Format(Layout((0, 1)), NamedSharding(Mesh('x': 4), P('x')))")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("dimension 0 should be divisible by 4 (mesh axes 'x')")));
  EXPECT_THAT(FormatToAxe({8, 8}, ParsedFormat("Format(Layout((0, 1), ((8, 128),)), "
                                               "NamedSharding(Mesh('x': 2), P('x')))")),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not expressible: the local layout pads the shard")));
}

}  // namespace
}  // namespace format_test
}  // namespace axe::sharding
