// No program of the corpora runs through the interpreter fallback unless its primitive is on
// the list below: every jaxpr the real JAX printed for the IR's tests (tests/ir/testdata) and
// every everyday program (python/tests/data/everyday and everyday2) is compiled, and each equation
// that the plan, or a plan nested in it (a scan's, a cond's or a reducer's body), hands to the
// interpreter is named with its result's dtype. A new fallback fails here: give the primitive a
// typed kernel, or add it below with the reason it may stay (docs/exec.md lists the same).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "axe/exec/executable.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitive.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe::exec {
namespace fallback_test {
namespace {

// "<primitive> <first result's dtype>" ("none" without results) -> why it may fall back.
const std::map<std::string, std::string>& AllowedFallbacks() {
  static const auto* allowed = new std::map<std::string, std::string>{
      {"conv_general_dilated bool", "bool convolutions (rare)"},
      {"conv_general_dilated i32", "bool operands with an int32 result (rare)"},
      {"dot_general bf16", "16-bit float dot_general: no typed GEMM yet"},
      {"dot_general f16", "16-bit float dot_general: no typed GEMM yet"},
      {"dot_general f32", "16-bit operands with an f32 result: no typed GEMM yet"},
      {"dot_general i32", "integer dot_general: no typed kernel yet"},
      {"unstack f32", "no typed kernel yet (the transpose of stack, rare in printed jaxprs)"},
      {"debug_print none", "jax.debug.print: prints on the host, no values"},
      {"eigh f32", "linear algebra decompositions: no typed kernel yet"},
      {"qr f32", "linear algebra decompositions: no typed kernel yet"},
      {"svd f32", "linear algebra decompositions: no typed kernel yet"},
      {"platform_index i32", "one scalar per run (lax.platform_dependent)"},
  };
  return *allowed;
}

struct Program {
  std::string name;
  ir::ClosedJaxpr jaxpr;
};

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Constvars get zeros: which kernel runs an equation never depends on the values.
void ZeroConsts(ir::ClosedJaxpr& j) {
  if (j.consts.size() == j.jaxpr.constvars.size()) return;
  j.consts.clear();
  for (ir::VarId v : j.jaxpr.constvars) {
    const ir::ShapedArray aval = j.jaxpr.aval(v).WithVma({});
    j.consts.push_back(ir::HostArray{
        aval, std::vector<double>(static_cast<size_t>(aval.NumElements().value_or(0)))});
  }
}

std::vector<Program> Corpus() {
  std::vector<Program> programs;
  std::vector<std::filesystem::path> files;
  for (const auto& dir : std::filesystem::directory_iterator(AXE_IR_TESTDATA_DIR)) {
    if (!dir.is_directory()) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      const std::string name = entry.path().filename().string();
      if (absl::EndsWith(name, ".txt") && !absl::EndsWith(name, ".values.txt")) {
        files.push_back(entry.path());
      }
    }
  }
  for (const char* dir : {AXE_EVERYDAY_DIR, AXE_EVERYDAY_DIR "2"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& file : files) {
    std::string text = ReadFile(file);
    if (file.extension() == ".json") {
      nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
      if (!j.is_object() || !j.contains("text") || !j["text"].is_string()) continue;
      text = j["text"].get<std::string>();
    }
    absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(text);
    if (!j.ok()) continue;  // values files, texts of the parser's error tests
    ZeroConsts(*j);
    programs.push_back(
        Program{file.parent_path().filename().string() + "/" + file.filename().string(), *j});
  }
  return programs;
}

// The jaxprs an equation's params hold (bodies, branches, reducers), at any depth of lists.
void Bodies(const ir::Param& p, std::vector<const ir::ClosedJaxpr*>& out) {
  if (p.kind() == ir::Param::Kind::kJaxpr && p.jaxpr() != nullptr) out.push_back(p.jaxpr().get());
  for (const ir::Param& item : p.items()) Bodies(item, out);
}

// "<primitive> <dtype>" of each fallback step in a plan's description ("fallback pad:
// interpreter -> f32[3,4]").
std::vector<std::string> FallbackSteps(const std::string& described) {
  std::vector<std::string> found;
  for (absl::string_view line : absl::StrSplit(described, '\n')) {
    if (!absl::ConsumePrefix(&line, "fallback ")) continue;
    std::vector<std::string> parts = absl::StrSplit(line, absl::ByAnyChar(": ->["));
    std::vector<std::string> words;
    for (const std::string& p : parts) {
      if (!p.empty()) words.push_back(p);
    }
    // An equation without results (debug_print) names no type.
    found.push_back(
        absl::StrCat(words.empty() ? "" : words[0], " ", words.size() >= 3 ? words[2] : "none"));
  }
  return found;
}

// The collectives: a shard_map body compiled on its own hands them to the interpreter, inside
// their shard_map they run typed.
bool IsCollective(const std::string& step) {
  static const auto* names = new std::set<std::string>{
      "psum",       "psum_invariant",       "pmax",           "pmin",       "pvary",
      "all_gather", "all_gather_invariant", "reduce_scatter", "all_to_all", "ppermute",
      "axis_index"};
  return names->count(step.substr(0, step.find(' '))) > 0;
}

// The fallbacks of `j`'s plan and, when it has nested ones, of its bodies compiled on their
// own; false when a nested fallback could not be named (a body that does not compile alone).
bool NameFallbacks(const ir::ClosedJaxpr& j, std::vector<std::string>& names) {
  absl::StatusOr<Executable> e = Executable::Compile(j);
  if (!e.ok()) return false;
  std::vector<std::string> top = FallbackSteps(e->Describe());
  names.insert(names.end(), top.begin(), top.end());
  if (e->stats().nested_fallbacks == 0) return true;
  std::vector<std::string> nested;
  for (const ir::Eqn& eqn : j.jaxpr.eqns) {
    std::vector<const ir::ClosedJaxpr*> bodies;
    for (const auto& [key, p] : eqn.params) Bodies(p, bodies);
    for (const ir::ClosedJaxpr* body : bodies) {
      ir::ClosedJaxpr copy = *body;
      ZeroConsts(copy);
      std::vector<std::string> found;
      if (!NameFallbacks(copy, found)) return false;
      for (const std::string& step : found) {
        if (eqn.primitive->name() != "shard_map" || !IsCollective(step)) nested.push_back(step);
      }
    }
  }
  names.insert(names.end(), nested.begin(), nested.end());
  return static_cast<int>(nested.size()) >= e->stats().nested_fallbacks;
}

bool Allowed(const std::string& step) { return AllowedFallbacks().count(step) > 0; }

TEST(ExecFallbackTest, NoCorpusProgramFallsBackOutsideTheAllowList) {
  const std::vector<Program> programs = Corpus();
  EXPECT_GT(programs.size(), 850u);
  std::vector<std::string> refused;
  std::set<std::string> seen;
  for (const Program& p : programs) {
    std::vector<std::string> names;
    if (!NameFallbacks(p.jaxpr, names)) {
      absl::StatusOr<Executable> e = Executable::Compile(p.jaxpr);
      if (e.ok() && e->stats().fallbacks + e->stats().nested_fallbacks > 0) {
        refused.push_back(
            absl::StrCat(p.name, ": fallbacks in a body that does not compile alone"));
      }
      continue;
    }
    for (const std::string& step : names) {
      seen.insert(step);
      if (!Allowed(step)) refused.push_back(absl::StrCat(p.name, ": ", step));
    }
  }
  EXPECT_TRUE(refused.empty()) << absl::StrJoin(refused, "\n");
  // What still falls back, for the log (docs/exec.md keeps the table).
  std::cout << "fallbacks in the corpora: " << absl::StrJoin(seen, ", ") << "\n";
}

// The window family never falls back, whatever the dtype: 16-bit floats, bool pooling and the
// generic reduce_window (a monoid reducer and a variadic argmax pool) run typed, gradients and
// JVPs (select_and_gather_add, select_and_scatter_add) included.
TEST(ExecFallbackTest, PoolingRunsTypedOnEveryDtype) {
  int programs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(AXE_IR_TESTDATA_DIR) / "jax_window")) {
    const std::string name = entry.path().filename().string();
    if (!absl::EndsWith(name, ".txt") || absl::EndsWith(name, ".values.txt")) continue;
    absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(ReadFile(entry.path()));
    ASSERT_TRUE(j.ok()) << name << ": " << j.status();
    std::vector<std::string> names;
    ASSERT_TRUE(NameFallbacks(*j, names)) << name;
    ++programs;
    for (const std::string& step : names) {
      EXPECT_FALSE(absl::StartsWith(step, "reduce_window") || absl::StartsWith(step, "select_and"))
          << name << ": " << step;
    }
  }
  EXPECT_GE(programs, 70);
}

}  // namespace
}  // namespace fallback_test
}  // namespace axe::exec
