#include "axe/runtime/backend.h"

#include <cstdlib>
#include <initializer_list>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "axe/runtime/launcher.h"

namespace axe::runtime {

namespace {

constexpr absl::string_view kSameOnEveryRankPayload = "axe.runtime/same_on_every_rank";

// The first of the launcher's variables `names` that holds an integer in [lo, hi], else
// `fallback`.
int LauncherInt(std::initializer_list<const char*> names, long lo, long hi, int fallback) {
  for (const char* name : names) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    const long v = std::strtol(value, &end, 10);
    if (*end == '\0' && v >= lo && v <= hi) return static_cast<int>(v);
  }
  return fallback;
}

constexpr int kMaxLaunchedRanks = 1 << 20;

}  // namespace

absl::Status Backend::AgreeOnCall(absl::string_view, absl::FunctionRef<std::string()>) {
  return absl::OkStatus();
}

namespace {

absl::Status NoRawExchanges(const Backend& backend, absl::string_view what) {
  return absl::UnimplementedError(
      absl::StrCat(what, ": the '", backend.name(),
                   "' backend has no raw exchanges (its devices share one process's memory)"));
}

}  // namespace

absl::Status Backend::AllGatherBytes(const CollectiveCall& call, int, const void*, int64_t, void*) {
  return NoRawExchanges(*this, call.what);
}

absl::Status Backend::PermuteBytes(const CollectiveCall& call, int, const void*, int64_t,
                                   absl::Span<const int64_t>, void*) {
  return NoRawExchanges(*this, call.what);
}

absl::Status Backend::AllToAllBytes(const CollectiveCall& call, int, const void*, int64_t, void*) {
  return NoRawExchanges(*this, call.what);
}

absl::Status MarkSameOnEveryRank(absl::Status status) {
  if (!status.ok()) status.SetPayload(kSameOnEveryRankPayload, absl::Cord("1"));
  return status;
}

bool IsSameOnEveryRank(const absl::Status& status) {
  return status.GetPayload(kSameOnEveryRankPayload).has_value();
}

int MpiLaunchedWorldSize() {
  return LauncherInt({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}, 1, kMaxLaunchedRanks, 1);
}

int MpiLaunchedWorldRank() {
  return LauncherInt({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}, 0, kMaxLaunchedRanks - 1,
                     0);
}

}  // namespace axe::runtime
