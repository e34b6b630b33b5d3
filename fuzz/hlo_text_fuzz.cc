// Pasted HLO: ScanHlo over instruction lines and modules never crashes or hangs.
#include <cstdint>

#include "axe/xla/hlo_text.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)axe::xla::ScanHlo(axe::fuzz::AsText(data, size, 1 << 16));
  return 0;
}
