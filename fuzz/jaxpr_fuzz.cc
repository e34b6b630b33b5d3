// Jaxpr text (ir/parser.h): ParseJaxpr, the round trip through the printer
// (ParseJaxpr(PrintJaxpr(j)) == j, as parsed jaxprs are canonical and strong-typed), a
// stable print, and the type checker never crashing on what parses.
#include <cstdint>
#include <string>

#include "axe/ir/check.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::ir::ClosedJaxpr> j = axe::ir::ParseJaxpr(axe::fuzz::AsText(data, size));
  if (!j.ok()) return 0;
  (void)axe::ir::CheckJaxpr(*j);
  const std::string text = axe::ir::PrintJaxpr(*j);
  absl::StatusOr<axe::ir::ClosedJaxpr> again = axe::ir::ParseJaxpr(text);
  AXE_FUZZ_CHECK(again.ok(), "the printed jaxpr parses: " + text + "\n" +
                                 std::string(again.status().message()));
  AXE_FUZZ_CHECK(*again == *j, "parse(print(j)) == j for " + text);
  AXE_FUZZ_CHECK(axe::ir::PrintJaxpr(*again) == text, "print is stable for " + text);
  return 0;
}
