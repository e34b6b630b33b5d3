// Shared plumbing of the axe command line: every subcommand registers an action; main()
// runs the selected one and turns an error into one line on stderr and exit code 2.
#ifndef AXE_TOOLS_AXE_CLI_H_
#define AXE_TOOLS_AXE_CLI_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace axe::cli {

// JSON with keys in insertion order (stable, readable field order).
using Json = nlohmann::ordered_json;

// The action chosen on the command line, with whether --json was given.
struct Selected {
  std::function<absl::Status()> action;
  bool json = false;
};

// Adds --json to `cmd`, bound to `selected.json`.
void AddJsonFlag(CLI::App* cmd, Selected& selected);

// Makes `cmd` run `action` when it is selected.
void OnSelect(CLI::App* cmd, Selected& selected, std::function<absl::Status()> action);

// Parses an integer list option such as "8,16"; errors name the option.
absl::StatusOr<std::vector<int64_t>> ParseIntListOption(const std::string& text,
                                                        const std::string& option);

// Prints compact JSON followed by a newline.
void PrintJson(const Json& j);

// Subcommand groups (one file each).
void AddLayoutCommands(CLI::App& app, Selected& selected);
void AddTourCommand(CLI::App& app, Selected& selected);

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_CLI_H_
