// The relayout engine against memcpy of the same bytes, a naive loop and Eigen's tensor
// shuffle, all measured in the same run, at 1 and 2 threads.
//
// Cases (issue 6):
//   1 transpose2d_8192   f32 8192x8192 transpose
//   2 perm3d_256         f32 256^3, permutation (2,0,1)
//   3 transpose2d_8000   f32 8000x8000 transpose (not a power of two)
//   4 tpu_tile / untile  bf16[4096,4096] row-major <-> {1,0:T(8,128)(2,1)}
//   5 perm6d_16          f32 16^6, permutation (5,2,0,4,1,3)
//   5b perm6d_16_b       f32 16^6, permutation (2,4,1,5,3,0) (the same one read column-major,
//                        i.e. HPTT's default convention; also its inverse)
//   6 small_64           f32 64x64 transpose: per-call overhead
// Every variant reports bytes_per_second (mean) and best_GBps (fastest iteration), counting
// bytes read plus written. The axe variants also report x_memcpy (best bandwidth / best
// memcpy bandwidth at the same thread count), x_naive and x_eigen, from the baselines
// measured just before them in the same process.
//
//   build/release/bench/relayout_bench --benchmark_min_time=0.5
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#define EIGEN_USE_THREADS
#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/thread_pool.h"
#include "axe/relayout/relayout_plan.h"
#include "benchmark/benchmark.h"
#include "hwy/targets.h"
#include "relayout_cases.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace axe::bench {
namespace {

using relayout::PlanRelayout;
using relayout::RelayoutOptions;
using relayout::RelayoutPlan;

// One benchmark case: a tensor, its two layouts, and how the baselines express it.
struct Case {
  std::string name;
  std::vector<int64_t> shape;  // logical
  int bytes = 4;
  std::string src, dst;  // Axe layouts
  // The same relayout as a permutation of a row-major source of shape `eigen_in`:
  // out dim j = in dim perm[j] (Eigen's shuffle; also the naive loop's nest).
  std::vector<int64_t> eigen_in;
  std::vector<int> perm;
  bool tpu_formula = false;  // naive loop: XLA's tiling formula with / and % (case 4)
  bool tpu_inverse = false;
};

std::vector<Case> Cases() {
  std::vector<Case> c;
  c.push_back({"transpose2d_8192",
               {8192, 8192},
               4,
               "S[(8192,8192):(8192,1)]",
               "S[(8192,8192):(1,8192)]",
               {8192, 8192},
               {1, 0}});
  c.push_back({"perm3d_256",
               {256, 256, 256},
               4,
               "S[(256,256,256):(65536,256,1)]",
               "S[(256,256,256):(256,1,65536)]",
               {256, 256, 256},
               {2, 0, 1}});
  c.push_back({"transpose2d_8000",
               {8000, 8000},
               4,
               "S[(8000,8000):(8000,1)]",
               "S[(8000,8000):(1,8000)]",
               {8000, 8000},
               {1, 0}});
  c.push_back({"tpu_tile_bf16_4096",
               {4096, 4096},
               2,
               "S[(4096,4096):(4096,1)]",
               TpuTiledLayoutText(4096, 4096),
               {512, 4, 2, 32, 128},
               {0, 3, 1, 4, 2},
               true,
               false});
  c.push_back({"tpu_untile_bf16_4096",
               {4096, 4096},
               2,
               TpuTiledLayoutText(4096, 4096),
               "S[(4096,4096):(4096,1)]",
               {512, 32, 4, 128, 2},
               {0, 2, 4, 1, 3},
               true,
               true});
  c.push_back({"perm6d_16",
               {16, 16, 16, 16, 16, 16},
               4,
               "S[(16,16,16,16,16,16):(1048576,65536,4096,256,16,1)]",
               PermutedLayoutText(std::vector<int64_t>(6, 16), {5, 2, 0, 4, 1, 3}),
               {16, 16, 16, 16, 16, 16},
               {5, 2, 0, 4, 1, 3}});
  c.push_back({"perm6d_16_b",
               {16, 16, 16, 16, 16, 16},
               4,
               "S[(16,16,16,16,16,16):(1048576,65536,4096,256,16,1)]",
               PermutedLayoutText(std::vector<int64_t>(6, 16), {2, 4, 1, 5, 3, 0}),
               {16, 16, 16, 16, 16, 16},
               {2, 4, 1, 5, 3, 0}});
  c.push_back(
      {"small_64", {64, 64}, 4, "S[(64,64):(64,1)]", "S[(64,64):(1,64)]", {64, 64}, {1, 0}});
  return c;
}

int64_t Elements(const Case& c) {
  int64_t n = 1;
  for (int64_t e : c.shape) n *= e;
  return n;
}

// Page-aligned buffers, touched once so that no page fault is timed.
struct Buffers {
  std::string name;
  uint8_t* src = nullptr;
  uint8_t* dst = nullptr;
  int64_t bytes = 0;
  ~Buffers() {
    std::free(src);
    std::free(dst);
  }
};

Buffers& BuffersFor(const Case& c) {
  static std::unique_ptr<Buffers> current;
  if (current && current->name == c.name) return *current;
  current.reset();
  auto b = std::make_unique<Buffers>();
  b->name = c.name;
  b->bytes = Elements(c) * c.bytes;
  const size_t size = static_cast<size_t>((b->bytes + 4095) / 4096 * 4096);
  b->src = static_cast<uint8_t*>(std::aligned_alloc(4096, size));
  b->dst = static_cast<uint8_t*>(std::aligned_alloc(4096, size));
  AXE_CHECK(b->src != nullptr && b->dst != nullptr) << "out of memory";
  if (std::getenv("AXE_BENCH_HUGEPAGES") != nullptr) {
    madvise(b->src, size, MADV_HUGEPAGE);
    madvise(b->dst, size, MADV_HUGEPAGE);
  }
  for (int64_t k = 0; k < b->bytes; ++k) b->src[k] = static_cast<uint8_t>(k * 131 + 7);
  std::memset(b->dst, 0, static_cast<size_t>(b->bytes));
  current = std::move(b);
  return *current;
}

// Baseline bandwidths (bytes/s) per "case/variant/threads", for the axe counters.
std::map<std::string, double>& Baselines() {
  static auto* m = new std::map<std::string, double>();
  return *m;
}

// Per-iteration times of one benchmark.
struct Times {
  double best = 1e30, total = 0;
};

// Sets bytes_per_second (mean over the iterations, bytes read + written) and best_GBps
// (from the fastest iteration, the one least disturbed on a busy machine) and returns the
// rate the x_* ratios use, in bytes/s: the best one, or the mean for calls of less than
// 20 us, which the clock cannot time one by one.
double Report(benchmark::State& state, const Case& c, const Times& t) {
  const double bytes = 2.0 * static_cast<double>(Elements(c) * c.bytes);
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * static_cast<int64_t>(state.iterations()));
  const double best = bytes / std::max(t.best, 1e-12);
  const double mean = bytes * static_cast<double>(state.iterations()) / std::max(t.total, 1e-12);
  state.counters["best_GBps"] = best / 1e9;
  return t.best < 20e-6 ? mean : best;
}

