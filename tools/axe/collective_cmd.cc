// axe collective: time one collective over mesh axes on generated data and report its bus
// bandwidth next to a baseline measured in the same run: memcpy of each device's result on
// its own thread (threads backend), or the MPI library's own collective on the same ranks
// (--backend mpi, under `mpirun -n <devices> axe collective ...`; rank 0 prints).
//
//   axe collective --op all_reduce --mesh x=4 --axes x --shape 1024,1024 [--dtype f32]
//       [--backend threads|mpi] [--repeat N] [--check] [--json]
//
// The command only parses flags and prints: runtime::BenchmarkCollective does the work on
// the backend --backend names (runtime/backend_registry.h).
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "axe/base/dtype.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/backend.h"
#include "axe/runtime/backend_registry.h"
#include "axe/runtime/client.h"
#include "axe/sharding/mesh.h"
#include "cli.h"
#include "mpi_run.h"
#include "progress.h"
#include "runtime/collective_benchmark.h"

namespace axe::cli {
namespace collective_cmd {
namespace {

struct CollectiveArgs {
  std::string op, mesh, axes, shape;
  std::string dtype = "f32";
  std::string backend = "threads";
  int64_t repeat = 5;
  bool check = false;
  double mpi_timeout = 60;  // --backend mpi: seconds one wait on the other ranks may take
};

struct ParsedCollective {
  runtime::CollectiveKind kind;
  sharding::Mesh mesh;
  std::vector<std::string> axes;
  std::vector<int64_t> shape;
  DType dtype;
};

absl::StatusOr<ParsedCollective> Parse(const CollectiveArgs& args) {
  AXE_ASSIGN_OR_RETURN(std::string op, ReadInputText(args.op, "--op"));
  absl::StatusOr<runtime::CollectiveKind> kind =
      runtime::ParseCollectiveKind(absl::StripAsciiWhitespace(op));
  if (!kind.ok()) return InOption("--op", kind.status());
  AXE_ASSIGN_OR_RETURN(std::string mesh_text, ReadInputText(args.mesh, "--mesh"));
  absl::StatusOr<sharding::Mesh> mesh = sharding::Mesh::Parse(mesh_text);
  if (!mesh.ok()) return InOption("--mesh", mesh.status());
  AXE_ASSIGN_OR_RETURN(std::string axes_text, ReadInputText(args.axes, "--axes"));
  std::vector<std::string> axes;
  for (absl::string_view a : absl::StrSplit(axes_text, ',', absl::SkipWhitespace())) {
    axes.emplace_back(absl::StripAsciiWhitespace(a));
  }
  AXE_ASSIGN_OR_RETURN(std::string shape_text, ReadInputText(args.shape, "--shape"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ParseIntListOption(shape_text, "--shape"));
  AXE_ASSIGN_OR_RETURN(std::string dtype_text, ReadInputText(args.dtype, "--dtype"));
  absl::StatusOr<DType> dtype = ParseDType(absl::StripAsciiWhitespace(dtype_text));
  if (!dtype.ok()) return InOption("--dtype", dtype.status());
  if (args.repeat < 1 || args.repeat > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--repeat: must be between 1 and 1000, got ", args.repeat));
  }
  return ParsedCollective{*kind, *std::move(mesh), std::move(axes), std::move(shape), *dtype};
}

void Print(std::ostream& out, const runtime::CollectiveBenchmarkResult& r,
           const ParsedCollective& p, const CollectiveArgs& args, bool json) {
  const absl::string_view check = relayout::CheckOutcomeName(r.check);
  const double ratio = r.baseline_busbw_gbps > 0 ? r.busbw_gbps / r.baseline_busbw_gbps : 0;
  if (json) {
    PrintJson(out, {{"op", runtime::CollectiveKindName(p.kind)},
                    {"backend", args.backend},
                    {"mesh", p.mesh.ToString()},
                    {"axes", p.axes},
                    {"shape", p.shape},
                    {"output_shape", r.output_shape},
                    {"dtype", XlaName(p.dtype)},
                    {"group_size", r.group_size},
                    {"size_bytes", r.size_bytes},
                    {"bus_factor", r.bus_factor},
                    {"seconds", r.seconds},
                    {"algbw_gbps", r.algbw_gbps},
                    {"busbw_gbps", r.busbw_gbps},
                    {"baseline", r.baseline},
                    {"baseline_seconds", r.baseline_seconds},
                    {"baseline_busbw_gbps", r.baseline_busbw_gbps},
                    {"ratio", ratio},
                    {"runs", r.runs},
                    {"check", check}});
    return;
  }
  out << absl::StrFormat("%s of %s[%s] per device over (%s) of %s: groups of %d, result [%s]\n",
                         runtime::CollectiveKindName(p.kind), XlaName(p.dtype),
                         absl::StrJoin(p.shape, ","), absl::StrJoin(p.axes, ", "),
                         p.mesh.ToString(), r.group_size, absl::StrJoin(r.output_shape, ","))
      << absl::StrFormat("time      %.6f s (best of %d runs), %s backend\n", r.seconds, r.runs,
                         args.backend)
      << absl::StrFormat(
             "bandwidth algbw %.3f GB/s, busbw %.3f GB/s (S = %d bytes, "
             "bus factor %.3f)\n",
             r.algbw_gbps, r.busbw_gbps, r.size_bytes, r.bus_factor)
      << absl::StrFormat("baseline  busbw %.3f GB/s (%.6f s): %s; ratio %.2f\n",
                         r.baseline_busbw_gbps, r.baseline_seconds, r.baseline, ratio)
      << "check     " << check << "\n";
}

absl::Status Finish(std::ostream& out, const runtime::CollectiveBenchmarkResult& r,
                    const ParsedCollective& p, const CollectiveArgs& args, bool json, bool print) {
  if (print) Print(out, r, p, args, json);
  if (r.check == relayout::CheckOutcome::kFailed) {
    return absl::InternalError("a device's result differs from the host reference");
  }
  return absl::OkStatus();
}

absl::Status RunCollective(std::ostream& out, std::ostream& err, const CollectiveArgs& args,
                           bool json, const MemoryBudget& budget) {
  AXE_ASSIGN_OR_RETURN(ParsedCollective p, Parse(args));
  runtime::CollectiveBenchmarkOptions options{
      args.repeat, args.check, 1, budget,
      [total = args.repeat](int64_t done) { ReportProgress(done, total); }};
  AXE_ASSIGN_OR_RETURN(const runtime::BackendFactory* backend, FindBackendOption(args.backend));
  runtime::BackendRunOptions run_options;
  run_options.timeout_seconds = args.mpi_timeout;
  if (backend->one_device_per_process) {
    run_options.devices = p.mesh.num_devices();
    run_options.devices_text = absl::StrCat("the mesh has ", p.mesh.num_devices(), " devices");
    // Each process holds one device's share: refused before the backend starts.
    AXE_RETURN_IF_ERROR(runtime::CheckCollectiveMemory(p.kind, p.mesh, p.axes, p.shape, p.dtype, 1,
                                                       options.check, *options.memory));
  } else {
    run_options.devices = p.mesh.device_id_bound();  // devices 0-7 for a mesh on 4-7
  }
  AXE_ASSIGN_OR_RETURN(BackendRun run, StartRun(*backend, run_options));
  absl::StatusOr<runtime::CollectiveBenchmarkResult> result =
      runtime::BenchmarkCollective(*run.client, p.kind, p.mesh, p.axes, p.shape, p.dtype, options);
  if (!result.ok()) return EndFailedRun(err, std::move(run), result.status());
  const bool print = run.prints();
  EndRun(std::move(run));
  // The check's outcome is the job's (summed over the processes): the first one says it.
  return runtime::MarkSameOnEveryRank(Finish(out, *result, p, args, json, print));
}

void AddCollective(CLI::App& app, Selected& selected) {
  auto args = std::make_shared<CollectiveArgs>();
  CLI::App* cmd = app.add_subcommand(
      "collective",
      "Time a collective over mesh axes on generated data (all_reduce sum, all_gather / "
      "reduce_scatter / all_to_all tiled on dimension 0, permute around a ring): bus "
      "bandwidth next to memcpy (threads) or the MPI library's own collective (mpi, under "
      "mpirun; rank 0 prints); --check compares every result with a host reference");
  cmd->add_option("--op", args->op, "all_reduce, all_gather, reduce_scatter, all_to_all or permute")
      ->required();
  cmd->add_option("--mesh", args->mesh, "Device mesh, e.g. x=4 or x=2,y=2")->required();
  cmd->add_option("--axes", args->axes, "Mesh axes of the collective, e.g. x or x,y")->required();
  cmd->add_option("--shape", args->shape, "Shape of each device's value, e.g. 1024,1024")
      ->required();
  cmd->add_option("--dtype", args->dtype, "Element type (default f32)");
  cmd->add_option("--backend", args->backend, BackendOptionHelp());
  cmd->add_option("--repeat", args->repeat, "Timed runs (default 5; the best counts)");
  cmd->add_flag("--check", args->check, "Compare every device's result with a host reference");
  AddMpiTimeoutOption(cmd, args->mpi_timeout);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected] {
    ProgressLine progress("collective", selected);
    return RunCollective(*selected.out, *selected.err, *args, selected.json, selected.budget);
  });
}

AXE_CLI_COMMAND_GROUP(66, AddCollective);

}  // namespace
}  // namespace collective_cmd
}  // namespace axe::cli
