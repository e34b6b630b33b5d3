// The executor against the reference interpreter: every jaxpr the real JAX printed for the
// IR's tests (tests/ir/testdata) runs on both with the same seeded inputs, integers compared
// exactly and floats within f32's tolerances; then the plans of everyday programs (what fuses,
// what goes to GEMM), integers past 2^53, cancellation and the work budget.
#include "axe/exec/executable.h"

#include <atomic>
#include <bit>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "axe/ir/eval.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "support/testdata.h"

namespace axe::exec {
namespace exec_test {
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

ir::HostArray RandomArray(const ir::ShapedArray& aval, std::mt19937_64& rng) {
  ir::HostArray a{aval.WithVma({}),
                  std::vector<double>(static_cast<size_t>(aval.NumElements().value_or(0)))};
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  std::uniform_int_distribution<int> small(-5, 5);
  for (double& v : a.values) {
    if (aval.dtype() == DType::kPred) {
      v = rng() % 2;
    } else if (IsUnsignedIntegral(aval.dtype())) {
      v = rng() % 11;
    } else if (IsIntegral(aval.dtype())) {
      v = small(rng);
    } else {
      v = ir::RoundToDType(real(rng), aval.dtype());
    }
  }
  return a;
}

// Floats: relative 1e-4 for f32 and f64 (BLAS sums in the type, the interpreter in double),
// 1e-2 for the 16-bit types; NaN equals NaN.
bool Close(double want, double got, DType t) {
  if (IsKeyType(t)) return std::bit_cast<uint64_t>(want) == std::bit_cast<uint64_t>(got);
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (!IsFloatingPoint(t)) return want == got;
  if (std::isinf(want) || std::isinf(got)) return want == got;
  const double tol = (t == DType::kF16 || t == DType::kBF16) ? 1e-2 : 1e-4;
  return std::fabs(want - got) <= tol * std::max(1.0, std::fabs(want));
}

// Runs `text` on both with random inputs; returns "" or the first difference.
std::string Differ(const std::string& name, const ir::ClosedJaxpr& j, std::mt19937_64& rng) {
  std::vector<ir::HostArray> args;
  for (const ir::ShapedArray& a : j.jaxpr.in_avals()) args.push_back(RandomArray(a, rng));
  absl::StatusOr<std::vector<ir::HostArray>> want = ir::EvalJaxpr(j, args);
  if (!want.ok()) return "";  // the interpreter refuses it (a collective alone, ...)
  absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(j, args);
  if (!got.ok()) return absl::StrCat(name, ": executor failed: ", got.status().ToString());
  if (got->size() != want->size()) return absl::StrCat(name, ": output count");
  for (size_t o = 0; o < want->size(); ++o) {
    const ir::HostArray& w = (*want)[o];
    const ir::HostArray& g = (*got)[o];
    if (w.aval.shape() != g.aval.shape() || w.aval.dtype() != g.aval.dtype()) {
      return absl::StrCat(name, ": output ", o, " type ", g.aval.ShortString(), " vs ",
                          w.aval.ShortString());
    }
    for (size_t i = 0; i < w.values.size(); ++i) {
      if (!Close(w.values[i], g.values[i], w.aval.dtype())) {
        return absl::StrCat(name, ": output ", o, " element ", i, ": ", g.values[i],
                            " where the interpreter gives ", w.values[i]);
      }
    }
  }
  return "";
}

TEST(ExecDifferentialTest, EveryJaxPrintedProgramMatchesTheInterpreter) {
  std::mt19937_64 rng(testing_support::TestSeed(28));
  int programs = 0;
  std::vector<std::string> differences;
  for (const char* dir : {"jax", "jax_more", "jax_ad", "jax_shared", "jax_indexing", "jax_conv",
                          "jax_sort", "jax_math", "jax_prng", "jax_window"}) {
    const std::filesystem::path root = std::filesystem::path(AXE_IR_TESTDATA_DIR) / dir;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(root)) {
      if (entry.path().extension() == ".txt") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const std::filesystem::path& file : files) {
      absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(ReadFile(file));
      if (!j.ok() || !j->jaxpr.constvars.empty()) continue;  // values files, closures
      ++programs;
      std::string d = Differ(file.filename().string(), *j, rng);
      if (!d.empty()) differences.push_back(d);
    }
  }
  EXPECT_GT(programs, 100);
  EXPECT_THAT(differences, ::testing::IsEmpty());
}

// The indexing cases (testdata/jax_indexing) with JAX's own arguments: gather and the scatters
// run as typed kernels (no fallback) and give JAX's values exactly (the gradients' sums within
// f32's tolerance).
TEST(ExecIndexingTest, GatherAndScattersAreTypedAndGiveJaxsValues) {
  const std::filesystem::path root = std::filesystem::path(AXE_IR_TESTDATA_DIR) / "jax_indexing";
  int cases = 0, typed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    std::string file = entry.path().filename().string();
    absl::string_view name = file;
    if (!absl::ConsumeSuffix(&name, ".values.txt")) continue;
    SCOPED_TRACE(file);
    std::map<std::string, std::vector<ir::HostArray>> values =
        ReadJaxValues(entry.path(), ir::ParseArgSpec);
    for (const char* suffix : {".txt", ".grad.txt"}) {
      const std::filesystem::path text = root / absl::StrCat(name, suffix);
      const std::vector<ir::HostArray>& want =
          values[suffix == std::string(".txt") ? "out" : "grad"];
      if (!std::filesystem::exists(text)) continue;
      ir::ClosedJaxpr j = Parse(ReadFile(text));
      absl::StatusOr<Executable> e = Executable::Compile(j);
      ASSERT_THAT(e, IsOk());
      const std::string plan = e->Describe();
      EXPECT_THAT(plan, ::testing::Not(HasSubstr("fallback gather"))) << plan;
      EXPECT_THAT(plan, ::testing::Not(HasSubstr("fallback scatter"))) << plan;
      if (absl::StrContains(plan, ": gather\n") || absl::StrContains(plan, ": scatter\n")) {
        ++typed;
      }
      absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(j, values["arg"]);
      ASSERT_THAT(got, IsOk());
      ASSERT_EQ(got->size(), want.size());
      for (size_t o = 0; o < want.size(); ++o) {
        ASSERT_EQ((*got)[o].aval.shape(), want[o].aval.shape());
        for (size_t i = 0; i < want[o].values.size(); ++i) {
          EXPECT_TRUE(Close(want[o].values[i], (*got)[o].values[i], want[o].aval.dtype()))
              << suffix << " output " << o << " element " << i << ": " << (*got)[o].values[i]
              << " where JAX gives " << want[o].values[i];
        }
      }
      ++cases;
    }
  }
  EXPECT_GE(cases, 60);
  EXPECT_GE(typed, 50);  // the others call them inside a jit (a nested plan)
}

