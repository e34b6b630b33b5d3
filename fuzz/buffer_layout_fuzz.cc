// Buffer layouts of the relayout engine: Parse and the round trip.
#include <cstdint>

#include "axe/relayout/buffer_layout.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::relayout::BufferLayout> b =
      axe::relayout::BufferLayout::Parse(axe::fuzz::AsText(data, size));
  if (!b.ok()) return 0;
  absl::StatusOr<axe::relayout::BufferLayout> again =
      axe::relayout::BufferLayout::Parse(b->ToString());
  AXE_FUZZ_CHECK(again.ok() && *again == *b, "parse(print(b)) == b for " + b->ToString());
  return 0;
}
