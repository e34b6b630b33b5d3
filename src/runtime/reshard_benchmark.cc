#include "runtime/reshard_benchmark.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/element_type.h"

namespace axe::runtime {

using relayout::CheckOutcome;
using relayout::ElementBytes;
using relayout::kMaxBenchmarkRuns;

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

absl::Status CheckOptions(const ReshardBenchmarkOptions& o) {
  if (o.runs < 0 || o.runs > kMaxBenchmarkRuns) {
    return absl::InvalidArgumentError(
        absl::StrCat("runs: must be between 0 and ", kMaxBenchmarkRuns, ", got ", o.runs));
  }
  if (!(o.target_seconds > 0) || !(o.max_seconds > 0)) {
    return absl::InvalidArgumentError("target_seconds and max_seconds must be > 0");
  }
  return absl::OkStatus();
}

// The bytes the run holds at once: host data, both arrays, the baseline pair, and the
// expected array of the check.
absl::Status CheckMemory(int64_t global_bytes, int64_t src_bytes, int64_t dst_bytes,
                         int64_t written, const ReshardBenchmarkOptions& o) {
  std::optional<int64_t> total = CheckedAdd(global_bytes, src_bytes);
  for (int64_t part : {dst_bytes, written, written, o.check ? dst_bytes : int64_t{0}}) {
    if (total) total = CheckedAdd(*total, part);
  }
  AXE_ASSIGN_OR_RETURN(MemoryBudget budget, GivenOrCurrentBudget(o.memory));
  return budget.Check(total, absl::StrCat("the reshard (data, both arrays, the baseline",
                                          o.check ? ", the check" : "", ")"));
}

std::vector<uint8_t> GeneratedData(size_t bytes, uint64_t seed) {
  std::vector<uint8_t> data(bytes);
  std::mt19937_64 rng(seed);
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t v = rng();
    std::memcpy(data.data() + i, &v, 8);
  }
  for (; i < bytes; ++i) data[i] = static_cast<uint8_t>(rng());
  return data;
}

// A source and destination buffer per device, of the bytes the reshard writes there.
struct Baseline {
  std::vector<DeviceBuffer> from, to;
};

absl::StatusOr<Baseline> MakeBaseline(Client& client, const ReshardPlan& plan) {
  Baseline b;
  b.from.resize(static_cast<size_t>(client.num_devices()));
  b.to.resize(b.from.size());
  for (int d : client.addressable_devices()) {
    const auto i = static_cast<size_t>(d);
    const int64_t bytes =
        i < plan.bytes_received.size() ? plan.bytes_received[i] + plan.bytes_kept[i] : 0;
    AXE_ASSIGN_OR_RETURN(b.from[i], client.device(d).Allocate(bytes, /*zero=*/true));
    AXE_ASSIGN_OR_RETURN(b.to[i], client.device(d).Allocate(bytes, /*zero=*/true));
  }
  return b;
}

