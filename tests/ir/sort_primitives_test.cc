// sort, top_k, remat2, reshard and reduce_precision against the real JAX (testdata/jax_sort,
// written by testdata/generate_sort.py): JAX's printouts of functions, their gradients and
// their vmaps round-trip exactly and type-check; the interpreter and the executor give JAX's
// values (sorted values bit for bit: NaN placement and the sign of zeros); axe's own Grad
// and Vmap give JAX's gradients and vmapped values. Then the edges JAX's cases do not reach:
// typing errors in JAX's words, -NaN in top_k, 64-bit integers, k = 0 and the transposes.
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "ad_test_util.h"
#include "axe/exec/executable.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace sort_primitives_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Read(const std::string& file) {
  return testing_support::ReadIrTestdata("jax_sort/" + file);
}
bool Exists(const std::string& file) {
  return std::filesystem::exists(std::string(AXE_IR_TESTDATA_DIR) + "/jax_sort/" + file);
}
std::vector<std::string> CaseNames() { return testing_support::IrTestdataCases("jax_sort"); }

struct Values {
  std::vector<HostArray> args, outs, grads, vmaps;
};

Values ReadValues(const std::string& name) {
  std::map<std::string, std::vector<HostArray>> v =
      ad_test::ReadTestdataValues("jax_sort/" + name + ".values.txt");
  return Values{v["arg"], v["out"], v["grad"], v["vmap"]};
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

TEST(SortPrimitivesTest, JaxTextsRoundTripExactlyAndTypeCheck) {
  int texts = 0;
  for (const std::string& name : CaseNames()) {
    for (const char* suffix : {".txt", ".loss.txt", ".grad.txt", ".vmap.txt"}) {
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
  EXPECT_GE(texts, 80);
}

// jax.sharding.reshard on an explicit-axes mesh: JAX's types carry the sharding (f32[8@x,2]);
// axe reads it, prints it back and checks the program (its values carry no sharding). A
// malformed sharding is refused with its position.
TEST(SortPrimitivesTest, ExplicitShardingTypesRoundTrip) {
  const std::string text = Read("explicit_reshard.txt");
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  ASSERT_THAT(j, IsOk());
  EXPECT_EQ(PrintJaxpr(*j) + "\n", text);
  EXPECT_THAT(CheckJaxpr(*j), IsOk());
  EXPECT_THAT(ParseJaxpr("{ lambda ; a:f32[8@,2]. let  in (a,) }").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 6: expected a mesh axis name after '@'")));
}

// Equal types; floats equal bit for bit up to NaN payloads (the sign of a zero counts) when
// `exact`, else within rtol / atol; integers equal.
void ExpectMatches(const HostArray& got, const HostArray& want, bool exact,
                   const std::string& what) {
  ASSERT_EQ(got.aval.shape(), want.aval.shape()) << what;
  ASSERT_EQ(got.aval.dtype(), want.aval.dtype()) << what;
  for (size_t i = 0; i < want.values.size(); ++i) {
    const double g = got.values[i], w = want.values[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << what << " element " << i;
    } else if (exact) {
      EXPECT_EQ(g, w) << what << " element " << i;
      EXPECT_EQ(std::signbit(g), std::signbit(w)) << what << " element " << i << " (sign)";
    } else {
      EXPECT_NEAR(g, w, 1e-6 + 1e-5 * std::fabs(w)) << what << " element " << i;
    }
  }
}

void ExpectAllMatch(const std::vector<HostArray>& got, const std::vector<HostArray>& want,
                    bool exact, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t k = 0; k < got.size(); ++k) {
    ExpectMatches(got[k], want[k], exact, absl::StrCat(what, " ", k));
  }
}

// Every case's forward function: sorts and selections move values without arithmetic, so the
// interpreter and the executor give JAX's bits (remat and reshard compute: within rounding).
TEST(SortPrimitivesTest, InterpreterAndExecutorGiveJaxsValues) {
  for (const std::string& name : CaseNames()) {
    SCOPED_TRACE(name);
    const bool exact = name.rfind("remat", 0) != 0 && name.rfind("reshard", 0) != 0;
    Values v = ReadValues(name);
    ClosedJaxpr f = Parse(Read(name + ".txt"));
    ExpectAllMatch(Eval(f, v.args), v.outs, exact, "interpreter out");
    absl::StatusOr<std::vector<HostArray>> executed = exec::ExecuteJaxpr(f, v.args);
    ASSERT_THAT(executed, IsOk());
    ExpectAllMatch(*executed, v.outs, exact, "executor out");
  }
}

std::vector<int64_t> AllArgnums(size_t n) {
  std::vector<int64_t> argnums;
  for (size_t i = 0; i < n; ++i) argnums.push_back(static_cast<int64_t>(i));
  return argnums;
}

TEST(SortPrimitivesTest, AxesGradAndJaxsGradientTextsGiveJaxsGradients) {
  int grads = 0;
  for (const std::string& name : CaseNames()) {
    Values v = ReadValues(name);
    if (v.grads.empty()) continue;
    SCOPED_TRACE(name);
    absl::StatusOr<ClosedJaxpr> grad =
        Grad(Parse(Read(name + ".loss.txt")), AllArgnums(v.args.size()));
    ASSERT_THAT(grad, IsOk());
    ExpectAllMatch(Eval(*grad, v.args), v.grads, false, "axe grad");
    absl::StatusOr<std::vector<HostArray>> executed = exec::ExecuteJaxpr(*grad, v.args);
    ASSERT_THAT(executed, IsOk());
    ExpectAllMatch(*executed, v.grads, false, "axe grad, executed");
    // JAX's own gradient text (its sort and top_k rules gather and scatter-add).
    ExpectAllMatch(Eval(Parse(Read(name + ".grad.txt")), v.args), v.grads, false, "jax grad text");
    ++grads;
  }
  EXPECT_GE(grads, 15);
}

// The arguments as generate_sort.py stacks them: copy b is shifted by 0.25 b (floats) or b
// (int32, wrapping).
std::vector<HostArray> Stacked(const std::vector<HostArray>& args) {
  std::vector<HostArray> out;
  for (const HostArray& a : args) {
    std::vector<int64_t> shape = a.aval.shape();
    shape.insert(shape.begin(), 3);
    HostArray s{a.aval.WithShape(shape), {}};
    for (int b = 0; b < 3; ++b) {
      for (double x : a.values) {
        if (IsFloatingPoint(a.aval.dtype())) {
          s.values.push_back(RoundToDType(x + 0.25 * b, a.aval.dtype()));
        } else {
          double y = x + b;
          if (y > 2147483647.0) y -= 4294967296.0;
          s.values.push_back(y);
        }
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

TEST(SortPrimitivesTest, AxesVmapAndJaxsVmapTextsGiveJaxsValues) {
  int vmaps = 0;
  for (const std::string& name : CaseNames()) {
    Values v = ReadValues(name);
    if (v.vmaps.empty()) continue;
    SCOPED_TRACE(name);
    const bool exact = name.rfind("remat", 0) != 0;
    std::vector<HostArray> stacked = Stacked(v.args);
    ExpectAllMatch(Eval(Parse(Read(name + ".vmap.txt")), stacked), v.vmaps, exact, "jax vmap text");
    VmapOptions options;
    options.axis_size = 3;
    absl::StatusOr<ClosedJaxpr> batched = Vmap(Parse(Read(name + ".txt")), options);
    ASSERT_THAT(batched, IsOk());
    ExpectAllMatch(Eval(*batched, stacked), v.vmaps, exact, "axe vmap");
    absl::StatusOr<std::vector<HostArray>> executed = exec::ExecuteJaxpr(*batched, stacked);
    ASSERT_THAT(executed, IsOk());
    ExpectAllMatch(*executed, v.vmaps, exact, "axe vmap, executed");
    ++vmaps;
  }
  EXPECT_GE(vmaps, 20);
}

// One equation binding `outs` from a:in_type, evaluated by the interpreter and the executor
// (which must agree bit for bit); the interpreter's results.
std::vector<HostArray> RunBoth(const std::string& in_type, const std::string& eqn,
                               const std::string& outs, std::vector<double> values) {
  ClosedJaxpr j = Parse("{ lambda ; a:" + in_type + ". let " + eqn + " a in (" + outs + ") }");
  std::vector<HostArray> args = {HostArray{*ShapedArray::ParseShort(in_type), std::move(values)}};
  std::vector<HostArray> want = Eval(j, args);
  absl::StatusOr<std::vector<HostArray>> got = exec::ExecuteJaxpr(j, args);
  EXPECT_THAT(got, IsOk());
  if (got.ok()) ExpectAllMatch(*got, want, true, "executor against the interpreter");
  return want;
}

std::vector<bool> SignBits(const std::vector<double>& v) {
  std::vector<bool> out;
  for (double x : v) out.push_back(std::signbit(x));
  return out;
}

// top_k orders floats by XLA's total order: -NaN below -inf, +NaN above +inf, -0.0 below +0.0
// (JAX's values: top_k([1, -nan, nan, -inf, 2], 5) has indices [2, 4, 0, 3, 1], and
// top_k([0., -0., 0.], 3) has [0, 2, 1]). sort, by JAX's comparator, puts every NaN last and
// keeps -0.0 and 0.0 in their order.
TEST(SortPrimitivesTest, TopKUsesTheTotalOrderAndSortJaxsComparator) {
  const double neg_nan = std::copysign(NAN, -1.0);
  std::vector<HostArray> top = RunBoth("f32[5]", "b:f32[5] c:i32[5] = top_k[axis=0 k=5]", "b, c",
                                       {1, neg_nan, NAN, -HUGE_VAL, 2});
  ASSERT_EQ(top.size(), 2u);
  EXPECT_THAT(top[1].values, ElementsAre(2, 4, 0, 3, 1));
  top = RunBoth("f32[3]", "b:f32[3] c:i32[3] = top_k[axis=0 k=3]", "b, c", {0.0, -0.0, 0.0});
  ASSERT_EQ(top.size(), 2u);
  EXPECT_THAT(top[1].values, ElementsAre(0, 2, 1));
  EXPECT_THAT(SignBits(top[0].values), ElementsAre(false, false, true));
  std::vector<HostArray> sorted =
      RunBoth("f32[6]", "b:f32[6] = sort[dimension=0 is_stable=True num_keys=1]", "b,",
              {1, neg_nan, NAN, -HUGE_VAL, 0.0, -0.0});
  ASSERT_EQ(sorted.size(), 1u);
  EXPECT_EQ(sorted[0].values[0], -HUGE_VAL);
  EXPECT_THAT(SignBits(sorted[0].values), ElementsAre(true, false, true, false, true, false));
  EXPECT_TRUE(std::isnan(sorted[0].values[4]) && std::isnan(sorted[0].values[5]));
}

// 16-bit floats, unsigned and 64-bit integers past 2^53 in the executor: bit-exact order.
TEST(SortPrimitivesTest, EveryWidthSortsInItsOwnOrder) {
  std::vector<HostArray> u = RunBoth(
      "u8[4]", "b:u8[4] = sort[dimension=0 is_stable=True num_keys=1]", "b,", {200, 3, 255, 0});
  EXPECT_THAT(u[0].values, ElementsAre(0, 3, 200, 255));
  std::vector<HostArray> h =
      RunBoth("bf16[4]", "b:bf16[2] c:i32[2] = top_k[axis=0 k=2]", "b, c", {0.5, -1, 3, 3});
  EXPECT_THAT(h[1].values, ElementsAre(2, 3));
  std::vector<HostArray> b = RunBoth(
      "bool[4]", "b:bool[4] = sort[dimension=0 is_stable=True num_keys=1]", "b,", {1, 0, 1, 0});
  EXPECT_THAT(b[0].values, ElementsAre(0, 0, 1, 1));
  // i64 above 2^53 through the executor's own values (the interpreter's doubles cannot hold
  // 2^53 + 1).
  ClosedJaxpr j = Parse(
      "{ lambda ; a:i64[3]. let b:i64[3] = sort[dimension=0 is_stable=True num_keys=1] a "
      "in (b,) }");
  absl::StatusOr<exec::Executable> e = exec::Executable::Compile(j);
  ASSERT_THAT(e, IsOk());
  EXPECT_EQ(e->stats().fallbacks, 0);
  absl::StatusOr<exec::Value> a = exec::Value::Zeros(ShapedArray({3}, DType::kS64));
  ASSERT_THAT(a, IsOk());
  a->mutable_data<int64_t>()[0] = 9007199254740993;  // 2^53 + 1
  a->mutable_data<int64_t>()[1] = 9007199254740992;
  a->mutable_data<int64_t>()[2] = INT64_MIN;
  absl::StatusOr<std::vector<exec::Value>> out = e->Run({*a});
  ASSERT_THAT(out, IsOk());
  const int64_t* s = (*out)[0].data<int64_t>();
  EXPECT_EQ(s[0], INT64_MIN);
  EXPECT_EQ(s[1], 9007199254740992);
  EXPECT_EQ(s[2], 9007199254740993);
}

// The executor runs every one of these typed: no equation falls back to the interpreter.
TEST(SortPrimitivesTest, ExecutorRunsSortTopKRematAndReshardTyped) {
  for (const char* name :
       {"sort_three", "argsort_descending", "top_k_axis0", "remat_dots", "sort_multi"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<exec::Executable> e =
        exec::Executable::Compile(Parse(Read(std::string(name) + ".txt")));
    ASSERT_THAT(e, IsOk());
    EXPECT_EQ(e->stats().fallbacks, 0) << e->Describe();
  }
  absl::StatusOr<exec::Executable> e =
      exec::Executable::Compile(Parse("{ lambda ; a:i64[3]. let b:i64[3] = reshard a in (b,) }"));
  ASSERT_THAT(e, IsOk());
  EXPECT_EQ(e->stats().fallbacks, 0) << e->Describe();
}

absl::Status CheckText(const std::string& text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  if (!j.ok()) return j.status();
  return CheckJaxpr(*j);
}

TEST(SortPrimitivesTest, TypingErrorsUseJaxsWords) {
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3] c:f32[4]. let d:f32[3] e:f32[4] = sort[dimension=0 "
                        "is_stable=True num_keys=1] a c in (d,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Arguments to sort must have equal shapes, got: (3,) (4,)")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3] b:f32[3]. let d:f32[3] e:f32[3] = sort[dimension=0 "
                        "is_stable=True num_keys=3] a b in (d,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("num_keys=3 must be between 1 and len(operand)=2")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3]. let d:f32[3] = sort[dimension=1 is_stable=True "
                        "num_keys=1] a in (d,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("axis 1 is out of bounds for array of dimension 1")));
  auto top_k = [](const std::string& type, const std::string& outs, const std::string& params) {
    return CheckText("{ lambda ; a:" + type + ". let " + outs + " = top_k[" + params +
                     "] a in () }");
  };
  EXPECT_THAT(top_k("f32[2,3]", "b:f32[2,5] c:i32[2,5]", "axis=1 k=5"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("k argument to top_k must be no larger than size along axis; got "
                                 "k=5 with shape=[2, 3] and axis=1")));
  EXPECT_THAT(top_k("f32[3]", "b:f32[3] c:i32[3]", "axis=0 k=-1"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("k argument to top_k must be nonnegative, got -1")));
  EXPECT_THAT(top_k("f32[2,3]", "b:f32[2,3] c:i32[2,3]", "axis=2 k=1"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("axis argument out of range: axis=2 for operand.shape=(2, 3)")));
  EXPECT_THAT(top_k("f32[]", "b:f32[] c:i32[]", "k=0"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("top_k operand must have >= 1 dimension, got ()")));
  EXPECT_THAT(CheckText("{ lambda ; a:i32[3]. let b:i32[3] = reduce_precision[exponent_bits=8 "
                        "mantissa_bits=7] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("reduce_precision does not accept dtype int32. Accepted dtypes "
                                 "are subtypes of floating.")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3]. let b:f32[3] = reduce_precision[exponent_bits=0 "
                        "mantissa_bits=7] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("reduce_precision: exponent_bits must be positive; got 0")));
}

// top_k without `axis` (what older JAX printed) works on the last axis; k = 0 gives empty
// results.
TEST(SortPrimitivesTest, TopKDefaultsToTheLastAxisAndAcceptsKZero) {
  std::vector<HostArray> top =
      RunBoth("f32[2,3]", "b:f32[2,2] c:i32[2,2] = top_k[k=2]", "b, c", {1, 3, 2, 6, 5, 4});
  EXPECT_THAT(top[1].values, ElementsAre(1, 2, 0, 1));
  top =
      RunBoth("f32[2,3]", "b:f32[2,0] c:i32[2,0] = top_k[axis=1 k=0]", "b, c", {1, 3, 2, 6, 5, 4});
  EXPECT_TRUE(top[0].values.empty() && top[1].values.empty());
}

// reduce_precision rounds to nearest even at the kept mantissa bits and cuts the exponent
// range (XLA's values: bf16's 7 bits round 1 + 2^-8 down to 1 and 1 + 3 * 2^-8 up; 5 exponent
// bits overflow 70000 to inf and flush 1e-5 to 0).
TEST(SortPrimitivesTest, ReducePrecisionRoundsAsXlaDoes) {
  std::vector<HostArray> r =
      RunBoth("f32[4]", "b:f32[4] = reduce_precision[exponent_bits=8 mantissa_bits=7]", "b,",
              {1 + 0x1p-8, 1 + 3 * 0x1p-8, -2.5, NAN});
  EXPECT_EQ(r[0].values[0], 1.0);
  EXPECT_EQ(r[0].values[1], 1 + 0x1p-6);
  EXPECT_EQ(r[0].values[2], -2.5);
  EXPECT_TRUE(std::isnan(r[0].values[3]));
  r = RunBoth("f32[3]", "b:f32[3] = reduce_precision[exponent_bits=5 mantissa_bits=10]", "b,",
              {70000, -1e-5, 1000.25});
  EXPECT_THAT(r[0].values, ElementsAre(HUGE_VAL, -0.0, 1000.0));
  EXPECT_TRUE(std::signbit(r[0].values[1]));
  // The operand's own bits (what JAX's remat gradients print for f32) change nothing, subnormals
  // included.
  r = RunBoth("f32[2]", "b:f32[2] = reduce_precision[exponent_bits=8 mantissa_bits=23]", "b,",
              {0x1p-140, 1 + 0x1p-23});
  EXPECT_THAT(r[0].values, ElementsAre(0x1p-140, 1 + 0x1p-23));
  // 16-bit and 64-bit floats on their own bits too.
  r = RunBoth("bf16[3]", "b:bf16[3] = reduce_precision[exponent_bits=5 mantissa_bits=2]", "b,",
              {1.25, 70000, 1e-5});
  EXPECT_THAT(r[0].values, ElementsAre(1.25, HUGE_VAL, 0.0));
  r = RunBoth("f16[2]", "b:f16[2] = reduce_precision[exponent_bits=5 mantissa_bits=3]", "b,",
              {1 + 0x1p-4, 1 + 3 * 0x1p-4});
  EXPECT_THAT(r[0].values, ElementsAre(1.0, 1 + 0x1p-2));
  r = RunBoth("f64[2]", "b:f64[2] = reduce_precision[exponent_bits=8 mantissa_bits=23]", "b,",
              {1 + 0x1p-30, 1e300});
  EXPECT_THAT(r[0].values, ElementsAre(1.0, HUGE_VAL));
}

// reshard's params are not printed (JAX's rule), so text that gives one is refused: it would
// not print back.
TEST(SortPrimitivesTest, ReshardRefusesParamsItWouldNotPrint) {
  EXPECT_THAT(ParseJaxpr("{ lambda ; a:f32[3]. let b:f32[3] = reshard[dst_sharding=1] a in (b,) }")
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("reshard: parameter dst_sharding=1 is implied by the equation's "
                                 "output types, which give nothing")));
  EXPECT_EQ(PrintJaxpr(Parse("{ lambda ; a:f32[3]. let b:f32[3] = reshard a in (b,) }")),
            "{ lambda ; a:f32[3]. let b:f32[3] = reshard a in (b,) }");
}

// The remat2 policy is printed back as JAX printed it, whatever its form.
TEST(SortPrimitivesTest, RematPoliciesRoundTrip) {
  for (const char* name : {"remat", "remat_dots", "remat_nothing", "remat_names"}) {
    const std::string text = Read(std::string(name) + ".txt");
    EXPECT_EQ(PrintJaxpr(Parse(text)) + "\n", text) << name;
  }
  EXPECT_THAT(Read("remat_nothing.txt"), HasSubstr("policy=<function nothing_saveable at 0x"));
  EXPECT_THAT(Read("remat_names.txt"),
              HasSubstr("policy=SaveOnlyTheseNames(saveable_names=frozenset({'s'}))"));
}

// vmap keeps a checkpoint a checkpoint: axe's Vmap of jax.checkpoint's text prints what
// jax.vmap prints.
TEST(SortPrimitivesTest, VmapOfRematIsARematOfTheBatchedBody) {
  VmapOptions options;
  options.axis_size = 3;
  for (const char* name : {"remat", "remat_nothing"}) {
    absl::StatusOr<ClosedJaxpr> batched = Vmap(Parse(Read(std::string(name) + ".txt")), options);
    ASSERT_THAT(batched, IsOk());
    EXPECT_EQ(PrintJaxpr(*batched) + "\n", Read(std::string(name) + ".vmap.txt")) << name;
  }
  // An unbatched operand stays unbatched inside.
  options.in_axes = {0, std::nullopt};
  absl::StatusOr<ClosedJaxpr> batched = Vmap(Parse(Read("remat_dots.txt")), options);
  ASSERT_THAT(batched, IsOk());
  EXPECT_THAT(PrintJaxpr(*batched), HasSubstr("jaxpr={ lambda ; d:f32[3,2,3] e:f32[3,2]. let"));
}

// sort's transpose puts each cotangent back where its element came from, and reshard's
// transpose is a reshard: axe's Grad against central differences in f64, with a second,
// integer key (ties in a float key are kinks: JAX's cases check the stable order there).
TEST(SortPrimitivesTest, SortAndReshardTransposesMatchFiniteDifferences) {
  ClosedJaxpr f = Parse(
      "{ lambda ; a:f64[2,4] b:f64[2,4] k:i32[2,4]. let\n"
      "    c:f64[2,4] d:i32[2,4] e:f64[2,4] = sort[dimension=1 is_stable=True num_keys=2] a k b\n"
      "    g:f64[2,4] = reshard e\n"
      "    h:f64[2,4] = iota[dimension=1 dtype=float64 shape=(2, 4) sharding=None] \n"
      "    i:f64[2,4] = add h 1.0:f64[]\n"
      "    j:f64[2,4] = mul g i\n"
      "    l:f64[2,4] = mul c i\n"
      "    m:f64[2,4] = mul l c\n"
      "    n:f64[2,4] = add j m\n"
      "    o:f64[] = reduce_sum[axes=(0, 1)] n\n"
      "  in (o,) }");
  ASSERT_THAT(CheckJaxpr(f), IsOk());
  absl::StatusOr<ClosedJaxpr> grad = Grad(f, {0, 1});
  ASSERT_THAT(grad, IsOk());
  std::vector<HostArray> args = {
      HostArray{*ShapedArray::ParseShort("f64[2,4]"), {0.5, -1, 0.25, 2, 3, 1.5, 2.5, -2}},
      HostArray{*ShapedArray::ParseShort("f64[2,4]"), {1, 2, 3, 4, 5, 6, 7, 8}},
      HostArray{*ShapedArray::ParseShort("i32[2,4]"), {0, 0, -1, 0, 2, 1, 2, 0}}};
  std::vector<HostArray> g = Eval(*grad, args);
  ASSERT_EQ(g.size(), 2u);
  const double eps = 1e-6;
  for (size_t k = 0; k < 2; ++k) {
    for (size_t i = 0; i < args[k].values.size(); ++i) {
      std::vector<HostArray> plus = args, minus = args;
      plus[k].values[i] += eps;
      minus[k].values[i] -= eps;
      const double fd = (Eval(f, plus)[0].values[0] - Eval(f, minus)[0].values[0]) / (2 * eps);
      EXPECT_NEAR(g[k].values[i], fd, 1e-5) << "argument " << k << " element " << i;
    }
  }
}

}  // namespace
}  // namespace sort_primitives_test
}  // namespace axe::ir
