// axe reshard: move a generated array from one sharding (and local layout) to another on
// the in-process devices and report the plan, V_min, what moved, the peak memory per device,
// the time and the bandwidth next to memcpy of the same bytes on the same device threads.
//
//   axe reshard --shape 8192,8192 --dtype f32 --mesh x=2,y=2 --from "P('x', None)"
//       --to "P(None, 'y')" [--from-layout '{0,1}' --to-layout ...] [--backend threads]
//       [--transport direct|staged --staging-bytes N] [--repeat N] [--check] [--json]
//       [--svg FILE]
//
// --backend mpi runs under `mpirun -n <mesh devices> axe reshard ...` (rank 0 prints): one
// device per rank, the messages by MPI, next to a plain MPI_Alltoallv of exactly the same
// bytes and the naive gather-to-rank-0-then-scatter (its volume and time).
//
// The command only parses flags and prints: runtime::BenchmarkReshard does the work on the
// backend --backend names (runtime/backend_registry.h).
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "axe/base/dtype.h"
#include "axe/base/status_macros.h"
#include "axe/picture/reshard_picture.h"
#include "axe/runtime/backend.h"
#include "axe/runtime/backend_registry.h"
#include "axe/runtime/client.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/named_sharding.h"
#include "axe/sharding/partition_spec.h"
#include "axe/xla/text.h"
#include "cli.h"
#include "mpi_run.h"
#include "progress.h"
#include "runtime/reshard_benchmark.h"

