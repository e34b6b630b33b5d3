// Integer lists (every --shape, --coord): ParseIntList and the round trip.
#include <cstdint>
#include <vector>

#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<std::vector<int64_t>> v = axe::ParseIntList(axe::fuzz::AsText(data, size));
  if (!v.ok()) return 0;
  const std::string text = absl::StrJoin(*v, ",");
  absl::StatusOr<std::vector<int64_t>> again = axe::ParseIntList(text);
  AXE_FUZZ_CHECK(again.ok() && *again == *v, "parse(print(v)) == v for " + text);
  return 0;
}
