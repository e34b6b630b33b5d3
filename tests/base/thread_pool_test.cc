#include "axe/base/thread_pool.h"

#include <atomic>
#include <set>

#include "gtest/gtest.h"

namespace axe {
namespace thread_pool_test {
namespace {

TEST(ThreadPool, RunsEveryTaskOnce) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (int64_t n : {0, 1, 3, 1000}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      pool.ParallelFor(n, [&](int64_t t) { hits[static_cast<size_t>(t)]++; });
      for (auto& h : hits) EXPECT_EQ(h.load(), 1);
    }
  }
}

TEST(ThreadPool, UsesSeveralThreadsAndRespectsTheLimit) {
  ThreadPool pool(4);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> running{0}, peak{0};
  auto body = [&](int64_t) {
    int now = ++running;
    int p = peak.load();
    while (now > p && !peak.compare_exchange_weak(p, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    {
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
    }
    --running;
  };
  pool.ParallelFor(64, body, /*max_threads=*/2);
  EXPECT_LE(peak.load(), 2);
  EXPECT_LE(ids.size(), 2u);
  ids.clear();
  pool.ParallelFor(64, body);
  EXPECT_GE(ids.size(), 2u);  // workers joined (sleeping tasks leave time for them)
}

TEST(ThreadPool, NestedCallsRunInline) {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  pool.ParallelFor(4, [&](int64_t) { pool.ParallelFor(3, [&](int64_t) { total++; }); });
  EXPECT_EQ(total.load(), 12);
}

TEST(ThreadPool, ConcurrentCallersAreSerialized) {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  std::thread a([&] {
    for (int i = 0; i < 50; ++i) pool.ParallelFor(10, [&](int64_t) { total++; });
  });
  std::thread b([&] {
    for (int i = 0; i < 50; ++i) pool.ParallelFor(10, [&](int64_t) { total++; });
  });
  a.join();
  b.join();
  EXPECT_EQ(total.load(), 1000);
}

}  // namespace
}  // namespace thread_pool_test
}  // namespace axe