// A FILL_OR_DROP gather fills out-of-bounds windows with JAX's default for the type: the
// minimum of signed and the maximum of unsigned integers (u64's 2^64 - 1 exactly), True.
TEST(ExecIndexingTest, DefaultFillsAreTheIntegerLimits) {
  auto text = [](const std::string& t) {
    return "{ lambda ; a:" + t + "[2] b:i32[2,1]. let c:" + t +
           "[2] = gather[dimension_numbers=GatherDimensionNumbers(offset_dims=(), "
           "collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), "
           "start_indices_batching_dims=()) fill_value=None indices_are_sorted=False "
           "mode=GatherScatterMode.FILL_OR_DROP slice_sizes=(1,) unique_indices=False] a b "
           "in (c,) }";
  };
  auto run = [&](const std::string& t) -> Value {
    ir::ClosedJaxpr j = Parse(text(t));
    absl::StatusOr<Executable> e = Executable::Compile(j);
    EXPECT_THAT(e, IsOk());
    if (!e.ok()) return Value();
    EXPECT_EQ(e->stats().fallbacks, 0) << e->Describe();
    absl::StatusOr<Value> a = Value::Zeros(j.jaxpr.in_avals()[0]);
    ir::HostArray idx{j.jaxpr.in_avals()[1], {1, 7}};
    absl::StatusOr<Value> b = FromHostArray(idx);
    EXPECT_THAT(a, IsOk());
    EXPECT_THAT(b, IsOk());
    absl::StatusOr<std::vector<Value>> out = e->Run({*a, *b});
    EXPECT_THAT(out, IsOk());
    return out.ok() ? (*out)[0] : Value();
  };
  Value s32 = run("i32"), u8 = run("u8"), u64 = run("u64"), s64 = run("i64"), b = run("bool");
  ASSERT_EQ(s32.num_elements(), 2);
  EXPECT_EQ(s32.data<int32_t>()[0], 0);
  EXPECT_EQ(s32.data<int32_t>()[1], std::numeric_limits<int32_t>::min());
  EXPECT_EQ(u8.data<uint8_t>()[1], 255);
  EXPECT_EQ(u64.data<uint64_t>()[1], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(s64.data<int64_t>()[1], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(b.data<bool>()[0], false);
  EXPECT_EQ(b.data<bool>()[1], true);
}

// Indices of a type the executor does not hold (s4) leave the gather to the interpreter
// instead of reaching a typed kernel.
TEST(ExecIndexingTest, UnheldIndexTypesFallBack) {
  ir::ClosedJaxpr j = Parse(
      "{ lambda ; a:f32[4] b:s4[2,1]. let c:f32[2] = gather[dimension_numbers="
      "GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), "
      "operand_batching_dims=(), start_indices_batching_dims=()) fill_value=None "
      "indices_are_sorted=False mode=GatherScatterMode.CLIP slice_sizes=(1,) "
      "unique_indices=False] a b in (c,) }");
  absl::StatusOr<Executable> e = Executable::Compile(j);
  ASSERT_THAT(e, IsOk());
  EXPECT_THAT(e->Describe(), HasSubstr("fallback gather")) << e->Describe();
}

// Integers and keys bit for bit; floats (uniform, normal, dropout: arithmetic on the bits,
// where XLA may contract a multiply-add or use its own erf_inv polynomial) within 1e-6
// relative, JAX's own f32 tolerance.
bool SameBits(const ir::HostArray& got, const ir::HostArray& want) {
  if (got.aval.ShortString() != want.aval.ShortString()) return false;
  const bool floats = IsFloatingPoint(want.aval.dtype());
  for (size_t i = 0; i < want.values.size(); ++i) {
    const double g = got.values[i], w = want.values[i];
    if (floats && std::isfinite(w) && std::fabs(g - w) <= 1e-6 * std::max(1.0, std::fabs(w))) {
      continue;
    }
    if (std::bit_cast<uint64_t>(g) != std::bit_cast<uint64_t>(w)) return false;
  }
  return true;
}

// JAX's PRNG programs (tests/ir/testdata/jax_prng) on the executor give JAX's bits exactly:
// "arg", "const" and "out" lines of each values file are argument specs (keys as key data).
TEST(ExecPrngTest, JaxsPrngProgramsGiveJaxsBitsOnTypedKernels) {
  const std::filesystem::path root = std::filesystem::path(AXE_IR_TESTDATA_DIR) / "jax_prng";
  int programs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    std::string file = entry.path().filename().string();
    if (!file.ends_with(".values.txt") || file == "original.values.txt") continue;
    const std::string name = file.substr(0, file.size() - std::string(".values.txt").size());
    SCOPED_TRACE(name);
    absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(ReadFile(root / (name + ".txt")));
    if (!j.ok()) continue;  // uses a primitive axe does not define yet (prng_test.cc says which)
    std::map<std::string, std::vector<ir::HostArray>> v =
        ReadJaxValues(entry.path(), ir::ParseArgSpec);
    j->consts = v["const"];
    absl::StatusOr<Executable> e = Executable::Compile(*j);
    ASSERT_THAT(e, IsOk());
    if (name.starts_with("bits") || name.starts_with("split") || name.starts_with("seed") ||
        name.starts_with("fold_in") || name.starts_with("threefry2x32")) {
      EXPECT_EQ(e->stats().fallbacks, 0) << e->Describe();
    }
    absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(*j, v["arg"]);
    ASSERT_THAT(got, IsOk());
    ASSERT_EQ(got->size(), v["out"].size());
    for (size_t o = 0; o < got->size(); ++o) {
      EXPECT_TRUE(SameBits((*got)[o], v["out"][o]))
          << "output " << o << ": " << ir::FormatValues((*got)[o]) << " where JAX has "
          << ir::FormatValues(v["out"][o]);
    }
    ++programs;
  }
  EXPECT_GE(programs, 36);
}

constexpr const char* kSoftmax =
    "{ lambda ; a:f32[64,256]. let\n"
    "    b:f32[64] = reduce_max[axes=(1,) out_sharding=None] a\n"
    "    c:f32[64,1] = broadcast_in_dim[broadcast_dimensions=(0,) shape=(64, 1) sharding=None] b\n"
    "    d:f32[64,1] = stop_gradient c\n"
    "    k:f32[64,256] = broadcast_in_dim[broadcast_dimensions=(0, 1) shape=(64, 256) "
    "sharding=None] d\n"
    "    e:f32[64,256] = sub a k\n"
    "    f:f32[64,256] = exp e\n"
    "    g:f32[64] = reduce_sum[axes=(1,) out_sharding=None] f\n"
    "    h:f32[64,1] = broadcast_in_dim[broadcast_dimensions=(0,) shape=(64, 1) sharding=None] g\n"
    "    l:f32[64,256] = broadcast_in_dim[broadcast_dimensions=(0, 1) shape=(64, 256) "
    "sharding=None] h\n"
    "    i:f32[64,256] = div f l\n"
    "  in (i,) }";

TEST(ExecPlanTest, SoftmaxFusesAndMatchesTheInterpreter) {
  ir::ClosedJaxpr j = Parse(kSoftmax);
  absl::StatusOr<Executable> e = Executable::Compile(j);
  ASSERT_THAT(e, IsOk());
  EXPECT_EQ(e->stats().fallbacks, 0) << e->Describe();
  EXPECT_GE(e->stats().fused_groups, 2) << e->Describe();
  // Peak: two full arrays (the input, which the caller holds, and exp's result, which the
  // quotient overwrites), plus the small row values.
  EXPECT_GE(e->stats().peak_bytes, 2 * 64 * 256 * 4) << e->Describe();
  EXPECT_LT(e->stats().peak_bytes, 3 * 64 * 256 * 4) << e->Describe();
  std::mt19937_64 rng(testing_support::TestSeed(7));
  EXPECT_EQ(Differ("softmax", j, rng), "");
}

TEST(ExecPlanTest, MatmulGoesToGemmWithATransposeFlagInsteadOfACopy) {
  // x @ w.T: the rhs contracts its last dimension, which GEMM reads transposed in place.
  ir::ClosedJaxpr j = Parse(
      "{ lambda ; a:f32[33,17] b:f32[9,17]. let c:f32[33,9] = dot_general["
      "dimension_numbers=(([1], [1]), ([], [])) preferred_element_type=float32] a b in (c,) }");
  absl::StatusOr<Executable> e = Executable::Compile(j);
  ASSERT_THAT(e, IsOk());
  EXPECT_THAT(e->Describe(), HasSubstr("gemm rhs^T"));
  EXPECT_THAT(e->Describe(), ::testing::Not(HasSubstr("pack")));
  std::mt19937_64 rng(testing_support::TestSeed(11));
  EXPECT_EQ(Differ("matmul", j, rng), "");
  // Batch dimensions that are not leading are packed first.
  ir::ClosedJaxpr batched = Parse(
      "{ lambda ; a:f32[5,3,4] b:f32[3,4,6]. let c:f32[3,5,6] = dot_general["
      "dimension_numbers=(([2], [1]), ([1], [0])) preferred_element_type=float32] a b in (c,) }");
  EXPECT_EQ(Differ("batched", batched, rng), "");
}

TEST(ExecValuesTest, SixtyFourBitIntegersStayExactPastTwoToThe53) {
  ir::ClosedJaxpr j =
      Parse("{ lambda ; a:i64[2] b:i64[2]. let c:i64[2] = add a b; d:i64[2] = mul c b in (d,) }");
  absl::StatusOr<Executable> e = Executable::Compile(j);
  ASSERT_THAT(e, IsOk());
  absl::StatusOr<Value> a = Value::Zeros(ir::ShapedArray({2}, DType::kS64));
  absl::StatusOr<Value> b = Value::Zeros(ir::ShapedArray({2}, DType::kS64));
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  a->mutable_data<int64_t>()[0] = 9007199254740993;  // 2^53 + 1
  a->mutable_data<int64_t>()[1] = INT64_MAX;
  b->mutable_data<int64_t>()[0] = 1;
  b->mutable_data<int64_t>()[1] = 3;
  absl::StatusOr<std::vector<Value>> out = e->Run({*a, *b});
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ((*out)[0].data<int64_t>()[0], 9007199254740994);
  const uint64_t wrapped = (static_cast<uint64_t>(INT64_MAX) + 3) * 3;
  EXPECT_EQ((*out)[0].data<int64_t>()[1], static_cast<int64_t>(wrapped));
}

TEST(ExecValuesTest, IntegerArithmeticWrapsInItsWidth) {
  ir::ClosedJaxpr j = Parse(
      "{ lambda ; a:i32[3] b:i32[3]. let c:i32[3] = mul a b; d:i32[3] = div a b; "
      "e:i32[3] = rem a b in (c, d, e) }");
  absl::StatusOr<std::vector<ir::HostArray>> out = ExecuteJaxpr(
      j, {ir::HostArray{ir::ShapedArray({3}, DType::kS32), {123456789, -2147483648.0, 7}},
          ir::HostArray{ir::ShapedArray({3}, DType::kS32), {123456789, -1, 0}}});
  ASSERT_THAT(out, IsOk());
  EXPECT_THAT((*out)[0].values, ::testing::ElementsAre(-1757895751, -2147483648.0, 0));
  EXPECT_THAT((*out)[1].values, ::testing::ElementsAre(1, -2147483648.0, -1));  // x / 0 = -1
  EXPECT_THAT((*out)[2].values, ::testing::ElementsAre(0, 0, 7));               // x rem 0 = x
}

TEST(ExecBudgetTest, AProgramOverTheWorkLimitIsRefusedBeforeItRuns) {
  ir::ClosedJaxpr j = Parse(
      "{ lambda ; a:f32[2048,2048] b:f32[2048,2048]. let c:f32[2048,2048] = dot_general["
      "dimension_numbers=(([1], [0]), ([], [])) preferred_element_type=float32] a b in (c,) }");
  ExecOptions options;
  options.max_work = int64_t{1} << 30;
  EXPECT_THAT(Executable::Compile(j, options),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("more than the limit of 1073741824")));
}

