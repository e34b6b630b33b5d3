#include "picture/golden.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace axe::picture::testing {
namespace {

bool UpdateRequested() {
  const char* v = std::getenv("AXE_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string GoldenPath(const std::string& name) {
  return std::string(AXE_PICTURE_GOLDEN_DIR) + "/" + name;
}

std::string DocsPicturePath(const std::string& name) {
  return std::string(AXE_DOCS_PICTURES_DIR) + "/" + name;
}

::testing::AssertionResult CompareGolden(const std::string& name, const std::string& text) {
  if (UpdateRequested()) {
    if (!WriteFile(GoldenPath(name), text) || !WriteFile(DocsPicturePath(name), text))
      return ::testing::AssertionFailure() << "cannot write " << name;
    return ::testing::AssertionSuccess();
  }
  const std::string golden = ReadFileOrEmpty(GoldenPath(name));
  if (golden == text) return ::testing::AssertionSuccess();
  size_t at = 0;
  while (at < golden.size() && at < text.size() && golden[at] == text[at]) ++at;
  return ::testing::AssertionFailure()
         << GoldenPath(name) << " differs from the picture at byte " << at
         << " (rerun with AXE_UPDATE_GOLDEN=1 to rewrite it); the picture there reads: "
         << text.substr(at, 80) << "\n the golden reads: " << golden.substr(at, 80);
}

}  // namespace axe::picture::testing
