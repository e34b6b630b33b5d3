// Pallas index maps: Parse, the round trip, and evaluation at extreme grid points (never UB:
// an overflow is an error).
#include <cstdint>
#include <limits>
#include <vector>

#include "axe/pallas/index_map_expr.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<axe::pallas::IndexMapExpr> e =
      axe::pallas::IndexMapExpr::Parse(axe::fuzz::AsText(data, size));
  if (!e.ok()) return 0;
  const std::string text = e->ToString();
  absl::StatusOr<axe::pallas::IndexMapExpr> again = axe::pallas::IndexMapExpr::Parse(text);
  AXE_FUZZ_CHECK(again.ok() && *again == *e, "parse(print(e)) == e for " + text);
  for (int64_t v : {int64_t{0}, int64_t{7}, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    std::vector<int64_t> args(e->params().size(), v);
    (void)e->Evaluate(args);
  }
  return 0;
}