TEST(ExecBudgetTest, TheValuesAtTheirPeakAreCheckedAgainstTheMemoryBudget) {
  // The two 16 MiB operands and the 16 MiB product are live at once.
  ir::ClosedJaxpr j = Parse(
      "{ lambda ; a:f32[2048,2048] b:f32[2048,2048]. let c:f32[2048,2048] = dot_general["
      "dimension_numbers=(([1], [0]), ([], [])) preferred_element_type=float32] a b in (c,) }");
  ExecOptions options;
  options.memory = MemoryBudget{int64_t{64} << 20, "a test"};
  absl::StatusOr<Executable> e = Executable::Compile(j, options);
  ASSERT_THAT(e, IsOk());
  EXPECT_GE(e->stats().peak_bytes, int64_t{48} << 20);
  options.memory = MemoryBudget{int64_t{32} << 20, "a test"};
  EXPECT_THAT(Executable::Compile(j, options),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("the program's values at their peak needs about 48.0 MiB")));
  // A value released early leaves its storage for a later one of its size.
  ir::ClosedJaxpr chain = Parse(
      "{ lambda ; a:f32[1048576]. let b:f32[1048576] = sin a; c:f32[1048576] = cos b; "
      "d:f32[1048576] = sin c; e:f32[1048576] = cos d in (e,) }");
  options.memory = std::nullopt;
  absl::StatusOr<Executable> c = Executable::Compile(chain, options);
  ASSERT_THAT(c, IsOk());
  EXPECT_LE(c->stats().peak_bytes, int64_t{16} << 20);
}

