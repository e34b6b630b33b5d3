// Programs run in dense layouts: every jaxpr JAX printed for the IR's tests, with random
// minor_to_major for its inputs and outputs, gives the interpreter's values (integers exactly);
// the transposes the layouts make free are gone from the plan; bad layouts are refused.
#include "axe/exec/layouts.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "support/testdata.h"

namespace axe::exec {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

using Perm = std::vector<int64_t>;

ir::ClosedJaxpr Parse(const std::string& text) {
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(text);
  EXPECT_THAT(j, IsOk()) << text;
  return j.ok() ? *j : ir::ClosedJaxpr{};
}

// The row-major offset in `shape` of the logical element at physical row-major offset `p` of
// a value stored with `minor_to_major`.
int64_t LogicalOffset(const std::vector<int64_t>& shape, const Perm& minor_to_major, int64_t p) {
  std::vector<int64_t> index(shape.size());
  for (int64_t d : minor_to_major) {  // minor first
    const int64_t e = shape[static_cast<size_t>(d)];
    index[static_cast<size_t>(d)] = p % e;
    p /= e;
  }
  int64_t offset = 0;
  for (size_t d = 0; d < shape.size(); ++d) offset = offset * shape[d] + index[d];
  return offset;
}

ir::HostArray ToPhysical(const ir::HostArray& a, const Perm& m) {
  if (m.empty()) return a;
  ir::HostArray out{a.aval.WithShape(PhysicalShape(a.aval.shape(), m)), a.values};
  for (size_t p = 0; p < a.values.size(); ++p) {
    out.values[p] = a.values[static_cast<size_t>(LogicalOffset(a.aval.shape(), m, p))];
  }
  return out;
}

ir::HostArray ToLogical(const ir::HostArray& physical, const ir::ShapedArray& logical,
                        const Perm& m) {
  ir::HostArray out{logical.WithVma({}), physical.values};
  if (m.empty()) return out;
  for (size_t p = 0; p < physical.values.size(); ++p) {
    out.values[static_cast<size_t>(LogicalOffset(logical.shape(), m, p))] = physical.values[p];
  }
  return out;
}

Perm RandomLayout(size_t rank, std::mt19937_64& rng) {
  if (rank < 2) return {};
  Perm m(rank);
  std::iota(m.begin(), m.end(), 0);
  std::shuffle(m.begin(), m.end(), rng);
  return m;
}

ir::HostArray RandomArray(const ir::ShapedArray& aval, std::mt19937_64& rng) {
  ir::HostArray a{aval.WithVma({}),
                  std::vector<double>(static_cast<size_t>(aval.NumElements().value_or(0)))};
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  for (double& v : a.values) {
    if (aval.dtype() == DType::kPred) {
      v = static_cast<double>(rng() % 2);
    } else if (IsUnsignedIntegral(aval.dtype())) {
      v = static_cast<double>(rng() % 11);
    } else if (IsIntegral(aval.dtype())) {
      v = static_cast<double>(static_cast<int>(rng() % 11) - 5);
    } else {
      v = ir::RoundToDType(real(rng), aval.dtype());
    }
  }
  return a;
}

// Integers and keys exactly; floats within f32's tolerance (reductions may add in another
// order), the 16-bit types within 1e-2.
bool Close(double want, double got, DType t) {
  if (IsKeyType(t)) return std::bit_cast<uint64_t>(want) == std::bit_cast<uint64_t>(got);
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (!IsFloatingPoint(t)) return want == got;
  if (std::isinf(want) || std::isinf(got)) return want == got;
  const double tol = (t == DType::kF16 || t == DType::kBF16) ? 1e-2 : 1e-4;
  return std::fabs(want - got) <= tol * std::max(1.0, std::fabs(want));
}

// Runs `j` on the interpreter (row-major) and in random layouts on the executor; "" or the
// first difference.
std::string DifferInLayouts(const std::string& name, const ir::ClosedJaxpr& j,
                            std::mt19937_64& rng) {
  ProgramLayouts layouts;
  std::vector<ir::HostArray> args, physical;
  for (const ir::ShapedArray& a : j.jaxpr.in_avals()) {
    layouts.inputs.push_back(RandomLayout(a.rank(), rng));
    args.push_back(RandomArray(a, rng));
    physical.push_back(ToPhysical(args.back(), layouts.inputs.back()));
  }
  const std::vector<ir::ShapedArray> out_avals = j.jaxpr.out_avals();
  for (const ir::ShapedArray& a : out_avals) layouts.outputs.push_back(RandomLayout(a.rank(), rng));
  absl::StatusOr<std::vector<ir::HostArray>> want = ir::EvalJaxpr(j, args);
  if (!want.ok()) return "";  // the interpreter refuses it (a collective alone, ...)
  absl::StatusOr<ir::ClosedJaxpr> edged = WithPhysicalEdges(j, layouts);
  if (!edged.ok()) return absl::StrCat(name, ": ", edged.status().ToString());
  const ir::ClosedJaxpr folded = FoldTransposes(*edged);
  if (absl::Status s = ir::CheckJaxpr(folded); !s.ok()) {
    return absl::StrCat(name, ": the folded program does not type-check: ", s.ToString(), "\n",
                        ir::PrintJaxpr(folded));
  }
  absl::StatusOr<Executable> e = CompileInLayouts(j, layouts);
  if (!e.ok()) return absl::StrCat(name, ": compile failed: ", e.status().ToString());
  std::vector<Value> values;
  for (const ir::HostArray& a : physical) values.push_back(*FromHostArray(a));
  absl::StatusOr<std::vector<Value>> got = e->Run(values);
  if (!got.ok()) return absl::StrCat(name, ": run failed: ", got.status().ToString());
  for (size_t o = 0; o < want->size(); ++o) {
    const ir::HostArray& w = (*want)[o];
    const ir::HostArray g = ToLogical(ToHostArray((*got)[o]), out_avals[o], layouts.outputs[o]);
    for (size_t i = 0; i < w.values.size(); ++i) {
      if (!Close(w.values[i], g.values[i], w.aval.dtype())) {
        return absl::StrCat(name, ": output ", o, " element ", i, ": ", g.values[i],
                            " where the interpreter gives ", w.values[i], "\n",
                            ir::PrintJaxpr(folded));
      }
    }
  }
  return "";
}

TEST(ExecLayoutsTest, EveryJaxPrintedProgramInRandomLayoutsMatchesTheInterpreter) {
  std::mt19937_64 rng(testing_support::TestSeed(29));
  int programs = 0;
  std::vector<std::string> differences;
  for (const char* dir : {"jax", "jax_more", "jax_ad", "jax_shared", "jax_indexing", "jax_conv",
                          "jax_sort", "jax_math", "jax_prng"}) {
    const std::filesystem::path root = std::filesystem::path(AXE_IR_TESTDATA_DIR) / dir;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(root)) {
      if (entry.path().extension() == ".txt") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const std::filesystem::path& file : files) {
      absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(testing_support::ReadFile(file));
      if (!j.ok() || !j->jaxpr.constvars.empty()) continue;  // values files, closures
      ++programs;
      std::string d = DifferInLayouts(file.filename().string(), *j, rng);
      if (!d.empty()) differences.push_back(d);
    }
  }
  EXPECT_GT(programs, 100);
  EXPECT_THAT(differences, ::testing::IsEmpty());
}

