// EvalJaxpr on the jaxprs the real JAX printed (tests/ir/testdata/jax), against values
// computed by hand; shard_map bodies run on the host's simulated mesh.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/testdata.h"

namespace axe::ir {
namespace eval_jax_test {
namespace {

using ::axe::testing_support::IsOk;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

HostArray Iota(const std::string& aval) {
  ShapedArray a = *ShapedArray::ParseShort(aval);
  HostArray h{a, std::vector<double>(static_cast<size_t>(*a.NumElements()))};
  for (size_t i = 0; i < h.values.size(); ++i) h.values[i] = static_cast<double>(i);
  return h;
}

HostArray A(const std::string& aval, std::vector<double> values) {
  return HostArray{*ShapedArray::ParseShort(aval), std::move(values)};
}

std::vector<HostArray> EvalFile(const std::string& name, std::vector<HostArray> args) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(testing_support::ReadJaxProgram(name));
  EXPECT_THAT(j, IsOk()) << name;
  if (!j.ok()) return {};
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(*j, args);
  EXPECT_THAT(out, IsOk()) << name;
  return out.ok() ? *out : std::vector<HostArray>{};
}

TEST(EvalJaxTest, CondTakesTheBranchOfTheIndex) {
  EXPECT_THAT(EvalFile("cond_jp2", {A("f32[]", {3})})[0].values, ElementsAre(7));   // (x+1)+x
  EXPECT_THAT(EvalFile("cond_jp2", {A("f32[]", {-1})})[0].values, ElementsAre(2));  // (x+2)-x
}

TEST(EvalJaxTest, ScanCarriesAndStacks) {
  std::vector<HostArray> out = EvalFile("scan", {A("f32[5]", {1, 2, 3, 4, 5})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0].values, ElementsAre(15));
  EXPECT_THAT(out[1].values, ElementsAre(0, 2, 9, 24, 50));
}

TEST(EvalJaxTest, JitAndLiterals) {
  EXPECT_THAT(EvalFile("jit_call", {A("f32[3]", {1, 2, 3})})[0].values, ElementsAre(3, 5, 7));
  EXPECT_THAT(EvalFile("iota", {A("f32[4]", {1, 1, 1, 1})})[0].values, ElementsAre(1, 2, 3, 4));
}

TEST(EvalJaxTest, DynamicSliceWrapsNegativeIndexThenClamps) {
  // jnp semantics in the jaxpr: -1 -> 7, then XLA clamps 7 to 6.
  EXPECT_THAT(EvalFile("dynamic_slice", {Iota("f32[8]"), A("i32[]", {-1})})[0].values,
              ElementsAre(6, 7));
  EXPECT_THAT(EvalFile("dynamic_slice", {Iota("f32[8]"), A("i32[]", {2})})[0].values,
              ElementsAre(2, 3));
}

TEST(EvalJaxTest, StructuralPrograms) {
  EXPECT_THAT(EvalFile("dot", {Iota("f32[2,3]"), Iota("f32[3,4]")})[0].values,
              ElementsAre(20, 23, 26, 29, 56, 68, 80, 92));
  EXPECT_THAT(EvalFile("transpose", {Iota("f32[2,3]")})[0].values, ElementsAre(0, 3, 1, 4, 2, 5));
  EXPECT_THAT(EvalFile("concatenate", {A("f32[2]", {1, 2}), A("f32[3]", {3, 4, 5})})[0].values,
              ElementsAre(1, 2, 3, 4, 5));
  EXPECT_THAT(EvalFile("convert", {A("f32[3]", {1.7, -1.7, 3e9})})[0].values,
              ElementsAre(1, -1, 2147483647));
}

TEST(EvalJaxTest, ShardMapPsum) {
  EXPECT_THAT(EvalFile("shmap_psum", {Iota("f32[8]")})[0].values, ElementsAre(12, 16));
  EXPECT_THAT(EvalFile("shmap_nocheck", {Iota("f32[8]")})[0].values, ElementsAre(12, 16));
}

TEST(EvalJaxTest, ShardMapPvaryTilesTheInvariantInput) {
  std::vector<double> want;
  for (int r = 0; r < 4; ++r) {
    for (int i = 0; i < 8; ++i) want.push_back(i);
  }
  EXPECT_THAT(EvalFile("shmap_identity_pvary", {Iota("f32[8]")})[0].values, ElementsAreArray(want));
}

TEST(EvalJaxTest, ShardMapTwoAxes) {
  HostArray a = Iota("f32[4,4]");
  HostArray b = A("f32[4,4]", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  std::vector<double> want;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      want.push_back(2 * a.values[i * 4 + j] + b.values[i * 4 + j % 2] +
                     b.values[i * 4 + j % 2 + 2]);
    }
  }
  EXPECT_THAT(EvalFile("shmap_2d", {a, b})[0].values, ElementsAreArray(want));
}

TEST(EvalJaxTest, ShardMapAllGather) {
  HostArray b = A("f32[4,2]", {1, 10, 2, 20, 3, 30, 4, 40});
  std::vector<double> want;
  for (int d = 0; d < 4; ++d) {
    for (int r = 0; r < 4; ++r) {
      want.push_back((2 * r) * b.values[2 * d]);
      want.push_back((2 * r + 1) * b.values[2 * d + 1]);
    }
  }
  EXPECT_THAT(EvalFile("shmap_all_gather", {Iota("f32[8]"), b})[0].values, ElementsAreArray(want));
}

TEST(EvalJaxTest, ShardMapEveryCollective) {
  std::vector<HostArray> out = EvalFile("shmap_collectives", {Iota("f32[16]")});
  ASSERT_EQ(out.size(), 6u);
  EXPECT_THAT(out[0].values, ElementsAre(12, 13, 14, 15));  // pmax
  EXPECT_THAT(out[1].values, ElementsAre(0, 1, 2, 3));      // pmin
  EXPECT_THAT(out[2].values, ElementsAre(24, 28, 32, 36));  // psum_scatter (tiled)
  EXPECT_THAT(out[3].values,                                // ppermute i -> i + 1
              ElementsAre(12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  EXPECT_THAT(out[4].values,  // all_to_all (tiled, split 0, concat 0)
              ElementsAre(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
  EXPECT_THAT(out[5].values, ElementsAre(0, 1, 2, 3));  // axis_index
  EXPECT_EQ(out[5].aval.ShortString(), "i32[4]");
}

}  // namespace
}  // namespace eval_jax_test
}  // namespace axe::ir

namespace axe::ir {
namespace eval_jax_test {
namespace {

// Binders that contradict their operands (a jaxpr not run through CheckJaxpr) are errors, not
// out-of-bounds reads.
TEST(EvalJaxTest, MistypedBindersAreErrors) {
  absl::StatusOr<ClosedJaxpr> gather = ParseJaxpr(
      "{ lambda ; a:f32[8]. let b:f32[64] = shard_map[check_vma=True in_specs=(P('x',),) "
      "jaxpr={ lambda ; c:f32[2]{V:x}. let d:f32[16]{V:x} = all_gather[all_gather_dimension=0 "
      "axis_name=('x',) axis_size=4 tiled=True] c in (d,) } "
      "mesh=Mesh('x': 4, axis_types=(Auto,)) out_specs=(P('x',),)] a in (b,) }");
  ASSERT_THAT(gather, IsOk());
  EXPECT_THAT(EvalJaxpr(*gather, {Iota("f32[8]")}),
              testing_support::StatusIs(absl::StatusCode::kInvalidArgument,
                                        ::testing::HasSubstr("are typed f32[16] but its operands "
                                                             "give f32[8]")));
  absl::StatusOr<ClosedJaxpr> scan = ParseJaxpr(
      "{ lambda ; a:f32[3]. let b:f32[] c:f32[5] = scan[jaxpr={ lambda ; d:f32[] e:f32[]. let "
      "f:f32[] = add d e in (f, f) } length=5 num_carry=1 num_consts=0 reverse=False] "
      "0.0:f32[] a in (b, c) }");
  ASSERT_THAT(scan, IsOk());
  EXPECT_THAT(EvalJaxpr(*scan, {Iota("f32[3]")}),
              testing_support::StatusIs(absl::StatusCode::kInvalidArgument,
                                        ::testing::HasSubstr("scan of length 5 got xs operand 1 "
                                                             "of type f32[3]")));
}

}  // namespace
}  // namespace eval_jax_test
}  // namespace axe::ir

namespace axe::ir {
namespace eval_jax_test {
namespace {

// Equal types and values, NaN equal to NaN.
bool SameValues(const std::vector<HostArray>& a, const std::vector<HostArray>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!TypesMatch(a[i].aval, b[i].aval) || a[i].values.size() != b[i].values.size()) {
      return false;
    }
    for (size_t k = 0; k < a[i].values.size(); ++k) {
      double x = a[i].values[k], y = b[i].values[k];
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
    }
  }
  return true;
}

// Every program of the JAX corpus evaluates (on small integer arguments), and the shard_map
// ones give the same values as their bodies' semantics computed by the simulated mesh twice
// (deterministic).
TEST(EvalJaxTest, EveryCorpusProgramEvaluates) {
  int programs = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(AXE_IR_TESTDATA_DIR) + "/jax")) {
    absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(testing_support::ReadFile(entry.path()));
    ASSERT_THAT(j, IsOk()) << entry.path();
    std::vector<HostArray> args;
    for (const ShapedArray& a : j->jaxpr.in_avals()) {
      HostArray h{a.WithVma({}), std::vector<double>(static_cast<size_t>(*a.NumElements()))};
      for (size_t i = 0; i < h.values.size(); ++i) h.values[i] = static_cast<double>(i % 5) - 2;
      args.push_back(std::move(h));
    }
    absl::StatusOr<std::vector<HostArray>> once = EvalJaxpr(*j, args);
    ASSERT_THAT(once, IsOk()) << entry.path();
    EXPECT_EQ(once->size(), j->jaxpr.outvars.size()) << entry.path();
    for (size_t i = 0; i < once->size(); ++i) {
      EXPECT_EQ((*once)[i].aval.ShortString(), j->jaxpr.out_avals()[i].WithVma({}).ShortString())
          << entry.path();
    }
    absl::StatusOr<std::vector<HostArray>> twice = EvalJaxpr(*j, args);
    ASSERT_THAT(twice, IsOk()) << entry.path();
    EXPECT_TRUE(SameValues(*once, *twice)) << entry.path();
    ++programs;
  }
  EXPECT_GE(programs, 26);
}

}  // namespace
}  // namespace eval_jax_test
}  // namespace axe::ir

