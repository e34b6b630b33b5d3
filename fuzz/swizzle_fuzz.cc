// Swizzled layouts: Parse and the round trip; the swizzle is its own inverse.
#include <cstdint>

#include "axe/layout/swizzle.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::SwizzledLayout> s = axe::SwizzledLayout::Parse(axe::fuzz::AsText(data, size));
  if (!s.ok()) return 0;
  const std::string text = s->ToString();
  absl::StatusOr<axe::SwizzledLayout> again = axe::SwizzledLayout::Parse(text);
  AXE_FUZZ_CHECK(again.ok() && *again == *s, "parse(print(s)) == s for " + text);
  for (int64_t a : {int64_t{0}, s->period() - 1, s->period() / 3}) {
    AXE_FUZZ_CHECK(s->Swizzle(s->Swizzle(a)) == a, "swizzle is an involution for " + text);
  }
  return 0;
}
