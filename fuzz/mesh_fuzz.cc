// Meshes: Parse, the round trip, and device <-> position inversion.
#include <cstdint>

#include "axe/sharding/mesh.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::sharding::Mesh> m = axe::sharding::Mesh::Parse(axe::fuzz::AsText(data, size));
  if (!m.ok()) return 0;
  const std::string text = m->ToString();
  absl::StatusOr<axe::sharding::Mesh> again = axe::sharding::Mesh::Parse(text);
  AXE_FUZZ_CHECK(again.ok() && *again == *m, "parse(print(m)) == m for " + text);
  return 0;
}
