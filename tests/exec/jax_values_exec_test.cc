// The executor against JAX's own values: the `while` loops (tests/ir/testdata/jax_while, a
// batched predicate included) and the math functions (jax_math: exact gelu, an integer hash,
// shifts past the bit width) run typed, without falling back; a loop that never ends is
// stopped by the work budget, and a cancelled run stops between iterations.
#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "axe/exec/executable.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/testdata.h"

namespace axe::exec {
namespace jax_values_exec_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::ReadFile;
using ::axe::testing_support::ReadJaxValues;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

ir::ClosedJaxpr Parse(const std::string& text) {
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(text);
  EXPECT_THAT(j, IsOk()) << text;
  return j.ok() ? *j : ir::ClosedJaxpr{};
}

// Runs every case of testdata/<dir> (<name>.txt, <name>.values.txt) on the executor: JAX's
// outputs, floats within a few f32 ulps, integers and bools exactly. Returns the cases run.
int RunJaxCases(const std::string& dir_name, const std::string& kernel) {
  const std::filesystem::path dir = std::filesystem::path(AXE_IR_TESTDATA_DIR) / dir_name;
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string file = entry.path().filename().string();
    if (!absl::EndsWith(file, ".values.txt")) continue;
    std::string name = file.substr(0, file.size() - std::string(".values.txt").size());
    SCOPED_TRACE(name);
    std::map<std::string, std::vector<ir::HostArray>> values =
        ReadJaxValues(entry.path(), ir::ParseArgSpec);
    ir::ClosedJaxpr j = Parse(ReadFile(dir / (name + ".txt")));
    absl::StatusOr<Executable> e = Executable::Compile(j);
    EXPECT_THAT(e, IsOk());
    if (!e.ok()) continue;
    EXPECT_THAT(e->Describe(), HasSubstr(kernel));
    EXPECT_EQ(e->stats().fallbacks, 0) << e->Describe();
    absl::StatusOr<std::vector<ir::HostArray>> out = ExecuteJaxpr(j, values["arg"]);
    EXPECT_THAT(out, IsOk());
    const std::vector<ir::HostArray>& want = values["out"];
    if (!out.ok() || out->size() != want.size()) {
      ADD_FAILURE() << "output count";
      continue;
    }
    for (size_t k = 0; k < want.size(); ++k) {
      EXPECT_EQ((*out)[k].aval.shape(), want[k].aval.shape());
      EXPECT_EQ((*out)[k].values.size(), want[k].values.size());
      const bool exact = !IsFloatingPoint(want[k].aval.dtype());
      for (size_t i = 0; i < want[k].values.size() && i < (*out)[k].values.size(); ++i) {
        const double w = want[k].values[i], g = (*out)[k].values[i];
        if (exact || std::isinf(w)) {
          EXPECT_EQ(g, w) << k << " " << i;
        } else {
          EXPECT_NEAR(g, w, 1e-7 + 4e-6 * std::fabs(w)) << k << " " << i;
        }
      }
    }
    ++cases;
  }
  return cases;
}

TEST(WhileExecTest, JaxLoopsRunTypedWithJaxsValues) {
  EXPECT_GE(RunJaxCases("jax_while", "while ("), 14);
}

TEST(MathExecTest, JaxMathRunsTypedWithJaxsValues) { EXPECT_GE(RunJaxCases("jax_math", ""), 12); }

constexpr const char* kEndless =
    "{ lambda ; a:f32[]. let b:f32[] = while[\n"
    "  body_jaxpr={ lambda ; c:f32[]. let d:f32[] = add c 1.0:f32[] in (d,) }\n"
    "  body_nconsts=0\n"
    "  cond_jaxpr={ lambda ; e:f32[]. let f:bool[] = ge e 0.0:f32[] in (f,) }\n"
    "  cond_nconsts=0\n] a in (b,) }";

TEST(WhileExecTest, EndlessLoopIsStoppedByTheWorkBudget) {
  ExecOptions options;
  options.max_work = int64_t{1} << 26;
  absl::StatusOr<Executable> e = Executable::Compile(Parse(kEndless), options);
  ASSERT_THAT(e, IsOk());
  absl::StatusOr<Value> x =
      FromHostArray(ir::HostArray{*ir::ShapedArray::ParseShort("f32[]"), {1}});
  ASSERT_THAT(x, IsOk());
  EXPECT_THAT(e->Run({*x}).status(),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("a while loop stopped after 64 iterations: its work passed the "
                                 "limit of 67108864 (ExecOptions::max_work")));
  // The predicate fails at once: no work counted past the first check.
  absl::StatusOr<Value> negative =
      FromHostArray(ir::HostArray{*ir::ShapedArray::ParseShort("f32[]"), {-1}});
  ASSERT_THAT(negative, IsOk());
  absl::StatusOr<std::vector<Value>> out = e->Run({*negative});
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(ToHostArray((*out)[0]).values[0], -1);
}

TEST(WhileExecTest, CancelledRunStops) {
  std::atomic<bool> cancel{true};
  ExecOptions options;
  options.cancel = &cancel;
  absl::StatusOr<Executable> e = Executable::Compile(Parse(kEndless), options);
  ASSERT_THAT(e, IsOk());
  absl::StatusOr<Value> x =
      FromHostArray(ir::HostArray{*ir::ShapedArray::ParseShort("f32[]"), {1}});
  ASSERT_THAT(x, IsOk());
  EXPECT_THAT(e->Run({*x}).status(),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("cancelled")));
}

}  // namespace
}  // namespace jax_values_exec_test
}  // namespace axe::exec
