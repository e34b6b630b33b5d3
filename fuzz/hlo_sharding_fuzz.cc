// HLO shardings: Parse, the byte-exact round trip, the device map of a small shape never
// crashing or overflowing, and HLO -> NamedSharding keeping the tile each device holds.
#include <cstdint>
#include <vector>

#include "axe/sharding/from_hlo.h"
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
  for (size_t rank = 0; rank <= 3; ++rank) {
    absl::StatusOr<axe::sharding::NamedSharding> named =
        axe::sharding::HloToNamedSharding(*s, rank, 8);
    if (!named.ok()) continue;
    const int64_t n = named->mesh().num_devices();
    absl::StatusOr<axe::sharding::HloSharding> back =
        axe::sharding::NamedToHloSharding(*named, rank);
    AXE_FUZZ_CHECK(back.ok(), "NamedToHloSharding(HloToNamedSharding(s)) for " + text);
    // The HLO form numbers devices logically; the mesh's device array maps them back.
    absl::StatusOr<axe::sharding::TileMap> want = axe::sharding::TileMapOf(*s, rank, n);
    absl::StatusOr<axe::sharding::TileMap> got = axe::sharding::TileMapOf(*back, rank, n);
    AXE_FUZZ_CHECK(want.ok() && got.ok(), "tile maps of " + text);
    const std::vector<int64_t> order = named->mesh().device_array();
    axe::sharding::TileMap mapped = *got;
    for (size_t logical = 0; logical < got->tile_of.size(); ++logical) {
      mapped.tile_of[static_cast<size_t>(order[logical])] = got->tile_of[logical];
    }
    AXE_FUZZ_CHECK(mapped == *want, "HLO -> NamedSharding keeps every device's tile for " + text);
  }
  return 0;
}
