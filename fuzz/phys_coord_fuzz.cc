// Physical points: Parse and the round trip.
#include <cstdint>

#include "axe/layout/coord.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::PhysCoord> p = axe::PhysCoord::Parse(axe::fuzz::AsText(data, size));
  if (!p.ok()) return 0;
  absl::StatusOr<axe::PhysCoord> again = axe::PhysCoord::Parse(p->ToString());
  AXE_FUZZ_CHECK(again.ok() && *again == *p, "parse(print(p)) == p for " + p->ToString());
  return 0;
}