namespace axe::ir {
namespace eval_jax_test {
namespace {

std::string DivergentCond(const std::string& branch_one) {
  return "{ lambda ; a:f32[8]. let b:f32[8] = shard_map[check_vma=True in_specs=(P('x',),) "
         "jaxpr={ lambda ; c:f32[2]{V:x}. let i:i32[]{V:x} = axis_index[axis_name=x] ; "
         "j:bool[]{V:x} = lt i 2:i32[] ; "
         "k:i32[]{V:x} = convert_element_type[new_dtype=int32 weak_type=False] j ; "
         "l:f32[2]{V:x} = cond[branches=("
         "{ lambda ; d:f32[2]{V:x}. let e:f32[2]{V:x} = neg d in (e,) } " +
         branch_one +
         ")] k c in (l,) } mesh=Mesh('x': 4, axis_types=(Auto,)) "
         "out_specs=(P('x',),)] a in (b,) }";
}

// A cond whose predicate differs between devices takes each device's own branch.
TEST(EvalJaxTest, CondBranchPerDevice) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(
      DivergentCond("{ lambda ; f:f32[2]{V:x}. let g:f32[2]{V:x} = mul f 2.0:f32[] in (g,) }"));
  ASSERT_THAT(j, IsOk());
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(*j, {Iota("f32[8]")});
  ASSERT_THAT(out, IsOk());
  EXPECT_THAT((*out)[0].values, ElementsAre(0, 2, 4, 6, -4, -5, -6, -7));
  absl::StatusOr<ClosedJaxpr> with_psum = ParseJaxpr(
      DivergentCond("{ lambda ; f:f32[2]{V:x}. let g:f32[2] = psum_invariant[axes=('x',)] f; "
                    "h:f32[2]{V:x} = pvary[axes=('x',)] g in (h,) }"));
  ASSERT_THAT(with_psum, IsOk());
  EXPECT_THAT(EvalJaxpr(*with_psum, {Iota("f32[8]")}),
              testing_support::StatusIs(absl::StatusCode::kUnimplemented,
                                        ::testing::HasSubstr("psum_invariant inside a cond whose "
                                                             "branch differs between devices")));
}

}  // namespace
}  // namespace eval_jax_test
}  // namespace axe::ir

