#include "runtime/collective_benchmark.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/element_type.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/device_values.h"
#include "axe/runtime/reduce_elements.h"
#include "bench_timing.h"

namespace axe::runtime {

using relayout::CheckOutcome;
using relayout::ElementBytes;

namespace {

absl::StatusOr<DeviceValues> Run(CollectiveKind kind, const sharding::Mesh& mesh,
                                 absl::Span<const std::string> axes, const DeviceValues& x,
                                 int64_t n) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return AllReduce(mesh, axes, ReduceOp::kSum, x);
    case CollectiveKind::kAllGather: return AllGather(mesh, axes, x, 0, true);
    case CollectiveKind::kReduceScatter:
      return ReduceScatter(mesh, axes, ReduceOp::kSum, x, 0, true);
    case CollectiveKind::kAllToAll: return AllToAll(mesh, axes, x, 0, 0, true);
    case CollectiveKind::kPermute: {
      std::vector<std::pair<int64_t, int64_t>> ring;
      for (int64_t i = 0; i < n; ++i) ring.push_back({i, (i + 1) % n});
      return CollectivePermute(mesh, axes, x, ring);
    }
  }
  return absl::InternalError("unknown collective");
}

absl::StatusOr<CheckOutcome> CheckAll(const DeviceValues& out, CollectiveKind kind,
                                      const CollectiveGroups& groups, uint64_t seed,
                                      int64_t input_bytes) {
  for (const std::vector<int64_t>& group : groups.groups) {
    std::vector<std::vector<uint8_t>> inputs;
    for (int64_t d : group) inputs.push_back(CollectiveInput(seed, d, input_bytes));
    for (size_t i = 0; i < group.size(); ++i) {
      AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> want,
                           CollectiveReference(kind, out.dtype(), inputs, static_cast<int64_t>(i)));
      AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> got, out.ToHost(static_cast<int>(group[i])));
      if (got != want) return CheckOutcome::kFailed;
    }
  }
  return CheckOutcome::kPassed;
}

}  // namespace

absl::string_view CollectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return "all_reduce";
    case CollectiveKind::kAllGather: return "all_gather";
    case CollectiveKind::kReduceScatter: return "reduce_scatter";
    case CollectiveKind::kAllToAll: return "all_to_all";
    case CollectiveKind::kPermute: return "permute";
  }
  return "?";
}

absl::StatusOr<CollectiveKind> ParseCollectiveKind(absl::string_view text) {
  for (CollectiveKind k :
       {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
        CollectiveKind::kAllToAll, CollectiveKind::kPermute}) {
    if (text == CollectiveKindName(k)) return k;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown collective '", ElideForMessage(text, 40),
                   "'; expected all_reduce, all_gather, reduce_scatter, all_to_all or permute"));
}

std::vector<uint8_t> CollectiveInput(uint64_t seed, int64_t device, int64_t bytes) {
  std::vector<uint8_t> out(static_cast<size_t>(bytes));
  std::mt19937_64 rng(seed * 1000003 + static_cast<uint64_t>(device));
  for (auto& b : out) b = static_cast<uint8_t>(rng() >> 56);
  return out;
}

absl::StatusOr<std::vector<uint8_t>> CollectiveReference(
    CollectiveKind kind, DType dtype, absl::Span<const std::vector<uint8_t>> members,
    int64_t index) {
  const auto n = static_cast<int64_t>(members.size());
  const auto bytes = static_cast<int64_t>(members[0].size());
  AXE_ASSIGN_OR_RETURN(int eb, ElementBytes(dtype));
  const int64_t chunk = bytes / n;
  auto piece = [&](const std::vector<uint8_t>& v, int64_t j) {
    return std::vector<uint8_t>(v.begin() + j * chunk, v.begin() + (j + 1) * chunk);
  };
  std::vector<uint8_t> out;
  switch (kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kReduceScatter: {
      std::vector<const uint8_t*> inputs;
      for (const auto& m : members) inputs.push_back(m.data());
      out.resize(static_cast<size_t>(bytes));
      AXE_RETURN_IF_ERROR(ReduceElements(ReduceOp::kSum, dtype, inputs, bytes / eb, out.data()));
      return kind == CollectiveKind::kAllReduce ? out : piece(out, index);
    }
    case CollectiveKind::kAllGather:
      for (const auto& m : members) out.insert(out.end(), m.begin(), m.end());
      return out;
    case CollectiveKind::kAllToAll:
      for (const auto& m : members) {
        std::vector<uint8_t> p = piece(m, index);
        out.insert(out.end(), p.begin(), p.end());
      }
      return out;
    case CollectiveKind::kPermute: return members[static_cast<size_t>((index + n - 1) % n)];
  }
  return absl::InternalError("unknown collective");
}

