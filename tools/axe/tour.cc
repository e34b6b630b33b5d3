#include <algorithm>
#include <iostream>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "cli.h"
#include "tour.h"

namespace axe::cli {
namespace {

std::vector<std::pair<int, TourPart>>& Parts() {
  static auto* parts = new std::vector<std::pair<int, TourPart>>();
  return *parts;
}

}  // namespace

TourPartRegistration::TourPartRegistration(int order, TourPart part) {
  Parts().emplace_back(order, part);
}

std::vector<TourSection> AllTourSections() {
  std::vector<std::pair<int, TourPart>> parts = Parts();
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<TourSection> all;
  for (const auto& [order, part] : parts) {
    std::vector<TourSection> s = part();
    all.insert(all.end(), s.begin(), s.end());
  }
  return all;
}

namespace {

void AddTourCommand(CLI::App& app, Selected& selected) {
  auto only = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("tour", "A guided walk through axe's seed examples");
  cmd->add_option("--part", *only, "Show only one part (layout, ...)");
  OnSelect(cmd, selected, [only, &selected]() -> absl::Status {
    std::ostream& out = *selected.out;
    std::vector<TourSection> sections = AllTourSections();
    std::vector<std::string> parts;
    for (const TourSection& s : sections) {
      if (parts.empty() || parts.back() != s.part) parts.push_back(s.part);
    }
    if (!only->empty() && std::find(parts.begin(), parts.end(), *only) == parts.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--part: unknown part '", *only, "' (parts: ", absl::StrJoin(parts, ", "), ")"));
    }
    out << "axe tour: every answer below is computed by the library as you watch.\n";
    int n = 0;
    for (const TourSection& s : sections) {
      if (!only->empty() && s.part != *only) continue;
      out << "\n== " << ++n << ". " << s.title << " ==\n\n";
      AXE_RETURN_IF_ERROR(s.body(out));
    }
    return absl::OkStatus();
  });
}

// The tour comes after every module's command group.
AXE_CLI_COMMAND_GROUP(1000, AddTourCommand);

}  // namespace
}  // namespace axe::cli
