// The layout algebra is symbolic: tile, slice and tile-of cost microseconds whatever the
// tensor size. The baselines do the same job by enumerating the elements (materializing the
// address table of the tile or of the slice, or checking a tiling point by point), which is
// what a table-based layout representation has to do. The swizzle case measures the cost
// of the swizzle wrapper over a plain apply.
//
//   build/release/bench/layout_algebra_bench --benchmark_min_time=0.2
#include <vector>

#include "axe/layout/apply.h"
#include "axe/layout/slice.h"
#include "axe/layout/swizzle.h"
#include "axe/layout/tile.h"
#include "axe/layout/tile_of.h"
#include "benchmark/benchmark.h"

namespace axe {
namespace {

// A 512x512 matrix as a 16x16 grid of column-major 32x32 tiles (262144 elements).
const char* kOuter = "S[(16,16):(16,1)]";
const char* kInner = "S[(32,32):(1,32)]";
const std::vector<int64_t> kOuterShape = {16, 16}, kInnerShape = {32, 32}, kShape = {512, 512};

Layout Tiled() {
  return *Tile(*Layout::Parse(kOuter), kOuterShape, *Layout::Parse(kInner), kInnerShape);
}

void BM_Tile(benchmark::State& state) {
  const Layout outer = *Layout::Parse(kOuter), inner = *Layout::Parse(kInner);
  for (auto _ : state) benchmark::DoNotOptimize(Tile(outer, kOuterShape, inner, kInnerShape));
}

// Baseline: the address table of the tile, Σ A(x) + B(y) for every element.
void BM_TileByEnumeration(benchmark::State& state) {
  const Layout outer = *Layout::Parse(kOuter), inner = *Layout::Parse(kInner);
  const int64_t span = inner.span(Axis::Memory());
  std::vector<int64_t> table(static_cast<size_t>(outer.size() * inner.size()));
  for (auto _ : state) {
    for (int64_t x = 0; x < outer.size(); ++x) {
      const int64_t base = ApplyBase(outer, x)->get(Axis::Memory()) * span;
      for (int64_t y = 0; y < inner.size(); ++y) {
        table[static_cast<size_t>(x * inner.size() + y)] =
            base + ApplyBase(inner, y)->get(Axis::Memory());
      }
    }
    benchmark::DoNotOptimize(table.data());
  }
}

const std::vector<Interval> kRegion = {{64, 320}, {96, 352}};  // 256x256, crossing tile borders

void BM_Slice(benchmark::State& state) {
  const Layout l = Tiled();
  for (auto _ : state) benchmark::DoNotOptimize(Slice(l, kShape, kRegion));
}

// Baseline: the addresses of the region, element by element.
void BM_SliceByEnumeration(benchmark::State& state) {
  const Layout l = Tiled();
  std::vector<int64_t> addresses;
  for (auto _ : state) {
    addresses.clear();
    for (int64_t i = kRegion[0].begin; i < kRegion[0].end; ++i) {
      for (int64_t j = kRegion[1].begin; j < kRegion[1].end; ++j) {
        addresses.push_back(ApplyBase(l, i * kShape[1] + j)->get(Axis::Memory()));
      }
    }
    benchmark::DoNotOptimize(addresses.data());
  }
}

void BM_TileOfInner(benchmark::State& state) {
  const Layout a = Tiled(), inner = *Layout::Parse(kInner);
  for (auto _ : state) benchmark::DoNotOptimize(TileOfInner(a, kShape, inner, kInnerShape));
}

// Baseline: checking that A is tile(C, B) for a known C, point by point.
void BM_TileOfByEnumeration(benchmark::State& state) {
  const Layout a = Tiled(), outer = *Layout::Parse(kOuter), inner = *Layout::Parse(kInner);
  const int64_t span = inner.span(Axis::Memory());
  for (auto _ : state) {
    bool same = true;
    for (int64_t i = 0; i < 512 && same; ++i) {
      for (int64_t j = 0; j < 512 && same; ++j) {
        const int64_t x = (i / 32) * 16 + j / 32, y = (i % 32) * 32 + j % 32;
        same = ApplyBase(a, i * 512 + j)->get(Axis::Memory()) ==
               ApplyBase(outer, x)->get(Axis::Memory()) * span +
                   ApplyBase(inner, y)->get(Axis::Memory());
      }
    }
    benchmark::DoNotOptimize(same);
  }
}

void BM_SwizzledApplyBase(benchmark::State& state) {
  const SwizzledLayout s = *SwizzledLayout::Parse("Swizzled(3,3,3, S[(64,4,64):(64,4096,1)])");
  int64_t x = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.ApplyBase(x));
    x = (x + 7919) % s.size();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_PlainApplyBase(benchmark::State& state) {
  const Layout l = *Layout::Parse("S[(64,4,64):(64,4096,1)]");
  int64_t x = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ApplyBase(l, x));
    x = (x + 7919) % l.size();
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_Tile);
BENCHMARK(BM_TileByEnumeration)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Slice);
BENCHMARK(BM_SliceByEnumeration)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TileOfInner);
BENCHMARK(BM_TileOfByEnumeration)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SwizzledApplyBase);
BENCHMARK(BM_PlainApplyBase);

}  // namespace
}  // namespace axe

BENCHMARK_MAIN();
