// In-process reshards against memcpy of the same bytes on the same device threads, measured
// in the same run (runtime::BenchmarkReshard interleaves them and keeps the best of each):
// row <-> column sharding changes, a mesh-axis swap, and replicated -> sharded (local copies
// only: nothing moves between devices).
//
//   build/release/bench/reshard_bench [--benchmark_filter=rows]   (AXE_RESHARD_N=8192 for
//   the 8192 x 8192; the default 4096 keeps the run short)
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/runtime/client.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/named_sharding.h"
#include "axe/sharding/partition_spec.h"
#include "benchmark/benchmark.h"
#include "runtime/reshard_benchmark.h"

namespace axe::runtime {
namespace {

struct Case {
  std::string name, mesh, from, to;
};

const Case kCases[] = {
    {"rows_to_cols", "x=4", "P('x', None)", "P(None, 'x')"},
    {"cols_to_rows", "x=4", "P(None, 'x')", "P('x', None)"},
    {"mesh_axis_swap", "x=2,y=2", "P('x', 'y')", "P('y', 'x')"},
    {"replicated_to_sharded", "x=4", "P()", "P('x', None)"},
};

int64_t Size() {
  const char* n = std::getenv("AXE_RESHARD_N");
  return n != nullptr ? std::strtoll(n, nullptr, 10) : 4096;
}

void BM_Reshard(benchmark::State& state, const Case& c, ReshardTransport transport) {
  absl::StatusOr<sharding::Mesh> mesh = sharding::Mesh::Parse(c.mesh);
  absl::StatusOr<sharding::PartitionSpec> from = sharding::PartitionSpec::Parse(c.from);
  absl::StatusOr<sharding::PartitionSpec> to = sharding::PartitionSpec::Parse(c.to);
  if (!mesh.ok() || !from.ok() || !to.ok()) {
    state.SkipWithError("bad case");
    return;
  }
  absl::StatusOr<sharding::NamedSharding> a = sharding::NamedSharding::Create(*mesh, *from);
  absl::StatusOr<sharding::NamedSharding> b = sharding::NamedSharding::Create(*mesh, *to);
  absl::StatusOr<std::unique_ptr<Client>> client =
      Client::InProcess(static_cast<int>(mesh->num_devices()));
  if (!a.ok() || !b.ok() || !client.ok()) {
    state.SkipWithError("bad case");
    return;
  }
  const sharding::Format from_format = *MakeArrayFormat(*a), to_format = *MakeArrayFormat(*b);
  ReshardBenchmarkOptions options;
  options.reshard.transport = transport;
  options.runs = 10;
  const int64_t n = Size();
  absl::StatusOr<ReshardBenchmarkResult> r;
  for (auto _ : state) {
    r = BenchmarkReshard(**client, {n, n}, DType::kF32, from_format, to_format, options);
  }
  if (!r.ok()) {
    state.SkipWithError(std::string(r.status().message()).c_str());
    return;
  }
  state.counters["v_min_MB"] = static_cast<double>(r->plan.v_min_bytes) / 1e6;
  state.counters["moved_MB"] = static_cast<double>(r->stats.bytes_moved) / 1e6;
  state.counters["written_MB"] = static_cast<double>(r->bytes_written) / 1e6;
  state.counters["best_GBps"] = r->gbps;
  state.counters["memcpy_GBps"] = r->baseline_gbps;
  state.counters["x_memcpy_time"] = r->seconds / r->baseline_seconds;
  state.SetLabel(absl::StrCat(c.from, " -> ", c.to, " on ", c.mesh));
}

const bool kRegistered = [] {
  for (const Case& c : kCases) {
    benchmark::RegisterBenchmark(absl::StrCat(c.name, "/direct").c_str(), BM_Reshard, c,
                                 ReshardTransport::kDirect)
        ->Iterations(1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(absl::StrCat(c.name, "/staged").c_str(), BM_Reshard, c,
                                 ReshardTransport::kStaged)
        ->Iterations(1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
}  // namespace axe::runtime

BENCHMARK_MAIN();
