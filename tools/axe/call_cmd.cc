// axe call: a jaxpr compiled with a Format per input and output, called on arrays described
// as committed or uncommitted with a layout (jit/call_argument.h); prints what the call
// re-laid-out and the outputs, or the error (§4.3).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/host_bytes.h"
#include "axe/jit/call_argument.h"
#include "axe/jit/execute.h"
#include "cli.h"
#include "jit_args.h"

namespace axe::cli {
namespace call_cmd {
namespace {

constexpr size_t kShownValues = 8;

struct CallArgs {
  std::string jaxpr;
  std::vector<std::string> in, out, args;
};

struct OutputValues {
  std::vector<std::string> head;  // the first kShownValues elements, as printed
  double sum = 0;
  int64_t elements = 0;
};

absl::StatusOr<OutputValues> Summarize(const runtime::Array& a) {
  AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, a.ToHost());
  AXE_ASSIGN_OR_RETURN(ir::HostArray host,
                       ir::HostArrayFromBytes(ir::ShapedArray(a.shape(), a.dtype()), bytes));
  OutputValues out;
  out.elements = static_cast<int64_t>(host.values.size());
  for (size_t i = 0; i < host.values.size(); ++i) {
    out.sum += host.values[i];
    if (i < kShownValues) out.head.push_back(ir::FormatElement(host.values[i], a.dtype()));
  }
  return out;
}

absl::StatusOr<std::vector<jit::CallArgumentSpec>> Specs(const std::vector<std::string>& texts) {
  std::vector<jit::CallArgumentSpec> specs;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string what = absl::StrCat("--arg ", i);
    AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(texts[i], what));
    absl::StatusOr<jit::CallArgumentSpec> spec = jit::ParseCallArgumentSpec(text);
    if (!spec.ok()) return InOption(what, spec.status());
    specs.push_back(*std::move(spec));
  }
  return specs;
}

void PrintText(std::ostream& out, const jit::Compiled& compiled, const jit::CallResult& result,
               const std::vector<OutputValues>& values) {
  const ir::Jaxpr& j = compiled.jaxpr().jaxpr;
  out << "input_formats\n";
  for (size_t i = 0; i < compiled.input_formats().size(); ++i) {
    out << "  args[" << i << "] " << j.aval(j.invars[i]).ShortString() << "  "
        << compiled.input_formats()[i].ToString() << "\n";
  }
  if (result.relayouts.empty()) out << "re-laid-out before the call: nothing\n";
  for (const jit::ArgumentRelayout& r : result.relayouts) {
    out << "re-laid-out before the call: " << r.name << " major_to_minor "
        << FormatTuple(r.from.major_to_minor(), true) << " -> "
        << FormatTuple(r.to.major_to_minor(), true) << (r.resharded ? " (resharded)" : "") << "\n";
  }
  out << "outputs (committed)\n";
  for (size_t o = 0; o < result.outputs.size(); ++o) {
    const OutputValues& v = values[o];
    out << "  [" << o << "] "
        << ir::ShapedArray(result.outputs[o].shape(), result.outputs[o].dtype()).ShortString()
        << "  " << compiled.output_formats()[o].ToString() << "\n      values ["
        << absl::StrJoin(v.head, ", ")
        << (v.elements > static_cast<int64_t>(kShownValues) ? ", ...]" : "]") << "  sum "
        << ir::FormatElement(v.sum, DType::kF64) << "\n";
  }
}

Json ResultJson(const jit::Compiled& compiled, const jit::CallResult& result,
                const std::vector<OutputValues>& values) {
  Json relayouts = Json::array();
  for (const jit::ArgumentRelayout& r : result.relayouts) {
    relayouts.push_back({{"argument", r.index},
                         {"name", r.name},
                         {"from", r.from.major_to_minor()},
                         {"to", r.to.major_to_minor()},
                         {"resharded", r.resharded}});
  }
  Json outputs = Json::array();
  for (size_t o = 0; o < result.outputs.size(); ++o) {
    const runtime::Array& a = result.outputs[o];
    outputs.push_back({{"aval", ir::ShapedArray(a.shape(), a.dtype()).ShortString()},
                       {"format", compiled.output_formats()[o].ToString()},
                       {"committed", a.committed()},
                       {"elements", values[o].elements},
                       {"head", values[o].head},
                       {"sum", values[o].sum}});
  }
  return {{"input_formats", CompiledFormatsJson(compiled.input_formats())},
          {"relayouts", relayouts},
          {"outputs", outputs}};
}

