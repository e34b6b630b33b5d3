#include "axe/runtime/backend_registry.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::runtime {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

TEST(BackendRegistryTest, TheInProcessBackendIsAlwaysThereAndFirst) {
  const std::vector<std::string> names = RegisteredBackends();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names[0], "threads");
  absl::StatusOr<const BackendFactory*> threads = FindBackend("threads");
  ASSERT_OK(threads.status());
  EXPECT_FALSE((*threads)->one_device_per_process);
  BackendRunOptions options;
  options.devices = 3;
  absl::StatusOr<std::unique_ptr<Client>> client = (*threads)->start(options);
  ASSERT_OK(client.status());
  EXPECT_EQ((*client)->num_devices(), 3);
  EXPECT_EQ((*client)->ops().name(), "threads");
  (*threads)->finish(1);  // nothing to end
}

TEST(BackendRegistryTest, AnUnknownNameListsTheRegisteredOnes) {
  EXPECT_THAT(FindBackend("gpu").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown backend 'gpu'; this axe has threads")));
}

TEST(BackendRegistryTest, TheInProcessBackendRefusesTooManyDevicesNamingTheOption) {
  const BackendFactory* threads = *FindBackend("threads");
  BackendRunOptions options;
  options.devices = 2048;
  EXPECT_THAT(threads->start(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--mesh: the threads backend runs at most 1024 devices, not "
                                 "2048")));
}

// A new backend is one registration: here a second name for the in-process one.
BackendFactory Twin() {
  BackendFactory f = **FindBackend("threads");
  f.name = "threads-twin";
  return f;
}
AXE_RUNTIME_BACKEND(Twin);

TEST(BackendRegistryTest, ABackendRegistersItselfByName) {
  absl::StatusOr<const BackendFactory*> twin = FindBackend("threads-twin");
  ASSERT_OK(twin.status());
  EXPECT_THAT(RegisteredBackends(), ::testing::Contains("threads-twin"));
  BackendRunOptions options;
  options.devices = 2;
  EXPECT_OK((*twin)->start(options).status());
}

}  // namespace
}  // namespace axe::runtime
