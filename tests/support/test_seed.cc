#include "support/test_seed.h"

#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/numbers.h"
#include "gtest/gtest.h"

namespace axe::testing_support {

uint64_t TestSeed(uint64_t default_seed) {
  uint64_t seed = default_seed;
  if (const char* env = std::getenv("AXE_TEST_SEED"); env != nullptr && *env != '\0') {
    if (!absl::SimpleAtoi(env, &seed)) {
      ADD_FAILURE() << "AXE_TEST_SEED='" << env << "' is not a non-negative decimal number";
      seed = default_seed;
    }
  }
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::cout << "[ seed     ] " << (test ? test->name() : "") << ": " << seed
            << " (replay with AXE_TEST_SEED=" << seed << ")\n";
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

}  // namespace axe::testing_support