namespace axe::cli {
namespace reshard_cmd {
namespace {

struct ReshardArgs {
  std::string shape, mesh, from, to;
  std::string dtype = "f32";
  std::optional<std::string> from_layout, to_layout;
  std::string backend = "threads";
  std::string transport = "direct";
  std::string local_copies = "auto";  // --backend mpi: where the local part is copied
  int64_t staging_bytes = int64_t{1} << 20;
  double mpi_timeout = 60;  // --backend mpi: seconds one wait on the other ranks may take
  std::optional<int64_t> repeat;
  bool check = false;
  std::string svg;    // --svg FILE: the plan's picture
  std::string latex;  // --latex FILE: the same picture as TikZ
};

// Writes the picture of `plan` (from -> to) to --svg FILE and --latex FILE, when given.
absl::Status WriteReshardSvg(const std::string& path, const std::string& latex_path,
                             const runtime::ReshardPlan& plan, absl::Span<const int64_t> shape,
                             const sharding::NamedSharding& from,
                             const sharding::NamedSharding& to) {
  if (path.empty() && latex_path.empty()) return absl::OkStatus();
  AXE_ASSIGN_OR_RETURN(std::vector<sharding::DeviceShard> from_map,
                       sharding::DevicesIndicesMap(from, shape));
  AXE_ASSIGN_OR_RETURN(std::vector<sharding::DeviceShard> to_map,
                       sharding::DevicesIndicesMap(to, shape));
  return WritePictureFiles(path, latex_path, picture::ReshardSvg(plan, from_map, to_map));
}

absl::StatusOr<sharding::NamedSharding> ReadSharding(const sharding::Mesh& mesh,
                                                     const std::string& arg,
                                                     const std::string& option) {
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(arg, option));
  absl::StatusOr<sharding::PartitionSpec> spec = sharding::PartitionSpec::Parse(text);
  if (!spec.ok()) return InOption(option, spec.status());
  absl::StatusOr<sharding::NamedSharding> named = sharding::NamedSharding::Create(mesh, *spec);
  if (!named.ok()) return InOption(option, named.status());
  return *named;
}

absl::StatusOr<std::optional<xla::Layout>> ReadLayout(const std::optional<std::string>& arg,
                                                      const std::string& option) {
  if (!arg) return std::optional<xla::Layout>();
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(*arg, option));
  absl::StatusOr<xla::Layout> layout = xla::ParseLayout(absl::StripAsciiWhitespace(text));
  if (!layout.ok()) return InOption(option, layout.status());
  return std::optional<xla::Layout>(*layout);
}

Json PlanJson(const runtime::ReshardPlan& plan) {
  Json messages = Json::array();
  for (const runtime::ReshardMessage& m : plan.messages) {
    Json box = Json::array();
    for (const Interval& r : m.box) box.push_back({r.begin, r.end});
    messages.push_back(
        {{"src", m.src_device}, {"dst", m.dst_device}, {"box", box}, {"bytes", m.bytes}});
  }
  return {{"shape", plan.shape},
          {"element_bytes", plan.element_bytes},
          {"from", plan.from},
          {"to", plan.to},
          {"v_min_bytes", plan.v_min_bytes},
          {"v_min_elements", plan.v_min_elements},
          {"local_bytes", plan.local_bytes},
          {"bytes_sent", plan.bytes_sent},
          {"bytes_received", plan.bytes_received},
          {"bytes_kept", plan.bytes_kept},
          {"messages", messages},
          {"text", plan.ToString(1 << 30)}};
}

void PrintResult(std::ostream& out, const runtime::ReshardBenchmarkResult& r,
                 const ReshardArgs& args, int devices, bool json) {
  const int64_t peak = r.stats.peak_bytes.empty() ? 0
                                                  : *std::max_element(r.stats.peak_bytes.begin(),
                                                                      r.stats.peak_bytes.end());
  const absl::string_view check = relayout::CheckOutcomeName(r.check);
  if (json) {
    PrintJson(out, {{"v_min", r.plan.v_min_bytes},
                    {"bytes_moved", r.stats.bytes_moved},
                    {"messages", r.stats.messages},
                    {"peak_bytes_per_device", peak},
                    {"peak_bytes", r.stats.peak_bytes},
                    {"local_bytes", r.stats.local_bytes},
                    {"bytes_written", r.bytes_written},
                    {"seconds", r.seconds},
                    {"gbps", r.gbps},
                    {"baseline_seconds", r.baseline_seconds},
                    {"baseline_gbps", r.baseline_gbps},
                    {"runs", r.runs},
                    {"stopped_by_time_limit", r.stopped_by_time_limit},
                    {"backend", args.backend},
                    {"transport", args.transport},
                    {"devices", devices},
                    {"check", check},
                    {"plan", PlanJson(r.plan)}});
    return;
  }
  std::string peaks;
  for (size_t d = 0; d < r.stats.peak_bytes.size(); ++d) {
    absl::StrAppend(&peaks, d ? ", " : "", d, ": ", r.stats.peak_bytes[d]);
  }
  out << r.plan.ToString()
      << absl::StrFormat(
             "moved     %d bytes between devices in %d messages (V_min %d); "
             "kept %d bytes by local copies\n",
             r.stats.bytes_moved, r.stats.messages, r.plan.v_min_bytes, r.stats.local_bytes)
      << "peak      bytes per device (source shard + target shard + staging): " << peaks << "\n"
      << absl::StrFormat("time      %.6f s (best of %d timed runs%s), %s transport\n", r.seconds,
                         r.runs, r.stopped_by_time_limit ? ", stopped by the time limit" : "",
                         args.transport)
      << absl::StrFormat("bandwidth %.2f GB/s (%d bytes written: V_min + local copies)\n", r.gbps,
                         r.bytes_written)
      << absl::StrFormat(
             "baseline  %.2f GB/s: memcpy of the same bytes on the same %d "
             "device threads; reshard at %.0f%% of memcpy\n",
             r.baseline_gbps, devices, r.baseline_gbps > 0 ? 100.0 * r.gbps / r.baseline_gbps : 0.0)
      << "check     " << check << "\n";
}

// A message-passing backend's result (r.message_passing set); `local_copies`: the option as
// given.
void PrintMessagePassingResult(std::ostream& out, const runtime::ReshardBenchmarkResult& r,
                               int ranks, const std::string& local_copies, bool json) {
  const runtime::ReshardBenchmarkResult::MessagePassing& mp = *r.message_passing;
  const bool on_worker = mp.local_copies_on_worker;
  const int own_cpus = mp.own_cpus;
  const int64_t peak = r.stats.peak_bytes.empty() ? 0
                                                  : *std::max_element(r.stats.peak_bytes.begin(),
                                                                      r.stats.peak_bytes.end());
  const absl::string_view check = relayout::CheckOutcomeName(r.check);
  const double ratio = r.seconds > 0 ? r.baseline_seconds / r.seconds : 0;
  if (json) {
    PrintJson(out, {{"v_min", r.plan.v_min_bytes},
                    {"bytes_moved", r.stats.bytes_moved},
                    {"messages", r.stats.messages},
                    {"peak_bytes_per_device", peak},
                    {"peak_bytes", r.stats.peak_bytes},
                    {"local_bytes", r.stats.local_bytes},
                    {"local_copies", local_copies},
                    {"local_copy_thread", on_worker ? "worker" : "caller"},
                    {"own_cpus", own_cpus},
                    {"seconds", r.seconds},
                    {"gbps", r.gbps},
                    {"baseline", "MPI_Alltoallv of the same bytes"},
                    {"baseline_seconds", r.baseline_seconds},
                    {"baseline_gbps", r.baseline_gbps},
                    {"baseline_with_local_seconds", mp.alltoallv_local_seconds},
                    {"gather_scatter_bytes", mp.gather_scatter_bytes},
                    {"gather_scatter_seconds", mp.gather_scatter_seconds},
                    {"runs", r.runs},
                    {"backend", "mpi"},
                    {"devices", ranks},
                    {"check", check},
                    {"plan", PlanJson(r.plan)}});
    return;
  }
  std::string peaks;
  for (size_t d = 0; d < r.stats.peak_bytes.size(); ++d) {
    absl::StrAppend(&peaks, d ? ", " : "", d, ": ", r.stats.peak_bytes[d]);
  }
  out << r.plan.ToString()
      << absl::StrFormat(
             "moved     %d bytes between ranks in %d messages (V_min %d); "
             "kept %d bytes by local copies\n",
             r.stats.bytes_moved, r.stats.messages, r.plan.v_min_bytes, r.stats.local_bytes)
      << absl::StrFormat(
             "local     rank 0 copied its kept bytes on its %s thread (--local-copies %s; "
             "it has %d CPU%s of its own)\n",
             on_worker ? "worker" : "calling", local_copies, own_cpus, own_cpus == 1 ? "" : "s")
      << "peak      bytes per rank (source + target shard + send/receive staging): " << peaks
      << "\n"
      << absl::StrFormat("time      %.6f s (best of %d runs, slowest rank), %d MPI ranks\n",
                         r.seconds, r.runs, ranks)
      << absl::StrFormat("bandwidth %.3f GB/s of V_min\n", r.gbps)
      << absl::StrFormat(
             "baseline  %.3f GB/s (%.6f s): MPI_Alltoallv of the same bytes between the "
             "same ranks; reshard at %.0f%% of it\n",
             r.baseline_gbps, r.baseline_seconds, 100 * ratio)
      << absl::StrFormat(
             "          %.6f s: the same with each rank's local bytes as a block to "
             "itself (every byte the reshard writes)\n",
             mp.alltoallv_local_seconds)
      << absl::StrFormat(
             "naive     gather to rank 0 then scatter: %d bytes between ranks (%.1fx "
             "V_min), %.6f s\n",
             mp.gather_scatter_bytes,
             r.plan.v_min_bytes > 0 ? static_cast<double>(mp.gather_scatter_bytes) /
                                          static_cast<double>(r.plan.v_min_bytes)
                                    : 0.0,
             mp.gather_scatter_seconds)
      << "check     " << check << "\n";
}

absl::Status RunReshard(std::ostream& out, std::ostream& err, const ReshardArgs& args, bool json,
                        const MemoryBudget& budget) {
  runtime::ReshardBenchmarkOptions options;
  if (args.transport == "staged") {
    options.reshard = {runtime::ReshardTransport::kStaged, args.staging_bytes};
  } else if (args.transport != "direct") {
    return absl::InvalidArgumentError(
        absl::StrCat("--transport: expected direct or staged, got '", args.transport, "'"));
  }
  if (args.local_copies != "auto" && args.local_copies != "worker" &&
      args.local_copies != "caller") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--local-copies: expected auto, worker or caller, got '", args.local_copies, "'"));
  }
  if (args.repeat && (*args.repeat < 1 || *args.repeat > relayout::kMaxBenchmarkRuns)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--repeat: must be between 1 and ", relayout::kMaxBenchmarkRuns, ", got ", *args.repeat));
  }
  options.runs = args.repeat.value_or(0);
  options.on_run = [total = options.runs](int64_t done) { ReportProgress(done, total); };
  options.check = args.check;
  options.memory = budget;
  AXE_ASSIGN_OR_RETURN(std::string shape_text, ReadInputText(args.shape, "--shape"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ParseIntListOption(shape_text, "--shape"));
  AXE_ASSIGN_OR_RETURN(std::string dtype_text, ReadInputText(args.dtype, "--dtype"));
  absl::StatusOr<DType> dtype = ParseDType(absl::StripAsciiWhitespace(dtype_text));
  if (!dtype.ok()) return InOption("--dtype", dtype.status());
  AXE_ASSIGN_OR_RETURN(std::string mesh_text, ReadInputText(args.mesh, "--mesh"));
  absl::StatusOr<sharding::Mesh> mesh = sharding::Mesh::Parse(mesh_text);
  if (!mesh.ok()) return InOption("--mesh", mesh.status());
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding from, ReadSharding(*mesh, args.from, "--from"));
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding to, ReadSharding(*mesh, args.to, "--to"));
  AXE_ASSIGN_OR_RETURN(std::optional<xla::Layout> from_layout,
                       ReadLayout(args.from_layout, "--from-layout"));
  AXE_ASSIGN_OR_RETURN(std::optional<xla::Layout> to_layout,
                       ReadLayout(args.to_layout, "--to-layout"));
  AXE_ASSIGN_OR_RETURN(const runtime::BackendFactory* backend, FindBackendOption(args.backend));
  absl::StatusOr<sharding::Format> from_format = runtime::MakeArrayFormat(from, from_layout);
  if (!from_format.ok()) return InOption("--from-layout", from_format.status());
  absl::StatusOr<sharding::Format> to_format = runtime::MakeArrayFormat(to, to_layout);
  if (!to_format.ok()) return InOption("--to-layout", to_format.status());
  runtime::BackendRunOptions run_options;
  run_options.timeout_seconds = args.mpi_timeout;
  run_options.local_copies = args.local_copies;
  if (backend->one_device_per_process) {
    run_options.devices = std::min<int64_t>(mesh->num_devices(), 1 << 20);
    run_options.devices_text = absl::StrCat("the mesh has ", run_options.devices, " devices");
    // Each process's share, refused before the backend starts.
    AXE_RETURN_IF_ERROR(runtime::CheckMpiReshardMemory(
        shape, *dtype, *from_format, *to_format, run_options.devices, args.check,
        args.transport == "staged" ? args.staging_bytes : runtime::kDefaultExchangeStagingBytes,
        budget));
  } else {
    run_options.devices = mesh->device_id_bound();  // devices 0-7 for a mesh on 4-7
  }
  AXE_ASSIGN_OR_RETURN(BackendRun run, StartRun(*backend, run_options));
  const int devices = run.client->num_devices();
  absl::StatusOr<runtime::ReshardBenchmarkResult> result =
      runtime::BenchmarkReshard(*run.client, shape, *dtype, *from_format, *to_format, options);
  if (!result.ok()) return EndFailedRun(err, std::move(run), result.status());
  absl::Status svg_written = absl::OkStatus();
  if (run.prints()) {
    if (result->message_passing) {
      PrintMessagePassingResult(out, *result, devices, args.local_copies, json);
    } else {
      PrintResult(out, *result, args, devices, json);
    }
    svg_written = WriteReshardSvg(args.svg, args.latex, result->plan, shape, from, to);
  }
  EndRun(std::move(run));
  AXE_RETURN_IF_ERROR(svg_written);
  if (result->check == relayout::CheckOutcome::kFailed) {  // the job's outcome: one process says it
    return runtime::MarkSameOnEveryRank(
        absl::InternalError("a resharded shard differs from the host data sliced to its box"));
  }
  return absl::OkStatus();
}

