#include "axe/runtime/client.h"

#include <atomic>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::runtime {
namespace client_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

TEST(ClientTest, InProcessRejectsBadDeviceCounts) {
  EXPECT_THAT(Client::InProcess(0).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 to 1024 devices, not 0")));
  EXPECT_THAT(Client::InProcess(5000).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not 5000")));
  EXPECT_THAT(Client::InProcess(2, {.memory_per_device_bytes = -1}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("negative memory")));
}

TEST(ClientTest, RunsOnEveryDeviceOnItsOwnThread) {
  std::unique_ptr<Client> client = *Client::InProcess(4);
  EXPECT_EQ(client->backend(), "threads");
  EXPECT_EQ(client->num_devices(), 4);
  EXPECT_EQ(client->addressable_devices(), (std::vector<int>{0, 1, 2, 3}));
  std::vector<std::thread::id> threads(4);
  std::vector<int> current(4, -1);
  ASSERT_OK(client->RunOnDevices([&](int d) {
    threads[static_cast<size_t>(d)] = std::this_thread::get_id();
    current[static_cast<size_t>(d)] = Device::Current()->id();
    return absl::OkStatus();
  }));
  EXPECT_EQ(current, (std::vector<int>{0, 1, 2, 3}));
  std::set<std::thread::id> distinct(threads.begin(), threads.end());
  EXPECT_EQ(distinct.size(), 4u);
  EXPECT_EQ(distinct.count(std::this_thread::get_id()), 0u);
}

TEST(ClientTest, DevicesRunConcurrently) {
  // Every device waits until all four have started: this finishes only if they run at once.
  std::unique_ptr<Client> client = *Client::InProcess(4);
  std::atomic<int> started{0};
  ASSERT_OK(client->RunOnDevices([&](int) {
    started.fetch_add(1);
    while (started.load() < 4) std::this_thread::yield();
    return absl::OkStatus();
  }));
  EXPECT_EQ(started.load(), 4);
}

TEST(ClientTest, ErrorOfLowestFailingDeviceKeepsItsCode) {
  std::unique_ptr<Client> client = *Client::InProcess(4);
  absl::Status s = client->RunOnDevices([](int d) {
    if (d >= 2) return absl::OutOfRangeError(d == 2 ? "two" : "three");
    return absl::OkStatus();
  });
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("device 2: two")));
}

TEST(ClientTest, NestedRunIsAnErrorNotADeadlock) {
  std::unique_ptr<Client> client = *Client::InProcess(2);
  absl::Status s = client->RunOnDevices(
      [&](int) { return client->RunOnDevices([](int) { return absl::OkStatus(); }); });
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kFailedPrecondition,
                          HasSubstr("device 0: RunOnDevices called from the worker of device 0")));
}

TEST(DeviceTest, AllocationsAreAccountedAndPeakMeasured) {
  std::unique_ptr<Client> client = *Client::InProcess(2);
  Device& dev = client->device(1);
  {
    DeviceBuffer a = *dev.Allocate(1000);
    DeviceBuffer b = *dev.Allocate(500, /*zero=*/true);
    EXPECT_EQ(b.data()[499], 0);
    EXPECT_EQ(a.device(), &dev);
    EXPECT_EQ(dev.bytes_in_use(), 1500);
    DeviceBuffer moved = std::move(a);
    EXPECT_EQ(dev.bytes_in_use(), 1500);
  }
  EXPECT_EQ(dev.bytes_in_use(), 0);
  EXPECT_EQ(dev.peak_bytes(), 1500);
  dev.ResetPeak();
  EXPECT_EQ(dev.peak_bytes(), 0);
  EXPECT_EQ(client->device(0).peak_bytes(), 0);
  EXPECT_EQ(client->PeakBytes(), (std::vector<int64_t>{0, 0}));
}

TEST(DeviceTest, MemoryLimitAndNegativeSizes) {
  std::unique_ptr<Client> client = *Client::InProcess(1, {.memory_per_device_bytes = 1024});
  Device& dev = client->device(0);
  DeviceBuffer a = *dev.Allocate(1000);
  EXPECT_THAT(dev.Allocate(25).status(),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("device 0: out of memory allocating 25 bytes (1000 of 1024")));
  EXPECT_EQ(dev.bytes_in_use(), 1000);
  EXPECT_THAT(dev.Allocate(-1).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("negative size")));
  EXPECT_OK(dev.Allocate(24).status());
}

// A buffer destroyed after its client (and so its device) unaccounts through the shared
// memory account, not through the destroyed device (the ASan build catches the former
// use after free).
TEST(DeviceTest, BufferMayOutliveItsClient) {
  DeviceBuffer kept;
  {
    std::unique_ptr<Client> client = *Client::InProcess(1);
    kept = *client->device(0).Allocate(64);
    EXPECT_EQ(client->device(0).bytes_in_use(), 64);
  }
  EXPECT_EQ(kept.size(), 64);
  kept = DeviceBuffer();
  EXPECT_EQ(kept.size(), 0);
}

}  // namespace
}  // namespace client_test
}  // namespace axe::runtime