// Times one iteration's body.
template <typename F>
void Timed(Times& t, F&& body) {
  auto t0 = std::chrono::steady_clock::now();
  body();
  benchmark::ClobberMemory();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.best = std::min(t.best, s);
  t.total += s;
}

// ------------------------------------------------------------------ memcpy

void BM_Memcpy(benchmark::State& state, Case c) {
  Buffers& b = BuffersFor(c);
  // Small copies run on one thread, as the engine does (RelayoutOptions::min_parallel_bytes).
  const int threads =
      2 * b.bytes < RelayoutOptions().min_parallel_bytes ? 1 : static_cast<int>(state.range(0));
  ThreadPool& pool = ThreadPool::Default();
  Times best;
  for (auto _ : state) {
    Timed(best, [&] {
      if (threads == 1) {
        std::memcpy(b.dst, b.src, static_cast<size_t>(b.bytes));
        return;
      }
      const int64_t part = (b.bytes / threads + 63) / 64 * 64;
      pool.ParallelFor(
          threads,
          [&](int64_t t) {
            const int64_t lo = std::min(b.bytes, t * part), hi = std::min(b.bytes, lo + part);
            std::memcpy(b.dst + lo, b.src + lo, static_cast<size_t>(hi - lo));
          },
          threads);
    });
  }
  Baselines()[absl::StrCat(c.name, "/memcpy/", state.range(0))] = Report(state, c, best);
}

