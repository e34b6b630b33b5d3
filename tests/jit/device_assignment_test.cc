// jit's incompatible-devices rule, with the texts JAX 0.10.2 printed for the same calls on 8
// CPU devices (argument names and "f" replaced by the jaxpr's names and "the program").
#include "axe/jit/device_assignment.h"

#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "axe/ir/parser.h"
#include "axe/jit/jit.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::jit {
namespace device_assignment_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

sharding::Sharding S(absl::string_view text) {
  absl::StatusOr<sharding::Sharding> s = sharding::Sharding::Parse(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  return *s;
}

const char kOn01[] = "NamedSharding(Mesh('x': 2, devices=[0, 1]), P('x'))";
const char kOn23[] = "NamedSharding(Mesh('x': 2, devices=[2, 3]), P('x'))";
const char kOn10[] = "NamedSharding(Mesh('x': 2, devices=[1, 0]), P('x'))";

TEST(DeviceAssignment, MeshDevicesInMeshOrderOrTheOneDevice) {
  EXPECT_EQ(DeviceAssignment(S(kOn23)), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(DeviceAssignment(S(kOn10)), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(DeviceAssignment(S("SingleDeviceSharding(device=5)")), (std::vector<int64_t>{5}));
  EXPECT_EQ(DeviceAssignment(S("NamedSharding(Mesh('x': 2, 'y': 2), P('x'))")),
            (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(DeviceAssignment, TheSameDevicesPassRepeatsAndUnspecifiedAreSkipped) {
  EXPECT_THAT(CheckDeviceAssignment({S(kOn01), std::nullopt, S(kOn01)},
                                    {S("NamedSharding(Mesh('y': 2, devices=[0, 1]), P())")}, {}),
              IsOk());
  EXPECT_THAT(CheckDeviceAssignment({}, {}, {}), IsOk());
}

TEST(DeviceAssignment, TwoInputShardingsWithoutArgumentsAreArgShardings) {
  // jax.jit(f, in_shardings=(s01, s23)).lower(...): both sides are ARG_SHARDING.
  EXPECT_THAT(CheckDeviceAssignment({S(kOn01), S(kOn23)}, {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Received incompatible devices for jitted computation. Got ARG_SHARDING "
                       "with device ids [0, 1] on platform CPU and ARG_SHARDING with device ids "
                       "[2, 3] on platform CPU"));
}

TEST(DeviceAssignment, TheOrderOfTheDevicesCounts) {
  EXPECT_THAT(
      CheckDeviceAssignment({S(kOn01), S(kOn10)}, {}, {}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("[0, 1] on platform CPU and ARG_SHARDING with device ids [1, 0]")));
}

TEST(DeviceAssignment, ArgumentsAreNamedWhereTheirDevicesMatch) {
  const ir::ShapedArray f32_8({8}, DType::kF32);
  std::vector<ArgumentPlacement> args = {{"a", f32_8, {0, 1}}, {"b", f32_8, {2, 3}}};
  EXPECT_THAT(
      CheckDeviceAssignment({S(kOn01), S(kOn23)}, {}, args),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Received incompatible devices for jitted computation. Got argument a of the "
               "program with shape float32[8] and with device ids [0, 1] on platform CPU and "
               "argument b of the program with shape float32[8] and with device ids [2, 3] on "
               "platform CPU"));
  // An explicit output sharding on other devices.
  EXPECT_THAT(CheckDeviceAssignment({S(kOn01), S(kOn01)}, {S(kOn23)}, args),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Received incompatible devices for jitted computation. Got argument a of "
                       "the program with shape float32[8] and with device ids [0, 1] on platform "
                       "CPU and explicit output sharding with device ids [2, 3] on platform CPU"));
  // Only one side matches an argument: it is named first and the other side shows its own
  // devices.
  std::vector<ArgumentPlacement> uncommitted_a = {{"a", f32_8, {0}}, {"b", f32_8, {2, 3}}};
  EXPECT_THAT(CheckDeviceAssignment({S(kOn01), S(kOn23)}, {}, uncommitted_a),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Got argument b of the program with shape float32[8] and with "
                                 "device ids [2, 3] on platform CPU and ARG_SHARDING with device "
                                 "ids [0, 1] on platform CPU")));
}

constexpr char kAdd[] = R"({ lambda ; a:f32[8] b:f32[8]. let c:f32[8] = add a b in (c,) })";

runtime::Array Iota(runtime::Client& client, const sharding::Sharding& s, bool committed) {
  std::vector<float> host(8);
  std::iota(host.begin(), host.end(), 0.0f);
  const auto* bytes = reinterpret_cast<const uint8_t*>(host.data());
  Format format = *runtime::MakeArrayFormat(s);
  return *runtime::Array::DevicePut(client, {bytes, host.size() * 4}, {8}, DType::kF32,
                                    std::move(format), committed);
}

TEST(JitCall, CommittedArgumentsOnDifferentDevicesAreJaxsError) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(8);
  Jit f = *Jit::Create(*ir::ParseJaxpr(kAdd), {}, {});
  runtime::Array x = Iota(*client, S(kOn01), /*committed=*/true);
  runtime::Array y = Iota(*client, S(kOn23), /*committed=*/true);
  runtime::Array z = Iota(*client, S("SingleDeviceSharding(device=5)"), /*committed=*/true);
  const runtime::Array* xy[] = {&x, &y};
  EXPECT_THAT(f.Call(*client, xy, {"a", "b"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Received incompatible devices for jitted computation. Got argument a of "
                       "the program with shape float32[8] and with device ids [0, 1] on platform "
                       "CPU and argument b of the program with shape float32[8] and with device "
                       "ids [2, 3] on platform CPU"));
  const runtime::Array* xz[] = {&x, &z};
  EXPECT_THAT(f.Call(*client, xz, {"a", "b"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("and argument b of the program with shape float32[8] and with "
                                 "device ids [5] on platform CPU")));
}

TEST(JitCall, ACommittedArgumentsShardingIsCompiledFor) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(8);
  Jit f = *Jit::Create(*ir::ParseJaxpr(kAdd), {}, {});
  runtime::Array x = Iota(*client, S(kOn23), /*committed=*/true);
  runtime::Array u = Iota(*client, S("SingleDeviceSharding(device=0)"), /*committed=*/false);
  const runtime::Array* args[] = {&x, &u};
  absl::StatusOr<CallResult> r = f.Call(*client, args, {"a", "b"});
  ASSERT_OK(r.status());
  // The uncommitted argument moves to the committed one's devices.
  ASSERT_EQ(r->relayouts.size(), 1u);
  EXPECT_EQ(r->relayouts[0].name, "b");
  EXPECT_TRUE(r->relayouts[0].resharded);
}

TEST(JitCall, ACommittedArgumentOnAnotherShardingThanJitsIsJaxsError) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(8);
  Format replicated = *Format::Create({}, S("NamedSharding(Mesh('x': 2), P())"));
  Jit f = *Jit::Create(*ir::ParseJaxpr(kAdd), {replicated, std::nullopt}, {});
  runtime::Array x = Iota(*client, S("NamedSharding(Mesh('x': 2), P('x'))"), /*committed=*/true);
  runtime::Array u = Iota(*client, S("SingleDeviceSharding(device=0)"), /*committed=*/false);
  const runtime::Array* args[] = {&x, &u};
  EXPECT_THAT(f.Call(*client, args, {"a", "b"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sharding passed to jit does not match the sharding on the "
                                 "respective arg. Got jit sharding: NamedSharding(mesh=Mesh('x': "
                                 "2), spec=P()),\narg sharding: NamedSharding(mesh=Mesh('x': 2), "
                                 "spec=P('x',)) for arg type: float32[8]")));
}

TEST(JitCall, SingleDeviceShardingOnAnyDevice) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(8);
  Format on5 = *Format::Create({}, S("SingleDeviceSharding(device=5)"));
  Jit f = *Jit::Create(*ir::ParseJaxpr(kAdd), {on5, on5}, {});
  runtime::Array u = Iota(*client, S("SingleDeviceSharding(device=0)"), /*committed=*/false);
  const runtime::Array* args[] = {&u, &u};
  absl::StatusOr<CallResult> r = f.Call(*client, args);
  ASSERT_OK(r.status());
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(DeviceAssignment(*r->outputs[0].format().sharding()), (std::vector<int64_t>{5}));
}

}  // namespace
}  // namespace device_assignment_test
}  // namespace axe::jit