TEST(ExecBudgetTest, ACancelledRunStops) {
  ir::ClosedJaxpr j =
      Parse("{ lambda ; a:f32[4]. let b:f32[4] = sin a; c:f32[4] = cos b in (c,) }");
  std::atomic<bool> cancel{true};
  ExecOptions options;
  options.cancel = &cancel;
  absl::StatusOr<Executable> e = Executable::Compile(j, options);
  ASSERT_THAT(e, IsOk());
  absl::StatusOr<Value> a = Value::Zeros(ir::ShapedArray({4}, DType::kF32));
  ASSERT_THAT(a, IsOk());
  EXPECT_THAT(e->Run({*a}), StatusIs(absl::StatusCode::kCancelled, HasSubstr("cancelled")));
}

TEST(ExecValuesTest, ArgumentsAreCheckedAgainstTheJaxpr) {
  ir::ClosedJaxpr j = Parse("{ lambda ; a:f32[4]. let b:f32[4] = sin a in (b,) }");
  absl::StatusOr<Executable> e = Executable::Compile(j);
  ASSERT_THAT(e, IsOk());
  absl::StatusOr<Value> a = Value::Zeros(ir::ShapedArray({3}, DType::kF32));
  ASSERT_THAT(a, IsOk());
  EXPECT_THAT(e->Run({*a}), StatusIs(absl::StatusCode::kInvalidArgument,
                                     HasSubstr("argument 0 has type f32[3] but the jaxpr's "
                                               "input 0 is f32[4]")));
  EXPECT_THAT(e->Run({}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("takes 1 arguments, got 0")));
}

