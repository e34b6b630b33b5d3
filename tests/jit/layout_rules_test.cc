#include "axe/jit/layout_rules.h"

#include <string>
#include <vector>

#include "axe/base/python_error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::jit {
namespace layout_rules_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

LocalLayout L(std::vector<int64_t> m2m) { return *LocalLayout::Create(std::move(m2m)); }

CallArgument Arg(std::string name, bool committed, std::vector<int64_t> m2m,
                 std::vector<int64_t> shape = {16, 128}) {
  return {std::move(name), committed, L(std::move(m2m)), ir::ShapedArray(shape, DType::kF32)};
}

TEST(LayoutRulesTest, JitInputResolutionTable) {
  // No jit layout: committed non-default arguments keep theirs (a separate executable).
  absl::StatusOr<InputResolution> r = ResolveJitInput(std::monostate(), Arg("x", true, {1, 0}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->action, InputAction::kArgumentLayout);
  EXPECT_EQ(*r->layout, L({1, 0}));
  r = ResolveJitInput(std::monostate(), Arg("x", false, {1, 0}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->action, InputAction::kDefault);
  EXPECT_EQ(*r->layout, L({0, 1}));
  // Uncommitted arguments are re-laid-out to the jit layout (jax-ml/jax#23100).
  r = ResolveJitInput(L({1, 0}), Arg("x", false, {0, 1}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->action, InputAction::kRelayout);
  r = ResolveJitInput(L({1, 0}), Arg("x", true, {1, 0}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->action, InputAction::kJitLayout);
  r = ResolveJitInput(AutoLayout(), Arg("x", false, {0, 1}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->action, InputAction::kCompilerChoice);
}

// [LT-5]: a committed row-major argument against a jit layout (1, 0).
TEST(LayoutRulesTest, CommittedMismatchUsesJaxText) {
  EXPECT_THAT(
      ResolveJitInput(L({1, 0}), Arg("x", true, {0, 1})),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Layout passed to jit does not match the layout on the respective arg. Got jit "
               "layout: Layout(major_to_minor=(1, 0), tiling=None, "
               "sub_byte_element_size_in_bits=0),\narg layout: Layout(major_to_minor=(0, 1), "
               "tiling=None, sub_byte_element_size_in_bits=0) for arg type: float32[16,128]."));
  EXPECT_THAT(ResolveJitInput(AutoLayout(), Arg("x", true, {0, 1})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Got jit layout: AUTO,\narg layout: Layout(major_to_minor=(0, 1)"
                                 ", tiling=None, sub_byte_element_size_in_bits=0) for arg type: "
                                 "float32[16,128]. The layout given to `jax.jit` is "
                                 "`Layout.AUTO` but the corresponding argument passed is a "
                                 "`jax.Array` with a concrete layout.")));
  EXPECT_THAT(ResolveJitInput(L({0}), Arg("x", false, {0, 1})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("One of jit arguments with pytree key path x is incompatible "
                                 "with its layout annotation Layout(major_to_minor=(0,)")));
}

TEST(LayoutRulesTest, CompiledCallListsAtMostFiveMismatches) {
  std::vector<CallArgument> args;
  std::vector<LocalLayout> compiled;
  for (int i = 0; i < 7; ++i) {
    args.push_back(Arg("args[" + std::to_string(i) + "]", i != 6, {0, 1}));
    compiled.push_back(L({1, 0}));
  }
  absl::StatusOr<std::vector<size_t>> r = CheckCompiledCall(args, compiled);
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("does not match the layout(s) the computation was compiled "
                                    "with. Computation was compiled for input layouts that "
                                    "disagree with the layouts of arguments passed to it. Here "
                                    "are 5 mismatches out of 6:\nArgument args[0] with shape "
                                    "float32[16,128]:\n  Passed layout: Layout(major_to_minor=(0,"
                                    " 1), tiling=None, sub_byte_element_size_in_bits=0)\n  "
                                    "Required layout: Layout(major_to_minor=(1, 0)")));
  EXPECT_THAT(std::string(r.status().message()), ::testing::Not(HasSubstr("args[5]")));
  // [LN-3]: uncommitted arguments of any layout are accepted and re-laid-out.
  args.erase(args.begin() + 2, args.end());
  compiled.erase(compiled.begin() + 2, compiled.end());
  args[0].committed = false;
  args[1].committed = false;
  r = CheckCompiledCall(args, compiled);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(*r, ElementsAre(0, 1));
  args[1].committed = true;
  EXPECT_THAT(CheckCompiledCall(args, compiled),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Here are the 1 mismatches")));
}

TEST(LayoutRulesTest, AutoIsRejectedWhereJaxRejectsIt) {
  EXPECT_THAT(JitLayoutOfBareLayout(AutoLayout()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "`jax.jit` does not accept device-local layouts directly. Create a "
                       "`Format` instance wrapping this device-local layout and pass that to "
                       "`jit` instead. Got AUTO"));
  const Format auto_format = *Format::Create(AutoLayout());
  EXPECT_THAT(CheckDevicePutFormat(auto_format, "float32[8]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "sharding and layout in `Layout` instance should be concrete. Got layout: "
                       "Format(layout=AUTO, sharding=None) for input float32[8]"));
  EXPECT_OK(CheckDevicePutFormat(Format(), "float32[8]"));
  absl::Status s = CheckShapeDtypeStructFormat(auto_format);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("`Layout.AUTO` cannot be used in place of a device-local "
                                    "layout in a `ShapeDtypeStruct`. Got Format(layout=AUTO")));
  EXPECT_TRUE(IsTypeError(s));
  EXPECT_FALSE(IsTypeError(CheckDevicePutFormat(auto_format, "x")));
}

TEST(LayoutRulesTest, DonationWithAuto) {
  EXPECT_THAT(CheckDonation(AutoLayout(), L({0})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input layout being donated was AUTO while output layout was "
                                 "Layout(major_to_minor=(0,), tiling=None, "
                                 "sub_byte_element_size_in_bits=0). Did you mean to set the "
                                 "**output layout** to **Layout.AUTO**?\nThis will allow")));
  EXPECT_THAT(CheckDonation(L({0}), AutoLayout()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("set the **input layout** to **Layout.AUTO**")));
  EXPECT_OK(CheckDonation(AutoLayout(), AutoLayout()));
  EXPECT_OK(CheckDonation(L({0}), L({0})));
}

TEST(LayoutRulesTest, UserLayoutsWithoutTilingCompareOnMajorToMinor) {
  const LocalLayout tiled = *LocalLayout::Create({1, 0}, LocalLayout::Tiling{{8, 128}});
  EXPECT_TRUE(UserLayoutMatches(L({1, 0}), tiled));
  EXPECT_FALSE(UserLayoutMatches(tiled, L({1, 0})));
  EXPECT_EQ(DefaultLayout(3), L({0, 1, 2}));
}

}  // namespace
}  // namespace layout_rules_test
}  // namespace axe::jit
