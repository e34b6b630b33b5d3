// What the `axe ir` commands share: reading the JAXPR argument and printing a jaxpr result.
#ifndef AXE_TOOLS_AXE_IR_ARGS_H_
#define AXE_TOOLS_AXE_IR_ARGS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/ir/jaxpr.h"
#include "cli.h"

namespace axe::cli {

// The JAXPR argument (text, '-' or '@FILE') read, parsed and type-checked.
absl::StatusOr<ir::ClosedJaxpr> ReadCheckedJaxpr(const std::string& arg);

// ["f32[8]", ...]
Json AvalsJson(const std::vector<ir::ShapedArray>& avals);

// The jaxpr in JAX's text form, or with --json {"jaxpr", "in_avals", "out_avals"} plus
// `extra`'s fields.
void PrintJaxprResult(std::ostream& out, const ir::ClosedJaxpr& j, bool json,
                      Json extra = Json::object());

// An `axe ir` subcommand taking the JAXPR positional argument and --json; `run` gets the
// command's output stream and the parsed options (Args) when it is selected.
template <typename Args>
CLI::App* AddJaxprCommand(CLI::App* group, Selected& selected, const char* name, const char* help,
                          std::shared_ptr<Args> args,
                          absl::Status (*run)(std::ostream&, const Args&, bool)) {
  CLI::App* cmd = group->add_subcommand(name, help);
  cmd->add_option("jaxpr", args->jaxpr,
                  "The jaxpr text (as JAX or axe prints it), - for standard input, @FILE")
      ->required();
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected,
           [args, run, &selected] { return run(*selected.out, *args, selected.json); });
  return cmd;
}

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_IR_ARGS_H_
