// conv_general_dilated against the real JAX (testdata/jax_conv, written by
// testdata/generate_conv.py): JAX's printouts of convolutions and of their gradients
// round-trip exactly and type-check; the interpreter gives JAX's numbers for the function,
// for JAX's gradient text, for axe's own Grad and for axe's Vmap (JAX's vmap values); the Jvp
// agrees with finite differences; and malformed convolutions get JAX's or XLA's errors.
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "ad_test_util.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace conv_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

std::string Read(const std::string& file) {
  return testing_support::ReadIrTestdata("jax_conv/" + file);
}

bool Exists(const std::string& file) {
  return std::filesystem::exists(std::string(AXE_IR_TESTDATA_DIR) + "/jax_conv/" + file);
}

std::vector<std::string> CaseNames() { return testing_support::IrTestdataCases("jax_conv"); }

std::map<std::string, std::vector<HostArray>> Values(const std::string& file) {
  return ad_test::ReadTestdataValues("jax_conv/" + file);
}

ClosedJaxpr Parse(const std::string& text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  EXPECT_THAT(j, IsOk());
  return j.ok() ? *j : ClosedJaxpr{};
}

std::vector<HostArray> Eval(const ClosedJaxpr& j, const std::vector<HostArray>& args) {
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(j, args);
  EXPECT_THAT(out, IsOk());
  return out.ok() ? *out : std::vector<HostArray>{};
}

// Equal types; integers exactly, floats within rtol relative to the largest |want| plus atol.
void ExpectClose(const HostArray& got, const HostArray& want, double rtol, double atol,
                 const std::string& what) {
  ASSERT_EQ(got.aval.shape(), want.aval.shape()) << what;
  ASSERT_EQ(got.aval.dtype(), want.aval.dtype()) << what;
  double scale = 1;
  for (double w : want.values) scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < want.values.size(); ++i) {
    if (!IsFloatingPoint(want.aval.dtype())) {
      EXPECT_EQ(got.values[i], want.values[i]) << what << " element " << i;
    } else {
      EXPECT_NEAR(got.values[i], want.values[i], atol + rtol * scale) << what << " element " << i;
    }
  }
}

TEST(ConvTest, JaxTextsRoundTripExactlyAndTypeCheck) {
  int texts = 0;
  for (const std::string& name : CaseNames()) {
    for (const char* suffix : {".txt", ".loss.txt", ".grad.txt"}) {
      const std::string file = name + suffix;
      if (!Exists(file)) continue;
      SCOPED_TRACE(file);
      const std::string text = Read(file);
      absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
      ASSERT_THAT(j, IsOk());
      EXPECT_EQ(PrintJaxpr(*j) + "\n", text);
      EXPECT_THAT(CheckJaxpr(*j), IsOk());
      ++texts;
    }
  }
  EXPECT_GE(texts, 50);
}

TEST(ConvTest, EvaluationGivesJaxsValues) {
  for (const std::string& name : CaseNames()) {
    SCOPED_TRACE(name);
    auto v = Values(name + ".values.txt");
    std::vector<HostArray> outs = Eval(Parse(Read(name + ".txt")), v["arg"]);
    ASSERT_EQ(outs.size(), v["out"].size());
    for (size_t i = 0; i < outs.size(); ++i) ExpectClose(outs[i], v["out"][i], 1e-6, 1e-6, "out");
  }
}

TEST(ConvTest, JaxsGradientTextsAndAxesGradGiveJaxsGradients) {
  int cases = 0;
  for (const std::string& name : CaseNames()) {
    auto v = Values(name + ".values.txt");
    if (v["grad"].empty()) continue;
    SCOPED_TRACE(name);
    ++cases;
    std::vector<HostArray> jax = Eval(Parse(Read(name + ".grad.txt")), v["arg"]);
    ASSERT_EQ(jax.size(), v["grad"].size());
    for (size_t i = 0; i < jax.size(); ++i) ExpectClose(jax[i], v["grad"][i], 1e-6, 1e-6, "jax");
    absl::StatusOr<ClosedJaxpr> grad = Grad(Parse(Read(name + ".loss.txt")), {0, 1});
    ASSERT_THAT(grad, IsOk());
    std::vector<HostArray> g = Eval(*grad, v["arg"]);
    ASSERT_EQ(g.size(), v["grad"].size());
    for (size_t i = 0; i < g.size(); ++i) ExpectClose(g[i], v["grad"][i], 1e-6, 1e-6, "axe");
  }
  EXPECT_GE(cases, 15);
}

