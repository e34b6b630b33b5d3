// XLA tiled layouts: the nested linear index and its inverse, directly (TilingMap) and
// through the exact Axe form (ToAxe, then the layout core's ApplyBase / InverseFlat), plus
// parsing, and explain's growth with rank and tile levels. Ratios are taken between rows of the
// same run.
//
//   build/release/bench/xla_bench --benchmark_min_time=0.2
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/layout/apply.h"
#include "axe/layout/inverse.h"
#include "axe/xla/explain.h"
#include "axe/xla/text.h"
#include "axe/xla/tiling.h"
#include "axe/xla/to_axe.h"
#include "benchmark/benchmark.h"

namespace axe::xla {
namespace {

const char* kTpu = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";
const char* kFig1 = "f32[3,5]{1,0:T(2,2)}";

// Logical indices spread over the array (row-major steps of a large prime).
std::vector<std::vector<int64_t>> Indices(const Shape& s, int n) {
  std::vector<std::vector<int64_t>> out;
  int64_t total = 1;
  for (int64_t d : s.dimensions()) total *= d;
  int64_t k = 0;
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> idx(s.dimensions().size());
    int64_t rest = k;
    for (size_t d = idx.size(); d-- > 0;) {
      idx[d] = rest % s.dimensions(d);
      rest /= s.dimensions(d);
    }
    out.push_back(idx);
    k = (k + 1000003) % total;
  }
  return out;
}

void BM_NestedLinearIndex(benchmark::State& state, const char* text) {
  Shape s = *ParseShape(text);
  TilingMap m = *TilingMap::Create(s);
  std::vector<std::vector<int64_t>> idx = Indices(s, 1024);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(m.LinearIndex(idx[i++ & 1023]));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_AxeApplyOfToAxe(benchmark::State& state, const char* text) {
  Shape s = *ParseShape(text);
  AxeForm f = *ToAxe(s);
  std::vector<int64_t> flat;
  for (const auto& idx : Indices(s, 1024)) flat.push_back(*f.DomainFlatIndex(idx));
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ApplyBase(f.layout, flat[i++ & 1023]));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_NestedDelinearize(benchmark::State& state, const char* text) {
  Shape s = *ParseShape(text);
  TilingMap m = *TilingMap::Create(s);
  int64_t off = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(m.Delinearize(off));
    off = (off + 7919) % m.padded_elements();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_AxeInverseOfToAxe(benchmark::State& state, const char* text) {
  Shape s = *ParseShape(text);
  AxeForm f = *ToAxe(s);
  InverseMap inv = *InverseMap::Build(f.layout);
  TilingMap m = *TilingMap::Create(s);
  int64_t off = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(inv.Preimage(PhysCoord{{Axis::Memory(), off}}));
    off = (off + 7919) % m.padded_elements();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_ToAxe(benchmark::State& state, const char* text) {
  Shape s = *ParseShape(text);
  for (auto _ : state) benchmark::DoNotOptimize(ToAxe(s));
}

void BM_ParseShape(benchmark::State& state, const char* text) {
  for (auto _ : state) benchmark::DoNotOptimize(ParseShape(text));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(std::string(text).size()));
}

void BM_ParseAxeLayoutBaseline(benchmark::State& state) {
  const char* text = "S[(8,160,4,2,128,128):(20971520,131072,256,1,1024,2)]";
  for (auto _ : state) benchmark::DoNotOptimize(axe::Layout::Parse(text));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(std::string(text).size()));
}

// ExplainArray + ExplainText of rank N under N tile levels (1,1): linear in N (the fitted
// complexity is printed as BigO).
void BM_ExplainRankAndLevels(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::string text = "f32[2";
  std::string m2m = std::to_string(n - 1);
  for (int64_t i = 1; i < n; ++i) {
    text += ",1";
    absl::StrAppend(&m2m, ",", n - 1 - i);
  }
  absl::StrAppend(&text, "]{", m2m, ":T");
  for (int64_t i = 0; i < n; ++i) text += "(1,1)";
  text += "}";
  Shape s = *ParseShape(text);
  for (auto _ : state) benchmark::DoNotOptimize(ExplainText(*ExplainArray(s)));
  state.SetComplexityN(n);
}

BENCHMARK(BM_ExplainRankAndLevels)->RangeMultiplier(2)->Range(256, 4096)->Complexity(benchmark::oN);
BENCHMARK_CAPTURE(BM_NestedLinearIndex, tpu, kTpu);
BENCHMARK_CAPTURE(BM_AxeApplyOfToAxe, tpu, kTpu);
BENCHMARK_CAPTURE(BM_NestedLinearIndex, fig1, kFig1);
BENCHMARK_CAPTURE(BM_AxeApplyOfToAxe, fig1, kFig1);
BENCHMARK_CAPTURE(BM_NestedDelinearize, tpu, kTpu);
BENCHMARK_CAPTURE(BM_AxeInverseOfToAxe, tpu, kTpu);
BENCHMARK_CAPTURE(BM_ToAxe, tpu, kTpu);
BENCHMARK_CAPTURE(BM_ParseShape, tpu, kTpu);
BENCHMARK(BM_ParseAxeLayoutBaseline);

}  // namespace
}  // namespace axe::xla

BENCHMARK_MAIN();
