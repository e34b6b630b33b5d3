// Eigen's GEMM (XLA:CPU's choice) against OpenBLAS's, f32 1024^3 and 256x1024x1024, on one
// machine in one run: the measurement behind the executor's choice of OpenBLAS. Built outside
// CMake, once per SIMD target, because Eigen picks its kernels when compiled (docs/exec.md):
//
//   g++ -O3 -mavx2 -mfma -DNDEBUG -I/usr/include/eigen3 \
//     -I/usr/include/x86_64-linux-gnu/openblas-pthread bench/gemm_eigen_vs_openblas.cc \
//     -lopenblas -lpthread -o /tmp/gemm_avx2 && /tmp/gemm_avx2
//   (the same with -mavx512f -mavx512dq -mavx512bw -mavx512vl -mfma for AVX-512)
//
// OpenBLAS picks its kernels at load time from the CPU, not from the flags above: run the AVX2
// binary with OPENBLAS_CORETYPE=Haswell so that both libraries run AVX2 code on an AVX-512
// machine. The first line names the kernels OpenBLAS loaded.
#include <cblas.h>

#include <Eigen/Core>
#include <chrono>
#include <cstdio>

namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <typename Fn>
double BestSeconds(Fn fn) {
  double best = 1e30;
  for (int i = 0; i < 7; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = s < best ? s : best;
  }
  return best;
}

void Compare(int m, int n, int k, int threads) {
  Matrix a = Matrix::Random(m, k), b = Matrix::Random(k, n), c(m, n), d(m, n);
  Eigen::setNbThreads(threads);
  openblas_set_num_threads(threads);
  double eigen = BestSeconds([&] { c.noalias() = a * b; });
  double blas = BestSeconds([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(), n,
                0.0f, d.data(), n);
  });
  double flops = 2.0 * m * n * k;
  std::printf("%4dx%4dx%4d threads %d: Eigen %7.2f GFLOP/s  OpenBLAS %7.2f GFLOP/s  (diff %.2g)\n",
              m, n, k, threads, flops / eigen * 1e-9, flops / blas * 1e-9,
              static_cast<double>((c - d).cwiseAbs().maxCoeff()));
}

}  // namespace

int main() {
  std::printf("OpenBLAS kernels: %s\n", openblas_get_corename());
  for (int threads : {1, 2}) {
    Compare(1024, 1024, 1024, threads);
    Compare(256, 1024, 1024, threads);
  }
  return 0;
}
