// axe compile: a jaxpr compiled with a Format per input and output; AUTO layouts resolved by
// the cost model, which --explain shows.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/parser.h"
#include "axe/jit/compile.h"
#include "cli.h"

namespace axe::cli {
namespace {

struct CompileArgs {
  std::string jaxpr;
  std::vector<std::string> in, out;
  bool explain = false;
};

// --jaxpr takes a path as well as text, '-' and '@FILE'.
absl::StatusOr<std::string> JaxprText(const std::string& arg) {
  if (!arg.empty() && arg[0] != '{' && arg != "-" && arg[0] != '@' &&
      std::filesystem::is_regular_file(arg)) {
    return ReadInputText("@" + arg, "--jaxpr");
  }
  return ReadInputText(arg, "--jaxpr");
}

// "none" (or an empty string) is no format; anything else a Format repr.
absl::StatusOr<std::vector<std::optional<jit::Format>>> Formats(
    const std::vector<std::string>& texts, absl::string_view option) {
  std::vector<std::optional<jit::Format>> out;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string what = absl::StrCat(option, " ", i);
    AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(texts[i], what));
    if (text.empty() || text == "none" || text == "None") {
      out.emplace_back();
      continue;
    }
    absl::StatusOr<jit::Format> f = jit::Format::Parse(text);
    if (!f.ok()) return InOption(what, f.status());
    out.emplace_back(*std::move(f));
  }
  return out;
}

Json LayoutJson(const jit::LocalLayout& l) {
  return {{"major_to_minor", l.major_to_minor()},
          {"tiling", l.tiling() ? Json(*l.tiling()) : Json(nullptr)},
          {"sub_byte_element_size_in_bits", l.sub_byte_element_size_in_bits()}};
}

Json FormatsJson(const std::vector<jit::CompiledFormat>& formats) {
  Json out = Json::array();
  for (const jit::CompiledFormat& f : formats) {
    out.push_back({{"layout", LayoutJson(f.layout)},
                   {"sharding", f.sharding ? Json(f.sharding->ToString()) : Json(nullptr)},
                   {"format", f.ToString()}});
  }
  return out;
}

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

void PrintText(const jit::Compiled& c, bool explain) {
  const ir::Jaxpr& j = c.jaxpr().jaxpr;
  std::cout << "input_formats\n";
  for (size_t i = 0; i < c.input_formats().size(); ++i) {
    std::cout << "  args[" << i << "] " << j.aval(j.invars[i]).ShortString() << "  "
              << c.input_formats()[i].ToString() << "\n";
  }
  std::cout << "output_formats\n";
  for (size_t o = 0; o < c.output_formats().size(); ++o) {
    std::cout << "  [" << o << "] " << j.aval(j.outvars[o]).ShortString() << "  "
              << c.output_formats()[o].ToString() << "\n";
  }
  if (explain) {
    std::cout << "cost model (estimated bytes moved per candidate layout; * = chosen)\n"
              << (c.plan().explain.empty() ? std::string("  no AUTO layouts\n")
                                           : jit::ExplainText(c.plan()));
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
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(std::string text, JaxprText(args->jaxpr));
    absl::StatusOr<ir::ClosedJaxpr> jaxpr = ir::ParseJaxpr(text);
    if (!jaxpr.ok()) return InOption("--jaxpr", jaxpr.status());
    AXE_ASSIGN_OR_RETURN(auto in, Formats(args->in, "--in"));
    AXE_ASSIGN_OR_RETURN(auto out, Formats(args->out, "--out"));
    AXE_ASSIGN_OR_RETURN(jit::Compiled c, jit::Compile(*std::move(jaxpr), in, out));
    if (selected.json) {
      PrintJson({{"input_formats", FormatsJson(c.input_formats())},
                 {"output_formats", FormatsJson(c.output_formats())},
                 {"explain", ExplainJson(c.plan())}});
    } else {
      PrintText(c, args->explain);
    }
    return absl::OkStatus();
  });
}

AXE_CLI_COMMAND_GROUP(80, AddCompile);

}  // namespace
}  // namespace axe::cli
