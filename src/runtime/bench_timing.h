// Timing helpers shared by the runtime's benchmark routines (axe reshard, axe collective).
#ifndef AXE_SRC_RUNTIME_BENCH_TIMING_H_
#define AXE_SRC_RUNTIME_BENCH_TIMING_H_

#include <chrono>

namespace axe::runtime::internal {

// Seconds on the steady clock (only differences mean anything).
inline double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace axe::runtime::internal

#endif  // AXE_SRC_RUNTIME_BENCH_TIMING_H_
