// OpenBLAS, loaded on first use (internal to src/exec). Loading it at run time (dlopen) rather
// than linking it keeps its worker threads, which it starts as soon as it is loaded, out of
// every process that never multiplies a large matrix (a server, a short CLI command), and lets
// a machine without it still run every product, through plain loops.
#ifndef AXE_SRC_EXEC_BLAS_H_
#define AXE_SRC_EXEC_BLAS_H_

#include <cblas.h>

#include <cstdint>

namespace axe::exec::internal {

// The largest dimension a GEMM is given (its dimensions are ints); larger ones use loops.
inline constexpr int64_t kMaxBlasDim = int64_t{1} << 30;

struct Blas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  decltype(&openblas_set_num_threads) set_num_threads = nullptr;
  decltype(&openblas_get_corename) get_corename = nullptr;  // optional: for benchmarks
};

// The loaded library's entry points, or nullptr when libopenblas cannot be loaded. Thread-safe;
// loads once.
const Blas* LoadedBlas();

// Sets OpenBLAS's thread count, which is process-wide, only when it changes.
void SetBlasThreads(const Blas& blas, int threads);

}  // namespace axe::exec::internal

#endif  // AXE_SRC_EXEC_BLAS_H_