// Random chains of elementwise operations with broadcasts, fused, against the interpreter.
TEST(ExecDifferentialTest, RandomElementwiseChainsFuseAndMatch) {
  std::mt19937_64 rng(testing_support::TestSeed(2811));
  // floor is left out: it turns the last-ulp differences of sin and cos into whole units.
  const char* unary[] = {"neg", "sin", "cos", "tanh", "exp", "logistic", "abs", "square", "sign"};
  const char* binary[] = {"add", "sub", "mul", "max", "min"};
  for (int trial = 0; trial < 60; ++trial) {
    std::string body =
        "    c:f32[3,700] = broadcast_in_dim[broadcast_dimensions=(1,) "
        "shape=(3, 700) sharding=None] b\n";
    std::string last = "a";
    std::vector<std::string> names = {"a", "c"};
    const int ops = 2 + static_cast<int>(rng() % 8);
    for (int k = 0; k < ops; ++k) {
      std::string out = absl::StrCat("v", k);
      if (rng() % 2 == 0) {
        absl::StrAppend(&body, "    ", out, ":f32[3,700] = ", unary[rng() % 9], " ", last, "\n");
      } else {
        const std::string& other = names[rng() % names.size()];
        absl::StrAppend(&body, "    ", out, ":f32[3,700] = ", binary[rng() % 5], " ", last, " ",
                        other, "\n");
      }
      names.push_back(out);
      last = out;
    }
    std::string text =
        absl::StrCat("{ lambda ; a:f32[3,700] b:f32[700]. let\n", body, "  in (", last, ", v0) }");
    ir::ClosedJaxpr j = Parse(text);
    absl::StatusOr<Executable> e = Executable::Compile(j);
    ASSERT_THAT(e, IsOk());
    EXPECT_EQ(e->stats().fallbacks, 0) << e->Describe();
    EXPECT_EQ(e->stats().fused_groups, 1) << e->Describe();
    EXPECT_EQ(Differ(absl::StrCat("chain ", trial), j, rng), "") << text;
  }
}

