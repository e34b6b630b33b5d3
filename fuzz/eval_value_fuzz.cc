// Evaluation inputs and outputs (ir/eval_text.h, ir/host_bytes.h): ParseArgSpec, then the
// printed values read back to the same values (FormatValues prints the shortest text that
// reads back to the value of its type), and the bytes of the value decode to it again.
// The executor's typed values (exec/value_io.h) on the same text: ParseValue's elements
// print and read back to the same printed elements, and where ParseArgSpec reads the text
// too, ToExactHostArray gives its values (64-bit integers aside, which ParseArgSpec rounds).
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/exec/value_io.h"
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

bool Is64BitInteger(axe::DType dtype) {
  return dtype == axe::DType::kS64 || dtype == axe::DType::kU64;
}

// ParseValue's elements print, read back and print the same; its doubles are ParseArgSpec's.
void CheckTypedValue(const std::string& text, const absl::StatusOr<axe::ir::HostArray>& a) {
  absl::StatusOr<axe::exec::Value> v = axe::exec::ParseValue(text);
  if (!v.ok() || v->num_elements() > 4096) return;
  (void)axe::exec::FormatValue(*v);
  const std::vector<std::string> elements = axe::exec::FormatElements(*v);
  AXE_FUZZ_CHECK(static_cast<int64_t>(elements.size()) == v->num_elements(),
                 "one printed element per element of " + text);
  if (!elements.empty()) {
    const std::string again_text =
        absl::StrCat(v->aval().ShortString(), "=", absl::StrJoin(elements, ","));
    absl::StatusOr<axe::exec::Value> again = axe::exec::ParseValue(again_text);
    AXE_FUZZ_CHECK(again.ok() && axe::exec::FormatElements(*again) == elements,
                   "typed values read back from " + again_text);
  }
  if (!a.ok() || Is64BitInteger(a->aval.dtype())) return;
  absl::StatusOr<axe::ir::HostArray> exact = axe::exec::ToExactHostArray(*v);
  AXE_FUZZ_CHECK(exact.ok() && SameValues(*exact, *a),
                 "ParseValue and ParseArgSpec read the same values from " + text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(axe::fuzz::AsText(data, size));
  absl::StatusOr<axe::ir::HostArray> a = axe::ir::ParseArgSpec(input);
  CheckTypedValue(input, a);
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
