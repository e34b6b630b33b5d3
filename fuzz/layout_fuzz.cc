// Axe layouts: Parse, and for every accepted text the round trip, the canonical form's
// equivalence to the input, and apply/inverse agreeing on a few elements.
#include <cstdint>
#include <vector>

#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/inverse.h"
#include "axe/layout/layout.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::Layout> l = axe::Layout::Parse(axe::fuzz::AsText(data, size));
  if (!l.ok()) return 0;
  const std::string text = l->ToString();
  absl::StatusOr<axe::Layout> again = axe::Layout::Parse(text);
  AXE_FUZZ_CHECK(again.ok() && *again == *l, "parse(print(l)) == l for " + text);
  const axe::Layout canonical = axe::Canonicalize(*l);
  AXE_FUZZ_CHECK(axe::Canonicalize(canonical) == canonical, "canonicalize is idempotent: " + text);
  if (l->replica().size() <= 4) {  // equivalence of many replica iters is bounded but slow
    absl::StatusOr<bool> eq = axe::Equivalent(*l, canonical);
    AXE_FUZZ_CHECK(!eq.ok() || *eq, "canonical form equivalent to " + text);
  }
  const int64_t probes[] = {0, l->size() / 2, l->size() - 1};
  for (int64_t x : probes) {
    absl::StatusOr<axe::PhysCoord> p = axe::ApplyBase(*l, x);
    if (!p.ok()) continue;
    absl::StatusOr<std::vector<std::vector<int64_t>>> back =
        axe::Inverse(*l, std::vector<int64_t>{l->size()}, *p);
    if (!back.ok()) continue;  // budgets are answers, not findings
    bool found = false;
    for (const std::vector<int64_t>& c : *back) found = found || (c.size() == 1 && c[0] == x);
    AXE_FUZZ_CHECK(found, "inverse(apply(x)) holds x for " + text);
  }
  return 0;
}
