// gather and the scatter family against the real JAX (testdata/jax_indexing, written by
// testdata/generate_indexing.py): JAX's printouts round-trip exactly and type-check; evaluation
// gives JAX's numbers for the function, for JAX's gradient text and for axe's own Grad; axe's
// Jvp agrees with finite differences and its Vmap with a loop. Then the typing errors, in
// JAX's words.
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "ad_test_util.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitive.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace indexing_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

std::string Read(const std::string& file) {
  return testing_support::ReadIrTestdata("jax_indexing/" + file);
}

std::vector<std::string> CaseNames() { return testing_support::IrTestdataCases("jax_indexing"); }

struct Values {
  std::vector<HostArray> args, outs, grads;
};

Values ReadValues(const std::string& name) {
  std::map<std::string, std::vector<HostArray>> by_kind =
      ad_test::ReadTestdataValues("jax_indexing/" + name + ".values.txt");
  return Values{by_kind["arg"], by_kind["out"], by_kind["grad"]};
}

ClosedJaxpr Parse(const std::string& text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  EXPECT_THAT(j, IsOk());
  return j.ok() ? *j : ClosedJaxpr{};
}

bool IsFloat(const HostArray& a) { return IsFloatingPoint(a.aval.dtype()); }

void ExpectClose(const HostArray& got, const HostArray& want, double rtol, double atol,
                 const std::string& what) {
  ASSERT_EQ(got.aval.shape(), want.aval.shape()) << what;
  ASSERT_EQ(got.aval.dtype(), want.aval.dtype()) << what;
  for (size_t i = 0; i < want.values.size(); ++i) {
    double g = got.values[i], w = want.values[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << what << " element " << i;
      continue;
    }
    EXPECT_NEAR(g, w, atol + rtol * std::fabs(w)) << what << " element " << i;
  }
}

std::vector<HostArray> Eval(const ClosedJaxpr& j, const std::vector<HostArray>& args) {
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(j, args);
  EXPECT_THAT(out, IsOk());
  return out.ok() ? *out : std::vector<HostArray>{};
}

// Every case's gradient is axe's too.
const std::set<std::string> kNoAxeGrad = {};

TEST(IndexingTest, JaxTextsRoundTripExactlyAndTypeCheck) {
  int texts = 0;
  for (const std::string& name : CaseNames()) {
    for (const char* suffix : {".txt", ".loss.txt", ".grad.txt"}) {
      std::string file = name + suffix;
      if (!std::filesystem::exists(std::string(AXE_IR_TESTDATA_DIR) + "/jax_indexing/" + file)) {
        continue;
      }
      SCOPED_TRACE(file);
      std::string text = Read(file);
      absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
      ASSERT_THAT(j, IsOk());
      EXPECT_EQ(PrintJaxpr(*j) + "\n", text);
      EXPECT_THAT(CheckJaxpr(*j), IsOk());
      ++texts;
    }
  }
  EXPECT_GE(texts, 90);
}

TEST(IndexingTest, EvaluationGivesJaxsValues) {
  for (const std::string& name : CaseNames()) {
    SCOPED_TRACE(name);
    Values v = ReadValues(name);
    std::vector<HostArray> outs = Eval(Parse(Read(name + ".txt")), v.args);
    ASSERT_EQ(outs.size(), v.outs.size());
    for (size_t i = 0; i < outs.size(); ++i) ExpectClose(outs[i], v.outs[i], 0, 0, "out");
  }
}

TEST(IndexingTest, JaxsGradientTextsAndAxesGradGiveJaxsGradients) {
  int grads = 0;
  for (const std::string& name : CaseNames()) {
    Values v = ReadValues(name);
    if (v.grads.empty()) continue;
    SCOPED_TRACE(name);
    std::vector<HostArray> g = Eval(Parse(Read(name + ".grad.txt")), v.args);
    ASSERT_EQ(g.size(), v.grads.size());
    for (size_t i = 0; i < g.size(); ++i) ExpectClose(g[i], v.grads[i], 1e-5, 1e-6, "jax grad");
    if (kNoAxeGrad.count(name)) continue;
    std::vector<int64_t> argnums;
    for (size_t i = 0; i < v.args.size(); ++i) {
      if (IsFloat(v.args[i])) argnums.push_back(static_cast<int64_t>(i));
    }
    absl::StatusOr<ClosedJaxpr> grad = Grad(Parse(Read(name + ".loss.txt")), argnums);
    ASSERT_THAT(grad, IsOk());
    g = Eval(*grad, v.args);
    ASSERT_EQ(g.size(), v.grads.size());
    for (size_t i = 0; i < g.size(); ++i) ExpectClose(g[i], v.grads[i], 1e-5, 1e-6, "axe grad");
    ++grads;
  }
  EXPECT_GE(grads, 20);
}

