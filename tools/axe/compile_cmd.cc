// axe compile: a jaxpr compiled with a Format per input and output; AUTO layouts resolved by
// the cost model, which --explain shows.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/jit/compile.h"
#include "cli.h"
#include "jit_args.h"

namespace axe::cli {
namespace compile_cmd {
namespace {

struct CompileArgs {
  std::string jaxpr;
  std::vector<std::string> in, out;
  bool explain = false;
  std::vector<size_t> donate;
};

Json ExplainJson(const jit::LayoutPlan& plan) {
  Json out = Json::array();
  for (const jit::AutoChoice& c : plan.explain) {
    Json candidates = Json::array();
    for (const jit::LayoutCandidate& k : c.candidates) {
      candidates.push_back({{"major_to_minor", k.layout.major_to_minor()},
                            {"bytes", k.bytes},
                            {"reason", k.reason},
                            {"chosen", k.layout == c.chosen}});
    }
    out.push_back(
        {{"value", c.value}, {"chosen", c.chosen.major_to_minor()}, {"candidates", candidates}});
  }
  return out;
}

void PrintText(std::ostream& out, const jit::Compiled& c, bool explain) {
  const ir::Jaxpr& j = c.jaxpr().jaxpr;
  out << "input_formats\n";
  for (size_t i = 0; i < c.input_formats().size(); ++i) {
    out << "  args[" << i << "] " << j.aval(j.invars[i]).ShortString() << "  "
        << c.input_formats()[i].ToString() << "\n";
  }
  out << "output_formats\n";
  for (size_t o = 0; o < c.output_formats().size(); ++o) {
    out << "  [" << o << "] " << j.aval(j.outvars[o]).ShortString() << "  "
        << c.output_formats()[o].ToString() << "\n";
  }
  for (const auto& [input, output] : c.donations()) {
    out << "donated: args[" << input << "] aliases output [" << output << "]\n";
  }
  const bool explained = explain && !c.plan().explain.empty();
  if (explain) {
    out << "cost model (estimated bytes moved per candidate layout; * = chosen)\n"
        << (explained ? jit::ExplainText(c.plan()) : std::string("  no AUTO layouts\n"));
  }
  if (!explained) {  // ExplainText lists them itself
    for (const std::string& r : c.plan().relayouts) {
      out << "relayout inserted: " << r << "\n";
    }
  }
}

void AddCompile(CLI::App& app, Selected& selected) {
  auto args = std::make_shared<CompileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compile",
      "Compile a jaxpr with a Format per input and output: prints the input and output formats; "
      "Layout.AUTO is resolved by a cost model (--explain shows its candidates)");
  cmd->add_option("--jaxpr", args->jaxpr,
                  "The jaxpr as jax.make_jaxpr prints it: a file, '-' (stdin), '@FILE' or the "
                  "text")
      ->required();
  cmd->add_option("--in", args->in,
                  "One per input, in order: \"Format(Layout.AUTO)\", \"Format(Layout((1, 0)), "
                  "NamedSharding(...))\" or none (default: none for all)");
  cmd->add_option("--out", args->out, "One per output, as --in");
  cmd->add_flag("--explain", args->explain, "Show the cost model's candidates for AUTO layouts");
  cmd->add_option("--donate", args->donate,
                  "Donated input indices (jit's donate_argnums); each aliases the first output "
                  "of its type, and AUTO must be on both sides or neither");
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr jaxpr, JaxprOption(args->jaxpr));
    AXE_ASSIGN_OR_RETURN(auto in, FormatOptions(args->in, "--in"));
    AXE_ASSIGN_OR_RETURN(auto out_formats, FormatOptions(args->out, "--out"));
    jit::CompileOptions options;
    options.donate_argnums = args->donate;
    AXE_ASSIGN_OR_RETURN(jit::Compiled c, jit::Compile(std::move(jaxpr), in, out_formats, options));
    if (selected.json) {
      PrintJson(out, {{"input_formats", CompiledFormatsJson(c.input_formats())},
                      {"output_formats", CompiledFormatsJson(c.output_formats())},
                      {"explain", ExplainJson(c.plan())},
                      {"relayouts", c.plan().relayouts},
                      {"donations", c.donations()}});
    } else {
      PrintText(out, c, args->explain);
    }
    return absl::OkStatus();
  });
}

AXE_CLI_COMMAND_GROUP(80, AddCompile);

}  // namespace
}  // namespace compile_cmd
}  // namespace axe::cli
