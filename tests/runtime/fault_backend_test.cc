// The fault-injecting backend on the in-process client: every collective and the reshard,
// with one device killed, a message to it dropped, its part delayed or its result corrupted,
// fails with a clear error, ends within the client's timeout, or (corruption) is caught by
// the benchmarks' check, never a silently wrong result.
#include "axe/runtime/testing/fault_backend.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "axe/runtime/array.h"
#include "axe/runtime/client.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/device_values.h"
#include "axe/runtime/reshard.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/collective_benchmark.h"
#include "runtime/dist_test_util.h"
#include "runtime/reshard_benchmark.h"
#include "sharding/test_util.h"
#include "support/status_matchers.h"

namespace axe::runtime::testing {
namespace {

using ::axe::sharding::test_util::Named;
using ::axe::sharding::test_util::ParseMesh;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

constexpr int kDevices = 4;
// The timeout of the tests that wait for it (a dropped message, a long delay): short, so
// that each stays well under a second.
constexpr double kTimeout = 0.25;
// The timeout of the tests whose calls must succeed, long enough for any loaded machine.
constexpr double kGenerousTimeout = 60;

// Every device's result bytes (a collective's value, a reshard's shard).
using Results = std::vector<std::vector<uint8_t>>;

struct Operation {
  std::string name;
  FaultedCall call;
  std::function<absl::StatusOr<Results>(Client&)> run;
};

// Test names and failures show the operation's name.
void PrintTo(const Operation& op, std::ostream* os) { *os << op.name; }

std::vector<uint8_t> Bytes(int device, int64_t n) {
  std::vector<uint8_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    out[static_cast<size_t>(i)] = static_cast<uint8_t>(device * 31 + i);
  return out;
}

absl::StatusOr<Results> RunCollective(
    Client& client,
    const std::function<absl::StatusOr<DeviceValues>(const sharding::Mesh&, const DeviceValues&)>&
        op) {
  const sharding::Mesh mesh = ParseMesh("x=4");
  std::vector<std::vector<uint8_t>> host;
  for (int d = 0; d < kDevices; ++d) host.push_back(Bytes(d, 4 * 8 * 4));
  absl::StatusOr<DeviceValues> x = DeviceValues::FromHost(client, {4, 8}, DType::kS32, host);
  if (!x.ok()) return x.status();
  absl::StatusOr<DeviceValues> out = op(mesh, *x);
  if (!out.ok()) return out.status();
  Results r;
  for (int d = 0; d < kDevices; ++d) {
    absl::StatusOr<std::vector<uint8_t>> bytes = out->ToHost(d);
    if (!bytes.ok()) return bytes.status();
    r.push_back(*bytes);
  }
  return r;
}

absl::StatusOr<Results> RunReshard(Client& client) {
  const std::vector<uint8_t> host = Bytes(0, 8 * 8 * 4);
  absl::StatusOr<Array> a = Array::DevicePut(client, host, {8, 8}, DType::kF32,
                                             test_util::FormatOf(Named("x=4", "P('x', None)")));
  if (!a.ok()) return a.status();
  absl::StatusOr<Array> b = Reshard(*a, test_util::FormatOf(Named("x=4", "P(None, 'x')")));
  if (!b.ok()) return b.status();
  Results r;
  for (int d = 0; d < kDevices; ++d) {
    absl::StatusOr<std::vector<uint8_t>> bytes = b->ShardToHost(d);
    if (!bytes.ok()) return bytes.status();
    r.push_back(*bytes);
  }
  return r;
}

std::vector<Operation> Operations() {
  using M = const sharding::Mesh&;
  using V = const DeviceValues&;
  return {
      {"all_reduce", FaultedCall::kAllReduce,
       [](Client& c) {
         return RunCollective(c, [](M m, V v) { return AllReduce(m, {"x"}, ReduceOp::kSum, v); });
       }},
      {"all_gather", FaultedCall::kAllGather,
       [](Client& c) {
         return RunCollective(c, [](M m, V v) { return AllGather(m, {"x"}, v, 0, true); });
       }},
      {"reduce_scatter", FaultedCall::kReduceScatter,
       [](Client& c) {
         return RunCollective(
             c, [](M m, V v) { return ReduceScatter(m, {"x"}, ReduceOp::kMax, v, 0, true); });
       }},
      {"all_to_all", FaultedCall::kAllToAll,
       [](Client& c) {
         return RunCollective(c, [](M m, V v) { return AllToAll(m, {"x"}, v, 0, 1, true); });
       }},
      {"ppermute", FaultedCall::kPermute,
       [](Client& c) {
         return RunCollective(c, [](M m, V v) {
           return CollectivePermute(m, {"x"}, v, {{0, 1}, {1, 2}, {2, 3}, {3, 0}});
         });
       }},
      {"reshard", FaultedCall::kReshard, [](Client& c) { return RunReshard(c); }},
  };
}

std::unique_ptr<Client> NewClient(double timeout_seconds = kGenerousTimeout) {
  return *Client::InProcess(kDevices, {.timeout_seconds = timeout_seconds});
}

class FaultBackendTest : public ::testing::TestWithParam<Operation> {};

TEST_P(FaultBackendTest, AKilledDeviceFailsTheCallAndEveryLaterOne) {
  std::unique_ptr<Client> client = NewClient();
  ASSERT_OK(InjectFault(*client, {.kind = FaultKind::kKill, .device = 1, .call = GetParam().call}));
  EXPECT_THAT(GetParam().run(*client).status(),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("device 1: device 1 was killed (injected fault)")));
  EXPECT_THAT(GetParam().run(*client).status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("device 1 was killed")));
}

