// The memory a command or binding may allocate, and the check every sized allocation goes
// through before it happens: estimate the bytes, then ask the budget.
//
//   absl::StatusOr<MemoryBudget> budget = ResolveMemoryBudget(std::nullopt);  // env or system
//   AXE_RETURN_IF_ERROR(budget->Check(needed_bytes, "the all_gather"));
//
// The system's budget is the least of: the cgroup v2 limit minus usage (memory.max -
// memory.current, at this process's cgroup and every cgroup above it), the cgroup v1 limit
// minus usage (memory.limit_in_bytes - memory.usage_in_bytes) and MemAvailable of
// /proc/meminfo. The user overrides it with the environment variable AXE_MEMORY_LIMIT (or,
// on the command line, --memory-limit), read each time a budget is resolved. A budget is a
// plain value: resolving one changes no other.
#ifndef AXE_BASE_MEMORY_BUDGET_H_
#define AXE_BASE_MEMORY_BUDGET_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace axe {

// The environment variable that overrides the system's budget.
inline constexpr char kMemoryLimitEnv[] = "AXE_MEMORY_LIMIT";

struct MemoryBudget {
  int64_t bytes = INT64_MAX;  // what may still be allocated
  std::string source;         // where `bytes` came from, in words ("--memory-limit", ...)

  // OK when `needed` bytes fit in the budget; nullopt stands for "more than 2^63 bytes".
  // Else ResourceExhausted, one line: "<what> needs about 4.0 GiB (4294967296 bytes); the
  // memory budget is 64.0 MiB (67108864 bytes, from --memory-limit)".
  absl::Status Check(std::optional<int64_t> needed, absl::string_view what) const;
};

// "64.0 MiB (67108864 bytes)": a byte count for messages.
std::string FormatBytes(int64_t bytes);

// A byte count as users type it: "1048576", "64M", "4G", "512k", "4GiB", "64MB"
// (K, M, G, T are powers of 1024). Errors (InvalidArgument): anything else, zero, or a
// size over 2^63 - 1, quoting the text.
absl::StatusOr<int64_t> ParseMemorySize(absl::string_view text);

// The pure parsers of the files the system's budget reads (each takes the file's text).
// memory.max - memory.current; nullopt when unlimited ("max") or unreadable.
std::optional<int64_t> CgroupV2Available(absl::string_view memory_max,
                                         absl::string_view memory_current);
// memory.limit_in_bytes - memory.usage_in_bytes; nullopt when unlimited (>= 2^62) or unreadable.
std::optional<int64_t> CgroupV1Available(absl::string_view limit_in_bytes,
                                         absl::string_view usage_in_bytes);
// MemAvailable of /proc/meminfo in bytes; nullopt when the line is missing.
std::optional<int64_t> MemAvailableBytes(absl::string_view meminfo);
// The process's cgroup path from /proc/self/cgroup: the v2 line "0::/path", or (v1) the
// line whose controllers include "memory". nullopt when there is none.
std::optional<std::string> CgroupPath(absl::string_view proc_self_cgroup, bool v2);

// Reads a whole file; nullopt when it cannot be read.
using FileReader = std::function<std::optional<std::string>(const std::string& path)>;
std::optional<std::string> ReadSmallFile(const std::string& path);

// The system's budget from the files `read` returns (tests pass fixture text): the least of
// the cgroup v2 and v1 limits minus usage and MemAvailable, with its source; INT64_MAX
// ("no limit found") when none is readable.
MemoryBudget SystemMemoryBudget(const FileReader& read = ReadSmallFile);

// The budget now: `limit` when given (the text of the option `option`, e.g.
// "--memory-limit"), else AXE_MEMORY_LIMIT when set, else SystemMemoryBudget(). Errors
// (InvalidArgument): a limit that ParseMemorySize refuses, naming the option or variable.
absl::StatusOr<MemoryBudget> ResolveMemoryBudget(std::optional<std::string> limit,
                                                 absl::string_view option = "--memory-limit");

// What an options field `std::optional<MemoryBudget> memory` stands for: `given` when set,
// else ResolveMemoryBudget(std::nullopt) now.
absl::StatusOr<MemoryBudget> GivenOrCurrentBudget(const std::optional<MemoryBudget>& given);

}  // namespace axe

#endif  // AXE_BASE_MEMORY_BUDGET_H_
