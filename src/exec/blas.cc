#include "exec/blas.h"

#include <dlfcn.h>

#include <atomic>
#include <initializer_list>

namespace axe::exec::internal {

const Blas* LoadedBlas() {
  static const Blas* blas = []() -> const Blas* {
    void* library = nullptr;
    for (const char* name : {"libopenblas.so.0", "libopenblas.so"}) {
      library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (library != nullptr) break;
    }
    if (library == nullptr) return nullptr;
    auto* b = new Blas;  // never unloaded: the pointers stay valid for the process
    b->sgemm = reinterpret_cast<decltype(b->sgemm)>(dlsym(library, "cblas_sgemm"));
    b->dgemm = reinterpret_cast<decltype(b->dgemm)>(dlsym(library, "cblas_dgemm"));
    b->set_num_threads =
        reinterpret_cast<decltype(b->set_num_threads)>(dlsym(library, "openblas_set_num_threads"));
    b->get_corename =
        reinterpret_cast<decltype(b->get_corename)>(dlsym(library, "openblas_get_corename"));
    if (b->sgemm == nullptr || b->dgemm == nullptr || b->set_num_threads == nullptr) {
      delete b;
      return nullptr;
    }
    return b;
  }();
  return blas;
}

void SetBlasThreads(const Blas& blas, int threads) {
  static std::atomic<int> current{0};
  if (current.exchange(threads) != threads) blas.set_num_threads(threads);
}

}  // namespace axe::exec::internal
