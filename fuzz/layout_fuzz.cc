// Axe layouts: Parse, and for every accepted text the round trip and the canonical form's
// idempotence; for small layouts (at most kMaxLawPoints points times replicas) also the
// canonical form's equivalence to the input and apply/inverse agreeing on a few elements.
// Those two laws enumerate up to 2^20 points per input; capped, the target runs at useful
// rates and the fuzzer's time goes to structure (the enumerations' budgets have unit tests).
#include <cstdint>
#include <optional>
#include <vector>

#include "axe/base/checked_math.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/inverse.h"
#include "axe/layout/layout.h"
#include "fuzz_check.h"

namespace {

constexpr int64_t kMaxLawPoints = int64_t{1} << 12;

bool SmallEnoughToEnumerate(const axe::Layout& l) {
  const std::optional<int64_t> points = axe::CheckedMul(l.size(), l.replica_size());
  return points && *points <= kMaxLawPoints;
}

void CheckEnumeratedLaws(const axe::Layout& l, const axe::Layout& canonical,
                         const std::string& text) {
  absl::StatusOr<bool> eq = axe::Equivalent(l, canonical);
  AXE_FUZZ_CHECK(!eq.ok() || *eq, "canonical form equivalent to " + text);
  const int64_t probes[] = {0, l.size() / 2, l.size() - 1};
  for (int64_t x : probes) {
    absl::StatusOr<axe::PhysCoord> p = axe::ApplyBase(l, x);
    if (!p.ok()) continue;
    absl::StatusOr<std::vector<std::vector<int64_t>>> back =
        axe::Inverse(l, std::vector<int64_t>{l.size()}, *p);
    if (!back.ok()) continue;  // budgets are answers, not findings
    bool found = false;
    for (const std::vector<int64_t>& c : *back) found = found || (c.size() == 1 && c[0] == x);
    AXE_FUZZ_CHECK(found, "inverse(apply(x)) holds x for " + text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::Layout> l = axe::Layout::Parse(axe::fuzz::AsText(data, size));
  if (!l.ok()) return 0;
  const std::string text = l->ToString();
  absl::StatusOr<axe::Layout> again = axe::Layout::Parse(text);
  AXE_FUZZ_CHECK(again.ok() && *again == *l, "parse(print(l)) == l for " + text);
  const axe::Layout canonical = axe::Canonicalize(*l);
  AXE_FUZZ_CHECK(axe::Canonicalize(canonical) == canonical, "canonicalize is idempotent: " + text);
  if (SmallEnoughToEnumerate(*l)) CheckEnumeratedLaws(*l, canonical, text);
  return 0;
}
