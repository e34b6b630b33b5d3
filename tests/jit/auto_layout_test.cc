#include "axe/jit/auto_layout.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "axe/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::jit {
namespace auto_layout_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

LocalLayout L(std::vector<int64_t> m2m) { return *LocalLayout::Create(std::move(m2m)); }

ir::Jaxpr Parse(absl::string_view text) {
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(text);
  EXPECT_TRUE(j.ok()) << j.status();
  return j.ok() ? j->jaxpr : ir::Jaxpr();
}

// [LN-1], as jax.make_jaxpr prints apply_fn(x, y) = (x[0, :], y[:, 0]) (shared with the CLI
// test).
std::string ApplyFn() {
  std::ifstream in(std::string(AXE_JIT_TESTDATA_DIR) + "/apply_fn.jaxpr");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(AutoLayoutTest, LayoutNotebookInputsReadTheirLineContiguously) {
  const ir::Jaxpr jaxpr = Parse(ApplyFn());
  absl::StatusOr<LayoutPlan> plan =
      ChooseLayouts(jaxpr, {AutoLayout(), AutoLayout()}, {AutoLayout(), AutoLayout()});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->inputs[0], L({0, 1}));
  EXPECT_EQ(plan->inputs[1], L({1, 0}));
  EXPECT_EQ(plan->outputs[0], L({0}));
  ASSERT_EQ(plan->explain.size(), 4u);
  EXPECT_EQ(plan->explain[0].value, "input 0 (f32[512,1024])");
  // Row-major reads one 4 KiB line run; column-major touches a line per element.
  EXPECT_EQ(plan->explain[0].candidates[0].bytes, 4096);
  EXPECT_EQ(plan->explain[0].candidates[1].bytes, 65536);
  EXPECT_EQ(plan->explain[1].candidates[1].bytes, 2048);
  const std::string text = ExplainText(*plan);
  EXPECT_THAT(text, HasSubstr("input 0 (f32[512,1024]): AUTO\n  * major_to_minor=(0, 1)"));
  EXPECT_THAT(text, HasSubstr("slice reads 64 lines of 64 B"));
}

// [LT-5]: the AUTO output of a transpose becomes a relabel of its input.
TEST(AutoLayoutTest, TransposeOutputIsARelabel) {
  const ir::Jaxpr jaxpr = Parse(R"({ lambda ; a:f32[16,128]. let
    b:f32[128,16] = transpose[permutation=(1, 0)] a
  in (b,) })");
  absl::StatusOr<LayoutPlan> plan = ChooseLayouts(jaxpr, {L({0, 1})}, {AutoLayout()});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->outputs[0], L({1, 0}));
  // With a row-major output required, an AUTO input is laid out so the transpose is free.
  plan = ChooseLayouts(jaxpr, {AutoLayout()}, {std::monostate()});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->inputs[0], L({1, 0}));
  EXPECT_EQ(plan->explain[0].candidates[1].bytes, 0);
}

// x[:, ::16]: row-major touches every line of every row (the taken elements are a line
// apart), column-major reads 128 whole columns; measured, column-major is the faster
// (bench/auto_layout_vs_measured).
TEST(AutoLayoutTest, AStridedSliceAlongTheRowsPrefersColumns) {
  const ir::Jaxpr jaxpr = Parse(R"({ lambda ; a:f32[2048,2048]. let
    b:f32[2048,128] = slice[
      limit_indices=(2048, 2048)
      start_indices=(0, 0)
      strides=(1, 16)
    ] a
  in (b,) })");
  absl::StatusOr<LayoutPlan> plan = ChooseLayouts(jaxpr, {AutoLayout()}, {AutoLayout()});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->inputs[0], L({1, 0}));
  EXPECT_EQ(plan->explain[0].candidates[0].bytes, int64_t{2048} * 128 * 64);
  EXPECT_EQ(plan->explain[0].candidates[1].bytes, int64_t{128} * 128 * 64);
  // Elements closer than a line share the span's lines.
  EXPECT_EQ(LinesTouched({4, 64}, {4, 16}, L({0, 1}), 4, {1, 4}), 4 * 4);
  EXPECT_EQ(LinesTouched({4, 64}, {4, 32}, L({0, 1}), 4, {1, 2}), 4 * 4);
  EXPECT_EQ(LinesTouched({4, 64}, {2, 64}, L({0, 1}), 4, {2, 1}), 2 * 4);
}

TEST(AutoLayoutTest, ElementwiseFollowsTheOtherOperand) {
  const ir::Jaxpr jaxpr = Parse(R"({ lambda ; a:f32[8,16] b:f32[8,16]. let
    c:f32[8,16] = add a b
  in (c,) })");
  absl::StatusOr<LayoutPlan> plan = ChooseLayouts(jaxpr, {L({1, 0}), AutoLayout()}, {AutoLayout()});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->inputs[1], L({1, 0}));
  EXPECT_EQ(plan->outputs[0], L({1, 0}));
}

TEST(AutoLayoutTest, LinesTouched) {
  EXPECT_EQ(LinesTouched({512, 1024}, {1, 1024}, L({0, 1}), 4), 64);
  EXPECT_EQ(LinesTouched({512, 1024}, {1, 1024}, L({1, 0}), 4), 1024);
  EXPECT_EQ(LinesTouched({4, 4}, {4, 4}, L({0, 1}), 4), 1);
  EXPECT_EQ(LinesTouched({4, 4}, {0, 4}, L({0, 1}), 4), 0);
}

TEST(AutoLayoutTest, Errors) {
  const ir::Jaxpr jaxpr = Parse(ApplyFn());
  EXPECT_THAT(ChooseLayouts(jaxpr, {AutoLayout()}, {AutoLayout(), AutoLayout()}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the program has 2 inputs and 2 outputs, but 1 input")));
  EXPECT_THAT(ChooseLayouts(jaxpr, {L({0}), AutoLayout()}, {AutoLayout(), AutoLayout()}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Length of major_to_minor and the rank of the value should "
                                 "match")));
}

}  // namespace
}  // namespace auto_layout_test
}  // namespace axe::jit
