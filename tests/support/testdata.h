// Reading the tests' data files: whole texts, the JAX-printed corpus under tests/ir/testdata,
// and values files of JAX's numbers (lines `<kind> <argument spec>`, kind arg, out, grad, ...).
//
//   std::string text = ReadIrTestdata("jax/shmap_psum.txt");
//   for (const std::string& name : IrTestdataCases("jax_while")) { ... }
//   auto values = ReadJaxValues(IrTestdataPath("jax_while/count.values.txt"), ir::ParseArgSpec);
//   values["arg"], values["out"]   // the parsed arrays of each kind, in file order
#ifndef AXE_TESTS_SUPPORT_TESTDATA_H_
#define AXE_TESTS_SUPPORT_TESTDATA_H_

#include <filesystem>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace axe::testing_support {

// The whole text of `path`; empty when it cannot be read.
std::string ReadFile(const std::filesystem::path& path);

// tests/ir/testdata/<relative>.
std::filesystem::path IrTestdataPath(const std::string& relative);

// The whole text of tests/ir/testdata/<relative>.
std::string ReadIrTestdata(const std::string& relative);

// The text of tests/ir/testdata/jax/<name>.txt (a program JAX printed).
std::string ReadJaxProgram(const std::string& name);

// The <name> of every tests/ir/testdata/<dir>/<name>.values.txt, sorted.
std::vector<std::string> IrTestdataCases(const std::string& dir);

// A values file's argument specs by kind, each kind's in file order; empty lines are skipped.
std::map<std::string, std::vector<std::string>> ReadValueSpecs(const std::filesystem::path& path);

// A values file parsed with `parse` (ir::ParseArgSpec, exec::ParseValue, ...): the values of
// each kind in file order. A spec that does not parse fails the test and is left out.
template <typename Parse>
auto ReadJaxValues(const std::filesystem::path& path, Parse parse) {
  using Value = std::decay_t<decltype(*parse(std::string()))>;
  std::map<std::string, std::vector<Value>> values;
  for (const auto& [kind, specs] : ReadValueSpecs(path)) {
    for (const std::string& spec : specs) {
      auto value = parse(spec);
      EXPECT_TRUE(value.ok()) << path << ": " << kind << " " << spec << ": " << value.status();
      if (value.ok()) values[kind].push_back(*std::move(value));
    }
  }
  return values;
}

}  // namespace axe::testing_support

#endif  // AXE_TESTS_SUPPORT_TESTDATA_H_
