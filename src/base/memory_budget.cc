#include "axe/base/memory_budget.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"

namespace axe {

namespace {

// Cgroup v1 reports "no limit" as a page-rounded INT64_MAX.
constexpr int64_t kCgroupV1Unlimited = int64_t{1} << 62;

std::optional<int64_t> ParseCgroupCount(absl::string_view text) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &v) || v < 0) return std::nullopt;
  return v;
}

// The multiplier of a size suffix ("", "k", "MiB", "GB", ...); nullopt for anything else.
std::optional<int64_t> SizeSuffixMultiplier(absl::string_view suffix) {
  std::string s = absl::AsciiStrToLower(absl::StripAsciiWhitespace(suffix));
  if (s.empty() || s == "b") return 1;
  if (absl::EndsWith(s, "ib")) {
    s.resize(s.size() - 2);
  } else if (s.size() == 2 && s[1] == 'b') {
    s.resize(1);
  }
  if (s == "k") return int64_t{1} << 10;
  if (s == "m") return int64_t{1} << 20;
  if (s == "g") return int64_t{1} << 30;
  if (s == "t") return int64_t{1} << 40;
  return std::nullopt;
}

void LowerBudget(MemoryBudget& budget, std::optional<int64_t> bytes, absl::string_view source) {
  if (bytes && *bytes < budget.bytes) {
    budget.bytes = *bytes;
    budget.source = std::string(source);
  }
}

}  // namespace

std::string FormatBytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(bytes, " bytes");
  return absl::StrFormat("%.1f %s (%d bytes)", value, kUnits[unit], bytes);
}

absl::Status MemoryBudget::Check(std::optional<int64_t> needed, absl::string_view what) const {
  if (needed && *needed <= bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat(what, " needs about ", needed ? FormatBytes(*needed) : "more than 2^63 bytes",
                   "; the memory budget is ", FormatBytes(bytes), ", from ", source,
                   " (raise it with --memory-limit or ", kMemoryLimitEnv, ")"));
}

absl::StatusOr<int64_t> ParseMemorySize(absl::string_view text) {
  const absl::string_view t = absl::StripAsciiWhitespace(text);
  size_t digits = 0;
  while (digits < t.size() && absl::ascii_isdigit(static_cast<unsigned char>(t[digits]))) {
    ++digits;
  }
  int64_t count = 0;
  std::optional<int64_t> multiplier = SizeSuffixMultiplier(t.substr(digits));
  std::optional<int64_t> bytes;
  if (digits > 0 && multiplier && absl::SimpleAtoi(t.substr(0, digits), &count)) {
    bytes = CheckedMul(count, *multiplier);
  }
  if (!bytes || *bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a positive byte count such as 1048576, 64M or 4G (K, M, G, T: "
                     "powers of 1024, below 2^63 bytes), got '",
                     ElideForMessage(text, 40), "'"));
  }
  return *bytes;
}

std::optional<int64_t> CgroupV2Available(absl::string_view memory_max,
                                         absl::string_view memory_current) {
  std::optional<int64_t> max = ParseCgroupCount(memory_max);
  std::optional<int64_t> current = ParseCgroupCount(memory_current);
  if (!max || !current) return std::nullopt;  // "max": no limit
  return *max > *current ? *max - *current : 0;
}

std::optional<int64_t> CgroupV1Available(absl::string_view limit_in_bytes,
                                         absl::string_view usage_in_bytes) {
  std::optional<int64_t> limit = ParseCgroupCount(limit_in_bytes);
  std::optional<int64_t> usage = ParseCgroupCount(usage_in_bytes);
  if (!limit || !usage || *limit >= kCgroupV1Unlimited) return std::nullopt;
  return *limit > *usage ? *limit - *usage : 0;
}

std::optional<int64_t> MemAvailableBytes(absl::string_view meminfo) {
  for (absl::string_view line : absl::StrSplit(meminfo, '\n')) {
    if (!absl::ConsumePrefix(&line, "MemAvailable:")) continue;
    line = absl::StripAsciiWhitespace(line);
    const bool kib = absl::ConsumeSuffix(&line, "kB");
    std::optional<int64_t> v = ParseCgroupCount(line);
    if (!v) return std::nullopt;
    return kib ? CheckedMul(*v, 1024) : v;
  }
  return std::nullopt;
}

std::optional<std::string> CgroupPath(absl::string_view proc_self_cgroup, bool v2) {
  for (absl::string_view line : absl::StrSplit(proc_self_cgroup, '\n')) {
    std::vector<absl::string_view> parts = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (parts.size() != 3) continue;
    const std::vector<absl::string_view> controllers = absl::StrSplit(parts[1], ',');
    const bool match =
        v2 ? parts[0] == "0" && parts[1].empty() : absl::c_linear_search(controllers, "memory");
    if (match) return std::string(absl::StripAsciiWhitespace(parts[2]));
  }
  return std::nullopt;
}

std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

MemoryBudget SystemMemoryBudget(const FileReader& read) {
  MemoryBudget budget{INT64_MAX, "no limit found (no cgroup limit, no /proc/meminfo)"};
  const std::optional<std::string> cgroups = read("/proc/self/cgroup");
  // Cgroup v2: this process's cgroup and every one above it up to the root.
  if (std::optional<std::string> path = cgroups ? CgroupPath(*cgroups, true) : std::nullopt) {
    std::string dir = absl::StrCat("/sys/fs/cgroup", *path == "/" ? "" : *path);
    for (;;) {
      std::optional<std::string> max = read(dir + "/memory.max");
      std::optional<std::string> current = read(dir + "/memory.current");
      if (max && current) {
        LowerBudget(budget, CgroupV2Available(*max, *current),
                    absl::StrCat("the cgroup limit (", dir, "/memory.max - memory.current)"));
      }
      if (dir == "/sys/fs/cgroup") break;
      dir.resize(dir.rfind('/'));
    }
  }
  if (std::optional<std::string> path = cgroups ? CgroupPath(*cgroups, false) : std::nullopt) {
    for (std::string dir : {absl::StrCat("/sys/fs/cgroup/memory", *path == "/" ? "" : *path),
                            std::string("/sys/fs/cgroup/memory")}) {
      std::optional<std::string> limit = read(dir + "/memory.limit_in_bytes");
      std::optional<std::string> usage = read(dir + "/memory.usage_in_bytes");
      if (limit && usage) {
        LowerBudget(budget, CgroupV1Available(*limit, *usage),
                    absl::StrCat("the cgroup limit (", dir,
                                 "/memory.limit_in_bytes - memory.usage_in_bytes)"));
        break;
      }
    }
  }
  if (std::optional<std::string> meminfo = read("/proc/meminfo")) {
    LowerBudget(budget, MemAvailableBytes(*meminfo), "MemAvailable in /proc/meminfo");
  }
  return budget;
}

absl::StatusOr<MemoryBudget> ResolveMemoryBudget(std::optional<std::string> limit,
                                                 absl::string_view option) {
  std::string source(option);
  if (!limit) {
    const char* env = std::getenv(kMemoryLimitEnv);
    if (env == nullptr || *env == '\0') return SystemMemoryBudget();
    limit = env;
    source = kMemoryLimitEnv;
  }
  absl::StatusOr<int64_t> bytes = ParseMemorySize(*limit);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", bytes.status().message()));
  }
  return MemoryBudget{*bytes, source};
}

absl::StatusOr<MemoryBudget> GivenOrCurrentBudget(const std::optional<MemoryBudget>& given) {
  if (given) return *given;
  return ResolveMemoryBudget(std::nullopt);
}

}  // namespace axe