// convert_element_type's edge values (NaN, infinities, out of range, wrap) as the interpreter
// gives them (XLA's rules), through the typed conversion kernels.
TEST(ExecValuesTest, ConversionsOfEdgeValuesMatchTheInterpreter) {
  ir::ClosedJaxpr j = Parse(
      "{ lambda ; a:f32[7] b:i32[3]. let c:i32[7] = convert_element_type[new_dtype=int32 "
      "weak_type=False] a; d:u8[7] = convert_element_type[new_dtype=uint8 weak_type=False] a; "
      "e:bool[7] = convert_element_type[new_dtype=bool weak_type=False] a; "
      "f:i8[3] = convert_element_type[new_dtype=int8 weak_type=False] b; "
      "g:bool[7] = ne a a; z:f32[7] = broadcast_in_dim[broadcast_dimensions=() shape=(7,) "
      "sharding=None] 0.0:f32[]; h:f32[7] = select_n g a z in (c, d, e, f, h) }");
  std::vector<ir::HostArray> args = {
      ir::HostArray{ir::ShapedArray({7}, DType::kF32),
                    {NAN, INFINITY, -INFINITY, 3.75, -3.75, 3e9, -0.0}},
      ir::HostArray{ir::ShapedArray({3}, DType::kS32), {300, -129, 127}}};
  absl::StatusOr<std::vector<ir::HostArray>> want = ir::EvalJaxpr(j, args);
  absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(j, args);
  ASSERT_THAT(want, IsOk());
  ASSERT_THAT(got, IsOk());
  absl::StatusOr<Executable> e = Executable::Compile(j);
  ASSERT_THAT(e, IsOk());
  EXPECT_EQ(e->stats().fallbacks, 0) << e->Describe();
  for (size_t o = 0; o < want->size(); ++o) {
    for (size_t i = 0; i < (*want)[o].values.size(); ++i) {
      const double w = (*want)[o].values[i], g = (*got)[o].values[i];
      EXPECT_TRUE((std::isnan(w) && std::isnan(g)) || w == g)
          << "output " << o << " element " << i << ": " << g << " vs " << w;
    }
  }
}

// A scan whose carry is also its ys (an RNN's `return h, h`), run for many steps: the carry's
// storage is swapped step to step and handed back to the pool, so a step writing into storage
// that is still read would show here. The body's small dot_general (16 columns at a time in
// registers, then the rest) must give the f32 sums in k order exactly, step after step.
std::string ScanText(bool reverse) {
  return absl::StrCat(
      "{ lambda ; a:f32[40,40] b:f32[40] c:f32[300,40]. let\n"
      "    d:f32[40] e:f32[300,40] = scan[\n"
      "      jaxpr={ lambda ; f:f32[40,40] g:f32[40] h:f32[40]. let\n"
      "          i:f32[40] = dot_general[dimension_numbers=(([0], [0]), ([], []))\n"
      "            preferred_element_type=float32] g f\n"
      "          j:f32[40] = add i h\n"
      "        in (j, j) }\n"
      "      length=300 num_carry=1 num_consts=1\n"
      "      reverse=",
      reverse ? "True" : "False",
      " unroll=1\n"
      "    ] a b c\n"
      "  in (d, e) }");
}

TEST(ExecScanTest, ACarryThatIsAlsoTheYsStepsExactly) {
  std::mt19937_64 rng(testing_support::TestSeed(41));
  std::uniform_real_distribution<float> small(-0.03f, 0.03f), unit(-1.0f, 1.0f);
  std::vector<float> w(40 * 40), h0(40), xs(300 * 40);
  for (float& v : w) v = small(rng);
  for (float& v : h0) v = unit(rng);
  for (float& v : xs) v = unit(rng);
  auto host = [](std::vector<int64_t> shape, const std::vector<float>& v) {
    return ir::HostArray{ir::ShapedArray(std::move(shape), DType::kF32),
                         std::vector<double>(v.begin(), v.end())};
  };
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    std::vector<float> h = h0, ys(300 * 40);
    for (int t = 0; t < 300; ++t) {
      const int i = reverse ? 299 - t : t;
      std::vector<float> next(40, 0.0f);
      for (int j = 0; j < 40; ++j) {
        for (int p = 0; p < 40; ++p) next[j] += h[p] * w[p * 40 + j];
        next[j] += xs[i * 40 + j];
      }
      h = next;
      std::copy(h.begin(), h.end(), ys.begin() + i * 40);
    }
    ir::ClosedJaxpr j = Parse(ScanText(reverse));
    absl::StatusOr<std::vector<ir::HostArray>> got =
        ExecuteJaxpr(j, {host({40, 40}, w), host({40}, h0), host({300, 40}, xs)});
    ASSERT_THAT(got, IsOk());
    ASSERT_EQ(got->size(), 2u);
    EXPECT_EQ((*got)[0].values, std::vector<double>(h.begin(), h.end()));
    EXPECT_EQ((*got)[1].values, std::vector<double>(ys.begin(), ys.end()));
  }
}

