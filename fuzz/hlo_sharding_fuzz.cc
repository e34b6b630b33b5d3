// HLO shardings: Parse, the byte-exact round trip, and the device map of a small shape never
// crashing or overflowing.
#include <cstdint>
#include <vector>

#include "axe/sharding/hlo_sharding.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::sharding::HloSharding> s =
      axe::sharding::HloSharding::Parse(axe::fuzz::AsText(data, size));
  if (!s.ok()) return 0;
  const std::string text = s->ToString();
  absl::StatusOr<axe::sharding::HloSharding> again = axe::sharding::HloSharding::Parse(text);
  AXE_FUZZ_CHECK(again.ok() && *again == *s, "parse(print(s)) == s for " + text);
  AXE_FUZZ_CHECK(again.ok() && again->ToString() == text, "print is stable for " + text);
  for (size_t rank = 1; rank <= 4; ++rank) {
    (void)axe::sharding::DevicesIndicesMap(*s, std::vector<int64_t>(rank, 7), 8);
    (void)axe::sharding::DevicesIndicesMap(*s, std::vector<int64_t>(rank, INT64_MAX - 1), 8);
  }
  return 0;
}
