// JAX's Format, Layout and Sharding reprs (sharding/format.h, local_layout.h, sharding.h):
// each parser's round trip and stable print, and for every accepted Format the Axe layout
// FormatToAxe gives on small shapes printing and parsing back to itself; for untiled Formats
// on small NamedShardings, ShardingFromAxe(FormatToAxe(f)) on the same mesh gives the device
// map and the local layout back; FromXla(ToXla(l)) keeps major_to_minor.
#include <cstdint>
#include <string>
#include <vector>

#include "axe/layout/layout.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/format.h"
#include "axe/sharding/from_axe.h"
#include "axe/sharding/local_layout.h"
#include "axe/sharding/sharding.h"
#include "fuzz_check.h"

namespace {

namespace sh = axe::sharding;

// parse(print(x)) == x and print(parse(print(x))) == print(x), for each of the reprs.
template <typename T>
void CheckRoundTrip(const T& value, const char* what) {
  const std::string text = value.ToString();
  absl::StatusOr<T> again = T::Parse(text);
  AXE_FUZZ_CHECK(again.ok() && *again == value,
                 std::string(what) + ": parse(print(x)) == x for " + text);
  AXE_FUZZ_CHECK(again->ToString() == text, std::string(what) + ": print is stable for " + text);
}

void CheckFormatToAxe(const sh::Format& format) {
  const std::vector<std::vector<int64_t>> shapes = {{8}, {8, 8}, {4, 6, 8}};
  for (const std::vector<int64_t>& shape : shapes) {
    for (axe::DType dtype : {axe::DType::kF32, axe::DType::kS4}) {
      for (sh::DeviceAxisMode mode : {sh::DeviceAxisMode::kFlat, sh::DeviceAxisMode::kPerAxis}) {
        absl::StatusOr<axe::Layout> layout = sh::FormatToAxe(shape, format, dtype, mode);
        if (!layout.ok()) continue;
        const std::string text = layout->ToString();
        absl::StatusOr<axe::Layout> again = axe::Layout::Parse(text);
        AXE_FUZZ_CHECK(again.ok() && *again == *layout,
                       "FormatToAxe's layout parses back: " + text + " from " + format.ToString());
      }
    }
  }
}

// Format -> Axe layout -> sharding on the same mesh: the device map and the local layout.
void CheckThroughAxe(const sh::Format& format) {
  const sh::LocalLayout* local = format.local_layout();
  const sh::NamedSharding* named = format.sharding() ? format.sharding()->named() : nullptr;
  if (local == nullptr || named == nullptr || local->tiling() ||
      local->major_to_minor().size() > 4 || named->mesh().num_devices() > 64) {
    return;
  }
  std::vector<int64_t> shape;
  for (size_t i = 0; i < local->major_to_minor().size(); ++i) {
    shape.push_back(named->DimPieces(i) * 2);
  }
  absl::StatusOr<axe::Layout> layout = sh::FormatToAxe(shape, format);
  if (!layout.ok()) return;  // a rank or permutation error, or a spec longer than the rank
  absl::StatusOr<sh::ShardingOfLayout> back = sh::ShardingFromAxe(*layout, shape, named->mesh());
  AXE_FUZZ_CHECK(back.ok() && back->sharding.named() != nullptr,
                 "ShardingFromAxe(FormatToAxe(f)) fails for " + format.ToString() + ": " +
                     std::string(back.status().message()));
  AXE_FUZZ_CHECK(back->local_layout.major_to_minor() == local->major_to_minor(),
                 "the local layout comes back for " + format.ToString());
  absl::StatusOr<std::vector<sh::DeviceShard>> want = sh::DevicesIndicesMap(*named, shape);
  absl::StatusOr<std::vector<sh::DeviceShard>> got =
      sh::DevicesIndicesMap(*back->sharding.named(), shape);
  AXE_FUZZ_CHECK(want.ok() && got.ok() && !sh::FirstDifference(*want, *got),
                 "the device map comes back for " + format.ToString());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text = axe::fuzz::AsText(data, size);
  if (absl::StatusOr<sh::Format> f = sh::Format::Parse(text); f.ok()) {
    CheckRoundTrip(*f, "Format");
    CheckFormatToAxe(*f);
    CheckThroughAxe(*f);
  }
  if (absl::StatusOr<sh::LocalLayout> l = sh::LocalLayout::Parse(text); l.ok()) {
    CheckRoundTrip(*l, "Layout");
    if (absl::StatusOr<axe::xla::Layout> x = l->ToXla(axe::DType::kS4); x.ok()) {
      absl::StatusOr<sh::LocalLayout> from = sh::LocalLayout::FromXla(*x);
      AXE_FUZZ_CHECK(from.ok() && from->major_to_minor() == l->major_to_minor(),
                     "FromXla(ToXla(l)) keeps major_to_minor for " + l->ToString());
    }
  }
  if (absl::StatusOr<sh::Sharding> s = sh::Sharding::Parse(text); s.ok()) {
    CheckRoundTrip(*s, "Sharding");
  }
  return 0;
}
