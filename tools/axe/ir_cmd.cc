// axe ir: jaxprs (the text JAX prints, or axe's) type-checked, transposed and counted.
//
//   axe ir check JAXPR [--json]                                  the typed jaxpr, or the error
//   axe ir transpose JAXPR [--wrt N]... [--no-check-vma] [--json]  the transposed jaxpr
//   axe ir comm JAXPR [--json]                                   collectives, bytes per device
//   axe ir run JAXPR [--mesh x=4] [--backend threads|mpi] --arg f32[8]=iota ... [--json]
//                                                                the outputs, run on devices
//   axe ir run JAXPR --const @w.npy ... --arg @x.npy ... [--out-npy DIR]
//                                          constvars' values and inputs from .npy files, in
//                                          order; outputs written as DIR/out0.npy, ...
//
// JAXPR is the text itself, "-" (standard input) or "@FILE". The command only parses flags and
// prints: axe::ir (ParseJaxpr, CheckJaxpr, LinearTranspose, DropVarianceTyping,
// CountCommunication) does the work.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "axe/base/checked_math.h"
#include "axe/base/npy.h"
#include "axe/base/status_macros.h"
#include "axe/exec/executable.h"
#include "axe/exec/value_io.h"
#include "axe/ir/check.h"
#include "axe/ir/comm.h"
#include "axe/ir/drop_vma.h"
#include "axe/ir/eval_devices.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "axe/ir/threefry.h"
#include "axe/ir/transpose.h"
#include "axe/runtime/backend_registry.h"
#include "axe/runtime/client.h"
#include "axe/sharding/mesh.h"
#include "cli.h"
#include "ir_args.h"
#include "ir_values.h"
#include "mpi_run.h"
#include "progress.h"

namespace axe::cli {
namespace ir_cmd {
namespace {

struct IrArgs {
  std::string jaxpr;
  std::vector<int64_t> wrt;
  bool no_check_vma = false;
  ConstOptions constants;              // check: the constvars' values
  const Selected* selected = nullptr;  // check: its memory budget
};

absl::Status RunCheck(std::ostream& out, const IrArgs& args, bool json) {
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr j,
                       ReadJaxprWithConsts(args.jaxpr, args.constants, args.selected->budget));
  PrintJaxprResult(out, j, json);
  return absl::OkStatus();
}

// The linear mask of --wrt (every input when none is given).
absl::StatusOr<std::vector<bool>> LinearInputs(const std::vector<int64_t>& wrt, size_t inputs) {
  std::vector<bool> linear(inputs, wrt.empty());
  for (int64_t n : wrt) {
    if (n < 0 || static_cast<size_t>(n) >= inputs) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--wrt: input ", n, " is out of range for a jaxpr with ", inputs, " inputs"));
    }
    linear[static_cast<size_t>(n)] = true;
  }
  return linear;
}

absl::Status RunTranspose(std::ostream& out, const IrArgs& args, bool json) {
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr j, ReadCheckedJaxpr(args.jaxpr));
  if (args.no_check_vma) {
    AXE_ASSIGN_OR_RETURN(j, ir::DropVarianceTyping(j));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<bool> linear, LinearInputs(args.wrt, j.jaxpr.invars.size()));
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr t, ir::LinearTranspose(j, linear));
  Json wrt = Json::array();
  for (size_t i = 0; i < linear.size(); ++i) {
    if (linear[i]) wrt.push_back(i);
  }
  PrintJaxprResult(out, t, json, {{"wrt", wrt}, {"check_vma", !args.no_check_vma}});
  return absl::OkStatus();
}

absl::Status RunComm(std::ostream& out, const IrArgs& args, bool json) {
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr j, ReadCheckedJaxpr(args.jaxpr));
  AXE_ASSIGN_OR_RETURN(ir::CommunicationCount c, ir::CountCommunication(j));
  if (!json) {
    out << ir::CommunicationTable(c);
    return absl::OkStatus();
  }
  Json rows = Json::array();
  for (const ir::CollectiveCount& e : c.collectives) {
    rows.push_back({{"primitive", e.primitive},
                    {"axes", e.axes},
                    {"bytes_per_device", e.bytes_per_device},
                    {"kind", e.kind},
                    {"group_size", e.group_size},
                    {"count", e.count},
                    {"operand", e.operand}});
  }
  PrintJson(out, {{"collectives", rows}, {"total_bytes_per_device", c.total_bytes_per_device}});
  return absl::OkStatus();
}

struct RunArgs {
  std::string mesh;
  std::string backend = "threads";
  double mpi_timeout = 60;  // --backend mpi: seconds one wait on the other ranks may take
  std::vector<std::string> args;
  ConstOptions constants;
  std::string out_npy;  // a directory for out0.npy, out1.npy, ...
};

