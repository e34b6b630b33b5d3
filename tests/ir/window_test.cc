// The windowed reductions against the real JAX (testdata/jax_window, written by
// testdata/generate_window.py): JAX's printouts of pooling, of its gradients
// (select_and_scatter_add, pad-based transposes) and of its JVPs (select_and_gather_add)
// round-trip exactly and type-check; the interpreter and the executor give JAX's numbers for
// the function and for JAX's gradient text, axe's own Grad and Vmap give JAX's gradients and
// vmaps; malformed windows get JAX's errors.
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ad_test_util.h"
#include "axe/exec/executable.h"
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
namespace window_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

std::string Read(const std::string& file) {
  return testing_support::ReadIrTestdata("jax_window/" + file);
}

bool Exists(const std::string& file) {
  return std::filesystem::exists(std::string(AXE_IR_TESTDATA_DIR) + "/jax_window/" + file);
}

std::vector<std::string> CaseNames() { return testing_support::IrTestdataCases("jax_window"); }

std::map<std::string, std::vector<HostArray>> Values(const std::string& file) {
  return ad_test::ReadTestdataValues("jax_window/" + file);
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
void ExpectClose(const HostArray& got, const HostArray& want, double tol, const std::string& what) {
  ASSERT_EQ(got.aval.shape(), want.aval.shape()) << what;
  ASSERT_EQ(got.aval.dtype(), want.aval.dtype()) << what;
  double scale = 1;
  for (double w : want.values) scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < want.values.size(); ++i) {
    if (!IsFloatingPoint(want.aval.dtype()) || std::isinf(want.values[i])) {
      EXPECT_EQ(got.values[i], want.values[i]) << what << " element " << i;
    } else {
      EXPECT_NEAR(got.values[i], want.values[i], tol * scale) << what << " element " << i;
    }
  }
}

void ExpectAllClose(const std::vector<HostArray>& got, const std::vector<HostArray>& want,
                    const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) ExpectClose(got[i], want[i], 1e-6, what);
}

TEST(WindowTest, JaxTextsRoundTripExactlyAndTypeCheck) {
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
  EXPECT_GE(texts, 45);
}

TEST(WindowTest, InterpreterAndExecutorGiveJaxsValues) {
  for (const std::string& name : CaseNames()) {
    SCOPED_TRACE(name);
    auto v = Values(name + ".values.txt");
    const ClosedJaxpr f = Parse(Read(name + ".txt"));
    ExpectAllClose(Eval(f, v["arg"]), v["out"], "interpreter");
    absl::StatusOr<std::vector<HostArray>> run = exec::ExecuteJaxpr(f, v["arg"]);
    ASSERT_THAT(run, IsOk());
    ExpectAllClose(*run, v["out"], "executor");
  }
}

TEST(WindowTest, JaxsGradientTextsAndAxesGradGiveJaxsGradients) {
  int cases = 0;
  for (const std::string& name : CaseNames()) {
    auto v = Values(name + ".values.txt");
    if (v["grad"].empty()) continue;
    SCOPED_TRACE(name);
    ++cases;
    const ClosedJaxpr jax_grad = Parse(Read(name + ".grad.txt"));
    ExpectAllClose(Eval(jax_grad, v["arg"]), v["grad"], "jax's text");
    absl::StatusOr<std::vector<HostArray>> run = exec::ExecuteJaxpr(jax_grad, v["arg"]);
    ASSERT_THAT(run, IsOk());
    ExpectAllClose(*run, v["grad"], "jax's text on the executor");
    absl::StatusOr<ClosedJaxpr> grad = Grad(Parse(Read(name + ".loss.txt")), {0});
    ASSERT_THAT(grad, IsOk());
    ExpectAllClose(Eval(*grad, v["arg"]), v["grad"], "axe's grad");
  }
  EXPECT_GE(cases, 10);
}

// <name>.vmap: per call, the "arg@<axis>" line then the "out" lines (out axis 0).
TEST(WindowTest, VmapGivesJaxsValues) {
  int calls = 0;
  for (const std::string& name : CaseNames()) {
    if (!Exists(name + ".vmap")) continue;
    SCOPED_TRACE(name);
    const ClosedJaxpr f = Parse(Read(name + ".txt"));
    const size_t outs = f.jaxpr.outvars.size();
    std::vector<std::string> lines;
    for (absl::string_view line : absl::StrSplit(Read(name + ".vmap"), '\n')) {
      if (!line.empty()) lines.emplace_back(line);
    }
    auto v = Values(name + ".vmap");
    size_t next_out = 0;
    std::map<std::string, size_t> next_arg;
    for (const std::string& line : lines) {
      if (!line.starts_with("arg@")) continue;
      VmapOptions options;
      options.in_axes = {std::stoll(line.substr(4, line.find(' ') - 4))};
      const std::string kind = line.substr(0, line.find(' '));
      const HostArray& arg = v[kind][next_arg[kind]++];
      options.arg_types = {arg.aval};
      absl::StatusOr<ClosedJaxpr> batched = Vmap(f, options);
      ASSERT_THAT(batched, IsOk());
      std::vector<HostArray> want(v["out"].begin() + static_cast<int64_t>(next_out),
                                  v["out"].begin() + static_cast<int64_t>(next_out + outs));
      next_out += outs;
      ExpectAllClose(Eval(*batched, {arg}), want, absl::StrCat("vmap call ", calls++));
    }
  }
  EXPECT_GE(calls, 10);
}

