#include "support/testdata.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace axe::testing_support {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::filesystem::path IrTestdataPath(const std::string& relative) {
  return std::filesystem::path(AXE_IR_TESTDATA_DIR) / relative;
}

std::string ReadIrTestdata(const std::string& relative) {
  return ReadFile(IrTestdataPath(relative));
}

std::string ReadJaxProgram(const std::string& name) {
  return ReadIrTestdata("jax/" + name + ".txt");
}

std::vector<std::string> IrTestdataCases(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(IrTestdataPath(dir))) {
    const std::string file = entry.path().filename().string();
    absl::string_view name = file;
    if (absl::ConsumeSuffix(&name, ".values.txt")) names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::map<std::string, std::vector<std::string>> ReadValueSpecs(const std::filesystem::path& path) {
  std::map<std::string, std::vector<std::string>> specs;
  for (absl::string_view line : absl::StrSplit(ReadFile(path), '\n', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kind_spec = absl::StrSplit(line, absl::MaxSplits(' ', 1));
    specs[kind_spec.first].push_back(std::move(kind_spec.second));
  }
  return specs;
}

}  // namespace axe::testing_support
