#include "axe/base/memory_budget.h"

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe {
namespace memory_budget_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Optional;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

TEST(MemoryBudget, ParsesSizes) {
  EXPECT_THAT(ParseMemorySize("1048576"), IsOkAndHolds(kMiB));
  EXPECT_THAT(ParseMemorySize("64M"), IsOkAndHolds(64 * kMiB));
  EXPECT_THAT(ParseMemorySize("64m"), IsOkAndHolds(64 * kMiB));
  EXPECT_THAT(ParseMemorySize(" 4G "), IsOkAndHolds(4 * kGiB));
  EXPECT_THAT(ParseMemorySize("4GiB"), IsOkAndHolds(4 * kGiB));
  EXPECT_THAT(ParseMemorySize("64MB"), IsOkAndHolds(64 * kMiB));
  EXPECT_THAT(ParseMemorySize("512k"), IsOkAndHolds(512 * 1024));
  EXPECT_THAT(ParseMemorySize("2T"), IsOkAndHolds(2 * 1024 * kGiB));
}

TEST(MemoryBudget, RefusesBadSizes) {
  for (const char* text :
       {"", "G", "0", "-5", "4X", "1.5G", "4 G B", "9999999999999T", "99999999999999999999"}) {
    EXPECT_THAT(ParseMemorySize(text), StatusIs(absl::StatusCode::kInvalidArgument,
                                                AllOf(HasSubstr("expected a positive byte count"),
                                                      HasSubstr(absl::StrCat("got '", text, "'")))))
        << text;
  }
}

TEST(MemoryBudget, CgroupV2) {
  EXPECT_THAT(CgroupV2Available("4294967296\n", "1073741824\n"), Optional(3 * kGiB));
  EXPECT_EQ(CgroupV2Available("max\n", "1073741824\n"), std::nullopt);
  EXPECT_THAT(CgroupV2Available("100\n", "200\n"), Optional(0));  // over the limit already
  EXPECT_EQ(CgroupV2Available("", "5"), std::nullopt);
}

TEST(MemoryBudget, CgroupV1) {
  EXPECT_THAT(CgroupV1Available("4294967296\n", "1073741824\n"), Optional(3 * kGiB));
  EXPECT_EQ(CgroupV1Available("9223372036854771712\n", "1073741824\n"), std::nullopt);
  EXPECT_EQ(CgroupV1Available("junk", "1"), std::nullopt);
}

constexpr char kMeminfo[] =
    "MemTotal:       16318460 kB\n"
    "MemFree:          512000 kB\n"
    "MemAvailable:    8159232 kB\n"
    "Buffers:          123456 kB\n";

TEST(MemoryBudget, MemAvailable) {
  EXPECT_THAT(MemAvailableBytes(kMeminfo), Optional(int64_t{8159232} * 1024));
  EXPECT_EQ(MemAvailableBytes("MemTotal: 5 kB\n"), std::nullopt);
  EXPECT_EQ(MemAvailableBytes("MemAvailable: lots kB\n"), std::nullopt);
}

TEST(MemoryBudget, CgroupPaths) {
  EXPECT_THAT(CgroupPath("0::/user.slice/job.scope\n", true),
              Optional(std::string("/user.slice/job.scope")));
  const char v1[] = "12:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc\n0::/\n";
  EXPECT_THAT(CgroupPath(v1, false), Optional(std::string("/docker/abc")));
  EXPECT_THAT(CgroupPath(v1, true), Optional(std::string("/")));
  EXPECT_EQ(CgroupPath("12:cpu:/x\n", false), std::nullopt);
}

FileReader Files(std::map<std::string, std::string> files) {
  return [files = std::move(files)](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
}

TEST(MemoryBudget, SystemTakesTheLeast) {
  // A 4 GiB container limit one level above the process's cgroup, with 1 GiB used.
  MemoryBudget b = SystemMemoryBudget(Files({{"/proc/self/cgroup", "0::/box/job\n"},
                                             {"/sys/fs/cgroup/box/job/memory.max", "max\n"},
                                             {"/sys/fs/cgroup/box/job/memory.current", "5\n"},
                                             {"/sys/fs/cgroup/box/memory.max", "4294967296\n"},
                                             {"/sys/fs/cgroup/box/memory.current", "1073741824\n"},
                                             {"/proc/meminfo", kMeminfo}}));
  EXPECT_EQ(b.bytes, 3 * kGiB);
  EXPECT_THAT(b.source, HasSubstr("/sys/fs/cgroup/box/memory.max - memory.current"));

  // MemAvailable below every cgroup limit.
  b = SystemMemoryBudget(Files({{"/proc/self/cgroup", "0::/\n"},
                                {"/sys/fs/cgroup/memory.max", "max\n"},
                                {"/sys/fs/cgroup/memory.current", "1\n"},
                                {"/proc/meminfo", kMeminfo}}));
  EXPECT_EQ(b.bytes, int64_t{8159232} * 1024);
  EXPECT_EQ(b.source, "MemAvailable in /proc/meminfo");

  // Cgroup v1.
  b = SystemMemoryBudget(
      Files({{"/proc/self/cgroup", "4:memory:/docker/abc\n"},
             {"/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "1073741824\n"},
             {"/sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes", "536870912\n"},
             {"/proc/meminfo", kMeminfo}}));
  EXPECT_EQ(b.bytes, 512 * kMiB);
  EXPECT_THAT(b.source, HasSubstr("memory.limit_in_bytes - memory.usage_in_bytes"));

  // Nothing readable.
  b = SystemMemoryBudget(Files({}));
  EXPECT_EQ(b.bytes, INT64_MAX);
  EXPECT_THAT(b.source, HasSubstr("no limit found"));
}

TEST(MemoryBudget, CheckNamesEstimateLimitAndSource) {
  const MemoryBudget budget{64 * kMiB, "--memory-limit"};
  EXPECT_TRUE(budget.Check(64 * kMiB, "x").ok());
  EXPECT_THAT(budget.Check(4 * kGiB, "the all_gather"),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       AllOf(HasSubstr("the all_gather needs about 4.0 GiB (4294967296 bytes)"),
                             HasSubstr("the memory budget is 64.0 MiB (67108864 bytes), from "
                                       "--memory-limit"))));
  EXPECT_THAT(budget.Check(std::nullopt, "y"),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("y needs about more than 2^63 bytes")));
}

TEST(MemoryBudget, ResolvesOptionThenEnvironment) {
  EXPECT_THAT(ResolveMemoryBudget(std::string("64M")),
              IsOkAndHolds(::testing::Field(&MemoryBudget::bytes, 64 * kMiB)));
  EXPECT_THAT(ResolveMemoryBudget(std::string("lots")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--memory-limit: expected")));
  ASSERT_EQ(setenv(kMemoryLimitEnv, "2M", 1), 0);
  absl::StatusOr<MemoryBudget> env = ResolveMemoryBudget(std::nullopt);
  ASSERT_EQ(setenv(kMemoryLimitEnv, "2Q", 1), 0);
  absl::StatusOr<MemoryBudget> bad = ResolveMemoryBudget(std::nullopt);
  ASSERT_EQ(unsetenv(kMemoryLimitEnv), 0);
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_EQ(env->bytes, 2 * kMiB);
  EXPECT_EQ(env->source, "AXE_MEMORY_LIMIT");
  EXPECT_THAT(bad, StatusIs(absl::StatusCode::kInvalidArgument,
                            HasSubstr("AXE_MEMORY_LIMIT: expected a positive byte count")));
  // Without either: the system's, some positive number.
  absl::StatusOr<MemoryBudget> system = ResolveMemoryBudget(std::nullopt);
  ASSERT_TRUE(system.ok());
  EXPECT_GT(system->bytes, 0);
}

}  // namespace
}  // namespace memory_budget_test
}  // namespace axe
