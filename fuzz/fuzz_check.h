// Shared by the fuzz targets: a law that must hold aborts with a message (libFuzzer reports
// the input), so a broken round trip is a finding like a crash.
#ifndef AXE_FUZZ_FUZZ_CHECK_H_
#define AXE_FUZZ_FUZZ_CHECK_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"

#define AXE_FUZZ_CHECK(condition, what)                                          \
  do {                                                                           \
    if (!(condition)) {                                                          \
      std::fprintf(stderr, "fuzz law broken at %s:%d: %s\n", __FILE__, __LINE__, \
                   std::string(what).c_str());                                   \
      std::abort();                                                              \
    }                                                                            \
  } while (false)

namespace axe::fuzz {

// The input as text, at most `max_bytes` long (longer inputs are cut: the parsers' own length
// limits are tested by unit tests, the fuzzer's time is better spent on structure).
inline absl::string_view AsText(const uint8_t* data, size_t size, size_t max_bytes = 4096) {
  return absl::string_view(reinterpret_cast<const char*>(data),
                           size < max_bytes ? size : max_bytes);
}

}  // namespace axe::fuzz

#endif  // AXE_FUZZ_FUZZ_CHECK_H_