namespace axe::ir {
namespace eval_jax_test {
namespace {

// A scan of length 2^40, or 2^16 scans of length 2^16, end with an error at once instead of
// running for hours.
TEST(EvalJaxTest, HugeScanExhaustsTheBudget) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(
      "{ lambda ; a:f32[]. let b:f32[] = scan[jaxpr={ lambda ; c:f32[]. let d:f32[] = add c "
      "1.0:f32[] in (d,) } length=1099511627776 num_carry=1 num_consts=0 reverse=False] a "
      "in (b,) }");
  ASSERT_THAT(j, IsOk());
  // The message names the whole program and its longest scan (it used to say "a loop of 1
  // iterations").
  EXPECT_THAT(EvalJaxpr(*j, {A("f32[]", {0})}),
              testing_support::StatusIs(
                  absl::StatusCode::kResourceExhausted,
                  "evaluation refused: the program needs more than 2147483648 element "
                  "operations (it holds a scan of length 1099511627776)"));
  absl::StatusOr<ClosedJaxpr> nested = ParseJaxpr(
      "{ lambda ; a:f32[]. let b:f32[] = scan[jaxpr={ lambda ; c:f32[]. let d:f32[] = scan["
      "jaxpr={ lambda ; e:f32[]. let f:f32[] = add e 1.0:f32[] in (f,) } length=65536 "
      "num_carry=1 num_consts=0 reverse=False] c in (d,) } length=65536 num_carry=1 "
      "num_consts=0 reverse=False] a in (b,) }");
  ASSERT_THAT(nested, IsOk());
  EXPECT_THAT(EvalJaxpr(*nested, {A("f32[]", {0})}),
              testing_support::StatusIs(
                  absl::StatusCode::kResourceExhausted,
                  ::testing::HasSubstr("element operations (it holds a scan of length 65536)")));
}

}  // namespace
}  // namespace eval_jax_test
}  // namespace axe::ir