TEST_P(FaultBackendTest, ADroppedMessageEndsInTheTimeoutNotAHang) {
  std::unique_ptr<Client> client = NewClient(kTimeout);
  // Device 0: the lowest device that has not answered is the one named, whatever the load.
  ASSERT_OK(InjectFault(*client, {.kind = FaultKind::kDrop, .device = 0, .call = GetParam().call}));
  EXPECT_THAT(GetParam().run(*client).status(),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       HasSubstr("device 0: no answer within 0.25 s (the device died or "
                                 "stalls); the in-process client is now broken")));
  EXPECT_TRUE(client->ops().broken());
  EXPECT_THAT(
      GetParam().run(*client).status(),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("broken by an earlier timeout")));
}

TEST_P(FaultBackendTest, AShortDelayGivesTheRightResult) {
  std::unique_ptr<Client> clean = *Client::InProcess(kDevices);
  absl::StatusOr<Results> expected = GetParam().run(*clean);
  ASSERT_OK(expected.status());
  std::unique_ptr<Client> client = NewClient();
  ASSERT_OK(InjectFault(
      *client,
      {.kind = FaultKind::kDelay, .device = 3, .call = GetParam().call, .delay_seconds = 0.01}));
  absl::StatusOr<Results> got = GetParam().run(*client);
  ASSERT_OK(got.status());
  EXPECT_EQ(*got, *expected);
}

TEST_P(FaultBackendTest, ADelayPastTheTimeoutIsDeadlineExceeded) {
  std::unique_ptr<Client> client = NewClient(kTimeout);
  // The delayed part is abandoned when the call ends: the test does not wait 60 s.
  ASSERT_OK(InjectFault(
      *client,
      {.kind = FaultKind::kDelay, .device = 0, .call = GetParam().call, .delay_seconds = 60}));
  EXPECT_THAT(GetParam().run(*client).status(),
              StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("device 0: no answer")));
}

TEST_P(FaultBackendTest, ACorruptedResultDiffersFromTheCleanOne) {
  std::unique_ptr<Client> clean = *Client::InProcess(kDevices);
  absl::StatusOr<Results> expected = GetParam().run(*clean);
  ASSERT_OK(expected.status());
  std::unique_ptr<Client> client = NewClient();
  ASSERT_OK(
      InjectFault(*client, {.kind = FaultKind::kCorrupt, .device = 1, .call = GetParam().call}));
  absl::StatusOr<Results> got = GetParam().run(*client);
  ASSERT_OK(got.status());  // not detected by the backend ...
  EXPECT_NE((*got)[1], (*expected)[1]);
  EXPECT_EQ((*got)[0], (*expected)[0]);  // ... and only the chosen device's result
}

TEST_P(FaultBackendTest, OnlyTheChosenCallIsStruck) {
  std::unique_ptr<Client> client = NewClient();
  ASSERT_OK(InjectFault(
      *client, {.kind = FaultKind::kKill, .device = 1, .call = GetParam().call, .nth = 1}));
  EXPECT_OK(GetParam().run(*client).status());
  EXPECT_THAT(GetParam().run(*client).status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("device 1 was killed")));
}