void AddReshard(CLI::App& app, Selected& selected) {
  auto args = std::make_shared<ReshardArgs>();
  CLI::App* cmd = app.add_subcommand(
      "reshard",
      "Move a generated array from one sharding to another on in-process devices: prints the "
      "plan (messages, bytes per device, V_min), the bytes moved, the peak memory per device, the "
      "time and the bandwidth next to memcpy of the same bytes on the same threads; --check "
      "compares every shard with the host data sliced to its box");
  cmd->add_option("--shape", args->shape, "Global shape, e.g. 8192,8192")->required();
  cmd->add_option("--dtype", args->dtype,
                  "Element type, any XLA, NumPy or jaxpr name (default f32)");
  cmd->add_option("--mesh", args->mesh, "Device mesh, e.g. x=2,y=2 or \"{'x': 2, 'y': 2}\"")
      ->required();
  cmd->add_option("--from", args->from, "Source PartitionSpec, e.g. \"P('x', None)\"")->required();
  cmd->add_option("--to", args->to, "Target PartitionSpec, e.g. \"P(None, 'y')\"")->required();
  cmd->add_option("--from-layout", args->from_layout,
                  "XLA layout of every source shard, e.g. '{0,1}' or '{1,0:T(8,128)}' "
                  "(default row-major)");
  cmd->add_option("--to-layout", args->to_layout, "XLA layout of every target shard");
  cmd->add_option("--backend", args->backend, BackendOptionHelp());
  cmd->add_option("--transport", args->transport,
                  "direct (the receiver copies from the sender's shard, default) or staged "
                  "(pack into a bounded staging buffer, then unpack)");
  cmd->add_option("--local-copies", args->local_copies,
                  "With --backend mpi, where each rank copies the elements it keeps while its "
                  "messages travel: auto (the default: a worker thread when the rank has a CPU "
                  "to spare and 1 MiB or more to copy), worker, or caller (the thread that "
                  "calls MPI)");
  cmd->add_option("--staging-bytes", args->staging_bytes,
                  "Staging buffer per device for --transport staged (default 1 MiB; with "
                  "--backend mpi the bound of each round's send and receive staging, else "
                  "64 MiB)");
  AddMpiTimeoutOption(cmd, args->mpi_timeout);
  cmd->add_option("--repeat", args->repeat,
                  "Timed runs (default: as many as fit in about 0.3 s, 3 to 50)");
  cmd->add_flag("--check", args->check,
                "Compare every target shard with the host data sliced to its box");
  cmd->add_option("--svg", args->svg,
                  "Also write the plan's picture (source and destination shardings side by side, "
                  "the messages, bytes per device, V_min) as SVG to FILE")
      ->check(OutputFileName());
  AddLatexOption(cmd, args->latex);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected] {
    ProgressLine progress("reshard", selected);
    return RunReshard(*selected.out, *selected.err, *args, selected.json, selected.budget);
  });
}

AXE_CLI_COMMAND_GROUP(65, AddReshard);

}  // namespace
}  // namespace reshard_cmd
}  // namespace axe::cli