// Writes out<k>.npy into `dir` for each output.
absl::Status WriteOutputsNpy(const std::vector<exec::Value>& outs, const std::string& dir) {
  for (size_t k = 0; k < outs.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(std::string bytes, exec::ToNpy(outs[k]));
    AXE_RETURN_IF_ERROR(WriteOutputFile(absl::StrCat(dir, "/out", k, ".npy"), bytes, "--out-npy"));
  }
  return absl::OkStatus();
}

// The client's device count: --mesh's, else what the program's shard_maps need.
absl::StatusOr<int64_t> RunDevices(const RunArgs& run, const ir::ClosedJaxpr& j) {
  if (run.mesh.empty()) return ir::DevicesNeeded(j);
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(run.mesh, "--mesh"));
  absl::StatusOr<sharding::Mesh> mesh = sharding::Mesh::Parse(text);
  if (!mesh.ok()) return InOption("--mesh", mesh.status());
  return mesh->num_devices();
}

// The threads backend's devices (--mesh, or what the shard_maps need) hold every shard_map.
absl::Status CheckThreadsDevices(int64_t devices, const ir::ClosedJaxpr& j) {
  if (devices > runtime::Client::kMaxInProcessDevices) {
    return InOption("--mesh",
                    absl::InvalidArgumentError(absl::StrCat("the threads backend runs at most ",
                                                            runtime::Client::kMaxInProcessDevices,
                                                            " devices, not ", devices)));
  }
  if (const int64_t needed = ir::DevicesNeeded(j); needed > devices) {
    return absl::InvalidArgumentError(absl::StrCat("a shard_map of the program has ", needed,
                                                   " devices but the client has ", devices));
  }
  return absl::OkStatus();
}

void PrintOutputs(std::ostream& out, const std::vector<exec::Value>& outs, int64_t devices,
                  bool json) {
  Json rows = Json::array();
  for (const exec::Value& o : outs) {
    const DType dtype = o.aval().dtype();
    if (!json) out << o.aval().ShortString() << " " << exec::FormatValue(o) << "\n";
    const ir::HostArray host = exec::ToHostArray(o);  // exact but for 64-bit integers
    const std::vector<std::string> text = exec::FormatElements(o);
    Json values = Json::array();
    for (size_t i = 0; i < host.values.size(); ++i) {
      const double v = host.values[i];
      if (dtype == DType::kPred) {
        values.push_back(v != 0);
      } else if (IsKeyType(dtype)) {  // a PRNG key: its key data
        const ir::threefry::KeyData key = ir::threefry::KeyFromDouble(v);
        values.push_back(Json::array({key[0], key[1]}));
      } else if (IsIntegral(dtype)) {
        values.push_back(Json::parse(text[i]));  // the exact integer
      } else if (std::isfinite(v)) {
        values.push_back(v);
      } else {
        values.push_back(text[i]);
      }
    }
    rows.push_back({{"aval", o.aval().ShortString()}, {"values", values}});
  }
  if (json) PrintJson(out, {{"devices", devices}, {"outputs", rows}});
}

// The executor's peak next to the results' printed form (their text, or --json's values,
// about 48 bytes an element), against the memory budget: checked before the program runs.
absl::Status CheckPeakWithPrintedResults(const exec::Executable& e, const MemoryBudget& budget) {
  constexpr int64_t kPrintedBytesPerElement = 48;
  std::optional<int64_t> needed = e.stats().peak_bytes;
  for (const ir::ShapedArray& aval : e.output_avals()) {
    const std::optional<int64_t> n = aval.NumElements();
    const std::optional<int64_t> bytes = n ? CheckedMul(*n, kPrintedBytesPerElement) : n;
    needed = needed && bytes ? CheckedAdd(*needed, *bytes) : std::nullopt;
  }
  return budget.Check(needed, "the program's values at their peak, with its results as printed");
}