// Random chains of integer and float elementwise operations, reductions, transposes and
// matmuls in random layouts: integers bit for bit.
TEST(ExecLayoutsTest, RandomProgramsInRandomLayoutsMatch) {
  std::mt19937_64 rng(testing_support::TestSeed(30));
  const std::vector<std::string> programs = {
      "{ lambda ; a:i32[3,4,5] b:i32[3,4,5]. let c:i32[3,4,5] = mul a b; "
      "d:i32[3,4,5] = add c 7:i32[]; e:i32[4,5] = reduce_sum[axes=(0,) out_sharding=None] d; "
      "f:i32[5,4] = transpose[permutation=(1, 0)] e in (f, d) }",
      "{ lambda ; a:u32[6,7] b:u32[7,6]. let c:u32[7,6] = transpose[permutation=(1, 0)] a; "
      "d:u32[7,6] = mul c b; e:u32[7] = reduce_max[axes=(1,) out_sharding=None] d in (e, d) }",
      "{ lambda ; a:f32[8,16] b:f32[8,4]. let c:f32[16,8] = transpose[permutation=(1, 0)] a; "
      "d:f32[16,4] = dot_general[dimension_numbers=(([1], [0]), ([], [])) "
      "preferred_element_type=float32] c b; e:f32[16,4] = tanh d in (e,) }",
      "{ lambda ; a:f32[3,8,5] b:f32[3,5,6]. let c:f32[3,8,6] = dot_general["
      "dimension_numbers=(([2], [1]), ([0], [0])) preferred_element_type=float32] a b in (c,) }",
      "{ lambda ; a:f32[8,5] b:f32[6,5]. let c:f32[8,6] = dot_general["
      "dimension_numbers=(([1], [1]), ([], [])) preferred_element_type=float32] a b in (c,) }",
      "{ lambda ; a:i64[2,3,4,5]. let b:i64[5,3,2,4] = transpose[permutation=(3, 1, 0, 2)] a; "
      "c:i64[5,2] = reduce_min[axes=(1, 3) out_sharding=None] b; d:i64[5,2] = neg c in (d, b) }",
  };
  std::vector<std::string> differences;
  for (const std::string& text : programs) {
    const ir::ClosedJaxpr j = Parse(text);
    for (int trial = 0; trial < 24; ++trial) {
      std::string d = DifferInLayouts(text, j, rng);
      if (!d.empty()) differences.push_back(d);
    }
  }
  EXPECT_THAT(differences, ::testing::IsEmpty());
}