// <name>.vmap: per call, "arg@<axis|none>" lines then the "out" line (out axis 0).
TEST(ConvTest, VmapGivesJaxsValues) {
  int calls = 0;
  for (const std::string& name : CaseNames()) {
    if (!Exists(name + ".vmap")) continue;
    SCOPED_TRACE(name);
    ClosedJaxpr f = Parse(Read(name + ".txt"));
    auto v = Values(name + ".vmap");
    // ReadTestdataValues groups by kind; re-read the file to keep the calls' order.
    std::vector<std::string> order;
    for (absl::string_view line : absl::StrSplit(Read(name + ".vmap"), '\n')) {
      if (!line.empty()) order.emplace_back(line.substr(0, line.find(' ')));
    }
    std::map<std::string, size_t> next;
    VmapOptions options;
    std::vector<HostArray> args;
    for (const std::string& kind : order) {
      const HostArray& a = v[kind][next[kind]++];
      if (kind != "out") {
        const std::string axis = kind.substr(4);
        options.in_axes.push_back(axis == "none" ? std::nullopt
                                                 : std::optional<int64_t>(std::stoll(axis)));
        args.push_back(a);
        continue;
      }
      for (const HostArray& arg : args) options.arg_types.push_back(arg.aval);
      absl::StatusOr<ClosedJaxpr> batched = Vmap(f, options);
      ASSERT_THAT(batched, IsOk());
      std::vector<HostArray> out = Eval(*batched, args);
      ASSERT_EQ(out.size(), 1u);
      ExpectClose(out[0], a, 1e-6, 1e-6, absl::StrCat("vmap call ", calls));
      ++calls;
      options = VmapOptions();
      args.clear();
    }
  }
  EXPECT_GE(calls, 20);
}

// The program in f64, for finite differences.
ClosedJaxpr InF64(const std::string& text) {
  return Parse(absl::StrReplaceAll(text, {{"f32", "f64"}, {"float32", "float64"}}));
}

HostArray ToF64(HostArray a) {
  a.aval = a.aval.WithDType(DType::kF64);
  return a;
}

TEST(ConvTest, JvpMatchesFiniteDifferences) {
  for (const std::string& name : CaseNames()) {
    auto v = Values(name + ".values.txt");
    if (v["grad"].empty() || name == "layer") continue;  // relu's kink
    SCOPED_TRACE(name);
    ClosedJaxpr f = InF64(Read(name + ".txt"));
    std::vector<HostArray> primals, tangents, plus, minus;
    for (size_t k = 0; k < 2; ++k) {
      primals.push_back(ToF64(v["arg"][k]));
      HostArray t = primals.back();
      for (size_t i = 0; i < t.values.size(); ++i) t.values[i] = 0.3 + 0.1 * ((i + k) % 5);
      tangents.push_back(t);
    }
    const double eps = 1e-6;
    plus = minus = primals;
    for (size_t k = 0; k < 2; ++k) {
      for (size_t i = 0; i < plus[k].values.size(); ++i) {
        plus[k].values[i] += eps * tangents[k].values[i];
        minus[k].values[i] -= eps * tangents[k].values[i];
      }
    }
    absl::StatusOr<ClosedJaxpr> jvp = Jvp(f, {true, true});
    ASSERT_THAT(jvp, IsOk());
    std::vector<HostArray> in = primals;
    in.insert(in.end(), tangents.begin(), tangents.end());
    std::vector<HostArray> out = Eval(*jvp, in);
    ASSERT_EQ(out.size(), 2u);
    HostArray fd = Eval(f, plus)[0];
    const HostArray lo = Eval(f, minus)[0];
    for (size_t i = 0; i < fd.values.size(); ++i) {
      fd.values[i] = (fd.values[i] - lo.values[i]) / (2 * eps);
    }
    ExpectClose(out[1], fd, 1e-6, 1e-6, "tangent");
  }
}

// ---- errors ----

