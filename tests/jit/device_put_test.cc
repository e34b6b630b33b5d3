#include "axe/jit/device_put.h"

#include <memory>
#include <numeric>
#include <vector>

#include "axe/base/python_error.h"
#include "axe/ir/parser.h"
#include "axe/jit/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::jit {
namespace device_put_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

std::vector<uint8_t> IotaBytes(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  return std::vector<uint8_t>(p, p + n * 4);
}

TEST(DevicePut, PutsInTheFormatAndCommits) {
  // [LT-8]: Format(None, s) works and the result is committed; x.format == the Format.
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(2);
  const std::vector<uint8_t> host = IotaBytes(64);
  Format format = *Format::Parse("Format(Layout((1, 0)), NamedSharding(Mesh('x': 2), P('x')))");
  absl::StatusOr<runtime::Array> a = DevicePut(*client, host, {8, 8}, DType::kF32, format);
  ASSERT_OK(a.status());
  EXPECT_TRUE(a->committed());
  EXPECT_EQ(*a->ToHost(), host);
  EXPECT_EQ(FormatOf(*a).ToString(),
            "Format(layout=Layout(major_to_minor=(1, 0), tiling=(), "
            "sub_byte_element_size_in_bits=0), sharding=NamedSharding(mesh=Mesh('x': 2), "
            "spec=P('x',)))");
  absl::StatusOr<runtime::Array> plain =
      DevicePut(*client, host, {8, 8}, DType::kF32, *Format::Parse("Format()"));
  ASSERT_OK(plain.status());
  EXPECT_TRUE(plain->committed());
}

// The array keeps the Format it was put with: a SingleDeviceSharding reads back as itself,
// on the device it names.
TEST(DevicePut, SingleDeviceShardingReadsBackAsItself) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(4);
  const std::vector<uint8_t> host = IotaBytes(64);
  Format format = *Format::Parse("Format(None, SingleDeviceSharding(device=2))");
  absl::StatusOr<runtime::Array> a = DevicePut(*client, host, {8, 8}, DType::kF32, format);
  ASSERT_OK(a.status());
  EXPECT_EQ(a->format(), format);
  EXPECT_EQ(FormatOf(*a).ToString(),
            "Format(layout=Layout(major_to_minor=(0, 1), tiling=(), "
            "sub_byte_element_size_in_bits=0), sharding=SingleDeviceSharding(device=2))");
  EXPECT_EQ(*a->ShardToHost(2), host);
  EXPECT_EQ(a->shard_buffer(0), nullptr);
}

TEST(DevicePut, AutoIsRejectedWithJaxsTexts) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(1);
  const std::vector<uint8_t> host = IotaBytes(64);
  // [LT-8]
  EXPECT_THAT(DevicePut(*client, host, {8, 8}, DType::kF32, *Format::Parse("Format(Layout.AUTO)")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "sharding and layout in `Layout` instance should be concrete. Got layout: "
                       "Format(layout=AUTO, sharding=None) for input f32[8,8]"));
  absl::Status sds =
      ShapeDtypeStruct::Create({8, 8}, DType::kF32, *Format::Parse("Format(Layout.AUTO)")).status();
  EXPECT_THAT(sds, StatusIs(absl::StatusCode::kInvalidArgument,
                            HasSubstr("`Layout.AUTO` cannot be used in place of a device-local "
                                      "layout in a `ShapeDtypeStruct`. Got ")));
  EXPECT_TRUE(IsTypeError(sds));
  EXPECT_OK(ShapeDtypeStruct::Create({8, 8}, DType::kF32,
                                     *Format::Parse("Format(Layout((1, 0)), "
                                                    "SingleDeviceSharding(device=0))"))
                .status());
}

constexpr char kIdentity[] = R"({ lambda ; a:f32[8] b:f32[4]. let
    c:f32[8] = mul a 2.0:f32[]
  in (b, c) })";

CompileOptions Donate(size_t input) {
  CompileOptions options;
  options.donate_argnums = {input};
  return options;
}

TEST(Donation, AutoAgainstAConcreteLayoutIsJaxsError) {
  ir::ClosedJaxpr jaxpr = *ir::ParseJaxpr(kIdentity);
  Format automatic = *Format::Create(AutoLayout{});
  Format concrete = *Format::Parse("Format(Layout((0,)), SingleDeviceSharding(device=0))");
  // Input 0 (f32[8]) aliases output 1 (the first f32[8] output).
  absl::StatusOr<Compiled> ok = Compile(jaxpr, {automatic, {}}, {{}, automatic}, Donate(0));
  ASSERT_OK(ok.status());
  EXPECT_THAT(ok->donations(), ElementsAre(Pair(0u, 1u)));
  EXPECT_THAT(Compile(jaxpr, {automatic, {}}, {{}, concrete}, Donate(0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input layout being donated was AUTO while output layout was "
                                 "Layout(major_to_minor=(0,), tiling=None, "
                                 "sub_byte_element_size_in_bits=0). Did you mean to set the "
                                 "**output layout** to **Layout.AUTO**?")));
  EXPECT_THAT(Compile(jaxpr, {concrete, {}}, {{}, automatic}, Donate(0)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Did you mean to set the **input layout** to **Layout.AUTO**?")));
  // An input no output matches is not aliased; an index out of range is an error.
  absl::StatusOr<Compiled> b = Compile(jaxpr, {}, {}, Donate(1));
  ASSERT_OK(b.status());
  EXPECT_THAT(b->donations(), ElementsAre(Pair(1u, 0u)));
  EXPECT_THAT(Compile(jaxpr, {}, {}, Donate(2)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "donate_argnums entry 2 is out of range for a program with 2 inputs"));
}

}  // namespace
}  // namespace device_put_test
}  // namespace axe::jit
