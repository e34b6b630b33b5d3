// Apply and inverse against naive implementations written from the definitions.
//
//   build/release/bench/layout_bench --benchmark_min_time=0.2
#include <map>
#include <string>
#include <vector>

#include "axe/layout/apply.h"
#include "axe/layout/inverse.h"
#include "benchmark/benchmark.h"

namespace axe {
namespace {

const char* kLA = "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp";
const char* kTiled = "S[(64,2,16,4,32):(4096,1,256,2,8)]";  // 131072 elements, memory only

// The naive way: digits by division per iter, coordinates in a string-keyed map.
std::map<std::string, int64_t> NaiveApplyBase(const Layout& l, int64_t x) {
  std::map<std::string, int64_t> out;
  for (const auto& [axis, v] : l.offset().entries()) out[std::string(axis.name())] += v;
  const std::vector<Iter>& d = l.shard();
  for (size_t k = 0; k < d.size(); ++k) {
    int64_t b = 1;
    for (size_t j = k + 1; j < d.size(); ++j) b *= d[j].extent;
    out[std::string(d[k].axis.name())] += ((x / b) % d[k].extent) * d[k].stride;
  }
  return out;
}

void BM_ApplyBase(benchmark::State& state, const char* text) {
  Layout l = *Layout::Parse(text);
  int64_t x = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ApplyBase(l, x));
    x = (x + 7919) % l.size();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_ApplyBaseNaive(benchmark::State& state, const char* text) {
  Layout l = *Layout::Parse(text);
  int64_t x = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(NaiveApplyBase(l, x));
    x = (x + 7919) % l.size();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Apply(benchmark::State& state) {
  Layout l = *Layout::Parse(kLA);
  int64_t x = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(Apply(l, x));
    x = (x + 37) % l.size();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Inverse(benchmark::State& state, const char* text) {
  Layout l = *Layout::Parse(text);
  InverseMap m = *InverseMap::Build(l);
  std::vector<PhysCoord> targets;
  for (int64_t x = 0; x < l.size(); x += l.size() / 64 + 1) targets.push_back(*ApplyBase(l, x));
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(m.Preimage(targets[i]));
    i = (i + 1) % targets.size();
  }
  state.SetItemsProcessed(state.iterations());
}

// The naive inverse: scan the whole domain.
void BM_InverseNaiveScan(benchmark::State& state, const char* text) {
  Layout l = *Layout::Parse(text);
  std::vector<PhysCoord> targets;
  for (int64_t x = 0; x < l.size(); x += l.size() / 64 + 1) targets.push_back(*ApplyBase(l, x));
  size_t i = 0;
  for (auto _ : state) {
    std::vector<int64_t> found;
    for (int64_t x = 0; x < l.size(); ++x) {
      if (*ApplyBase(l, x) == targets[i]) found.push_back(x);
    }
    benchmark::DoNotOptimize(found);
    i = (i + 1) % targets.size();
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK_CAPTURE(BM_ApplyBase, fig2, kLA);
BENCHMARK_CAPTURE(BM_ApplyBaseNaive, fig2, kLA);
BENCHMARK_CAPTURE(BM_ApplyBase, tiled, kTiled);
BENCHMARK_CAPTURE(BM_ApplyBaseNaive, tiled, kTiled);
BENCHMARK(BM_Apply);
BENCHMARK_CAPTURE(BM_Inverse, fig2, kLA);
BENCHMARK_CAPTURE(BM_InverseNaiveScan, fig2, kLA);
BENCHMARK_CAPTURE(BM_Inverse, tiled, kTiled);
BENCHMARK_CAPTURE(BM_InverseNaiveScan, tiled, kTiled)->Iterations(20);

}  // namespace
}  // namespace axe

BENCHMARK_MAIN();