absl::Status RunCall(std::ostream& out, const CallArgs& args, bool json) {
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr jaxpr, JaxprOption(args.jaxpr));
  AXE_ASSIGN_OR_RETURN(auto in, FormatOptions(args.in, "--in"));
  AXE_ASSIGN_OR_RETURN(auto out_formats, FormatOptions(args.out, "--out"));
  AXE_ASSIGN_OR_RETURN(std::vector<jit::CallArgumentSpec> specs, Specs(args.args));
  const std::vector<ir::ShapedArray> avals = jaxpr.jaxpr.in_avals();
  if (specs.size() != avals.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--arg: the program takes ", avals.size(), " arguments, got ", specs.size()));
  }
  jit::CompileOptions options;
  options.arguments = jit::CallPlacements(avals, specs);
  const std::vector<std::optional<jit::Format>> in_formats = jit::CallInputFormats(in, specs);
  AXE_ASSIGN_OR_RETURN(jit::Compiled compiled,
                       jit::Compile(std::move(jaxpr), in_formats, out_formats, options));
  std::vector<std::optional<jit::Format>> all_formats = in_formats;
  all_formats.insert(all_formats.end(), out_formats.begin(), out_formats.end());
  const int64_t devices = jit::DevicesNeeded(all_formats, specs);
  AXE_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Client> client,
                       runtime::Client::InProcess(static_cast<int>(devices)));
  std::vector<runtime::Array> arrays;
  for (size_t i = 0; i < specs.size(); ++i) {
    absl::StatusOr<runtime::Array> a = jit::MakeCallArgument(*client, avals[i], specs[i]);
    if (!a.ok()) return InOption(absl::StrCat("--arg ", i), a.status());
    arrays.push_back(*std::move(a));
  }
  std::vector<const runtime::Array*> ptrs;
  for (const runtime::Array& a : arrays) ptrs.push_back(&a);
  AXE_ASSIGN_OR_RETURN(jit::CallResult result, jit::Execute(compiled, *client, ptrs));
  std::vector<OutputValues> values;
  for (const runtime::Array& o : result.outputs) {
    AXE_ASSIGN_OR_RETURN(OutputValues v, Summarize(o));
    values.push_back(std::move(v));
  }
  if (json) {
    PrintJson(out, ResultJson(compiled, result, values));
  } else {
    PrintText(out, compiled, result, values);
  }
  return absl::OkStatus();
}

void AddCall(CLI::App& app, Selected& selected) {
  auto args = std::make_shared<CallArgs>();
  CLI::App* cmd = app.add_subcommand(
      "call",
      "Compile a jaxpr with a Format per input and output and call it on arrays described as "
      "committed or uncommitted with a layout: prints what was re-laid-out and the outputs, "
      "or JAX's error for a committed argument in another layout");
  cmd->add_option("--jaxpr", args->jaxpr,
                  "The jaxpr as jax.make_jaxpr prints it: a file, '-' (stdin), '@FILE' or the "
                  "text")
      ->required();
  cmd->add_option("--in", args->in, "One per input, as for axe compile (default: none)");
  cmd->add_option("--out", args->out, "One per output, as --in");
  cmd->add_option("--arg", args->args,
                  "One per input: \"uncommitted\", \"committed Layout((1, 0))\" or "
                  "\"committed Format(Layout((0, 1)), NamedSharding(...))\"; holds 0, 1, 2, ...")
      ->required();
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected,
           [args, &selected] { return RunCall(*selected.out, *args, selected.json); });
}

AXE_CLI_COMMAND_GROUP(81, AddCall);

}  // namespace
}  // namespace call_cmd
}  // namespace axe::cli