absl::Status DescribeCollective(CollectiveKind kind, absl::Span<const int64_t> shape,
                                int element_bytes, int64_t n, CollectiveBenchmarkResult& r) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--shape: dimension ", i, " has the negative size ", shape[i]));
    }
  }
  std::optional<int64_t> elements = CheckedProduct(shape);
  std::optional<int64_t> bytes = elements ? CheckedMul(*elements, element_bytes) : std::nullopt;
  std::optional<int64_t> gathered = bytes ? CheckedMul(*bytes, n) : std::nullopt;
  if (!gathered) return absl::InvalidArgumentError("--shape: the value's size overflows int64");
  r.group_size = n;
  r.output_shape.assign(shape.begin(), shape.end());
  r.size_bytes = *bytes;
  const double ring = n > 0 ? static_cast<double>(n - 1) / static_cast<double>(n) : 0;
  r.bus_factor = ring;
  switch (kind) {
    case CollectiveKind::kAllReduce: r.bus_factor = 2 * ring; break;
    case CollectiveKind::kAllGather:
      if (!r.output_shape.empty()) r.output_shape[0] *= n;
      r.size_bytes = *gathered;
      break;
    case CollectiveKind::kReduceScatter:
      if (!r.output_shape.empty()) r.output_shape[0] /= n;
      break;
    case CollectiveKind::kAllToAll: break;
    case CollectiveKind::kPermute: r.bus_factor = 1; break;
  }
  return absl::OkStatus();
}

absl::Status CheckCollectiveMemory(CollectiveKind kind, const sharding::Mesh& mesh,
                                   absl::Span<const std::string> axes,
                                   absl::Span<const int64_t> shape, DType dtype,
                                   int64_t devices_here, bool check, const MemoryBudget& budget) {
  AXE_ASSIGN_OR_RETURN(int eb, ElementBytes(dtype));
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  CollectiveBenchmarkResult r;
  AXE_RETURN_IF_ERROR(DescribeCollective(kind, shape, eb, groups.group_size(), r));
  const int64_t in = *CheckedProduct(shape) * eb;  // checked by DescribeCollective
  std::optional<int64_t> out = CheckedProduct(r.output_shape);
  if (out) out = CheckedMul(*out, eb);
  // Per device: the input and its host copy; the result, the baseline pair, the timed
  // run's result and the collective's scratch (one more result).
  std::optional<int64_t> per_device = out ? CheckedMul(*out, 5) : std::nullopt;
  if (per_device) per_device = CheckedAdd(*per_device, 2 * in);
  std::optional<int64_t> needed =
      per_device ? CheckedMul(*per_device, std::max<int64_t>(devices_here, 1)) : std::nullopt;
  if (check && needed && out) {  // one group's inputs, the reference, the result's copy
    std::optional<int64_t> group_inputs = CheckedMul(in, r.group_size);
    needed = group_inputs ? CheckedAdd(*needed, *group_inputs) : std::nullopt;
    if (needed) needed = CheckedAdd(*needed, 2 * *out);
  }
  return budget.Check(
      needed, absl::StrCat("the ", CollectiveKindName(kind), " of ", XlaName(dtype), "[",
                           absl::StrJoin(shape, ","), "] on ", std::max<int64_t>(devices_here, 1),
                           devices_here > 1 ? " devices" : " device", " of this process"));
}

