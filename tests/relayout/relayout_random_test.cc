// The relayout engine against the naive oracle (ReferenceRelayout) over hundreds of seeded
// random layout pairs: permutations of rank 1..6, tilings and nested tilings, odd sizes,
// padding (untouched and filled), gaps, negative strides, offsets, replicas, broadcast
// sources, layouts that do not split per dimension, every element size, one and two
// threads, every store mode, tile and block size, on every SIMD target this CPU has.
// Destination buffers start with a random pattern and are compared whole, guard bytes
// included, so untouched padding and out-of-range writes are checked too.
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/int_list.h"
#include "axe/relayout/relayout_plan.h"
#include "axe/relayout/relayout_reference.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "relayout/random_relayout.h"
#include "support/test_seed.h"

namespace axe::relayout {
namespace relayout_random_test {
namespace {

using testing::GuardedBuffer;
using testing::RandomBufferLayout;
using testing::RandomShape;

struct Counts {
  int cases = 0, generic = 0, padded = 0, filled = 0;
  std::map<std::string, int> kernels;
};

// Runs one random case; returns false (with a gtest failure) on mismatch.
bool RunCase(uint64_t seed, int element_bytes, Counts& counts, int max_rank = 6) {
  std::mt19937_64 rng(seed);
  const std::vector<int64_t> shape = RandomShape(rng, max_rank, 9, 600);
  const BufferLayout src = RandomBufferLayout(rng, shape, {.destination = false});
  const BufferLayout dst = RandomBufferLayout(rng, shape, {.destination = true});
  RelayoutOptions options;
  options.threads = std::uniform_int_distribution<int>(1, 2)(rng);
  options.min_parallel_bytes = 0;
  options.stores = std::vector<StoreMode>{StoreMode::kAuto, StoreMode::kRegular,
                                          StoreMode::kStreaming}[rng() % 3];
  options.loop_order = std::vector<LoopOrder>{LoopOrder::kAuto, LoopOrder::kSource}[rng() % 2];
  options.tile_lanes = std::vector<int>{0, 2, 4, 8, 16}[rng() % 5];
  options.block_rows = std::vector<int64_t>{0, 8, 16, 32}[rng() % 4];
  options.block_cols = std::vector<int64_t>{0, 8, 16, 48}[rng() % 4];
  options.staged = static_cast<int>(rng() % 3) - 1;
  const bool fill = rng() % 3 == 0;
  if (fill) {
    std::vector<uint8_t> v(static_cast<size_t>(element_bytes));
    for (uint8_t& x : v) x = static_cast<uint8_t>(rng());
    options.padding_value = v;
  }
  const std::string what = absl::StrCat(
      "seed ", seed, ", ", element_bytes, "-byte elements, shape ", FormatTuple(shape), "\n  src ",
      src.ToString(), "\n  dst ", dst.ToString(), fill ? "\n  with padding fill" : "");
  absl::StatusOr<RelayoutPlan> plan = PlanRelayout(src, dst, shape, element_bytes, options);
  if (!plan.ok()) {
    // The generator only makes valid pairs (destinations are injective by construction).
    ADD_FAILURE() << what << "\n  plan error: " << plan.status().message();
    return false;
  }
  GuardedBuffer in(src, shape, element_bytes, seed * 3 + 1);
  GuardedBuffer expected(dst, shape, element_bytes, seed * 3 + 2);
  GuardedBuffer actual(dst, shape, element_bytes, seed * 3 + 2);
  absl::Status ref = ReferenceRelayout(src, dst, shape, element_bytes, in.base(), expected.base(),
                                       options.padding_value);
  if (!ref.ok()) {
    ADD_FAILURE() << what << "\n  reference error: " << ref.message();
    return false;
  }
  absl::Status run = plan->Execute(in.base(), actual.base());
  if (!run.ok()) {
    ADD_FAILURE() << what << "\n  execute error: " << run.message() << "\n" << plan->ToString();
    return false;
  }
  ++counts.cases;
  counts.generic += plan->generic();
  counts.padded += src.domain.size() + dst.domain.size() > 0;
  counts.filled += fill;
  for (const std::string& k : plan->kernels()) counts.kernels[k.substr(0, k.find(' '))]++;
  if (expected.bytes() != actual.bytes()) {
    size_t first = 0;
    while (expected.bytes()[first] == actual.bytes()[first]) ++first;
    ADD_FAILURE() << what << "\n  first differing byte " << first << " of "
                  << expected.bytes().size() << "\n"
                  << plan->ToString();
    return false;
  }
  return true;
}

TEST(RelayoutRandom, MatchesOracleForEveryElementSize) {
  Counts counts;
  int failures = 0;
  // Case k of element size b has seed base + k * 7919 + b (base 0 by default; AXE_TEST_SEED
  // moves every case; a failure names its own seed).
  const uint64_t base = ::axe::testing_support::TestSeed(0);
  for (int element_bytes : {1, 2, 4, 8, 16}) {
    for (uint64_t k = 1; k <= 120 && failures < 3; ++k) {
      failures +=
          !RunCase(base + k * 7919 + static_cast<uint64_t>(element_bytes), element_bytes, counts);
    }
  }
  EXPECT_EQ(failures, 0);
  // The generator reaches every path.
  EXPECT_GE(counts.cases, 500);
  EXPECT_GT(counts.generic, 5);
  EXPECT_GT(counts.filled, 50);
  for (const char* k : {"copy", "transpose", "interleave", "deinterleave", "strided", "fill"}) {
    EXPECT_GT(counts.kernels[k], 3) << k;
  }
}

// The same on each SIMD target Highway compiled and this CPU supports (the dispatch is
// mocked), so the AVX2 and SSE4 kernels are checked on an AVX-512 machine too.
TEST(RelayoutRandom, MatchesOracleOnEverySimdTarget) {
  hwy::SetSupportedTargetsForTest(0);
  const int64_t supported = hwy::SupportedTargets();  // before any mock narrows it
  int tested = 0;
  const uint64_t base = ::axe::testing_support::TestSeed(0);  // as above, cases k * 104729 + b
  for (int64_t target : {HWY_AVX3, HWY_AVX2, HWY_SSE4, HWY_SCALAR}) {
    if ((supported & target) == 0) continue;
    ++tested;
    hwy::SetSupportedTargetsForTest(target);
    Counts counts;
    int failures = 0;
    for (int element_bytes : {1, 2, 4, 8, 16}) {
      for (uint64_t k = 1; k <= 30 && failures < 3; ++k) {
        failures += !RunCase(base + k * 104729 + static_cast<uint64_t>(element_bytes),
                             element_bytes, counts, 4);
      }
    }
    EXPECT_EQ(failures, 0) << hwy::TargetName(target);
    EXPECT_GE(counts.cases, 140) << hwy::TargetName(target);
    absl::StatusOr<RelayoutPlan> plan = PlanRelayout(
        *Layout::Parse("S[(64,64):(64,1)]"), *Layout::Parse("S[(64,64):(1,64)]"), {64, 64}, 4);
    ASSERT_TRUE(plan.ok());
    // The mocked target, or the scalar fallback where the build leaves that target out
    // (the sanitizer build compiles no SSE4).
    EXPECT_THAT(
        plan->ToString(),
        ::testing::AnyOf(::testing::HasSubstr(absl::StrCat("SIMD ", hwy::TargetName(target))),
                         ::testing::HasSubstr("SIMD SCALAR")));
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(tested, 2);  // at least one SIMD target and the scalar fallback
}

}  // namespace
}  // namespace relayout_random_test
}  // namespace axe::relayout
