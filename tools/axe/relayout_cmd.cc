// axe relayout: run the relayout engine on generated data and report its bandwidth.
//
//   axe relayout --shape 8192,8192 --dtype f32 --from 'S[(8192,8192):(8192,1)]'
//       --to 'S[(8192,8192):(1,8192)]' [--threads N] [--repeat N] [--check] [--json]
//       [--svg FILE]
//
// The command only parses flags and prints: the layouts come from runtime::ParseTensorBuffer
// and ResolveRelayout, the timing from relayout::BenchmarkRelayout.
#include <array>
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
#include "axe/picture/layout_picture.h"
#include "axe/relayout/element_type.h"
#include "axe/relayout/element_value.h"
#include "axe/relayout/relayout_plan.h"
#include "axe/runtime/tensor_buffer.h"
#include "cli.h"
#include "progress.h"
#include "relayout/relayout_benchmark.h"

namespace axe::cli {
namespace relayout_cmd {
namespace {

// A --from/--to argument (text, "-" or "@file") as a buffer layout.
absl::StatusOr<runtime::TensorBuffer> ReadTensorBuffer(const std::string& arg,
                                                       const std::string& option) {
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(arg, option));
  absl::StatusOr<runtime::TensorBuffer> b = runtime::ParseTensorBuffer(text);
  if (!b.ok()) {
    return absl::Status(b.status().code(), absl::StrCat(option, ": ", b.status().message()));
  }
  return b;
}

Json LoopsJson(const std::vector<relayout::PlanLoopInfo>& loops) {
  Json out = Json::array();
  for (const relayout::PlanLoopInfo& l : loops) {
    out.push_back(
        {{"extent", l.extent}, {"src_stride", l.src_stride}, {"dst_stride", l.dst_stride}});
  }
  return out;
}

// The plan's parts as fields (what ToString prints, every piece included).
Json PlanJson(const relayout::RelayoutPlan& plan) {
  const relayout::PlanInfo info = plan.Info();
  Json pieces = Json::array();
  for (const relayout::PlanPieceInfo& p : info.pieces) {
    pieces.push_back({{"kind", p.fill ? "fill" : "copy"},
                      {"loops", LoopsJson(p.loops)},
                      {"loop_order", p.loop_order},
                      {"kernel", p.kernel},
                      {"block", {p.block_i, p.block_j}},
                      {"staged", p.staged},
                      {"streaming_stores", p.streaming_stores}});
  }
  return {{"shape", info.shape},
          {"element_bytes", info.element_bytes},
          {"from", info.src},
          {"to", info.dst},
          {"generic", info.generic},
          {"generic_reason", info.generic_reason},
          {"pieces", pieces},
          {"kernels", plan.kernels()},
          {"threads", info.threads},
          {"chunks", info.chunks},
          {"simd_target", info.simd_target},
          {"note", info.note}};
}

void PrintResult(std::ostream& out, const relayout::RelayoutPlan& plan,
                 const relayout::BenchmarkResult& r, bool json) {
  const absl::string_view check = relayout::CheckOutcomeName(r.check);
  if (json) {
    PrintJson(out, {{"gbps", r.gbps},
                    {"seconds", r.seconds},
                    {"bytes", r.bytes},
                    {"memcpy_gbps", r.memcpy_gbps},
                    {"memcpy_seconds", r.memcpy_seconds},
                    {"threads", r.threads},
                    {"runs", r.runs},
                    {"stopped_by_time_limit", r.stopped_by_time_limit},
                    {"plan", plan.ToString()},
                    {"plan_parts", PlanJson(plan)},
                    {"check", check}});
    return;
  }
  out << plan << "\n"
      << absl::StrFormat("time      %.6f s (best of %d timed runs%s)\n", r.seconds, r.runs,
                         r.stopped_by_time_limit ? ", stopped by the time limit" : "")
      << absl::StrFormat("bandwidth %.2f GB/s (%d bytes read + written)\n", r.gbps, r.bytes)
      << absl::StrFormat("memcpy    %.2f GB/s on %d thread%s: relayout at %.0f%% of memcpy\n",
                         r.memcpy_gbps, r.threads, r.threads == 1 ? "" : "s",
                         100.0 * r.gbps / r.memcpy_gbps)
      << "check     " << check << "\n";
}

// The command line of `axe relayout`; the optionals are unset when the option is absent.
struct RelayoutArgs {
  std::string from, to, fill;
  std::optional<std::string> shape, dtype;
  std::optional<int64_t> repeat;
  int threads = 0;
  bool check = false, measure = false;
  std::string svg;    // --svg FILE: source and destination side by side
  std::string latex;  // --latex FILE: the same picture as TikZ
};

// Writes RelayoutSvg of the two layouts to --svg FILE and --latex FILE, when given: drawn as a
// grid of (all but the last domain dimension) x (the last), the domain the layouts are
// defined on.
absl::Status WriteRelayoutSvg(const std::string& path, const std::string& latex_path,
                              const runtime::RelayoutRequest& request) {
  if (path.empty() && latex_path.empty()) return absl::OkStatus();
  const std::vector<int64_t> domain = request.src.DomainFor(request.shape);
  picture::LayoutPictureOptions options;
  const int64_t size = request.src.layout.size();
  if (!domain.empty() && domain.back() > 0 && size % domain.back() == 0 &&
      domain == request.dst.DomainFor(request.shape)) {
    options.shape = std::array<int64_t, 2>{size / domain.back(), domain.back()};
  }
  absl::StatusOr<std::string> svg =
      picture::RelayoutSvg(request.src.layout, request.dst.layout, options);
  if (!svg.ok()) return InOption(path.empty() ? "--latex" : "--svg", svg.status());
  return WritePictureFiles(path, latex_path, *svg);
}

absl::StatusOr<runtime::RelayoutRequest> ResolveRequest(const RelayoutArgs& args) {
  AXE_ASSIGN_OR_RETURN(runtime::TensorBuffer from, ReadTensorBuffer(args.from, "--from"));
  AXE_ASSIGN_OR_RETURN(runtime::TensorBuffer to, ReadTensorBuffer(args.to, "--to"));
  std::optional<std::vector<int64_t>> shape;
  if (args.shape) {
    AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(*args.shape, "--shape"));
    AXE_ASSIGN_OR_RETURN(shape, ParseIntListOption(text, "--shape"));
  }
  std::optional<DType> type;
  if (args.dtype) {
    AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(*args.dtype, "--dtype"));
    absl::StatusOr<DType> parsed = ParseDType(absl::StripAsciiWhitespace(text));
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--dtype: ", parsed.status().message()));
    }
    type = *parsed;
  }
  return runtime::ResolveRelayout(from, to, shape, type, {"--from", "--to"});
}