// axe's Jvp of the forward programs, with JAX's tangent cos(x), gives jax.jvp's values
// (select_and_gather_add for max pooling, the reducer's JVP for the generic reduce_window).
TEST(WindowTest, AxesJvpGivesJaxsJvp) {
  const std::pair<const char*, const char*> cases[] = {{"max_nhwc_valid", "jvp_max"},
                                                       {"generic_prod", "jvp_generic_prod"}};
  for (const auto& [forward, jvp_case] : cases) {
    SCOPED_TRACE(forward);
    auto v = Values(std::string(jvp_case) + ".values.txt");
    absl::StatusOr<ClosedJaxpr> jvp = Jvp(Parse(Read(std::string(forward) + ".txt")));
    ASSERT_THAT(jvp, IsOk());
    HostArray tangent = v["arg"][0];
    for (double& t : tangent.values) t = RoundToDType(std::cos(t), DType::kF32);
    ExpectAllClose(Eval(*jvp, {v["arg"][0], tangent}), v["out"], "axe's jvp");
  }
}

// A pooling layer large enough for the executor to split its outputs over threads: the same
// numbers as the interpreter (max and the scatter exactly, sums within f32 rounding).
TEST(WindowTest, LargePoolingOnTheExecutorMatchesTheInterpreter) {
  const std::string window =
      "padding=((0, 0), (0, 1), (0, 1), (0, 0)) window_dimensions=(1, 3, 3, 1) "
      "window_strides=(1, 2, 2, 1)";
  const std::string dilations = "base_dilation=(1, 1, 1, 1) window_dilation=(1, 1, 1, 1) ";
  const ClosedJaxpr f = Parse(
      absl::StrCat("{ lambda ; a:f32[4,64,64,8] b:f32[4,32,32,8]. let\n    c:f32[4,32,32,8] = "
                   "reduce_window_max[",
                   dilations, window, "] a\n    d:f32[4,64,64,8] = select_and_scatter_add[", window,
                   " select_prim=ge] b a\n    e:f32[4,32,32,8] = reduce_window_sum[", dilations,
                   window, "] a\n  in (c, d, e) }"));
  std::vector<HostArray> args;
  for (const ShapedArray& a : f.jaxpr.in_avals()) {
    HostArray h{a, std::vector<double>(static_cast<size_t>(*a.NumElements()))};
    for (size_t i = 0; i < h.values.size(); ++i) {
      h.values[i] = static_cast<double>((i * 7919) % 1013) / 64.0 - 8.0;
    }
    args.push_back(std::move(h));
  }
  absl::StatusOr<std::vector<HostArray>> run = exec::ExecuteJaxpr(f, args);
  ASSERT_THAT(run, IsOk());
  std::vector<HostArray> want = Eval(f, args);
  ASSERT_EQ(want.size(), 3u);
  EXPECT_EQ((*run)[0].values, want[0].values);
  EXPECT_EQ((*run)[1].values, want[1].values);
  ExpectClose((*run)[2], want[2], 1e-6, "sum");
}

// ---- errors ----

absl::Status TypeOf(const std::string& x, const std::string& params, const std::string& out,
                    const std::string& prim = "reduce_window_max") {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(absl::StrCat(
      "{ lambda ; a:", x, ". let\n    b:", out, " = ", prim, "[", params, "] a\n  in (b,) }"));
  if (!j.ok()) return j.status();
  return CheckJaxpr(*j);
}

std::string Window(const std::string& dims, const std::string& strides, const std::string& pads,
                   const std::string& base = "(1, 1)", const std::string& win = "(1, 1)") {
  return absl::StrCat("base_dilation=", base, " padding=", pads, " window_dilation=", win,
                      " window_dimensions=", dims, " window_strides=", strides);
}

