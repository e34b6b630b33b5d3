// axe: describe, check, convert and execute tensor layouts.
#include <exception>
#include <iostream>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli.h"
#include "error_line.h"
#include "progress.h"

int main(int argc, char** argv) {
  CLI::App app{
      "axe: describe, check, convert and execute tensor layouts (Axe layouts, XLA "
      "shapes, shardings, grids).\nRun 'axe tour' for a guided walk, or "
      "'axe <command> --help'."};
  app.name("axe");
  app.require_subcommand(1);
  axe::cli::Selected selected;
  axe::cli::AddMemoryLimitOption(app, selected);
  axe::cli::AddQuietFlag(app, selected);
  axe::cli::AddRegisteredCommandGroups(app, selected);
  axe::cli::MakeIntegerOptionsStrict(app);
  app.set_version_flag("--version", "axe " AXE_VERSION);
  if (std::optional<std::string> unknown = axe::cli::UnknownCommand(app, argc, argv)) {
    axe::cli::PrintErrorLine(*unknown);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    axe::cli::PrintErrorLine(absl::StrCat(e.what(), " (see --help)"));
    return 2;
  }
  if (!selected.action) {
    axe::cli::PrintErrorLine("no command given (see --help)");
    return 2;
  }
  absl::Status status;
  try {
    status = axe::cli::ResolveBudget(selected);
    if (status.ok()) status = selected.action();
  } catch (const std::exception& e) {
    std::cerr << "axe: internal error: " << e.what() << "\n";
    return 1;
  }
  if (!status.ok()) {
    const std::string message = axe::cli::OneLine(status.message());
    if (selected.json) axe::cli::PrintJson({{"error", message}});
    if (!axe::cli::WasPrinted(status)) axe::cli::PrintErrorLine(status);
    return 2;
  }
  return selected.exit_code;
}