// Jvp of the case (in f64) against central differences.
TEST(IndexingTest, JvpMatchesFiniteDifferences) {
  for (const std::string& name : CaseNames()) {
    if (kNoAxeGrad.count(name)) continue;
    SCOPED_TRACE(name);
    ClosedJaxpr f = Parse(absl::StrReplaceAll(Read(name + ".txt"), {{"f32", "f64"}}));
    std::vector<bool> with_tangent;
    std::vector<HostArray> primals, tangents;
    for (HostArray a : ReadValues(name).args) {
      if (IsFloat(a)) a.aval = a.aval.WithDType(DType::kF64);
      primals.push_back(a);
      with_tangent.push_back(IsFloat(a));
      if (!IsFloat(a)) continue;
      for (size_t i = 0; i < a.values.size(); ++i) a.values[i] = 0.3 + 0.1 * (i % 5);
      tangents.push_back(a);
    }
    if (tangents.empty()) continue;
    absl::StatusOr<ClosedJaxpr> jvp = Jvp(f, with_tangent);
    ASSERT_THAT(jvp, IsOk());
    std::vector<HostArray> in = primals;
    in.insert(in.end(), tangents.begin(), tangents.end());
    std::vector<HostArray> out = Eval(*jvp, in);
    const double eps = 1e-6;
    std::vector<HostArray> plus = primals, minus = primals;
    for (size_t k = 0, t = 0; k < primals.size(); ++k) {
      if (!with_tangent[k]) continue;
      for (size_t i = 0; i < plus[k].values.size(); ++i) {
        plus[k].values[i] += eps * tangents[t].values[i];
        minus[k].values[i] -= eps * tangents[t].values[i];
      }
      ++t;
    }
    std::vector<HostArray> hi = Eval(f, plus), lo = Eval(f, minus);
    const size_t n = f.jaxpr.outvars.size();
    ASSERT_EQ(out.size(), 2 * n);
    for (size_t k = 0; k < n; ++k) {
      if (!IsFloatingPoint(out[k].aval.dtype())) continue;
      HostArray fd = hi[k];
      for (size_t i = 0; i < fd.values.size(); ++i) {
        // A filled (NaN) window has no slope; its tangent is the fill 0.
        fd.values[i] =
            std::isnan(hi[k].values[i]) ? 0 : (hi[k].values[i] - lo[k].values[i]) / (2 * eps);
      }
      ExpectClose(out[n + k], fd, 1e-5, 1e-5, "tangent");
    }
  }
}

// Vmap of the case over 3 shifted copies of its inputs (indices shifted by 1 per copy, so some
// go out of bounds) against evaluating each copy.
TEST(IndexingTest, VmapMatchesALoop) {
  constexpr int64_t kBatch = 3;
  for (const std::string& name : CaseNames()) {
    SCOPED_TRACE(name);
    ClosedJaxpr f = Parse(Read(name + ".txt"));
    std::vector<HostArray> inputs = ReadValues(name).args;
    VmapOptions options;
    options.axis_size = kBatch;
    absl::StatusOr<ClosedJaxpr> batched = Vmap(f, options);
    ASSERT_THAT(batched, IsOk());
    std::vector<std::vector<HostArray>> per_b;
    std::vector<HostArray> stacked;
    for (const HostArray& a : inputs) {
      std::vector<int64_t> shape = a.aval.shape();
      shape.insert(shape.begin(), kBatch);
      stacked.push_back(HostArray{a.aval.WithShape(shape), {}});
    }
    for (int64_t b = 0; b < kBatch; ++b) {
      std::vector<HostArray> args = inputs;
      for (size_t k = 0; k < args.size(); ++k) {
        for (double& x : args[k].values) {
          x = RoundToDType(x + (IsFloat(args[k]) ? 0.25 : 1.0) * b, args[k].aval.dtype());
        }
        stacked[k].values.insert(stacked[k].values.end(), args[k].values.begin(),
                                 args[k].values.end());
      }
      per_b.push_back(Eval(f, args));
    }
    std::vector<HostArray> out = Eval(*batched, stacked);
    ASSERT_EQ(out.size(), per_b[0].size());
    for (size_t k = 0; k < out.size(); ++k) {
      const size_t n = per_b[0][k].values.size();
      ASSERT_EQ(out[k].values.size(), kBatch * n);
      for (int64_t b = 0; b < kBatch; ++b) {
        HostArray slice{per_b[b][k].aval, std::vector<double>(out[k].values.begin() + b * n,
                                                              out[k].values.begin() + (b + 1) * n)};
        ExpectClose(slice, per_b[b][k], 0, 0, "batch " + std::to_string(b));
      }
    }
  }
}

