#include "axe/base/float_environment.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "axe/base/thread_pool.h"
#include "gtest/gtest.h"

namespace axe {
namespace float_environment_test {
namespace {

// The least positive f32 denormal times one, computed at run time on this thread.
float DenormalTimesOne() {
  volatile float tiny = std::numeric_limits<float>::denorm_min();
  volatile float one = 1.0f;
  return tiny * one;
}

TEST(FloatEnvironment, FlushesDenormalsInsideTheScopeOnly) {
  EXPECT_GT(DenormalTimesOne(), 0.0f);
  {
    ScopedFlushDenormals flush;
    EXPECT_EQ(DenormalTimesOne(), 0.0f);
    volatile float tiny = std::numeric_limits<float>::denorm_min();
    EXPECT_TRUE(tiny == 0.0f);  // read as zero too
  }
  EXPECT_GT(DenormalTimesOne(), 0.0f);
}

TEST(FloatEnvironment, FlushDenormalKeepsTheSignAndEverythingElse) {
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_TRUE(std::signbit(FlushDenormal(-tiny)));
  EXPECT_EQ(FlushDenormal(-tiny), 0.0f);
  EXPECT_EQ(FlushDenormal(tiny), 0.0f);
  EXPECT_FALSE(std::signbit(FlushDenormal(tiny)));
  EXPECT_EQ(FlushDenormal(std::numeric_limits<float>::min()), std::numeric_limits<float>::min());
  EXPECT_EQ(FlushDenormal(5e-324), 0.0);
  EXPECT_EQ(FlushDenormal(-1.5), -1.5);
  EXPECT_TRUE(std::isnan(FlushDenormal(std::nanf(""))));
  EXPECT_EQ(FlushDenormal(-INFINITY), -INFINITY);
}

TEST(FloatEnvironment, PoolWorkersComputeInTheCallersMode) {
  ThreadPool pool(4);
  std::mutex mu;
  std::set<std::thread::id> threads;
  auto run = [&] {
    std::vector<float> results(64, -1.0f);
    pool.ParallelFor(64, [&](int64_t t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // lets the workers join
      {
        std::lock_guard<std::mutex> lock(mu);
        threads.insert(std::this_thread::get_id());
      }
      results[static_cast<size_t>(t)] = DenormalTimesOne();
    });
    return results;
  };
  {
    ScopedFlushDenormals flush;
    for (float r : run()) EXPECT_EQ(r, 0.0f);
  }
  for (float r : run()) EXPECT_GT(r, 0.0f);  // and the workers gave the mode back
  EXPECT_GE(threads.size(), 2u);
}

}  // namespace
}  // namespace float_environment_test
}  // namespace axe
