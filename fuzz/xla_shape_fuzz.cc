// XLA shapes: ParseShape, the round trip, and the sizes never overflowing silently.
#include <cstdint>

#include "axe/xla/sizes.h"
#include "axe/xla/text.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::xla::Shape> s = axe::xla::ParseShape(axe::fuzz::AsText(data, size));
  if (!s.ok()) return 0;
  const std::string text = s->ToString();
  absl::StatusOr<axe::xla::Shape> again = axe::xla::ParseShape(text);
  AXE_FUZZ_CHECK(again.ok() && *again == *s, "parse(print(s)) == s for " + text);
  return 0;
}
