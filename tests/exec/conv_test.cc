// The executor's conv_general_dilated kernel: JAX's numbers for every JAX-printed convolution
// (tests/ir/testdata/jax_conv), integers exactly (wrap-around included); the interpreter's
// numbers for 16-bit floats and odd layouts; exact sums for a convolution whose patch matrix
// is built in several chunks, split in the middle of output rows.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/exec/executable.h"
#include "axe/ir/eval.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/ad_test_util.h"
#include "support/status_matchers.h"

namespace axe::exec {
namespace conv_test {
namespace {

using ::axe::testing_support::IsOk;
using ::testing::HasSubstr;

ir::ClosedJaxpr Parse(const std::string& text) {
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(text);
  EXPECT_THAT(j, IsOk()) << text;
  return j.ok() ? *j : ir::ClosedJaxpr{};
}

void ExpectClose(const ir::HostArray& got, const ir::HostArray& want, double rtol,
                 const std::string& what) {
  ASSERT_EQ(got.aval.shape(), want.aval.shape()) << what;
  ASSERT_EQ(got.aval.dtype(), want.aval.dtype()) << what;
  double scale = 1;
  for (double w : want.values) scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < want.values.size(); ++i) {
    if (IsFloatingPoint(want.aval.dtype())) {
      EXPECT_NEAR(got.values[i], want.values[i], rtol * scale) << what << " element " << i;
    } else {
      EXPECT_EQ(got.values[i], want.values[i]) << what << " element " << i;
    }
  }
}

TEST(ExecConvTest, JaxPrintedConvolutionsGiveJaxsValuesWithoutFallback) {
  int cases = 0;
  for (const std::string& name : testing_support::IrTestdataCases("jax_conv")) {
    SCOPED_TRACE(name);
    auto v = ir::ad_test::ReadTestdataValues("jax_conv/" + name + ".values.txt");
    ir::ClosedJaxpr j = Parse(testing_support::ReadIrTestdata("jax_conv/" + name + ".txt"));
    absl::StatusOr<Executable> e = Executable::Compile(j);
    ASSERT_THAT(e, IsOk());
    if (name.rfind("bool", 0) != 0) {  // bool operands run on the interpreter
      EXPECT_THAT(e->Describe(), HasSubstr("im2col"));
      EXPECT_EQ(e->stats().fallbacks, 0) << e->Describe();
    }
    absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(j, v["arg"]);
    ASSERT_THAT(got, IsOk());
    ASSERT_EQ(got->size(), v["out"].size());
    for (size_t i = 0; i < got->size(); ++i) ExpectClose((*got)[i], v["out"][i], 1e-5, "out");
    ++cases;
  }
  EXPECT_GE(cases, 20);
}

// f16 and bf16 through float accumulation, int8 into int16 and uint8 into uint32, with a
// layout whose operands and result are all permuted: the interpreter's numbers.
TEST(ExecConvTest, SixteenBitFloatsAndWideningIntegersMatchTheInterpreter) {
  struct Case {
    std::string in, out, preferred;
  };
  for (const Case& c :
       {Case{"f16", "f16", "None"}, Case{"bf16", "bf16", "None"}, Case{"bf16", "f32", "float32"},
        Case{"s8", "s16", "int16"}, Case{"u8", "u32", "uint32"}, Case{"s32", "f32", "float32"}}) {
    SCOPED_TRACE(c.in + " -> " + c.out);
    const std::string text = absl::StrCat(
        "{ lambda ; a:", c.in, "[5,3,2,6] b:", c.in, "[3,2,3,4]. let\n    c:", c.out,
        "[4,2,4,2] = conv_general_dilated[batch_group_count=1 "
        "dimension_numbers=ConvDimensionNumbers(lhs_spec=(2, 1, 0, 3), rhs_spec=(3, 2, 1, 0), "
        "out_spec=(1, 2, 3, 0)) feature_group_count=1 lhs_dilation=(1, 2) out_sharding=None "
        "padding=((1, 0), (2, 1)) precision=None preferred_element_type=",
        c.preferred, " rhs_dilation=(2, 1) window_strides=(2, 3)] a b\n  in (c,) }");
    ir::ClosedJaxpr j = Parse(text);
    std::vector<ir::HostArray> args;
    for (const char* shape : {"[5,3,2,6]", "[3,2,3,4]"}) {
      absl::StatusOr<ir::HostArray> a = ir::ParseArgSpec(c.in + shape + "=iota");
      ASSERT_THAT(a, IsOk());
      for (size_t i = 0; i < a->values.size(); ++i) {
        a->values[i] = ir::RoundToDType(
            IsFloatingPoint(a->aval.dtype()) ? 0.01 * ((i * 7) % 23) - 0.1 : (i * 5) % 19,
            a->aval.dtype());
      }
      args.push_back(*a);
    }
    absl::StatusOr<std::vector<ir::HostArray>> want = ir::EvalJaxpr(j, args);
    ASSERT_THAT(want, IsOk());
    absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(j, args);
    ASSERT_THAT(got, IsOk());
    ExpectClose((*got)[0], (*want)[0], 1e-2, "out");
  }
}

// A w x w window of ones over an s x s input with c equal features: the patch matrix
// (more than 2^18 elements) is built in chunks that end inside output rows, in both
// orientations (NCHW: a row per window position; NHWC: a row per output position). With
// x[i, j, :] = i + 1000 j every sum is an exact integer in f64:
// out[y, x] = c w (w y + T) + 1000 c w (w x + T), T = w (w - 1) / 2.
void CheckChunkedSums(bool nhwc, int s, int w, int c) {
  SCOPED_TRACE(absl::StrCat(nhwc ? "NHWC" : "NCHW", " ", s, " ", w, " ", c));
  const int o = s - w + 1;
  const std::string spec =
      nhwc ? "lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2)"
           : "lhs_spec=(0, 1, 2, 3), rhs_spec=(0, 1, 2, 3), out_spec=(0, 1, 2, 3)";
  const std::string x_type = nhwc ? absl::StrCat("f64[1,", s, ",", s, ",", c, "]")
                                  : absl::StrCat("f64[1,", c, ",", s, ",", s, "]");
  const std::string w_type = nhwc ? absl::StrCat("f64[", w, ",", w, ",", c, ",1]")
                                  : absl::StrCat("f64[1,", c, ",", w, ",", w, "]");
  const std::string y_type =
      absl::StrCat("f64[1,", nhwc ? "" : "1,", o, ",", o, nhwc ? ",1" : "", "]");
  ir::ClosedJaxpr j = Parse(absl::StrCat(
      "{ lambda ; a:", x_type, " b:", w_type, ". let\n    c:", y_type,
      " = conv_general_dilated[batch_group_count=1 dimension_numbers=ConvDimensionNumbers(", spec,
      ") feature_group_count=1 lhs_dilation=(1, 1) out_sharding=None padding=((0, 0), (0, 0)) "
      "precision=None preferred_element_type=None rhs_dilation=(1, 1) window_strides=(1, 1)] a "
      "b\n  in (c,) }"));
  absl::StatusOr<Executable> e = Executable::Compile(j);
  ASSERT_THAT(e, IsOk());
  EXPECT_THAT(e->Describe(), HasSubstr(nhwc ? "im2col channels-last" : "im2col float64"));
  ir::HostArray x{*ir::ShapedArray::ParseShort(x_type), {}};
  for (int a = 0; a < (nhwc ? s : c); ++a) {
    for (int b = 0; b < s; ++b) {
      for (int d = 0; d < (nhwc ? c : s); ++d) {
        x.values.push_back(nhwc ? a + 1000.0 * b : b + 1000.0 * d);
      }
    }
  }
  ir::HostArray ones{*ir::ShapedArray::ParseShort(w_type),
                     std::vector<double>(static_cast<size_t>(w * w * c), 1)};
  absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(j, {x, ones});
  ASSERT_THAT(got, IsOk());
  const double t = w * (w - 1) / 2.0;
  int wrong = 0;
  for (int y = 0; y < o; ++y) {
    for (int k = 0; k < o; ++k) {
      const double want = c * w * (w * y + t) + 1000.0 * c * w * (w * k + t);
      wrong += (*got)[0].values[static_cast<size_t>(y * o + k)] != want;
    }
  }
  EXPECT_EQ(wrong, 0);
}

TEST(ExecConvTest, ChunkedPatchMatrixGivesExactSums) {
  CheckChunkedSums(false, 200, 40, 1);  // 1,600 rows of 25,921 positions
  CheckChunkedSums(true, 100, 20, 4);   // 6,561 rows of 1,600
}

// A convolution of a billion positions by a million-wide window: Compile refuses it for its
// work (or memory) instead of overflowing its estimate.
TEST(ExecConvTest, HugeConvolutionIsRefusedByTheBudget) {
  ir::ClosedJaxpr j = Parse(
      "{ lambda ; a:f32[1,1,1000000000] b:f32[1,1,1000000]. let\n"
      "    c:f32[1,1,999000001] = conv_general_dilated[batch_group_count=1 "
      "dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), "
      "out_spec=(0, 1, 2)) feature_group_count=1 lhs_dilation=(1,) out_sharding=None "
      "padding=((0, 0),) precision=None preferred_element_type=None rhs_dilation=(1,) "
      "window_strides=(1,)] a b\n  in (c,) }");
  EXPECT_THAT(Executable::Compile(j).status(),
              ::axe::testing_support::StatusIs(absl::StatusCode::kResourceExhausted, ::testing::_));
}

}  // namespace
}  // namespace conv_test
}  // namespace axe::exec
