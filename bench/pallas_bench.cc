// The Pallas executor's overhead: a blocked matmul through PallasCall against the same loop
// nest written directly (same block routine, same thread pool), and the per-program cost of
// tiny blocks.
//
//   build/release/bench/pallas_bench --benchmark_min_time=1
#include <cstdint>
#include <vector>

#include "axe/base/thread_pool.h"
#include "axe/pallas/pallas_call.h"
#include "benchmark/benchmark.h"

namespace axe::pallas {
namespace {

constexpr int64_t kN = 1024, kB = 128, kBlocks = kN / kB;

// c[0:bm, 0:bn] (+)= a[0:bm, 0:bk] @ b[0:bk, 0:bn], row-major with leading dimensions.
__attribute__((noipa)) void MatmulBlock(const float* a, int64_t lda, const float* b, int64_t ldb,
                                        float* c, int64_t ldc, bool init) {
  for (int64_t i = 0; i < kB; ++i) {
    float* ci = c + i * ldc;
    if (init) {
      for (int64_t j = 0; j < kB; ++j) ci[j] = 0.0f;
    }
    for (int64_t k = 0; k < kB; ++k) {
      const float aik = a[i * lda + k];
      const float* bk = b + k * ldb;
      for (int64_t j = 0; j < kB; ++j) ci[j] += aik * bk[j];
    }
  }
}

struct Operands {
  Array<float> a = *Array<float>::Zeros({kN, kN});
  Array<float> b = *Array<float>::Zeros({kN, kN});
  Operands() {
    for (int64_t i = 0; i < a.size(); ++i) {
      a.data()[i] = static_cast<float>(i % 7) * 0.25f;
      b.data()[i] = static_cast<float>(i % 5) * 0.5f;
    }
  }
};

ThreadPool& Pool() {
  static ThreadPool* pool = new ThreadPool(2);
  return *pool;
}

// The loop nest written directly: (i, j) blocks in parallel, k in order.
void BM_MatmulDirect(benchmark::State& state) {
  Operands ops;
  Array<float> c = *Array<float>::Zeros({kN, kN});
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    Pool().ParallelFor(
        kBlocks * kBlocks,
        [&](int64_t t) {
          const int64_t i = t / kBlocks, j = t % kBlocks;
          for (int64_t k = 0; k < kBlocks; ++k) {
            MatmulBlock(ops.a.data() + i * kB * kN + k * kB, kN,
                        ops.b.data() + k * kB * kN + j * kB, kN, c.data() + i * kB * kN + j * kB,
                        kN, k == 0);
          }
        },
        threads);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * kN * kN * kN * static_cast<double>(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate);
}

void RunPallasMatmul(benchmark::State& state, Mode mode) {
  Operands ops;
  const int threads = static_cast<int>(state.range(0));
  auto kernel = [](Ref<const float> x, Ref<const float> y, Ref<float> o) {
    MatmulBlock(x.data(), x.stride(0), y.data(), y.stride(0), o.data(), o.stride(0),
                ProgramId(2) == 0);
  };
  auto call = PallasCall(kernel, OutShape<float>{{kN, kN}},
                         {.grid = {kBlocks, kBlocks, kBlocks},
                          .in_specs = {BlockSpec({kB, kB},
                                                 [](int64_t i, int64_t, int64_t k) {
                                                   return std::pair{i, k};
                                                 }),
                                       BlockSpec({kB, kB},
                                                 [](int64_t, int64_t j, int64_t k) {
                                                   return std::pair{k, j};
                                                 })},
                          .out_specs = {BlockSpec({kB, kB},
                                                  [](int64_t i, int64_t j, int64_t) {
                                                    return std::pair{i, j};
                                                  })},
                          .options = {.mode = mode,
                                      .dimension_semantics = {kParallel, kParallel, kArbitrary},
                                      .pool = &Pool(),
                                      .num_threads = threads}});
  for (auto _ : state) {
    absl::StatusOr<Array<float>> c = call(ops.a, ops.b);
    if (!c.ok()) state.SkipWithError(std::string(c.status().message()).c_str());
    benchmark::DoNotOptimize(c);
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * kN * kN * kN * static_cast<double>(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate);
}

void BM_MatmulPallasParallel(benchmark::State& state) { RunPallasMatmul(state, Mode::kParallel); }
void BM_MatmulPallasInterpret(benchmark::State& state) { RunPallasMatmul(state, Mode::kInterpret); }

BENCHMARK(BM_MatmulDirect)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatmulPallasParallel)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatmulPallasInterpret)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);

// Tiny blocks: y = x + 1 on 256 x 256 elements, one element per program (65536 programs,
// two operands each). The direct loop does the same element work through the same kind of
// kernel call, so the difference is the executor's per-program cost.
constexpr int64_t kTiny = 256;

void BM_TinyDirect(benchmark::State& state) {
  Array<float> x = *Array<float>::Iota({kTiny, kTiny});
  Array<float> y = *Array<float>::Zeros({kTiny, kTiny});
  auto body = [](const float* in, float* out) { *out = *in + 1.0f; };
  for (auto _ : state) {
    for (int64_t i = 0; i < kTiny; ++i) {
      for (int64_t j = 0; j < kTiny; ++j) {
        body(x.data() + i * kTiny + j, y.data() + i * kTiny + j);
        benchmark::ClobberMemory();
      }
    }
  }
  state.counters["ns_per_program"] = benchmark::Counter(
      static_cast<double>(kTiny * kTiny) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_TinyPallas(benchmark::State& state) {
  Array<float> x = *Array<float>::Iota({kTiny, kTiny});
  const Mode mode = state.range(0) == 0 ? Mode::kInterpret : Mode::kParallel;
  const bool check = state.range(0) == 1;
  auto call = PallasCall(
      [](Ref<const float> in, Ref<float> out) {
        *out.data() = *in.data() + 1.0f;
        benchmark::ClobberMemory();
      },
      OutShape<float>{{kTiny, kTiny}},
      {.grid = {kTiny, kTiny},
       .in_specs = {BlockSpec({1, 1},
                              [](int64_t i, int64_t j) {
                                return std::pair{i, j};
                              })},
       .out_specs = {BlockSpec({1, 1},
                               [](int64_t i, int64_t j) {
                                 return std::pair{i, j};
                               })},
       .options = {.mode = mode,
                   .dimension_semantics = {kParallel, kArbitrary},
                   .pool = &Pool(),
                   .num_threads = 1,
                   .check_parallel_writes = check}});
  for (auto _ : state) {
    absl::StatusOr<Array<float>> y = call(x);
    if (!y.ok()) state.SkipWithError(std::string(y.status().message()).c_str());
    benchmark::DoNotOptimize(y);
  }
  state.counters["ns_per_program"] = benchmark::Counter(
      static_cast<double>(kTiny * kTiny) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_TinyDirect)->Unit(benchmark::kMillisecond);
// 0: interpret mode; 1: parallel mode on one thread with the write-conflict check;
// 2: the same without the check.
BENCHMARK(BM_TinyPallas)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace axe::pallas

BENCHMARK_MAIN();
