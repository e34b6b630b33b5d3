// `axe call --arg` texts (jit::ParseCallArgumentSpec: committed / uncommitted, a Layout(...)
// or a Format(...) repr) and the layout word AUTO (AutoLayout::Parse). Laws: the spec's
// text form (the word, then the layout's repr or the Format's) reads back to an equal spec;
// DevicesNeeded is at least 1; CallArgumentFormat on small shapes never crashes.
#include <cstdint>
#include <string>
#include <vector>

#include "axe/jit/call_argument.h"
#include "axe/sharding/format.h"
#include "axe/sharding/local_layout.h"
#include "fuzz_check.h"

namespace {

namespace sh = axe::sharding;

const std::vector<std::vector<int64_t>> kShapes = {{}, {8}, {8, 12}, {4, 6, 8}};

// The spec as ParseCallArgumentSpec reads it.
std::string SpecText(const axe::jit::CallArgumentSpec& spec) {
  std::string text = spec.committed ? "committed" : "uncommitted";
  if (spec.sharding) {
    sh::Format::LayoutChoice layout;
    if (spec.layout) layout = *spec.layout;
    absl::StatusOr<sh::Format> format = sh::Format::Create(layout, spec.sharding);
    AXE_FUZZ_CHECK(format.ok(), "a parsed spec makes a Format: " + format.status().ToString());
    return text + " " + format->ToString();
  }
  if (spec.layout) text += " " + spec.layout->ToString();
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input = axe::fuzz::AsText(data, size);
  if (absl::StatusOr<sh::AutoLayout> a = sh::AutoLayout::Parse(input); a.ok()) {
    AXE_FUZZ_CHECK(sh::AutoLayout::Parse(a->ToString()).ok(), "AUTO reads back");
  }
  absl::StatusOr<axe::jit::CallArgumentSpec> spec = axe::jit::ParseCallArgumentSpec(input);
  if (!spec.ok()) return 0;
  const std::string text = SpecText(*spec);
  absl::StatusOr<axe::jit::CallArgumentSpec> again = axe::jit::ParseCallArgumentSpec(text);
  AXE_FUZZ_CHECK(again.ok() && again->committed == spec->committed &&
                     again->layout == spec->layout && again->sharding == spec->sharding,
                 "the spec reads back from its text " + text);
  AXE_FUZZ_CHECK(axe::jit::DevicesNeeded(*spec) >= 1, "DevicesNeeded >= 1 for " + text);
  for (const std::vector<int64_t>& shape : kShapes) {
    (void)axe::jit::CallArgumentFormat(shape, axe::DType::kF32, *spec);
    (void)axe::jit::CallArgumentFormat(shape, axe::DType::kBF16, *spec);
  }
  return 0;
}
