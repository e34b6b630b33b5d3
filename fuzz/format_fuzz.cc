// JAX's Format, Layout and Sharding reprs (sharding/format.h, local_layout.h, sharding.h):
// each parser's round trip and stable print, and for every accepted Format the Axe layout
// FormatToAxe gives on small shapes printing and parsing back to itself.
#include <cstdint>
#include <string>
#include <vector>

#include "axe/layout/layout.h"
#include "axe/sharding/format.h"
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text = axe::fuzz::AsText(data, size);
  if (absl::StatusOr<sh::Format> f = sh::Format::Parse(text); f.ok()) {
    CheckRoundTrip(*f, "Format");
    CheckFormatToAxe(*f);
  }
  if (absl::StatusOr<sh::LocalLayout> l = sh::LocalLayout::Parse(text); l.ok()) {
    CheckRoundTrip(*l, "Layout");
  }
  if (absl::StatusOr<sh::Sharding> s = sh::Sharding::Parse(text); s.ok()) {
    CheckRoundTrip(*s, "Sharding");
  }
  return 0;
}