absl::Status RunBaseline(Client& client, Baseline& b) {
  return client.RunOnDevices([&](int d) {
    const auto i = static_cast<size_t>(d);
    if (b.to[i].size() > 0) {
      std::memcpy(b.to[i].data(), b.from[i].data(), static_cast<size_t>(b.to[i].size()));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<CheckOutcome> Check(Client& client, const std::vector<uint8_t>& host,
                                   const Array& out) {
  AXE_ASSIGN_OR_RETURN(Array expected,
                       Array::DevicePut(client, host, out.shape(), out.dtype(), out.format()));
  for (const sharding::DeviceShard& s : out.device_map()) {
    const auto d = static_cast<int>(s.device);
    AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> got, out.ShardToHost(d));
    AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> want, expected.ShardToHost(d));
    if (got != want) return CheckOutcome::kFailed;
  }
  return CheckOutcome::kPassed;
}

// Interleaved timed runs of the reshard and the baseline; keeps the best of each.
absl::Status TimeRuns(const Array& array, Array& out, Baseline& baseline,
                      const ReshardBenchmarkOptions& options, ReshardBenchmarkResult& r) {
  const double start = Now();
  r.seconds = r.baseline_seconds = 1e300;
  for (;;) {
    const double elapsed = Now() - start;
    if (options.runs > 0) {
      if (r.runs >= options.runs) break;
      if (elapsed > options.max_seconds) {
        r.stopped_by_time_limit = true;
        break;
      }
    } else if (r.runs >= 50 || (r.runs >= 3 && elapsed > options.target_seconds)) {
      break;
    }
    double t0 = Now();
    AXE_RETURN_IF_ERROR(RunBaseline(array.client(), baseline));
    double t1 = Now();
    AXE_RETURN_IF_ERROR(ReshardInto(array, out, r.plan, options.reshard));
    double t2 = Now();
    r.baseline_seconds = std::min(r.baseline_seconds, t1 - t0);
    r.seconds = std::min(r.seconds, t2 - t1);
    ++r.runs;
    if (options.on_run) options.on_run(r.runs);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckMpiReshardMemory(absl::Span<const int64_t> shape, DType dtype,
                                   const sharding::Format& from, const sharding::Format& to,
                                   int64_t ranks, bool check, int64_t staging_bytes,
                                   const MemoryBudget& budget) {
  AXE_ASSIGN_OR_RETURN(ShardStorage src, MakeShardStorage(shape, dtype, from));
  AXE_ASSIGN_OR_RETURN(ShardStorage dst, MakeShardStorage(shape, dtype, to));
  std::optional<int64_t> global = CheckedProduct(shape);
  if (global) global = CheckedMul(*global, src.element_bytes);
  std::optional<int64_t> src_shard = CheckedMul(src.buffer_elements, src.element_bytes);
  std::optional<int64_t> dst_shard = CheckedMul(dst.buffer_elements, dst.element_bytes);
  std::optional<int64_t> pair =
      src_shard && dst_shard ? CheckedAdd(*src_shard, *dst_shard) : std::nullopt;
  std::optional<int64_t> root =
      src_shard && dst_shard
          ? CheckedMul(std::max(*src_shard, *dst_shard), std::max<int64_t>(ranks, 1))
          : std::nullopt;
  // The arrays, two exchanges and the gather's own buffers: four source-target pairs.
  std::optional<int64_t> needed = pair ? CheckedMul(*pair, 4) : std::nullopt;
  for (std::optional<int64_t> part :
       {global, root, std::optional<int64_t>(2 * std::max<int64_t>(staging_bytes, 0)),
        check && dst_shard ? CheckedMul(*dst_shard, 3) : std::optional<int64_t>(0)}) {
    needed = needed && part ? CheckedAdd(*needed, *part) : std::nullopt;
  }
  return budget.Check(needed, "each MPI rank of the reshard");
}

namespace {

std::map<std::string, ReshardBenchmarkFn, std::less<>>& ReshardBenchmarks() {
  static auto* benchmarks = new std::map<std::string, ReshardBenchmarkFn, std::less<>>;
  return *benchmarks;
}

absl::StatusOr<ReshardBenchmarkResult> BenchmarkInProcess(Client& client,
                                                          absl::Span<const int64_t> shape,
                                                          DType dtype, const sharding::Format& from,
                                                          const sharding::Format& to,
                                                          const ReshardBenchmarkOptions& options) {
  AXE_RETURN_IF_ERROR(CheckOptions(options));
  AXE_ASSIGN_OR_RETURN(int element_bytes, ElementBytes(dtype));
  ReshardBenchmarkResult r;  // the plan first: its errors name the source or the target
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding from_named, ArraySharding(from));
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding to_named, ArraySharding(to));
  AXE_ASSIGN_OR_RETURN(r.plan, PlanReshard(shape, element_bytes, from_named, to_named));
  AXE_ASSIGN_OR_RETURN(ShardStorage src, MakeShardStorage(shape, dtype, from));
  AXE_ASSIGN_OR_RETURN(ShardStorage dst, MakeShardStorage(shape, dtype, to));
  r.bytes_written = r.plan.v_min_bytes + r.plan.local_bytes;          // each <= devices x array
  const int64_t global = *CheckedProduct(shape) * src.element_bytes;  // checked by the plan
  const int64_t devices = client.num_devices();
  std::optional<int64_t> src_all = CheckedMul(src.buffer_elements * src.element_bytes, devices);
  std::optional<int64_t> dst_all = CheckedMul(dst.buffer_elements * dst.element_bytes, devices);
  if (!src_all || !dst_all) return absl::ResourceExhaustedError("the arrays overflow int64");
  AXE_RETURN_IF_ERROR(CheckMemory(global, *src_all, *dst_all, r.bytes_written, options));
  std::vector<uint8_t> host = GeneratedData(static_cast<size_t>(global), options.seed);
  AXE_ASSIGN_OR_RETURN(Array array, Array::DevicePut(client, host, shape, dtype, from));
  AXE_ASSIGN_OR_RETURN(Array out, ExecuteReshard(array, to, r.plan, options.reshard, &r.stats));
  if (options.check) {
    AXE_ASSIGN_OR_RETURN(r.check, Check(client, host, out));
  }
  host = {};
  AXE_ASSIGN_OR_RETURN(Baseline baseline, MakeBaseline(client, r.plan));
  AXE_RETURN_IF_ERROR(TimeRuns(array, out, baseline, options, r));
  const auto b = static_cast<double>(r.bytes_written);
  r.gbps = r.seconds > 0 ? b / r.seconds / 1e9 : 0;
  r.baseline_gbps = r.baseline_seconds > 0 ? b / r.baseline_seconds / 1e9 : 0;
  return r;
}

}  // namespace

void RegisterReshardBenchmark(absl::string_view backend, ReshardBenchmarkFn fn) {
  ReshardBenchmarks().insert_or_assign(std::string(backend), fn);
}

absl::StatusOr<ReshardBenchmarkResult> BenchmarkReshard(Client& client,
                                                        absl::Span<const int64_t> shape,
                                                        DType dtype, const sharding::Format& from,
                                                        const sharding::Format& to,
                                                        const ReshardBenchmarkOptions& options) {
  const auto& benchmarks = ReshardBenchmarks();
  auto it = benchmarks.find(client.backend());
  if (it != benchmarks.end()) return it->second(client, shape, dtype, from, to, options);
  return BenchmarkInProcess(client, shape, dtype, from, to, options);
}

}  // namespace axe::runtime