// ------------------------------------------------------------------ naive loop

// out[j...] = in[perm...]: the straightforward nested loop over the output's row-major
// index, reading the input through strides (what a user writes without blocking).
template <typename T>
void NaivePermute(const T* in, T* out, const std::vector<int64_t>& in_shape,
                  const std::vector<int>& perm) {
  const size_t r = in_shape.size();
  std::vector<int64_t> in_strides(r), out_shape(r), stride_of_out(r);
  int64_t s = 1;
  for (size_t d = r; d-- > 0;) {
    in_strides[d] = s;
    s *= in_shape[d];
  }
  for (size_t j = 0; j < r; ++j) {
    out_shape[j] = in_shape[static_cast<size_t>(perm[j])];
    stride_of_out[j] = in_strides[static_cast<size_t>(perm[j])];
  }
  std::vector<int64_t> idx(r, 0);
  int64_t src = 0;
  const int64_t n = s;
  const int64_t inner = out_shape[r - 1], inner_stride = stride_of_out[r - 1];
  for (int64_t o = 0; o < n; o += inner) {
    for (int64_t k = 0; k < inner; ++k) out[o + k] = in[src + k * inner_stride];
    for (size_t d = r - 1; d-- > 0;) {  // next row: odometer over the outer output dims
      src += stride_of_out[d];
      if (++idx[d] < out_shape[d]) break;
      src -= stride_of_out[d] * out_shape[d];
      idx[d] = 0;
    }
  }
}

// XLA's tiling, element by element with divisions (the naive TPU conversion).
void NaiveTpu(const uint16_t* in, uint16_t* out, int64_t rows, int64_t cols, bool inverse) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t t =
          ((r / 8) * (cols / 128) + c / 128) * 1024 + ((r % 8) / 2) * 256 + (c % 128) * 2 + r % 2;
      if (inverse) {
        out[r * cols + c] = in[t];
      } else {
        out[t] = in[r * cols + c];
      }
    }
  }
}

void BM_Naive(benchmark::State& state, Case c) {
  Buffers& b = BuffersFor(c);
  Times best;
  for (auto _ : state) {
    Timed(best, [&] {
      if (c.tpu_formula) {
        NaiveTpu(reinterpret_cast<const uint16_t*>(b.src), reinterpret_cast<uint16_t*>(b.dst),
                 c.shape[0], c.shape[1], c.tpu_inverse);
      } else {
        NaivePermute(reinterpret_cast<const float*>(b.src), reinterpret_cast<float*>(b.dst),
                     c.eigen_in, c.perm);
      }
    });
  }
  Baselines()[absl::StrCat(c.name, "/naive/1")] = Report(state, c, best);
}

// ------------------------------------------------------------------ Eigen

template <typename T, int N>
void EigenShuffle(const Case& c, Buffers& b, const Eigen::ThreadPoolDevice& device) {
  Eigen::array<Eigen::Index, N> in_dims, out_dims;
  Eigen::array<int, N> perm;
  for (int d = 0; d < N; ++d) {
    in_dims[static_cast<size_t>(d)] = c.eigen_in[static_cast<size_t>(d)];
    perm[static_cast<size_t>(d)] = c.perm[static_cast<size_t>(d)];
  }
  for (int d = 0; d < N; ++d)
    out_dims[static_cast<size_t>(d)] = in_dims[static_cast<size_t>(perm[static_cast<size_t>(d)])];
  Eigen::TensorMap<Eigen::Tensor<const T, N, Eigen::RowMajor>> in(reinterpret_cast<const T*>(b.src),
                                                                  in_dims);
  Eigen::TensorMap<Eigen::Tensor<T, N, Eigen::RowMajor>> out(reinterpret_cast<T*>(b.dst), out_dims);
  out.device(device) = in.shuffle(perm);
}

void BM_Eigen(benchmark::State& state, Case c) {
  Buffers& b = BuffersFor(c);
  const int threads = static_cast<int>(state.range(0));
  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  Times best;
  for (auto _ : state) {
    Timed(best, [&] {
      switch (c.eigen_in.size()) {
        case 2: EigenShuffle<float, 2>(c, b, device); break;
        case 3: EigenShuffle<float, 3>(c, b, device); break;
        case 5: EigenShuffle<uint16_t, 5>(c, b, device); break;
        default: EigenShuffle<float, 6>(c, b, device); break;
      }
    });
  }
  Baselines()[absl::StrCat(c.name, "/eigen/", threads)] = Report(state, c, best);
}