// ---- typing errors, in JAX's words ----

constexpr const char* kGatherDims =
    "GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), "
    "operand_batching_dims=(), start_indices_batching_dims=())";

absl::Status Typed(const std::string& eqn, const std::string& args) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr("{ lambda ; " + args + ". let " + eqn + " in (z,) }");
  if (!j.ok()) return j.status();
  return CheckJaxpr(*j);
}

std::string Gather(const std::string& dims, const std::string& sizes, const std::string& out) {
  return "z:" + out + " = gather[dimension_numbers=" + dims +
         " fill_value=None indices_are_sorted=False mode=GatherScatterMode.PROMISE_IN_BOUNDS "
         "slice_sizes=" +
         sizes + " unique_indices=False] a b";
}

TEST(IndexingTest, GatherTypingErrorsUseJaxsWords) {
  const std::string args = "a:f32[3,4] b:i32[5,1]";
  EXPECT_THAT(Typed(Gather(kGatherDims, "(1, 4)", "f32[5,4]"), args), IsOk());
  EXPECT_THAT(Typed(Gather(kGatherDims, "(1, 5)", "f32[5,5]"), args),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Slice size at index 1 in gather op is out of range, must be "
                                 "within [0, 4 + 1), got 5.")));
  EXPECT_THAT(Typed(Gather(kGatherDims, "(2, 4)", "f32[5,4]"), args),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Gather op can only collapse slice dims with bound 1, but bound "
                                 "is 2 for index 0 at position 0.")));
  EXPECT_THAT(Typed(Gather(kGatherDims, "(1,)", "f32[5,4]"), args),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Gather op must have one slice size for every input dimension; "
                                 "got: len(slice_sizes)=1, input_shape.rank=2")));
  const std::string bad_map =
      absl::StrReplaceAll(kGatherDims, {{"start_index_map=(0,)", "start_index_map=(2,)"}});
  EXPECT_THAT(Typed(Gather(bad_map, "(1, 4)", "f32[5,4]"), args),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Invalid start_index_map; domain is [0, 2), got: 0->2.")));
  const std::string bad_offset =
      absl::StrReplaceAll(kGatherDims, {{"offset_dims=(1,)", "offset_dims=(2,)"}});
  EXPECT_THAT(Typed(Gather(bad_offset, "(1, 4)", "f32[5,4]"), args),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Offset dimension 0 in gather op is out of bounds; got 2, but "
                                 "should have been in [0, 2)")));
  EXPECT_THAT(
      Typed(Gather(kGatherDims, "(1, 4)", "f32[5,4]"), "a:f32[3,4] b:f32[5,1]"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("indices must have an integer type")));
  EXPECT_THAT(Typed(Gather(kGatherDims, "(1, 4)", "f32[5,4]"), "a:f32[3,4] b:i32[5,2]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Gather op has 1 elements in start_index_map and the bound of "
                                 "dimension index_vector_dim=1 of indices is 2.")));
  EXPECT_THAT(Typed(Gather("(1,)", "(1, 4)", "f32[5,4]"), args),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("dimension_numbers must be GatherDimensionNumbers(...)")));
  const std::string bad_mode =
      absl::StrReplaceAll(Gather(kGatherDims, "(1, 4)", "f32[5,4]"),
                          {{"GatherScatterMode.PROMISE_IN_BOUNDS", "GatherScatterMode.WRAP"}});
  EXPECT_THAT(Typed(bad_mode, args), StatusIs(absl::StatusCode::kInvalidArgument,
                                              HasSubstr("mode=GatherScatterMode.WRAP")));
}

std::string Scatter(const std::string& prim, const std::string& dims, const std::string& out) {
  return "z:" + out + " = " + prim + "[dimension_numbers=" + dims +
         " indices_are_sorted=False mode=GatherScatterMode.FILL_OR_DROP unique_indices=False "
         "update_consts=() update_jaxpr=None] a b c";
}

