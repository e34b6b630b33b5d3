// Test support: golden files. CompareGolden(name, text) compares `text` byte for byte with
// tests/picture/golden/<name>; with AXE_UPDATE_GOLDEN=1 in the environment it rewrites that
// file and its copy docs/pictures/<name> instead (and passes).
#ifndef AXE_TESTS_PICTURE_GOLDEN_H_
#define AXE_TESTS_PICTURE_GOLDEN_H_

#include <string>

#include "gtest/gtest.h"

namespace axe::picture::testing {

std::string ReadFileOrEmpty(const std::string& path);
std::string GoldenPath(const std::string& name);
std::string DocsPicturePath(const std::string& name);
::testing::AssertionResult CompareGolden(const std::string& name, const std::string& text);

}  // namespace axe::picture::testing

#endif  // AXE_TESTS_PICTURE_GOLDEN_H_
