// Abstract values: ShapedArray::ParseShort and its round trip through ShortString (weak types
// are not in the short form, so they compare with weak_type cleared).
#include <cstdint>

#include "axe/ir/shaped_array.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::ir::ShapedArray> a =
      axe::ir::ShapedArray::ParseShort(axe::fuzz::AsText(data, size));
  if (!a.ok()) return 0;
  const std::string text = a->ShortString();
  absl::StatusOr<axe::ir::ShapedArray> again = axe::ir::ShapedArray::ParseShort(text);
  AXE_FUZZ_CHECK(again.ok() && *again == a->WithWeakType(false),
                 "ParseShort(ShortString(a)) == a for " + text);
  (void)a->NumElements();
  (void)a->Str();
  return 0;
}