absl::Status RunRelayout(std::ostream& out, const RelayoutArgs& args, bool json,
                         const MemoryBudget& budget) {
  if (args.repeat && (*args.repeat < 1 || *args.repeat > relayout::kMaxBenchmarkRuns)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--repeat: must be between 1 and ", relayout::kMaxBenchmarkRuns, ", got ", *args.repeat));
  }
  if (args.threads < 0) return absl::InvalidArgumentError("--threads: must be >= 0");
  AXE_ASSIGN_OR_RETURN(runtime::RelayoutRequest request, ResolveRequest(args));
  AXE_RETURN_IF_ERROR(WriteRelayoutSvg(args.svg, args.latex, request));
  absl::StatusOr<int> bytes = relayout::ElementBytes(request.element_type);
  if (!bytes.ok()) {  // the type came from --dtype or from an XLA shape
    return absl::Status(bytes.status().code(),
                        absl::StrCat(args.dtype ? "--dtype: " : "", bytes.status().message()));
  }
  relayout::RelayoutOptions options;
  options.threads = args.threads;
  if (args.measure) options.search = relayout::PlanSearch::kMeasure;
  if (!args.fill.empty()) {
    AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(args.fill, "--fill"));
    absl::StatusOr<std::vector<uint8_t>> value =
        relayout::ParseElementValue(text, request.element_type);
    if (!value.ok()) {
      return absl::Status(value.status().code(),
                          absl::StrCat("--fill: ", value.status().message()));
    }
    options.padding_value = *std::move(value);
  }
  AXE_ASSIGN_OR_RETURN(
      relayout::RelayoutPlan plan,
      relayout::PlanRelayout(request.src, request.dst, request.shape, *bytes, options));
  relayout::BenchmarkOptions bench;
  bench.runs = args.repeat.value_or(0);
  bench.on_run = [total = bench.runs](int64_t done) { ReportProgress(done, total); };
  bench.check = args.check;
  bench.padding_value = options.padding_value;
  bench.memory = budget;
  AXE_ASSIGN_OR_RETURN(relayout::BenchmarkResult result,
                       relayout::BenchmarkRelayout(plan, request.src, request.dst, bench));
  PrintResult(out, plan, result, json);
  if (result.check == relayout::CheckOutcome::kFailed) {
    return absl::InternalError("the relayout result differs from the element-by-element oracle");
  }
  return absl::OkStatus();
}

