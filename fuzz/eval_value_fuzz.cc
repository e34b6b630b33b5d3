// Evaluation inputs and outputs (ir/eval_text.h, ir/host_bytes.h): ParseArgSpec, then the
// printed values read back to the same values (FormatValues prints the shortest text that
// reads back to the value of its type), and the bytes of the value decode to it again.
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/host_bytes.h"
#include "fuzz_check.h"

namespace {

bool SameValues(const axe::ir::HostArray& a, const axe::ir::HostArray& b) {
  if (a.values.size() != b.values.size()) return false;
  for (size_t i = 0; i < a.values.size(); ++i) {
    const bool both_nan = std::isnan(a.values[i]) && std::isnan(b.values[i]);
    if (!both_nan && a.values[i] != b.values[i]) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::ir::HostArray> a = axe::ir::ParseArgSpec(axe::fuzz::AsText(data, size));
  if (!a.ok() || a->values.size() > 4096) return 0;
  std::vector<std::string> elements;
  for (double v : a->values) elements.push_back(axe::ir::FormatElement(v, a->aval.dtype()));
  const std::string text = absl::StrCat(a->aval.ShortString(), "=", absl::StrJoin(elements, ","));
  if (!a->values.empty()) {
    absl::StatusOr<axe::ir::HostArray> again = axe::ir::ParseArgSpec(text);
    AXE_FUZZ_CHECK(again.ok() && SameValues(*again, *a), "values read back from " + text);
  }
  (void)axe::ir::FormatValues(*a);
  absl::StatusOr<std::vector<uint8_t>> bytes = axe::ir::HostArrayToBytes(*a);
  if (bytes.ok()) {
    absl::StatusOr<axe::ir::HostArray> decoded = axe::ir::HostArrayFromBytes(a->aval, *bytes);
    AXE_FUZZ_CHECK(decoded.ok() && SameValues(*decoded, *a), "bytes decode back for " + text);
  }
  return 0;
}