INSTANTIATE_TEST_SUITE_P(EveryCall, FaultBackendTest, ::testing::ValuesIn(Operations()),
                         [](const ::testing::TestParamInfo<Operation>& info) {
                           return info.param.name;
                         });

// The benchmarks' check (axe collective --check, axe reshard --check) catches a corruption.
TEST(FaultBackendCheckTest, TheBenchmarksCheckCatchesACorruptedResult) {
  const sharding::Mesh mesh = ParseMesh("x=4");
  for (CollectiveKind kind :
       {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
        CollectiveKind::kAllToAll, CollectiveKind::kPermute}) {
    SCOPED_TRACE(CollectiveKindName(kind));
    std::unique_ptr<Client> client = NewClient();
    ASSERT_OK(InjectFault(*client, {.kind = FaultKind::kCorrupt, .device = 2}));
    absl::StatusOr<CollectiveBenchmarkResult> r =
        BenchmarkCollective(*client, kind, mesh, {"x"}, {8, 4}, DType::kF32,
                            {.runs = 1,
                             .check = true,
                             .memory = MemoryBudget{int64_t{1} << 30, "a test"},
                             .on_run = nullptr});
    ASSERT_OK(r.status());
    EXPECT_EQ(r->check, relayout::CheckOutcome::kFailed);
  }
  std::unique_ptr<Client> client = NewClient();
  ASSERT_OK(InjectFault(*client, {.kind = FaultKind::kCorrupt, .device = 3}));
  ReshardBenchmarkOptions options;
  options.runs = 1;
  options.check = true;
  options.memory = MemoryBudget{int64_t{1} << 30, "a test"};
  absl::StatusOr<ReshardBenchmarkResult> r = BenchmarkReshard(
      *client, {8, 8}, DType::kF32, test_util::FormatOf(Named("x=4", "P('x', None)")),
      test_util::FormatOf(Named("x=4", "P(None, 'x')")), options);
  ASSERT_OK(r.status());
  EXPECT_EQ(r->check, relayout::CheckOutcome::kFailed);
}

TEST(FaultBackendCheckTest, BadFaultsAreRefused) {
  std::unique_ptr<Client> client = NewClient();
  EXPECT_THAT(InjectFault(*client, {.kind = FaultKind::kKill, .device = 4}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the fault names device 4 but the client has 4 devices")));
  EXPECT_THAT(InjectFault(*client, {.kind = FaultKind::kDelay, .delay_seconds = -1}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must not be negative")));
  std::unique_ptr<Client> untimed = *Client::InProcess(kDevices);
  EXPECT_THAT(InjectFault(*untimed, {.kind = FaultKind::kDrop}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("would be waited for forever: give the client a timeout")));
  EXPECT_EQ(client->ops().name(), "threads");
  ASSERT_OK(InjectFault(*client, {.kind = FaultKind::kKill}));
  EXPECT_EQ(client->ops().name(), "faults");
}

TEST(FaultBackendCheckTest, NegativeOrHugeInProcessTimeoutsAreRefused) {
  EXPECT_THAT(Client::InProcess(2, {.timeout_seconds = -1}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the in-process timeout must be 0 (none) or positive and at "
                                 "most 1000000 s, got -1 s")));
}

// The raw exchanges of one device's bytes pass through the wrapper to the backend beneath.
TEST(FaultBackendRawTest, RawExchangesPassThrough) {
  std::unique_ptr<Client> client = NewClient();
  ASSERT_OK(InjectFault(*client, {.kind = FaultKind::kDelay, .device = 0, .delay_seconds = 0}));
  const sharding::Mesh mesh = ParseMesh("x=4");
  std::vector<std::vector<int32_t>> got(4, std::vector<int32_t>(4));
  ASSERT_OK(client->RunOnDevices([&](int device) {
    const int32_t mine = 10 * device;
    return AllGatherBytes(*client, mesh, {"x"}, device, &mine, 4,
                          got[static_cast<size_t>(device)].data());
  }));
  for (const std::vector<int32_t>& g : got) EXPECT_THAT(g, ::testing::ElementsAre(0, 10, 20, 30));
}

}  // namespace
}  // namespace axe::runtime::testing