// Small products as plain loops: every operand order GEMM reads (transposed or not), columns
// in blocks of 16 and a remainder, each sum in k order exactly as f32 adds it.
TEST(ExecPlanTest, SmallProductsSumInKOrderExactly) {
  std::mt19937_64 rng(testing_support::TestSeed(43));
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  constexpr int m = 3, k = 21, n = 37;
  for (bool lhs_t : {false, true}) {
    for (bool rhs_t : {false, true}) {
      SCOPED_TRACE(absl::StrCat("lhs^T ", lhs_t, " rhs^T ", rhs_t));
      std::vector<float> a(m * k), b(k * n);
      for (float& v : a) v = unit(rng);
      for (float& v : b) v = unit(rng);
      auto at = [&](int i, int p) { return lhs_t ? a[p * m + i] : a[i * k + p]; };
      auto bt = [&](int p, int j) { return rhs_t ? b[j * k + p] : b[p * n + j]; };
      std::vector<double> want;
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          float sum = 0.0f;
          for (int p = 0; p < k; ++p) sum += at(i, p) * bt(p, j);
          want.push_back(sum);
        }
      }
      const std::string a_type = lhs_t ? "f32[21,3]" : "f32[3,21]";
      const std::string b_type = rhs_t ? "f32[37,21]" : "f32[21,37]";
      ir::ClosedJaxpr j = Parse(absl::StrCat(
          "{ lambda ; a:", a_type, " b:", b_type,
          ". let c:f32[3,37] = dot_general[dimension_numbers=(([", lhs_t ? 0 : 1, "], [",
          rhs_t ? 1 : 0, "]), ([], [])) preferred_element_type=float32] a b in (c,) }"));
      absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(
          j, {ir::HostArray{j.jaxpr.in_avals()[0], std::vector<double>(a.begin(), a.end())},
              ir::HostArray{j.jaxpr.in_avals()[1], std::vector<double>(b.begin(), b.end())}});
      ASSERT_THAT(got, IsOk());
      EXPECT_EQ((*got)[0].values, want);
    }
  }
}

// A layer norm as JAX prints it: `x - mean` has one reader, the `* rsqrt(var + eps)` after
// the variance's row values, so it moves next to it and the two fuse (the difference never
// reaches memory), while the rows' `add, rsqrt` join the variance's division.
constexpr const char* kLayerNorm =
    "{ lambda ; a:f32[64,96]. let\n"
    "    b:f32[64] = reduce_sum[axes=(1,) out_sharding=None] a\n"
    "    c:f32[64,1] = broadcast_in_dim[broadcast_dimensions=(0,) shape=(64, 1) sharding=None] b\n"
    "    d:f32[64,1] = div c 96.0:f32[]\n"
    "    e:f32[64,96] = sub a d\n"
    "    f:f32[64,96] = integer_pow[y=2] e\n"
    "    g:f32[64] = reduce_sum[axes=(1,) out_sharding=None] f\n"
    "    h:f32[64,1] = broadcast_in_dim[broadcast_dimensions=(0,) shape=(64, 1) sharding=None] g\n"
    "    i:f32[64,1] = div h 96.0:f32[]\n"
    "    j:f32[64,96] = sub a d\n"
    "    k:f32[64,1] = add i 9.999999747378752e-06:f32[]\n"
    "    l:f32[64,1] = rsqrt k\n"
    "    m:f32[64,96] = mul j l\n"
    "  in (m,) }";

TEST(ExecPlanTest, AProducerWithOneReaderMovesNextToItAndFuses) {
  ir::ClosedJaxpr j = Parse(kLayerNorm);
  absl::StatusOr<Executable> e = Executable::Compile(j);
  ASSERT_THAT(e, IsOk());
  EXPECT_THAT(e->Describe(), HasSubstr("fused[sub,mul]"));
  EXPECT_THAT(e->Describe(), HasSubstr("fused[broadcast_in_dim,div,add,rsqrt]"));
  EXPECT_EQ(e->stats().fused_groups, 4) << e->Describe();
  std::mt19937_64 rng(testing_support::TestSeed(47));
  EXPECT_EQ(Differ("layernorm", j, rng), "");
}