std::string Conv(const std::string& lhs, const std::string& rhs, const std::string& params,
                 const std::string& out) {
  return absl::StrCat("{ lambda ; a:", lhs, " b:", rhs, ". let\n    c:", out,
                      " = conv_general_dilated[", params, "] a b\n  in (c,) }");
}

std::string Params2d(const std::string& overrides) {
  std::map<std::string, std::string> p = {
      {"batch_group_count", "1"},
      {"dimension_numbers",
       "ConvDimensionNumbers(lhs_spec=(0, 1, 2, 3), rhs_spec=(0, 1, 2, 3), out_spec=(0, 1, 2, "
       "3))"},
      {"feature_group_count", "1"},
      {"lhs_dilation", "(1, 1)"},
      {"padding", "((0, 0), (0, 0))"},
      {"rhs_dilation", "(1, 1)"},
      {"window_strides", "(1, 1)"}};
  for (absl::string_view kv : absl::StrSplit(overrides, ';', absl::SkipEmpty())) {
    std::pair<std::string, std::string> parts = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    p[parts.first] = parts.second;
  }
  std::string out;
  for (const auto& [k, v] : p) absl::StrAppend(&out, out.empty() ? "" : " ", k, "=", v);
  return out;
}

absl::Status TypeOf(const std::string& lhs, const std::string& rhs, const std::string& overrides,
                    const std::string& out = "f32[2,4,3,3]") {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(Conv(lhs, rhs, Params2d(overrides), out));
  if (!j.ok()) return j.status();
  return CheckJaxpr(*j);
}

TEST(ConvTest, TypingErrorsUseJaxsAndXlasWords) {
  const std::vector<std::pair<absl::Status, std::string>> cases = {
      {TypeOf("f32[2,3,5,5]", "f32[4,2,3,3]", ""),
       "conv_general_dilated lhs feature dimension size divided by feature_group_count must "
       "equal the rhs input feature dimension size, but 3 // 1 != 2."},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "feature_group_count=2"),
       "conv_general_dilated feature_group_count must divide lhs feature dimension size, but 2 "
       "does not divide 3."},
      {TypeOf("f32[2,4,5,5]", "f32[3,2,3,3]", "feature_group_count=2"),
       "conv_general_dilated rhs output feature dimension size must be a multiple of "
       "feature_group_count, but 3 is not a multiple of 2."},
      {TypeOf("f32[3,3,5,5]", "f32[4,3,3,3]", "batch_group_count=2"),
       "conv_general_dilated batch_group_count must divide lhs batch dimension size, but 2 does "
       "not divide 3."},
      {TypeOf("f32[4,3,5,5]", "f32[3,3,3,3]", "batch_group_count=2"),
       "conv_general_dilated rhs output feature dimension size must be a multiple of "
       "batch_group_count, but 3 is not a multiple of 2."},
      {TypeOf("f32[2,4,5,5]", "f32[4,2,3,3]", "batch_group_count=2;feature_group_count=2"),
       "At most one of batch_group_count and feature_group_count may be > 1, got "
       "batch_group_count=2 and feature_group_count=2"},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "feature_group_count=0"),
       "conv_general_dilated feature_group_count must be a positive integer, got 0."},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3]", ""),
       "conv_general_dilated lhs and rhs must have the same number of dimensions, but got (2, "
       "3, 5, 5) and (4, 3, 3)."},
      {TypeOf("f32[2,3,5,5]", "i32[4,3,3,3]", ""),
       "lax.conv_general_dilated requires arguments to have the same dtypes, got float32, "
       "int32."},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "window_strides=(1,)"),
       "conv_general_dilated window and window_strides must have the same number of "
       "dimensions, but got 2 and 1"},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "window_strides=(1, 0)"),
       "expects window to have positive stride for 1-th window dimension, but got 0."},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,0,3]", ""),
       "expects window to have positive value for 0-th window dimension, but got 0."},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "rhs_dilation=(0, 1)"),
       "All dilations must be positive, got (0, 1)."},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "padding=((0, 0),)"),
       "Wrong number of explicit pads for convolution: expected 2, got 1."},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "padding=((-4, -4), (0, 0))"),
       "Negative padding is larger than the size of the corresponding dimension: got "
       "padding=((-4, -4), (0, 0)) for lhs_shape[2:]=(5, 5)"},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "preferred_element_type=float16"),
       "`preferred_element_type` must not be narrower than the original type."},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "preferred_element_type=int32"),
       "Input type is incompatible with `preferred_element_type`."},
      {TypeOf("i8[2,3,5,5]", "i8[4,3,3,3]", "preferred_element_type=uint32"),
       "`preferred_element_type` must have the same signedness as the original type."},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]",
              "dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2, 2), rhs_spec=(0, 1, 2, "
              "3), out_spec=(0, 1, 2, 3))"),
       "conv_general_dilated dimension_numbers lhs_spec must be a permutation of the 4 "
       "dimensions of the operands, got (0, 1, 2, 2)"},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "dimension_numbers=((0, 1), (0, 1))"),
       "conv_general_dilated dimension_numbers must be ConvDimensionNumbers(lhs_spec=..., "
       "rhs_spec=..., out_spec=...), got ((0, 1), (0, 1))"},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "lhs_dilation=(1, 1, 1)"),
       "conv_general_dilated lhs_dilation must have one entry per spatial dimension (2), got "
       "(1, 1, 1)"},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "padding=((0, 9223372036854775807), (0, 0))"),
       "conv_general_dilated spatial dimension 0 overflows 64 bits once dilated and padded"},
      {TypeOf("f32[2,3,5,5]", "f32[4,3,3,3]", "", "f32[2,4,5,5]"), "conv_general_dilated"},
  };
  for (const auto& [status, message] : cases) {
    EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message)));
  }
}