TEST(WindowTest, TypingErrorsUseJaxsWords) {
  const std::string pads = "((0, 0), (0, 0))";
  const std::vector<std::pair<absl::Status, std::string>> cases = {
      {TypeOf("f32[4,4]", Window("(2, 0)", "(1, 1)", pads), "f32[3,4]"),
       "reduce_window window_dimensions must have every element be strictly positive, got (2, "
       "0)."},
      {TypeOf("f32[4,4]", Window("(2, 2)", "(0, 1)", pads), "f32[3,3]"),
       "reduce_window window_strides must have every element be strictly positive, got (0, 1)."},
      {TypeOf("f32[4,4]", Window("(2, 2, 1)", "(1, 1, 1)", pads), "f32[3,3]"),
       "reduce_window got the wrong number of window_dimensions for operand"},
      {TypeOf("f32[4,4]", Window("(2, 2)", "(1,)", pads), "f32[3,3]"),
       "reduce_window got inconsistent window_strides and window_dimensions: got window_strides "
       "(1,) and window_dimensions (2, 2)."},
      {TypeOf("f32[4,4]", Window("(2, 2)", "(1, 1)", pads, "(0, 1)"), "f32[3,3]"),
       "All dilations must be positive, got (0, 1)."},
      {TypeOf("bool[4,4]", Window("(2, 2)", "(1, 1)", pads), "bool[3,3]", "reduce_window_sum"),
       "operand to reduce_window_sum must have a number dtype, got bool"},
      {TypeOf("f32[4,4]", Window("(2, 2)", "(1, 1)", "((0, 9223372036854775807), (0, 0))"),
              "f32[3,3]"),
       "reduce_window dimension 0 overflows 64 bits once dilated and padded"},
      {TypeOf("f32[4,4]", Window("(2, 2)", "(1, 1)", pads), "f32[4,4]"), "reduce_window_max"},
  };
  for (const auto& [status, message] : cases) {
    EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message)));
  }
}

// A huge window over a huge padding: one output, computed from the input's positions only.
TEST(WindowTest, HugeWindowsStayCheap) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(absl::StrCat(
      "{ lambda ; a:f32[3]. let\n    b:f32[1] = reduce_window_max[", "base_dilation=(1,) ",
      "padding=((0, 4000000000000000000),) window_dilation=(1,) ",
      "window_dimensions=(4000000000000000003,) window_strides=(1,)] a\n  in (b,) }"));
  ASSERT_THAT(j, IsOk());
  HostArray x{ShapedArray({3}, DType::kF32), {1, 5, 2}};
  std::vector<HostArray> out = Eval(*j, {x});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values, std::vector<double>{5});
}

// A padding near 2^63 (cropping everything, then padding back): positions are computed
// without overflow and every window holds padding only.
TEST(WindowTest, PaddingNear2To63DoesNotOverflow) {
  const ClosedJaxpr f = Parse(
      "{ lambda ; a:f32[3]. let\n    b:f32[2] = reduce_window_max[base_dilation=(1,) "
      "padding=((-9223372036854775806, 9223372036854775806),) window_dilation=(1,) "
      "window_dimensions=(2,) window_strides=(1,)] a\n  in (b,) }");
  HostArray x{ShapedArray({3}, DType::kF32), {1, 5, 2}};
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Eval(f, {x})[0].values, (std::vector<double>{-inf, -inf}));
  absl::StatusOr<std::vector<HostArray>> run = exec::ExecuteJaxpr(f, {x});
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ((*run)[0].values, (std::vector<double>{-inf, -inf}));
}

// Windows that together read too many positions are refused before anything is listed, by
// the interpreter and the executor alike (ResourceExhausted, no hang, no exhausted memory).
TEST(WindowTest, WindowsReadingTooManyPositionsAreRefused) {
  const ClosedJaxpr f = Parse(
      "{ lambda ; a:f32[100000]. let\n    b:f32[199999] = reduce_window_sum[base_dilation=(1,) "
      "padding=((99999, 99999),) window_dilation=(1,) window_dimensions=(100000,) "
      "window_strides=(1,)] a\n  in (b,) }");
  HostArray x{ShapedArray({100000}, DType::kF32), std::vector<double>(100000, 1.0)};
  EXPECT_THAT(EvalJaxpr(f, {x}).status(),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("reduce_window dimension 0: 199999 windows of 100000 over 100000 "
                                 "elements read more than 2^24 positions")));
  EXPECT_THAT(exec::ExecuteJaxpr(f, {x}).status(), StatusIs(absl::StatusCode::kResourceExhausted,
                                                            HasSubstr("more than 2^24 positions")));
}

// The transpose of max pooling's JVP with a window dilation is refused, in JAX's words.
TEST(WindowTest, GradThroughADilatedMaxWindowIsRefusedAsInJax) {
  const ClosedJaxpr loss = Parse(
      "{ lambda ; a:f32[5,4]. let\n"
      "    b:f32[3,3] = reduce_window_max[base_dilation=(1, 1) padding=((0, 0), (0, 0)) "
      "window_dilation=(2, 1) window_dimensions=(2, 2) window_strides=(1, 1)] a\n"
      "    c:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b\n"
      "  in (c,) }");
  absl::StatusOr<ClosedJaxpr> grad = Grad(loss, {0});
  EXPECT_THAT(grad.status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("VJP not implemented for select_and_gather (MaxPool) with window "
                                 "dilation, got window_dilation=(2, 1).")));
}

}  // namespace
}  // namespace window_test
}  // namespace axe::ir
