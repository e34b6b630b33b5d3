#include "axe/jit/eager_layout_constraint.h"

#include <memory>
#include <numeric>
#include <vector>

#include "axe/ir/parser.h"
#include "axe/jit/auto_layout.h"
#include "axe/jit/execute.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::jit {
namespace eager_layout_constraint_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

LocalLayout L(std::vector<int64_t> major_to_minor) {
  return *LocalLayout::Create(std::move(major_to_minor));
}

runtime::Array Iota(runtime::Client& client, bool committed) {
  std::vector<float> host(4 * 8);
  std::iota(host.begin(), host.end(), 0.0f);
  const auto* bytes = reinterpret_cast<const uint8_t*>(host.data());
  Format format = *runtime::MakeArrayFormat(
      *sharding::NamedSharding::Create(sharding::Mesh(), sharding::PartitionSpec()));
  return *runtime::Array::DevicePut(client, {bytes, host.size() * 4}, {4, 8}, DType::kF32,
                                    std::move(format), committed);
}

TEST(EagerLayoutConstraint, ReLaysTheArrayOutKeepingItsValues) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(1);
  const std::vector<uint8_t> values = *Iota(*client, false).ToHost();
  absl::StatusOr<runtime::Array> y = WithLayoutConstraint(Iota(*client, false), L({1, 0}));
  ASSERT_OK(y.status());
  EXPECT_EQ(LayoutOfArray(*y).major_to_minor(), (std::vector<int64_t>{1, 0}));
  EXPECT_FALSE(y->committed());
  EXPECT_EQ(*y->ToHost(), values);
  // Already in the layout: the array itself back.
  absl::StatusOr<runtime::Array> same = WithLayoutConstraint(Iota(*client, true), L({0, 1}));
  ASSERT_OK(same.status());
  EXPECT_EQ(LayoutOfArray(*same).major_to_minor(), (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(same->committed());
  EXPECT_EQ(*same->ToHost(), values);
}

TEST(EagerLayoutConstraint, ErrorsUseJaxTexts) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(1);
  EXPECT_THAT(WithLayoutConstraint(Iota(*client, true), AutoLayout{}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "layouts passed to `with_layout_constraint` must be of type `Layout`. "
                       "Got [<class 'jax._src.layout.AutoLayout'>]"));
  EXPECT_THAT(WithLayoutConstraint(Iota(*client, true), L({0})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("One of with_layout_constraint arguments is incompatible with "
                                 "its layout annotation")));
}

// with_layout_constraint under compilation: the pinned layout is what the cost model plans
// around, and where the producer's layout differs a relayout is inserted and reported.
constexpr char kPinned[] = R"({ lambda ; a:f32[16,128]. let
    b:f32[16,128] = mul a 2.0:f32[]
    c:f32[16,128] = layout_constraint[
      layout=Layout(major_to_minor=(1, 0), tiling=None, sub_byte_element_size_in_bits=0)
    ] b
  in (c,) })";

TEST(LayoutConstraintUnderJit, AutoInputsFollowThePinAndFixedOnesPayARelayout) {
  ir::ClosedJaxpr jaxpr = *ir::ParseJaxpr(kPinned);
  absl::StatusOr<LayoutPlan> automatic =
      ChooseLayouts(jaxpr.jaxpr, {JitLayout{AutoLayout{}}}, {JitLayout{AutoLayout{}}});
  ASSERT_OK(automatic.status());
  EXPECT_EQ(automatic->inputs[0].major_to_minor(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(automatic->outputs[0].major_to_minor(), (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(automatic->relayouts.empty());

  absl::StatusOr<LayoutPlan> fixed =
      ChooseLayouts(jaxpr.jaxpr, {JitLayout{L({0, 1})}}, {JitLayout{AutoLayout{}}});
  ASSERT_OK(fixed.status());
  EXPECT_EQ(fixed->outputs[0].major_to_minor(), (std::vector<int64_t>{1, 0}));
  EXPECT_THAT(fixed->relayouts,
              ElementsAre("equation 1 (layout_constraint): b major_to_minor=(0, 1) -> (1, 0)"));
  EXPECT_THAT(ExplainText(*fixed),
              HasSubstr("relayout inserted: equation 1 (layout_constraint): b major_to_minor="
                        "(0, 1) -> (1, 0)"));
  // A fixed output that differs from what its producer writes is a relayout too.
  absl::StatusOr<LayoutPlan> out_fixed =
      ChooseLayouts(jaxpr.jaxpr, {JitLayout{L({1, 0})}}, {JitLayout{L({0, 1})}});
  ASSERT_OK(out_fixed.status());
  EXPECT_THAT(out_fixed->relayouts, ElementsAre("output 0: c major_to_minor=(1, 0) -> (0, 1)"));
}

}  // namespace
}  // namespace eager_layout_constraint_test
}  // namespace axe::jit