constexpr const char* kScatterDims =
    "ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), "
    "scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), "
    "scatter_indices_batching_dims=())";

TEST(IndexingTest, ScatterTypingErrorsUseJaxsWords) {
  EXPECT_THAT(
      Typed(Scatter("scatter-add", kScatterDims, "f32[3,4]"), "a:f32[3,4] b:i32[5,1] c:f32[5,4]"),
      IsOk());
  EXPECT_THAT(
      Typed(Scatter("scatter-add", kScatterDims, "f32[3,4]"), "a:f32[3,4] b:i32[5,1] c:f32[5,5]"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Bounds of the window dimensions of updates must not exceed the "
                         "bounds of the corresponding dimensions of operand. For "
                         "dimension 1, updates bound is 5, operand bound is 4.")));
  EXPECT_THAT(
      Typed(Scatter("scatter", kScatterDims, "f32[3,4]"), "a:f32[3,4] b:i32[5,1] c:f32[6,4]"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("For scatter dimension 0, updates bound is 6, indices bound "
                         "is 5.")));
  EXPECT_THAT(
      Typed(Scatter("scatter-mul", kScatterDims, "f32[3,4]"), "a:f32[3,4] b:i32[5,1] c:f32[5]"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Updates tensor must be of rank 2; got 1.")));
  EXPECT_THAT(
      Typed(Scatter("scatter-max", kScatterDims, "f32[3,4]"), "a:f32[3,4] b:i32[5,1] c:i32[5,4]"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("lax.scatter-max requires arguments to have the same dtypes, "
                         "got float32, int32.")));
  const std::string inserted = absl::StrReplaceAll(
      kScatterDims, {{"inserted_window_dims=(0,)", "inserted_window_dims=(3,)"}});
  EXPECT_THAT(
      Typed(Scatter("scatter-min", inserted, "f32[3,4]"), "a:f32[3,4] b:i32[5,1] c:f32[5,4]"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Invalid inserted_window_dims set in scatter op; valid range is "
                         "[0, 2); got: 3.")));
}

// An empty index vector (indices of shape (2, 0)) still reads a window per batch position:
// a slice larger than the operand is refused (JAX skips the check for empty indices).
TEST(IndexingTest, SliceSizesAreCheckedForAnEmptyIndexVector) {
  const std::string dims =
      "GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(), "
      "operand_batching_dims=(), start_indices_batching_dims=())";
  EXPECT_THAT(Typed(Gather(dims, "(3,)", "f32[2,3]"), "a:f32[3] b:i32[2,0]"), IsOk());
  EXPECT_THAT(Typed(Gather(dims, "(100,)", "f32[2,100]"), "a:f32[3] b:i32[2,0]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Slice size at index 0 in gather op is out of range, must be "
                                 "within [0, 3 + 1), got 100.")));
  EXPECT_THAT(Typed(Gather(dims, "(100,)", "f32[0,100]"), "a:f32[3] b:i32[0,0]"), IsOk());
}

// Huge index values (past the operand, past int32, u64 past 2^63) clamp or fill, never read
// out of bounds.
TEST(IndexingTest, ExtremeIndicesClampOrFill) {
  const std::string dims = kGatherDims;
  for (const char* mode : {"CLIP", "FILL_OR_DROP", "PROMISE_IN_BOUNDS"}) {
    SCOPED_TRACE(mode);
    std::string text =
        "{ lambda ; a:f32[3,2] b:u64[3,1]. let z:f32[3,2] = gather[dimension_numbers=" + dims +
        " fill_value=None indices_are_sorted=False mode=GatherScatterMode." + mode +
        " slice_sizes=(1, 2) unique_indices=False] a b in (z,) }";
    ClosedJaxpr j = Parse(text);
    HostArray a{*ShapedArray::ParseShort("f32[3,2]"), {1, 2, 3, 4, 5, 6}};
    HostArray b{*ShapedArray::ParseShort("u64[3,1]"), {1, 0x1p63 + 4096, 0x1p40}};
    std::vector<HostArray> out = Eval(j, {a, b});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].values[0], 3);
    if (std::string(mode) == "FILL_OR_DROP") {
      EXPECT_TRUE(std::isnan(out[0].values[2]) && std::isnan(out[0].values[5]));
    } else {
      EXPECT_EQ(out[0].values[2], 5);
      EXPECT_EQ(out[0].values[4], 5);
    }
  }
}

}  // namespace
}  // namespace indexing_test
}  // namespace axe::ir
