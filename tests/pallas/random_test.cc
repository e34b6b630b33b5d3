// Interpret mode against the literal reference interpreter, and parallel mode against
// interpret mode, on random programs.
#include <random>

#include "absl/strings/str_cat.h"
#include "axe/pallas/execute.h"
#include "axe/pallas/numpy_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pallas/random_program.h"
#include "pallas/reference_interpreter.h"
#include "support/test_seed.h"

namespace axe::pallas {
namespace random_test {
namespace {

using testing::AccumulateKernel;
using testing::RandomProgram;

std::string Describe(const std::vector<AnyArray>& arrays) {
  std::string s;
  for (const AnyArray& a : arrays) absl::StrAppend(&s, "\n", FormatNumpy(a));
  return s;
}

TEST(RandomPrograms, InterpretMatchesTheReferenceInterpreter) {
  std::mt19937 rng(static_cast<uint32_t>(testing_support::TestSeed(20260805)));
  int ran = 0, clamped_programs = 0;
  for (int trial = 0; trial < 400; ++trial) {
    RandomProgram p = testing::MakeRandomProgram(rng);
    int64_t counter = 0;
    auto kernel = [&counter](absl::Span<const RawRef> in, absl::Span<const RawRef> out) {
      return AccumulateKernel(in, out, &counter, 0);
    };
    absl::StatusOr<std::vector<AnyArray>> want =
        testing::ReferenceInterpret(p.spec, p.input_ptrs(), p.outputs, kernel);
    ASSERT_TRUE(want.ok()) << p.description << "\n" << want.status();
    std::vector<ClampEvent> clamps;
    p.spec.options.clamp_report = &clamps;
    counter = 0;
    std::vector<const AnyArray*> in = p.input_ptrs();
    absl::StatusOr<std::vector<AnyArray>> got = ExecuteCall(p.spec, in, p.outputs, kernel);
    ASSERT_TRUE(got.ok()) << p.description << "\n" << got.status();
    ASSERT_EQ(*got, *want) << p.description << "\ngot:" << Describe(*got)
                           << "\nwant:" << Describe(*want);
    ++ran;
    if (!clamps.empty()) ++clamped_programs;
  }
  EXPECT_EQ(ran, 400);
  EXPECT_GT(clamped_programs, 40);  // the generator does exercise clamping
}

TEST(RandomPrograms, ParallelMatchesInterpretOnDisjointWrites) {
  std::mt19937 rng(static_cast<uint32_t>(testing_support::TestSeed(7)));
  ThreadPool pool(4);
  for (int trial = 0; trial < 300; ++trial) {
    RandomProgram p = testing::MakeRandomParallelProgram(rng);
    const int rank = p.spec.grid.rank();
    auto kernel = [rank](absl::Span<const RawRef> in, absl::Span<const RawRef> out) {
      return AccumulateKernel(in, out, nullptr, rank);
    };
    std::vector<const AnyArray*> in = p.input_ptrs();
    std::vector<ClampEvent> want_clamps;
    CallSpec interpret = p.spec;
    interpret.options.mode = Mode::kInterpret;
    interpret.options.clamp_report = &want_clamps;
    absl::StatusOr<std::vector<AnyArray>> want = ExecuteCall(interpret, in, p.outputs, kernel);
    ASSERT_TRUE(want.ok()) << p.description << "\n" << want.status();
    for (int threads : {1, 2, 4}) {
      std::vector<ClampEvent> clamps;
      CallSpec parallel = p.spec;
      parallel.options.pool = &pool;
      parallel.options.num_threads = threads;
      parallel.options.clamp_report = &clamps;
      absl::StatusOr<std::vector<AnyArray>> got = ExecuteCall(parallel, in, p.outputs, kernel);
      ASSERT_TRUE(got.ok()) << p.description << "\n" << got.status();
      ASSERT_EQ(*got, *want) << p.description << "\nthreads " << threads
                             << "\ngot:" << Describe(*got) << "\nwant:" << Describe(*want);
      ASSERT_EQ(clamps, want_clamps) << p.description;
    }
  }
}

}  // namespace
}  // namespace random_test
}  // namespace axe::pallas