// ------------------------------------------------------------------ axe

void BM_Axe(benchmark::State& state, Case c) {
  Buffers& b = BuffersFor(c);
  const int threads = static_cast<int>(state.range(0));
  RelayoutOptions options;
  options.threads = threads;
  absl::StatusOr<RelayoutPlan> plan =
      PlanRelayout(*Layout::Parse(c.src), *Layout::Parse(c.dst), c.shape, c.bytes, options);
  AXE_CHECK(plan.ok()) << plan.status().message();
  state.SetLabel(absl::StrCat(plan->kernels()[0],
                              plan->ToString().find("streaming") != std::string::npos ? ", nt" : "",
                              ", ", plan->threads(), "T"));
  Times best;
  for (auto _ : state) {
    absl::Status s;
    Timed(best, [&] { s = plan->Execute(b.src, b.dst); });
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
  }
  const double rate = Report(state, c, best);
  auto ratio = [&](const std::string& key) {
    auto it = Baselines().find(key);
    return it == Baselines().end() ? 0.0 : rate / it->second;
  };
  state.counters["x_memcpy"] = ratio(absl::StrCat(c.name, "/memcpy/", threads));
  state.counters["x_naive"] = ratio(absl::StrCat(c.name, "/naive/1"));
  state.counters["x_eigen"] = ratio(absl::StrCat(c.name, "/eigen/", threads));
}

// One-shot Relayout (planning included) on the small case: what a caller without a cached
// plan pays.
void BM_AxeOneShot(benchmark::State& state, Case c) {
  Buffers& b = BuffersFor(c);
  const Layout src = *Layout::Parse(c.src), dst = *Layout::Parse(c.dst);
  Times best;
  for (auto _ : state) {
    absl::Status s;
    Timed(best, [&] { s = relayout::Relayout(src, dst, c.shape, c.bytes, b.src, b.dst); });
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
  }
  Report(state, c, best);
}

void RegisterAll() {
  for (const Case& c : Cases()) {
    const bool big = Elements(c) * c.bytes > (int64_t{1} << 20);
    for (int t : {1, 2}) {
      benchmark::RegisterBenchmark(absl::StrCat(c.name, "/memcpy").c_str(), BM_Memcpy, c)
          ->Arg(t)
          ->UseRealTime();
    }
    auto* naive = benchmark::RegisterBenchmark(absl::StrCat(c.name, "/naive").c_str(), BM_Naive, c);
    naive->Arg(1)->UseRealTime();
    if (big) naive->Iterations(2);
    for (int t : {1, 2}) {
      benchmark::RegisterBenchmark(absl::StrCat(c.name, "/eigen").c_str(), BM_Eigen, c)
          ->Arg(t)
          ->UseRealTime();
    }
    for (int t : {1, 2}) {
      benchmark::RegisterBenchmark(absl::StrCat(c.name, "/axe").c_str(), BM_Axe, c)
          ->Arg(t)
          ->UseRealTime();
    }
    if (!big)
      benchmark::RegisterBenchmark(absl::StrCat(c.name, "/axe_oneshot").c_str(), BM_AxeOneShot, c);
  }
}

}  // namespace
}  // namespace axe::bench

// AXE_BENCH_SIMD=AVX2 (or SSE4): the engine's kernels run on that target only (Highway's
// dispatch is mocked), so the AVX2 paths can be measured on an AVX-512 machine.
int main(int argc, char** argv) {
  if (const char* simd = std::getenv("AXE_BENCH_SIMD")) {
    const std::string want = simd;
    const int64_t target = want == "AVX2" ? HWY_AVX2 : want == "SSE4" ? HWY_SSE4 : 0;
    AXE_CHECK(target != 0 && (hwy::SupportedTargets() & target) != 0)
        << "AXE_BENCH_SIMD: AVX2 or SSE4, and this CPU must have it: " << want;
    hwy::SetSupportedTargetsForTest(target);
  }
  axe::bench::RegisterAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