absl::Status RunRun(std::ostream& out, std::ostream& err, const IrArgs& args, const RunArgs& run,
                    bool json, const MemoryBudget& budget) {
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr j, ReadJaxprWithConsts(args.jaxpr, run.constants, budget));
  std::vector<exec::Value> inputs;
  for (const std::string& spec : run.args) {
    AXE_ASSIGN_OR_RETURN(exec::Value a, ReadTypedValue(spec, "--arg", budget));
    inputs.push_back(std::move(a));
  }
  AXE_ASSIGN_OR_RETURN(const runtime::BackendFactory* backend, FindBackendOption(run.backend));
  AXE_ASSIGN_OR_RETURN(int64_t devices, RunDevices(run, j));
  if (!backend->one_device_per_process) {
    // The executor (compiled typed kernels) runs the whole program on the arguments in their
    // own encodings, a shard_map's positions on threads of this process.
    AXE_RETURN_IF_ERROR(CheckThreadsDevices(devices, j));
    AXE_ASSIGN_OR_RETURN(exec::Executable e, exec::Executable::Compile(j, {.memory = budget}));
    AXE_RETURN_IF_ERROR(CheckPeakWithPrintedResults(e, budget));
    AXE_ASSIGN_OR_RETURN(std::vector<exec::Value> outs, e.Run(inputs));
    if (!run.out_npy.empty()) AXE_RETURN_IF_ERROR(WriteOutputsNpy(outs, run.out_npy));
    PrintOutputs(out, outs, devices, json);
    return absl::OkStatus();
  }
  runtime::BackendRunOptions run_options;
  run_options.devices = devices;
  run_options.devices_text = absl::StrCat("the program runs on ", devices, " devices");
  run_options.timeout_seconds = run.mpi_timeout;
  AXE_ASSIGN_OR_RETURN(BackendRun started, StartRun(*backend, run_options));
  // Every rank runs the program on the executor; a shard_map runs the rank's own position,
  // its collectives through the backend.
  absl::StatusOr<std::vector<exec::Value>> outs =
      [&]() -> absl::StatusOr<std::vector<exec::Value>> {
    AXE_ASSIGN_OR_RETURN(
        exec::Executable e,
        exec::Executable::Compile(j, {.memory = budget, .client = started.client.get()}));
    AXE_RETURN_IF_ERROR(CheckPeakWithPrintedResults(e, budget));
    return e.Run(inputs);
  }();
  if (!outs.ok()) return EndFailedRun(err, std::move(started), outs.status());
  const bool print = started.prints();  // one device per process: the first one prints
  EndRun(std::move(started));
  if (!print) return absl::OkStatus();
  if (!run.out_npy.empty()) AXE_RETURN_IF_ERROR(WriteOutputsNpy(*outs, run.out_npy));
  PrintOutputs(out, *outs, devices, json);
  return absl::OkStatus();
}

void AddRunCommand(CLI::App* group, Selected& selected) {
  auto args = std::make_shared<IrArgs>();
  auto run = std::make_shared<RunArgs>();
  CLI::App* cmd = group->add_subcommand(
      "run",
      "Run a jaxpr on the executor: shard_map positions on threads, or with --backend mpi "
      "one position per MPI rank, the collectives through the MPI backend");
  cmd->add_option("jaxpr", args->jaxpr,
                  "The jaxpr text (as JAX or axe prints it), - for standard input, @FILE")
      ->required();
  cmd->add_option("--arg", run->args,
                  "An input, in order: TYPE=iota, TYPE=VALUE or TYPE=V1,V2,... (e.g. f32[8]=iota), "
                  "or @FILE.npy");
  AddConstOptions(cmd, run->constants);
  cmd->add_option("--out-npy", run->out_npy,
                  "A directory to write the outputs into as out0.npy, out1.npy, ...");
  cmd->add_option("--mesh", run->mesh,
                  "Devices to run on, as a mesh (x=4); default: what the shard_maps need");
  cmd->add_option("--backend", run->backend, BackendOptionHelp());
  AddMpiTimeoutOption(cmd, run->mpi_timeout);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, run, &selected] {
    ProgressLine progress("ir run", selected);
    return RunRun(*selected.out, *selected.err, *args, *run, selected.json, selected.budget);
  });
}

void AddIrCommands(CLI::App& app, Selected& selected) {
  CLI::App* group = app.add_subcommand(
      "ir", "Jaxprs with shard_map variance typing: check, transpose, comm, run, grad, vmap");
  group->require_subcommand(1);
  auto cargs = std::make_shared<IrArgs>();
  cargs->selected = &selected;
  CLI::App* c = AddJaxprCommand(
      group, selected, "check",
      "Type-check a jaxpr: prints it typed ({V:...} variance sets), or the error", cargs, RunCheck);
  AddConstOptions(c, cargs->constants);
  auto targs = std::make_shared<IrArgs>();
  CLI::App* t = AddJaxprCommand(
      group, selected, "transpose",
      "Transpose a linear jaxpr (JAX's backward pass): prints the cotangent program", targs,
      RunTranspose);
  t->add_option("--wrt", targs->wrt, "An input the jaxpr is linear in (repeatable; default all)");
  t->add_flag("--no-check-vma", targs->no_check_vma,
              "Transpose the check_vma=False trace (the naive rule's defensive psums)");
  AddJaxprCommand(group, selected, "comm",
                  "Count the collectives a jaxpr performs and the bytes each moves per device",
                  std::make_shared<IrArgs>(), RunComm);
  AddRunCommand(group, selected);
}

AXE_CLI_COMMAND_GROUP(70, AddIrCommands);

}  // namespace
}  // namespace ir_cmd

}  // namespace axe::cli