void AddRelayout(CLI::App& app, Selected& selected) {
  auto args = std::make_shared<RelayoutArgs>();
  CLI::App* cmd = app.add_subcommand(
      "relayout",
      "Copy a tensor from one memory layout to another on generated data: prints the plan (fused "
      "dims, loop order, kernel, threads), the time and the bandwidth (bytes read + written) next "
      "to memcpy of the same bytes, and with --check verifies the result against the naive oracle");
  cmd->add_option("--shape", args->shape,
                  "Logical shape of the tensor, e.g. 8192,8192 (optional when --from or --to is an "
                  "XLA shape)");
  cmd->add_option("--dtype", args->dtype,
                  "Element type, any XLA, NumPy or jaxpr name: f32, float32, bf16, s8, int8, c128, "
                  "... (default f32, or the XLA shape's)");
  cmd->add_option("--from", args->from,
                  "Source layout: an Axe layout on memory, e.g. 'S[(8192,8192):(8192,1)]', "
                  "optionally '... over (D0,D1)' for a padded domain, or an XLA shape such as "
                  "'bf16[4096,4096]{1,0}'; '-' reads it from standard input, '@FILE' from a file")
      ->required();
  cmd->add_option("--to", args->to, "Destination layout (same forms as --from)")->required();
  cmd->add_option("--threads", args->threads,
                  "Threads (default: all cores; small tensors use one)");
  cmd->add_option(
      "--fill", args->fill,
      "Fill the destination's padding with this value, exact for integer types (in range), "
      "rounded to nearest even for floats; pred: 0, 1, true or false (default: "
      "untouched)");
  cmd->add_option("--repeat", args->repeat,
                  absl::StrCat("Timed runs, 1 to ", relayout::kMaxBenchmarkRuns,
                               " (default: as many as fit in about 0.3 s, 3 to 50); timing stops "
                               "after 60 s in any case"));
  cmd->add_flag("--measure", args->measure,
                "Pick the plan by timing candidates (PlanSearch::kMeasure)");
  cmd->add_flag("--check", args->check, "Verify the result against the element-by-element oracle");
  cmd->add_option("--svg", args->svg,
                  "Also write the two layouts side by side (each element's offset in the source "
                  "and in the destination) as SVG to FILE")
      ->check(OutputFileName());
  AddLatexOption(cmd, args->latex);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected] {
    ProgressLine progress("relayout", selected);
    return RunRelayout(*selected.out, *args, selected.json, selected.budget);
  });
}

AXE_CLI_COMMAND_GROUP(60, AddRelayout);

}  // namespace
}  // namespace relayout_cmd
}  // namespace axe::cli
