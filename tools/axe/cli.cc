#include "cli.h"

#include <algorithm>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/int_list.h"

namespace axe::cli {

void AddJsonFlag(CLI::App* cmd, Selected& selected) {
  cmd->add_flag("--json", selected.json, "Print machine-readable JSON (stable field names)");
}

void OnSelect(CLI::App* cmd, Selected& selected, std::function<absl::Status()> action) {
  cmd->callback([&selected, action = std::move(action)] { selected.action = action; });
}

absl::StatusOr<std::vector<int64_t>> ParseIntListOption(const std::string& text,
                                                        const std::string& option) {
  absl::StatusOr<std::vector<int64_t>> v = ParseIntList(text);
  if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat(option, ": ", v.status().message()));
  return v;
}

void PrintJson(const Json& j) { std::cout << j.dump() << "\n"; }

namespace {
std::vector<std::pair<int, CommandGroupAdder>>& Groups() {
  static auto* groups = new std::vector<std::pair<int, CommandGroupAdder>>();
  return *groups;
}
}  // namespace

CommandGroupRegistration::CommandGroupRegistration(int order, CommandGroupAdder adder) {
  Groups().emplace_back(order, adder);
}

void AddRegisteredCommandGroups(CLI::App& app, Selected& selected) {
  std::vector<std::pair<int, CommandGroupAdder>> groups = Groups();
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [order, adder] : groups) adder(app, selected);
}

}  // namespace axe::cli
