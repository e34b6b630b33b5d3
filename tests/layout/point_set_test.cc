// internal::DistinctSums: its dense walk (narrow windows) and its sort-and-deduplicate path
// (wide windows, few sums) against a naive set, and its budget.
#include "src/layout/point_set.h"

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe {
namespace point_set_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

std::vector<int64_t> NaiveSums(int64_t base, const std::vector<Iter>& iters) {
  std::set<int64_t> values = {base};
  for (const Iter& it : iters) {
    std::set<int64_t> next;
    for (int64_t v : values) {
      for (int64_t c = 0; c < it.extent; ++c) next.insert(v + c * it.stride);
    }
    values = std::move(next);
  }
  return {values.begin(), values.end()};
}

TEST(DistinctSums, AgreesWithANaiveSetOnNarrowAndWideWindows) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(11));
  const Axis m = Axis::Memory();
  for (int i = 0; i < 2000; ++i) {
    std::vector<Iter> iters;
    const int n = 1 + static_cast<int>(rng() % 5);
    // Half the cases have one huge stride: a window of millions of slots around a few
    // hundred sums (the sparse path); the rest stay narrow (the dense walk).
    const bool wide = i % 2 == 1;
    for (int k = 0; k < n; ++k) {
      const int64_t extent = 1 + static_cast<int64_t>(rng() % 8);
      int64_t stride = static_cast<int64_t>(rng() % 13) - 6;
      if (wide && k == 0) stride = 1000003 * (rng() % 2 == 0 ? 1 : -1);
      iters.push_back(Iter{extent, stride, m});
    }
    const int64_t base = static_cast<int64_t>(rng() % 100) - 50;
    absl::StatusOr<std::vector<int64_t>> got = internal::DistinctSums(base, iters, 1 << 20);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, NaiveSums(base, iters)) << "case " << i;
  }
}

TEST(DistinctSums, AWideWindowOfFewSumsIsQuick) {
  // The fuzzer's slow unit: 1,536 sums spread over a window of about 9 M slots. The dense
  // walk passed over every slot once per iter; now the sums are sorted instead.
  const Axis m = Axis::Memory();
  const std::vector<Iter> iters = {{3, 52, m}, {8, 161, m}, {8, 1111118, m}, {4, 4, m}, {2, 9, m}};
  absl::StatusOr<std::vector<int64_t>> got = internal::DistinctSums(0, iters, 1 << 20);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, NaiveSums(0, iters));
}

TEST(DistinctSums, RefusesMoreValuesThanTheLimit) {
  const Axis m = Axis::Memory();
  EXPECT_THAT(internal::DistinctSums(0, {{64, 1, m}, {64, 64, m}}, 1000),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("more than 1000 distinct points to enumerate")));
  EXPECT_THAT(internal::DistinctSums(0, {{64, 1, m}, {64, 1000003, m}}, 1000),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("more than 1000 distinct points to enumerate")));
}

}  // namespace
}  // namespace point_set_test
}  // namespace axe
