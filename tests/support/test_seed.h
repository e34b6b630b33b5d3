// Seeds of randomized tests: logged, and overridable from the environment.
//
//   std::mt19937_64 rng(TestSeed(12345));
//
// returns 12345 unless AXE_TEST_SEED is set (a decimal number), in which case it returns that
// value; either way the seed is printed (and recorded as the test property "seed"), so a
// failure can be replayed with AXE_TEST_SEED=<seed>.
#ifndef AXE_TESTS_SUPPORT_TEST_SEED_H_
#define AXE_TESTS_SUPPORT_TEST_SEED_H_

#include <cstdint>

namespace axe::testing_support {

uint64_t TestSeed(uint64_t default_seed);

}  // namespace axe::testing_support

#endif  // AXE_TESTS_SUPPORT_TEST_SEED_H_