TEST(ExecLayoutsTest, ElementwiseInAndOutInTheSameLayoutTransposesNothing) {
  const ir::ClosedJaxpr j = Parse(
      "{ lambda ; a:f32[64,32] b:f32[64,32]. let c:f32[64,32] = mul a b; "
      "d:f32[64,32] = exp c in (d,) }");
  absl::StatusOr<Executable> e = CompileInLayouts(j, {{{0, 1}, {0, 1}}, {{0, 1}}});
  ASSERT_THAT(e, IsOk());
  EXPECT_THAT(e->Describe(), Not(HasSubstr("transpose"))) << e->Describe();
  EXPECT_EQ(e->input_avals()[0].shape(), (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(e->output_avals()[0].shape(), (std::vector<int64_t>{32, 64}));
  // Row-major output: one transpose, after the fused group.
  absl::StatusOr<Executable> mixed = CompileInLayouts(j, {{{0, 1}, {0, 1}}, {{1, 0}}});
  ASSERT_THAT(mixed, IsOk());
  EXPECT_EQ(mixed->stats().fused_groups, 1) << mixed->Describe();
}

TEST(ExecLayoutsTest, AColumnMajorSoftmaxTransposesNothing) {
  // jax.nn.softmax(x, axis=-1) as JAX prints it: with x and the result column-major, the
  // reductions run down the stored columns, the broadcasts are made in the stored order and
  // every elementwise operation runs on the stored values.
  const ir::ClosedJaxpr j = Parse(R"({ lambda ; a:f32[64,32]. let
    b:f32[64] = reduce_max[axes=(1,)] a
    c:f32[64] = max -inf:f32[] b
    d:f32[64,1] = broadcast_in_dim[broadcast_dimensions=(0,)] c
    e:f32[64,1] = stop_gradient d
    f:f32[64,32] = sub a e
    g:f32[64,32] = exp f
    h:f32[64] = reduce_sum[axes=(1,) out_sharding=None] g
    i:f32[64,1] = broadcast_in_dim[broadcast_dimensions=(0,)] h
    j:f32[64,32] = div g i
  in (j,) })");
  absl::StatusOr<Executable> e = CompileInLayouts(j, {{{0, 1}}, {{0, 1}}});
  ASSERT_THAT(e, IsOk());
  EXPECT_THAT(e->Describe(), Not(HasSubstr("transpose"))) << e->Describe();
  std::mt19937_64 rng(testing_support::TestSeed(31));
  for (int trial = 0; trial < 8; ++trial) EXPECT_EQ(DifferInLayouts("softmax", j, rng), "");
}

TEST(ExecLayoutsTest, ATransposeFeedingAMatmulBecomesAGemmFlag) {
  // x.T @ w with x stored column-major: the GEMM reads x's storage as it is.
  const ir::ClosedJaxpr j = Parse(
      "{ lambda ; a:f32[64,32] b:f32[64,16]. let c:f32[32,64] = transpose[permutation=(1, 0)] a; "
      "d:f32[32,16] = dot_general[dimension_numbers=(([1], [0]), ([], [])) "
      "preferred_element_type=float32] c b in (d,) }");
  for (const Perm& m : {Perm{0, 1}, Perm{1, 0}}) {
    absl::StatusOr<Executable> e = CompileInLayouts(j, {{m, {}}, {}});
    ASSERT_THAT(e, IsOk());
    EXPECT_THAT(e->Describe(), Not(HasSubstr("transpose"))) << e->Describe();
    EXPECT_THAT(e->Describe(), Not(HasSubstr("pack"))) << e->Describe();
  }
  absl::StatusOr<ir::ClosedJaxpr> edged = WithPhysicalEdges(j, {{{0, 1}, {}}, {}});
  ASSERT_THAT(edged, IsOk());
  EXPECT_EQ(ir::PrintJaxpr(FoldTransposes(*edged)),
            "{ lambda ; a:f32[32,64] b:f32[64,16]. let\n"
            "    c:f32[32,16] = dot_general[\n"
            "      dimension_numbers=(([1], [0]), ([], []))\n"
            "      preferred_element_type=float32\n"
            "    ] a b\n"
            "  in (c,) }");
}

TEST(ExecLayoutsTest, AColumnMajorMatmulResultSwapsTheOperands) {
  // (x @ w) stored column-major is w.T @ x.T row-major: one GEMM, no transpose.
  const ir::ClosedJaxpr j = Parse(
      "{ lambda ; a:f32[32,64] b:f32[64,16]. let c:f32[32,16] = dot_general["
      "dimension_numbers=(([1], [0]), ([], [])) preferred_element_type=float32] a b in (c,) }");
  absl::StatusOr<ir::ClosedJaxpr> edged = WithPhysicalEdges(j, {{}, {{0, 1}}});
  ASSERT_THAT(edged, IsOk());
  EXPECT_EQ(ir::PrintJaxpr(FoldTransposes(*edged)),
            "{ lambda ; a:f32[32,64] b:f32[64,16]. let\n"
            "    c:f32[16,32] = dot_general[\n"
            "      dimension_numbers=(([0], [1]), ([], []))\n"
            "      preferred_element_type=float32\n"
            "    ] b a\n"
            "  in (c,) }");
  absl::StatusOr<Executable> e = CompileInLayouts(j, {{}, {{0, 1}}});
  ASSERT_THAT(e, IsOk());
  EXPECT_THAT(e->Describe(), Not(HasSubstr("transpose"))) << e->Describe();
  EXPECT_THAT(e->Describe(), Not(HasSubstr("pack"))) << e->Describe();
}

TEST(ExecLayoutsTest, AColumnReductionOfAColumnMajorValueReducesRows) {
  const ir::ClosedJaxpr j = Parse(
      "{ lambda ; a:f32[64,32]. let b:f32[32] = reduce_sum[axes=(0,) out_sharding=None] a "
      "in (b,) }");
  absl::StatusOr<ir::ClosedJaxpr> edged = WithPhysicalEdges(j, {{{0, 1}}, {}});
  ASSERT_THAT(edged, IsOk());
  EXPECT_EQ(ir::PrintJaxpr(FoldTransposes(*edged)),
            "{ lambda ; a:f32[32,64]. let\n"
            "    b:f32[32] = reduce_sum[axes=(1,) out_sharding=None] a\n"
            "  in (b,) }");
}

TEST(ExecLayoutsTest, AColumnOfAColumnMajorValueIsReadInPlaceAndRelabeled) {
  // y[:, 0] of a column-major y: a contiguous slice of the storage, then a relabel.
  const ir::ClosedJaxpr j = Parse(
      "{ lambda ; a:f32[512,1024]. let b:f32[512,1] = slice[limit_indices=(512, 1) "
      "start_indices=(0, 0) strides=None] a; c:f32[512] = squeeze[dimensions=(1,)] b in (c,) }");
  absl::StatusOr<ir::ClosedJaxpr> edged = WithPhysicalEdges(j, {{{0, 1}}, {}});
  ASSERT_THAT(edged, IsOk());
  EXPECT_EQ(ir::PrintJaxpr(FoldTransposes(*edged)),
            "{ lambda ; a:f32[1024,512]. let\n"
            "    b:f32[1,512] = slice[\n"
            "      limit_indices=(1, 512)\n"
            "      start_indices=(0, 0)\n"
            "      strides=None\n"
            "    ] a\n"
            "    c:f32[512,1] = reshape[dimensions=None new_sizes=(512, 1) sharding=None] b\n"
            "    d:f32[512] = squeeze[dimensions=(1,)] c\n"
            "  in (d,) }");
  absl::StatusOr<Executable> e = CompileInLayouts(j, {{{0, 1}}, {}});
  ASSERT_THAT(e, IsOk());
  EXPECT_THAT(e->Describe(), Not(HasSubstr("transpose"))) << e->Describe();
}

TEST(ExecLayoutsTest, LayoutsThatDoNotFitTheProgramAreRefused) {
  const ir::ClosedJaxpr j = Parse("{ lambda ; a:f32[4,3]. let b:f32[4,3] = neg a in (b,) }");
  EXPECT_THAT(CompileInLayouts(j, {{{0, 0}}, {}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("input 0: minor_to_major {0,0} is not a permutation of its 2 "
                                 "dimensions")));
  EXPECT_THAT(CompileInLayouts(j, {{}, {{0, 1, 2}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("output 0: minor_to_major {0,1,2} is not a permutation")));
  EXPECT_THAT(CompileInLayouts(j, {{{0, 1}, {1, 0}}, {}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("2 input layouts for a program with 1 inputs")));
}

}  // namespace
}  // namespace axe::exec