// A valid convolution with every param given as JAX prints it: the typing of its result.
TEST(ConvTest, TypingGivesXlasShapes) {
  // 5 + 1 + 2 = 8 padded, window 3 dilated by 2 = 5, stride 2: (8 - 5) / 2 + 1 = 2;
  // input 5 dilated by 2 = 9, padded 9 - 1 + 0 = 8, window 2, stride 3: (8 - 2) / 3 + 1 = 3.
  EXPECT_THAT(TypeOf("f32[2,3,5,5]", "f32[4,3,3,2]",
                     "padding=((1, 2), (-1, 0));rhs_dilation=(2, 1);lhs_dilation=(1, 2);"
                     "window_strides=(2, 3)",
                     "f32[2,4,2,3]"),
              IsOk());
  // Batch groups divide the batch; NHWC specs place the output's features last.
  EXPECT_THAT(TypeOf("f32[4,5,5,3]", "f32[3,3,3,6]",
                     "batch_group_count=2;dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 3, "
                     "1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))",
                     "f32[2,3,3,6]"),
              IsOk());
  // JAX lets bool operands count into any wider type.
  EXPECT_THAT(
      TypeOf("bool[2,3,5,5]", "bool[4,3,3,3]", "preferred_element_type=int32", "i32[2,4,3,3]"),
      IsOk());
}

// A huge batch: typed with checked sizes, without allocating.
TEST(ConvTest, HugeShapesAreTypedWithoutOverflow) {
  EXPECT_THAT(TypeOf("f32[4611686018427387904,3,5,5]", "f32[4,3,3,3]", "",
                     "f32[4611686018427387904,4,3,3]"),
              IsOk());
}

// vmap over an empty batch: JAX's rule gives zeros of the batched result's type instead of
// folding the empty dimension into the operands'.
TEST(ConvTest, VmapOverAnEmptyBatchGivesAnEmptyResult) {
  ClosedJaxpr f = Parse(Read("grouped.txt"));
  for (auto [lhs_axis, rhs_axis] : {std::pair<std::optional<int64_t>, std::optional<int64_t>>{0, 0},
                                    {0, std::nullopt},
                                    {std::nullopt, 0}}) {
    VmapOptions options;
    options.in_axes = {lhs_axis, rhs_axis};
    options.axis_size = 0;
    absl::StatusOr<ClosedJaxpr> batched = Vmap(f, options);
    ASSERT_THAT(batched, IsOk());
    std::vector<HostArray> args;
    for (size_t k = 0; k < 2; ++k) {
      ShapedArray a = batched->jaxpr.in_avals()[k];
      args.push_back(HostArray{a, std::vector<double>(a.NumElements().value_or(0), 0.5)});
    }
    std::vector<HostArray> out = Eval(*batched, args);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].aval.ShortString(), "f32[0,2,6,3,2]");
  }
}

}  // namespace
}  // namespace conv_test
}  // namespace axe::ir
