// XLA text beyond shapes: program shapes (xla::ParseProgramShape, the entry_computation_layout
// of HLO module headers) and bare layouts (xla::ParseLayout, `{1,0:T(8,128)}`). Laws: the
// computation layout string reads back to the same parameters and result and prints the
// same; ToString (names, no layouts) reads back with the same names and prints the same; a
// layout reads back from its print to an equal layout.
#include <cstdint>
#include <string>

#include "axe/xla/program_shape.h"
#include "axe/xla/text.h"
#include "fuzz_check.h"

namespace {

namespace xla = axe::xla;

void CheckProgramShape(const xla::ProgramShape& p) {
  const std::string layouts = p.ComputationLayoutString();
  absl::StatusOr<xla::ProgramShape> again = xla::ParseProgramShape(layouts);
  AXE_FUZZ_CHECK(again.ok(), "the computation layout parses: " + layouts);
  AXE_FUZZ_CHECK(again->parameters == p.parameters && again->result == p.result,
                 "parse(ComputationLayoutString(p)) has p's shapes: " + layouts);
  AXE_FUZZ_CHECK(again->ComputationLayoutString() == layouts, "stable print: " + layouts);
  const std::string named = p.ToString();
  absl::StatusOr<xla::ProgramShape> read = xla::ParseProgramShape(named);
  AXE_FUZZ_CHECK(read.ok(), "ToString parses: " + named);
  AXE_FUZZ_CHECK(read->ToString() == named, "stable ToString: " + named);
  AXE_FUZZ_CHECK(read->parameters.size() == p.parameters.size(),
                 "ToString keeps the parameter count: " + named);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input = axe::fuzz::AsText(data, size);
  if (absl::StatusOr<xla::ProgramShape> p = xla::ParseProgramShape(input); p.ok()) {
    CheckProgramShape(*p);
  }
  if (absl::StatusOr<xla::Layout> l = xla::ParseLayout(input); l.ok()) {
    const std::string text = l->ToString();
    absl::StatusOr<xla::Layout> again = xla::ParseLayout(text);
    AXE_FUZZ_CHECK(again.ok() && *again == *l, "parse(print(l)) == l for " + text);
  }
  return 0;
}
