// Shared plumbing of the axe command line: every subcommand registers an action; RunCli
// (run_cli.h) runs the selected one on the run's streams (Selected::out and err) and turns an
// error into one line on the error stream and exit code 2.
#ifndef AXE_TOOLS_AXE_CLI_H_
#define AXE_TOOLS_AXE_CLI_H_

#include <cstdint>
#include <functional>
#include <iostream>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "axe/base/memory_budget.h"
#include "nlohmann/json.hpp"

namespace axe::cli {

// JSON with keys in insertion order (stable, readable field order).
using Json = nlohmann::ordered_json;

// The action chosen on the command line, with whether --json was given.
struct Selected {
  std::function<absl::Status()> action;
  bool json = false;
  // The exit code of a successful action (e.g. 1 for "the inputs differ", as cmp and diff).
  int exit_code = 0;
  // The global --memory-limit text, if given, and the budget main() resolves from it (or
  // from AXE_MEMORY_LIMIT, or the system's) before the action runs.
  std::optional<std::string> memory_limit;
  MemoryBudget budget;
  // The global --quiet: no progress line (progress.h).
  bool quiet = false;
  // Where the command writes its results (out) and its notes (err). RunCli binds them
  // (main(): std::cout and std::cerr; the in-process test runner: string streams).
  std::ostream* out = &std::cout;
  std::ostream* err = &std::cerr;
};

// Adds the global option --memory-limit to `app`, bound to `selected.memory_limit`; options
// of `app` are accepted after a subcommand's name too.
void AddMemoryLimitOption(CLI::App& app, Selected& selected);

// Resolves `selected.budget`. A --memory-limit also becomes the process's AXE_MEMORY_LIMIT,
// so that the library calls that look the budget up themselves see it. Errors: a limit
// ParseMemorySize refuses, naming --memory-limit or AXE_MEMORY_LIMIT.
absl::Status ResolveBudget(Selected& selected);

// Adds --json to `cmd`, bound to `selected.json`.
void AddJsonFlag(CLI::App* cmd, Selected& selected);

// Makes `cmd` run `action` when it is selected.
void OnSelect(CLI::App* cmd, Selected& selected, std::function<absl::Status()> action);

// `status` with its message prefixed by the option or argument it came from ("--shape: ..."),
// keeping its code.
absl::Status InOption(absl::string_view option, const absl::Status& status);

// Parses an integer list option such as "8,16" (or "-"/"@file", see ReadInputText); errors
// name the option.
absl::StatusOr<std::vector<int64_t>> ParseIntListOption(const std::string& text,
                                                        const std::string& option);

// The standard input of one run of the command line (RunCli holds one for the run): what
// ReadInputText's "-" reads, at most once per run. Binding std::cin reads the process's
// standard input (a directory there is refused); outside any run, "-" reads std::cin.
class StandardInputScope {
 public:
  explicit StandardInputScope(std::istream& in);
  StandardInputScope(const StandardInputScope&) = delete;
  StandardInputScope& operator=(const StandardInputScope&) = delete;
  ~StandardInputScope();

  std::istream& in() const { return in_; }
  bool is_process_stdin() const { return &in_ == &std::cin; }
  // The option that read it ("" while unread).
  std::string reader;

 private:
  std::istream& in_;
  StandardInputScope* outer_;
};

// The text a positional argument or option stands for: "-" reads standard input, "@PATH"
// reads the file PATH (argv is capped at 128 KiB; HLO dumps are larger), anything else is
// the text itself. Inputs over 256 MiB are refused. Errors name `what` (e.g. "--shape").
absl::StatusOr<std::string> ReadInputText(const std::string& arg, const std::string& what);

// Writes `text` to the file PATH (the --svg pictures); errors name `what` and the path.
absl::Status WriteOutputFile(const std::string& path, const std::string& text,
                             const std::string& what);

// Writes a picture: the SVG `svg` to `svg_path` (--svg) and its TikZ form (picture/tikz.h)
// to `latex_path` (--latex), each when its path is not empty.
absl::Status WritePictureFiles(const std::string& svg_path, const std::string& latex_path,
                               const std::string& svg);

// Adds `--latex FILE` (the --svg picture as a standalone TikZ document) to `cmd`.
void AddLatexOption(CLI::App* cmd, std::string& latex);

// The check of an output FILE option (--svg): an empty file name is refused when parsing
// (it would silently write nothing).
const CLI::Validator& OutputFileName();

// Turns a status message into one line (newlines and tabs become spaces, runs collapse).
std::string OneLine(absl::string_view message);

// Prints compact JSON followed by a newline to `out`.
void PrintJson(std::ostream& out, const Json& j);

// Command groups register themselves from their own file, so that adding a group touches
// no shared file:
//
//   void AddXlaCommands(CLI::App& app, Selected& selected) { ... }
//   AXE_CLI_COMMAND_GROUP(20, AddXlaCommands);
//
// Groups are added to the app in increasing `order` (which is also their --help order).
using CommandGroupAdder = void (*)(CLI::App&, Selected&);
struct CommandGroupRegistration {
  CommandGroupRegistration(int order, CommandGroupAdder adder);
};
// Adds every registered group to `app`.
void AddRegisteredCommandGroups(CLI::App& app, Selected& selected);

// Makes every integer option of `app` and its subcommands strict: an empty value, a value
// with trailing text, or one outside [-2^63, 2^63) is an error quoting the typed text (the
// parser alone reads '' as 0 and clamps at the int64 range).
void MakeIntegerOptionsStrict(CLI::App& app);

// For a command line that names a command that does not exist ("axe bogus", "axe layout
// bogus"): "unknown command 'bogus' for 'axe layout'; expected one of: canon, apply, ...".
// nullopt when every command word is known.
std::optional<std::string> UnknownCommand(CLI::App& app, int argc, const char* const* argv);

#define AXE_CLI_CONCAT_INNER_(a, b) a##b
#define AXE_CLI_CONCAT_(a, b) AXE_CLI_CONCAT_INNER_(a, b)
#define AXE_CLI_COMMAND_GROUP(order, adder)                                                       \
  static const ::axe::cli::CommandGroupRegistration AXE_CLI_CONCAT_(axe_cli_group_, __COUNTER__)( \
      order, adder)

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_CLI_H_
