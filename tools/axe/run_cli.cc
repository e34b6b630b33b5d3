#include "run_cli.h"

#include <stdlib.h>

#include <exception>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli.h"
#include "error_line.h"
#include "progress.h"

namespace axe::cli {
namespace {

// Puts the environment variable `name` back as it was when constructed: a run's
// --memory-limit sets AXE_MEMORY_LIMIT (ResolveBudget) for that run only.
class RestoreEnvironmentVariable {
 public:
  explicit RestoreEnvironmentVariable(const char* name) : name_(name) {
    if (const char* value = getenv(name)) saved_ = value;
  }
  RestoreEnvironmentVariable(const RestoreEnvironmentVariable&) = delete;
  RestoreEnvironmentVariable& operator=(const RestoreEnvironmentVariable&) = delete;
  ~RestoreEnvironmentVariable() {
    if (saved_) {
      setenv(name_, saved_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

// Runs the selected action; returns the exit code.
int RunSelected(Selected& selected) {
  absl::Status status;
  try {
    status = ResolveBudget(selected);
    if (status.ok()) status = selected.action();
  } catch (const std::exception& e) {
    *selected.err << "axe: internal error: " << e.what() << "\n" << std::flush;
    return 1;
  }
  selected.out->flush();
  if (!status.ok()) {
    const std::string message = OneLine(status.message());
    if (selected.json) PrintJson(*selected.out, {{"error", message}});
    selected.out->flush();
    if (!WasPrinted(status)) PrintErrorLine(*selected.err, status);
    return 2;
  }
  return selected.exit_code;
}

}  // namespace

int RunCli(int argc, const char* const* argv, std::istream& in, std::ostream& out,
           std::ostream& err) {
  RestoreEnvironmentVariable memory_limit_env(kMemoryLimitEnv);
  StandardInputScope standard_input(in);
  CLI::App app{
      "axe: describe, check, convert and execute tensor layouts (Axe layouts, XLA "
      "shapes, shardings, grids).\nRun 'axe tour' for a guided walk, or "
      "'axe <command> --help'."};
  app.name("axe");
  app.require_subcommand(1);
  Selected selected;
  selected.out = &out;
  selected.err = &err;
  AddMemoryLimitOption(app, selected);
  AddQuietFlag(app, selected);
  AddRegisteredCommandGroups(app, selected);
  MakeIntegerOptionsStrict(app);
  app.set_version_flag("--version", "axe " AXE_VERSION);
  if (std::optional<std::string> unknown = UnknownCommand(app, argc, argv)) {
    PrintErrorLine(err, *unknown);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e, out, err);  // --help, --version
    PrintErrorLine(err, absl::StrCat(e.what(), " (see --help)"));
    return 2;
  }
  if (!selected.action) {
    PrintErrorLine(err, "no command given (see --help)");
    return 2;
  }
  return RunSelected(selected);
}

}  // namespace axe::cli
