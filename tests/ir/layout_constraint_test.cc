#include "axe/ir/layout_constraint.h"

#include <string>
#include <vector>

#include "axe/ir/batching.h"
#include "axe/ir/builder.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "axe/ir/transpose.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace layout_constraint_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

sharding::LocalLayout L(const std::string& text) { return *sharding::LocalLayout::Parse(text); }

// What jax 0.10.2 prints for `with_layout_constraint(x * 2, Layout((0, 1)))` on f32[4,8].
constexpr char kJaxPrinted[] = R"({ lambda ; a:f32[4,8]. let
    b:f32[4,8] = mul a 2.0:f32[]
    c:f32[4,8] = layout_constraint[
      layout=Layout(major_to_minor=(0, 1), tiling=None, sub_byte_element_size_in_bits=0)
    ] b
  in (c,) })";

// ... and for a tiled layout on f32[16,128].
constexpr char kJaxTiled[] = R"({ lambda ; a:f32[16,128]. let
    b:f32[16,128] = layout_constraint[
      layout=Layout(major_to_minor=(1, 0), tiling=((8, 128),), sub_byte_element_size_in_bits=0)
    ] a
  in (b,) })";

TEST(LayoutConstraint, JaxPrintoutsParseAndPrintBack) {
  for (const char* text : {kJaxPrinted, kJaxTiled}) {
    absl::StatusOr<ClosedJaxpr> jaxpr = ParseJaxpr(text);
    ASSERT_OK(jaxpr.status()) << text;
    EXPECT_EQ(PrintJaxpr(*jaxpr), text);
  }
}

TEST(LayoutConstraint, BuilderEmitsWhatJaxPrints) {
  Builder b;
  Tracer x = b.Arg(ShapedArray({4, 8}, DType::kF32));
  absl::StatusOr<Tracer> y = Binary(*Builtins().mul, x, b.Scalar(2.0, DType::kF32));
  ASSERT_OK(y.status());
  absl::StatusOr<Tracer> c = WithLayoutConstraint(*y, L("Layout((0, 1))"));
  ASSERT_OK(c.status());
  absl::StatusOr<ClosedJaxpr> jaxpr = b.Build({*c});
  ASSERT_OK(jaxpr.status());
  EXPECT_EQ(PrintJaxpr(*jaxpr), kJaxPrinted);
}

TEST(LayoutConstraint, ErrorsUseJaxTexts) {
  Builder b;
  Tracer x = b.Arg(ShapedArray({3, 4}, DType::kF32));
  EXPECT_THAT(WithLayoutConstraint(x, sharding::AutoLayout{}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "layouts passed to `with_layout_constraint` must be of type `Layout`. "
                       "Got [<class 'jax._src.layout.AutoLayout'>]"));
  EXPECT_THAT(WithLayoutConstraint(x, std::monostate{}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("<class 'NoneType'>")));
  EXPECT_THAT(
      WithLayoutConstraint(x, L("Layout((0,))")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "One of with_layout_constraint arguments is incompatible with its layout "
               "annotation Layout(major_to_minor=(0,), tiling=None, "
               "sub_byte_element_size_in_bits=0): Length of major_to_minor and the rank of the "
               "value should match. Got major_to_minor=(0,) and shape=(3, 4)"));
  // A parsed program is checked the same way.
  std::string bad = kJaxPrinted;
  bad.replace(bad.find("(0, 1), tiling"), 6, "(0,)");
  absl::StatusOr<ClosedJaxpr> parsed = ParseJaxpr(bad);
  ASSERT_OK(parsed.status());
  EXPECT_THAT(CheckJaxpr(*parsed),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Length of major_to_minor")));
}

TEST(LayoutConstraint, VmapPutsTheBatchDimensionFirst) {
  // [WV-b]: (1, 0) batched at 0 -> (0, 2, 1); [LT-14]: (0,) at 0 -> (0, 1).
  EXPECT_EQ(BatchedConstraintLayout(L("Layout((1, 0))"), 0), L("Layout((0, 2, 1))"));
  EXPECT_EQ(BatchedConstraintLayout(L("Layout((0,))"), 0), L("Layout((0, 1))"));
  EXPECT_EQ(BatchedConstraintLayout(L("Layout((1, 0))"), 2), L("Layout((2, 1, 0))"));
  EXPECT_EQ(BatchedConstraintLayout(L("Layout((1, 0), ((8, 128),))"), 1),
            L("Layout((2, 0, 1), ((8, 128),))"));

  // jax.make_jaxpr(jax.vmap(f)) on f32[3,4,8] prints (0, 1, 2).
  absl::StatusOr<ClosedJaxpr> jaxpr = ParseJaxpr(kJaxPrinted);
  ASSERT_OK(jaxpr.status());
  VmapOptions options;
  options.axis_size = 3;
  absl::StatusOr<ClosedJaxpr> batched = Vmap(*jaxpr, options);
  ASSERT_OK(batched.status());
  EXPECT_THAT(PrintJaxpr(*batched),
              HasSubstr("layout=Layout(major_to_minor=(0, 1, 2), tiling=None, "
                        "sub_byte_element_size_in_bits=0)"));
}

TEST(LayoutConstraint, TransposeConstrainsTheCotangent) {
  absl::StatusOr<ClosedJaxpr> jaxpr = ParseJaxpr(kJaxTiled);
  ASSERT_OK(jaxpr.status());
  absl::StatusOr<ClosedJaxpr> t = LinearTranspose(*jaxpr, {true});
  ASSERT_OK(t.status());
  EXPECT_THAT(PrintJaxpr(*t), HasSubstr("layout_constraint[\n      layout=Layout(major_to_minor="
                                        "(1, 0), tiling=((8, 128),)"));
}

TEST(LayoutConstraint, IsTheIdentityOnValues) {
  absl::StatusOr<ClosedJaxpr> jaxpr = ParseJaxpr(kJaxPrinted);
  ASSERT_OK(jaxpr.status());
  HostArray x{ShapedArray({4, 8}, DType::kF32), {}};
  for (int i = 0; i < 32; ++i) x.values.push_back(i * 0.5);
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(*jaxpr, {x});
  ASSERT_OK(out.status());
  ASSERT_EQ(out->size(), 1u);
  for (int i = 0; i < 32; ++i) EXPECT_EQ((*out)[0].values[i], i * 1.0);
}

}  // namespace
}  // namespace layout_constraint_test
}  // namespace axe::ir
