// Grouped transposes (high-rank permutations whose innermost loops are too short for long
// runs, relayout_plan_nest.cc / kernels.cc) against the naive oracle: seeded random
// permutations of rank 3..6 with short extents (often multiples of the tile edge, sometimes
// ragged), every element size, one and two threads, misaligned bases, on every SIMD target
// this CPU has; and the benchmark's 16^6 cases, which must plan a grouped transpose.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "axe/relayout/relayout_plan.h"
#include "axe/relayout/relayout_reference.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "relayout/random_relayout.h"
#include "support/test_seed.h"

namespace axe::relayout {
namespace grouped_transpose_test {
namespace {

using testing::GuardedBuffer;
using ::testing::HasSubstr;

// Row-major strides of `shape`, plus `offset`, as layout text.
std::string StridedText(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                        int64_t offset) {
  std::string s =
      absl::StrCat("S[(", absl::StrJoin(shape, ","), "):(", absl::StrJoin(strides, ","), ")]");
  if (offset != 0) absl::StrAppend(&s, " + ", offset);
  return s;
}

// The destination strides of out = permute(in, perm) (out dim j = in dim perm[j], row-major
// output), per input dimension.
std::vector<int64_t> PermutedStrides(const std::vector<int64_t>& shape,
                                     const std::vector<int>& perm) {
  const size_t r = shape.size();
  std::vector<int64_t> strides(r);
  int64_t s = 1;
  for (size_t j = r; j-- > 0;) {
    strides[static_cast<size_t>(perm[j])] = s;
    s *= shape[static_cast<size_t>(perm[j])];
  }
  return strides;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = s;
    s *= shape[d];
  }
  return strides;
}

struct Outcome {
  bool ok = true;
  bool grouped = false;
};

// One random permutation; compares the whole destination buffer (guards included).
Outcome RunCase(std::mt19937_64& rng, int element_bytes) {
  const int rank = std::uniform_int_distribution<int>(3, 6)(rng);
  const std::vector<int64_t> extents = {2, 3, 4, 5, 8, 8, 12, 16, 16, 17, 24, 32};
  std::vector<int64_t> shape;
  int64_t elements = 1;
  for (int d = 0; d < rank; ++d) {
    int64_t e = extents[rng() % extents.size()];
    while (e > 2 && elements * e > 60000) e /= 2;
    shape.push_back(e);
    elements *= e;
  }
  std::vector<int> perm(static_cast<size_t>(rank));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  const int64_t src_offset = static_cast<int64_t>(rng() % 3),
                dst_offset = static_cast<int64_t>(rng() % 3);
  const BufferLayout src = *Layout::Parse(StridedText(shape, RowMajorStrides(shape), src_offset));
  const BufferLayout dst =
      *Layout::Parse(StridedText(shape, PermutedStrides(shape, perm), dst_offset));
  RelayoutOptions options;
  options.threads = std::uniform_int_distribution<int>(1, 2)(rng);
  options.min_parallel_bytes = 0;
  options.stores = StoreMode::kStreaming;  // grouping is for large (streamed) destinations
  options.loop_order = rng() % 2 == 0 ? LoopOrder::kAuto : LoopOrder::kSource;
  const std::string what = absl::StrCat(element_bytes, "-byte elements, shape ", FormatTuple(shape),
                                        "\n  src ", src.ToString(), "\n  dst ", dst.ToString());
  absl::StatusOr<RelayoutPlan> plan = PlanRelayout(src, dst, shape, element_bytes, options);
  if (!plan.ok()) {
    ADD_FAILURE() << what << "\n  plan error: " << plan.status().message();
    return {false, false};
  }
  Outcome out;
  for (const std::string& k : plan->kernels())
    out.grouped |= k.find("grouped") != std::string::npos;
  const uint64_t fill_seed = rng();
  GuardedBuffer in(src, shape, element_bytes, fill_seed);
  GuardedBuffer expected(dst, shape, element_bytes, fill_seed + 1);
  GuardedBuffer actual(dst, shape, element_bytes, fill_seed + 1);
  absl::Status ref = ReferenceRelayout(src, dst, shape, element_bytes, in.base(), expected.base());
  absl::Status run = plan->Execute(in.base(), actual.base());
  if (!ref.ok() || !run.ok() || expected.bytes() != actual.bytes()) {
    ADD_FAILURE() << what << "\n  reference: " << ref.message() << ", execute: " << run.message()
                  << "\n  buffers " << (expected.bytes() == actual.bytes() ? "equal" : "differ")
                  << "\n"
                  << plan->ToString();
    out.ok = false;
  }
  return out;
}

// Runs `cases` random permutations per element size; returns how many planned a grouped
// transpose.
int RunMany(uint64_t seed, int cases, const std::string& target) {
  std::mt19937_64 rng(seed);
  int failures = 0, grouped = 0;
  for (int element_bytes : {1, 2, 4, 8, 16}) {
    for (int c = 0; c < cases && failures < 3; ++c) {
      const Outcome o = RunCase(rng, element_bytes);
      failures += !o.ok;
      grouped += o.grouped;
    }
  }
  EXPECT_EQ(failures, 0) << target;
  return grouped;
}

TEST(GroupedTranspose, RandomPermutationsMatchOracle) {
  const int grouped = RunMany(testing_support::TestSeed(20261123), 60, "default target");
  EXPECT_GT(grouped, 30);  // the generator reaches the grouped kernel
}

// The AVX2 (8x8 / 4x4 unpack tiles) and SSE4 kernels too, with the dispatch mocked.
TEST(GroupedTranspose, RandomPermutationsMatchOracleOnEverySimdTarget) {
  hwy::SetSupportedTargetsForTest(0);
  const int64_t supported = hwy::SupportedTargets();
  const uint64_t seed = testing_support::TestSeed(977);
  int tested = 0;
  for (int64_t target : {HWY_AVX3, HWY_AVX2, HWY_SSE4, HWY_SCALAR}) {
    if ((supported & target) == 0) continue;
    ++tested;
    hwy::SetSupportedTargetsForTest(target);
    RunMany(seed + static_cast<uint64_t>(tested), 20, hwy::TargetName(target));
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(tested, 2);
}

// The benchmark's 16^6 f32 permutations plan a grouped transpose by default and are exact.
TEST(GroupedTranspose, SixDimensionalBenchmarkCases) {
  const std::vector<int64_t> shape(6, 16);
  for (const std::vector<int>& perm :
       {std::vector<int>{5, 2, 0, 4, 1, 3}, std::vector<int>{2, 4, 1, 5, 3, 0}}) {
    const Layout src = *Layout::Parse(StridedText(shape, RowMajorStrides(shape), 0));
    const Layout dst = *Layout::Parse(StridedText(shape, PermutedStrides(shape, perm), 0));
    RelayoutOptions options;
    options.threads = 2;
    absl::StatusOr<RelayoutPlan> plan = PlanRelayout(src, dst, shape, 4, options);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    ASSERT_EQ(plan->kernels().size(), 1u);
    EXPECT_THAT(plan->kernels()[0], HasSubstr(" grouped ("));
    const int64_t n = int64_t{1} << 24;
    std::vector<uint32_t> in(static_cast<size_t>(n)), out(static_cast<size_t>(n), 0),
        want(static_cast<size_t>(n));
    std::iota(in.begin(), in.end(), 7u);
    // want[out index] = in[in index], walking the input row-major.
    const std::vector<int64_t> dst_strides = PermutedStrides(shape, perm);
    std::vector<int64_t> idx(6, 0);
    int64_t to = 0;
    for (int64_t from = 0; from < n; ++from) {
      want[static_cast<size_t>(to)] = in[static_cast<size_t>(from)];
      for (size_t d = 6; d-- > 0;) {
        to += dst_strides[d];
        if (++idx[d] < 16) break;
        to -= 16 * dst_strides[d];
        idx[d] = 0;
      }
    }
    ASSERT_TRUE(plan->Execute(in.data(), out.data()).ok());
    EXPECT_TRUE(out == want) << FormatTuple(std::vector<int64_t>(perm.begin(), perm.end()));
  }
}

}  // namespace
}  // namespace grouped_transpose_test
}  // namespace axe::relayout