// A reduction along the last dimension of a value only it reads ends the fused group before
// it: the group runs row by row and folds each row from a buffer, in the reduce kernel's own
// order, so the sums, maxima and minima (NaN included) are those of the unfused plan bit for
// bit. Rows of 2500 take two tiles, the second partial.
TEST(ExecPlanTest, AReductionFoldsItsGroupsRowsExactly) {
  for (const char* reduce : {"reduce_sum", "reduce_max", "reduce_min"}) {
    SCOPED_TRACE(reduce);
    const std::string body = absl::StrCat(
        "{ lambda ; a:f32[7,2500] b:f32[7,1]. let\n"
        "    c:f32[7,2500] = sub a b\n"
        "    d:f32[7,2500] = integer_pow[y=2] c\n"
        "    e:f32[7] = ",
        reduce, "[axes=(1,)", absl::string_view(reduce) == "reduce_sum" ? " out_sharding=None" : "",
        "] d\n");
    ir::ClosedJaxpr folded = Parse(absl::StrCat(body, "  in (e,) }"));
    // With the squares also an output, they are written and reduced by the reduce kernel.
    ir::ClosedJaxpr apart = Parse(absl::StrCat(body, "  in (e, d) }"));
    absl::StatusOr<Executable> e = Executable::Compile(folded);
    ASSERT_THAT(e, IsOk());
    EXPECT_THAT(e->Describe(), HasSubstr(absl::StrCat("fused[sub,integer_pow,", reduce, "]")));
    absl::StatusOr<Executable> e2 = Executable::Compile(apart);
    ASSERT_THAT(e2, IsOk());
    EXPECT_THAT(e2->Describe(), HasSubstr("reduce rows"));
    std::mt19937_64 rng(testing_support::TestSeed(53));
    std::vector<ir::HostArray> args;
    for (const ir::ShapedArray& a : folded.jaxpr.in_avals()) args.push_back(RandomArray(a, rng));
    args[0].values[2500 * 3 + 17] = std::nan("");
    absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(folded, args);
    absl::StatusOr<std::vector<ir::HostArray>> want = ExecuteJaxpr(apart, args);
    ASSERT_THAT(got, IsOk());
    ASSERT_THAT(want, IsOk());
    const std::vector<double>& g = (*got)[0].values;
    const std::vector<double>& w = (*want)[0].values;
    ASSERT_EQ(g.size(), 7u);
    ASSERT_EQ(w.size(), 7u);
    for (size_t r = 0; r < 7; ++r) {
      EXPECT_TRUE(std::isnan(w[r]) ? std::isnan(g[r]) : g[r] == w[r])
          << "row " << r << ": " << g[r] << " where the reduce kernel gives " << w[r];
    }
    EXPECT_TRUE(std::isnan(g[3]));
  }
}

// x**2 runs as x * x: the f32 product of the square-and-multiply (1 * (x * x)), which is also
// the interpreter's exact double product rounded once, so the two agree bit for bit on edge
// values too.
TEST(ExecValuesTest, IntegerPowTwoIsTheRoundedSquare) {
  ir::ClosedJaxpr j = Parse("{ lambda ; a:f32[9]. let b:f32[9] = integer_pow[y=2] a in (b,) }");
  const double inf = std::numeric_limits<double>::infinity();
  ir::HostArray x{
      ir::ShapedArray({9}, DType::kF32),
      {-0.0, 1.5, -3.0000002384185791, 1e-30, 3e19, -inf, std::nan(""), 1.0000001192092896, -7.25}};
  absl::StatusOr<std::vector<ir::HostArray>> want = ir::EvalJaxpr(j, {x});
  absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(j, {x});
  ASSERT_THAT(want, IsOk());
  ASSERT_THAT(got, IsOk());
  for (size_t i = 0; i < 9; ++i) {
    const double w = (*want)[0].values[i], g = (*got)[0].values[i];
    EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : (g == w && std::signbit(g) == std::signbit(w)))
        << "element " << i << ": " << g << " where the interpreter gives " << w;
  }
}

}  // namespace
}  // namespace exec_test
}  // namespace axe::exec

namespace axe::exec {
namespace fusion_regression_test {
namespace {

// A fused group whose broadcast_in_dim reads a value the group itself computed (a scalar
// product broadcast to a scalar, found by the fuzzer): it once read that value from memory
// the group never wrote.
TEST(ExecFusionTest, ABroadcastOfAValueTheGroupComputedIsItsRegister) {
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(R"({ lambda ; a:f32[2,3] b:f32[] c:f32[]. let
    d:f32[] = mul c b
    e:f32[] = broadcast_in_dim d
    f:f32[2,3] = mul a e
    g:f32[] = neg e
  in (f, g) })");
  ASSERT_TRUE(j.ok()) << j.status();
  std::mt19937_64 rng(testing_support::TestSeed(5));
  EXPECT_EQ(exec_test::Differ("broadcast of an in-group value", *j, rng), "");
}

}  // namespace
}  // namespace fusion_regression_test
}  // namespace axe::exec