namespace {

std::map<std::string, CollectiveBenchmarkFn, std::less<>>& CollectiveBenchmarks() {
  static auto* benchmarks = new std::map<std::string, CollectiveBenchmarkFn, std::less<>>;
  return *benchmarks;
}

absl::StatusOr<CollectiveBenchmarkResult> BenchmarkInProcess(
    Client& client, CollectiveKind kind, const sharding::Mesh& mesh,
    absl::Span<const std::string> axes, absl::Span<const int64_t> shape, DType dtype,
    const CollectiveBenchmarkOptions& options) {
  if (options.runs < 1 || options.runs > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("runs: must be between 1 and 1000, got ", options.runs));
  }
  AXE_ASSIGN_OR_RETURN(int eb, ElementBytes(dtype));
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  CollectiveBenchmarkResult r;
  AXE_RETURN_IF_ERROR(DescribeCollective(kind, shape, eb, groups.group_size(), r));
  AXE_ASSIGN_OR_RETURN(MemoryBudget budget, GivenOrCurrentBudget(options.memory));
  AXE_RETURN_IF_ERROR(CheckCollectiveMemory(kind, mesh, axes, shape, dtype, client.num_devices(),
                                            options.check, budget));
  const int64_t input_bytes = kind == CollectiveKind::kAllGather
                                  ? r.size_bytes / std::max<int64_t>(1, r.group_size)
                                  : r.size_bytes;
  std::vector<std::vector<uint8_t>> host;
  for (int d = 0; d < client.num_devices(); ++d) {
    host.push_back(CollectiveInput(options.seed, d, input_bytes));
  }
  AXE_ASSIGN_OR_RETURN(DeviceValues x,
                       DeviceValues::FromHost(client, {shape.begin(), shape.end()}, dtype, host));
  host = {};
  AXE_ASSIGN_OR_RETURN(DeviceValues out, Run(kind, mesh, axes, x, r.group_size));
  if (options.check) {
    AXE_ASSIGN_OR_RETURN(r.check, CheckAll(out, kind, groups, options.seed, input_bytes));
  }
  AXE_ASSIGN_OR_RETURN(DeviceValues from, DeviceValues::Allocate(client, out.shape(), dtype, true));
  AXE_ASSIGN_OR_RETURN(DeviceValues to, DeviceValues::Allocate(client, out.shape(), dtype, true));
  r.baseline = "memcpy of each device's result bytes on its own thread";
  r.seconds = r.baseline_seconds = 1e300;
  for (r.runs = 0; r.runs < options.runs; ++r.runs) {
    const double t0 = internal::NowSeconds();
    AXE_RETURN_IF_ERROR(client.RunOnDevices([&](int d) {
      if (out.bytes() > 0) {
        std::memcpy(to.mutable_data(d), from.data(d), static_cast<size_t>(out.bytes()));
      }
      return absl::OkStatus();
    }));
    const double t1 = internal::NowSeconds();
    AXE_RETURN_IF_ERROR(Run(kind, mesh, axes, x, r.group_size).status());
    const double t2 = internal::NowSeconds();
    r.baseline_seconds = std::min(r.baseline_seconds, t1 - t0);
    r.seconds = std::min(r.seconds, t2 - t1);
    if (options.on_run) options.on_run(r.runs + 1);
  }
  const auto s = static_cast<double>(r.size_bytes);
  r.algbw_gbps = r.seconds > 0 ? s / r.seconds / 1e9 : 0;
  r.busbw_gbps = r.algbw_gbps * r.bus_factor;
  r.baseline_busbw_gbps = r.baseline_seconds > 0 ? s / r.baseline_seconds / 1e9 * r.bus_factor : 0;
  return r;
}

}  // namespace

void RegisterCollectiveBenchmark(absl::string_view backend, CollectiveBenchmarkFn fn) {
  CollectiveBenchmarks().insert_or_assign(std::string(backend), fn);
}

absl::StatusOr<CollectiveBenchmarkResult> BenchmarkCollective(
    Client& client, CollectiveKind kind, const sharding::Mesh& mesh,
    absl::Span<const std::string> axes, absl::Span<const int64_t> shape, DType dtype,
    const CollectiveBenchmarkOptions& options) {
  const auto& benchmarks = CollectiveBenchmarks();
  auto it = benchmarks.find(client.backend());
  if (it != benchmarks.end()) return it->second(client, kind, mesh, axes, shape, dtype, options);
  return BenchmarkInProcess(client, kind, mesh, axes, shape, dtype, options);
}

}  // namespace axe::runtime
