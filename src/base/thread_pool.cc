#include "axe/base/thread_pool.h"

#include <sched.h>

#include <algorithm>

#include "axe/base/check.h"
#include "axe/base/float_environment.h"

namespace axe {
namespace {
thread_local bool in_pool_task = false;

// The CPUs this process may run on (its affinity mask, as taskset or mpirun's binding set
// it); hardware_concurrency() counts every CPU of the machine.
int UsableCpus() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0 && CPU_COUNT(&mask) > 0) {
    return CPU_COUNT(&mask);
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}
}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  AXE_CHECK(num_threads >= 1) << "ThreadPool needs at least one thread, got " << num_threads;
  workers_.reserve(static_cast<size_t>(num_threads - 1));
  for (int i = 0; i + 1 < num_threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

ThreadPool& ThreadPool::Default() {
  static ThreadPool* pool = new ThreadPool(UsableCpus());
  return *pool;
}

void ThreadPool::RunTasks() {
  // Claim tasks one by one; mu_ is not held while running them.
  while (true) {
    int64_t task;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (next_task_ >= num_tasks_) return;
      task = next_task_++;
    }
    in_pool_task = true;
    (*fn_)(task);
    in_pool_task = false;
  }
}

void ThreadPool::WorkerLoop(int index) {
  uint64_t seen = 0;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock,
                    [&] { return stop_ || (generation_ != seen && index < active_workers_); });
      if (stop_) return;
      seen = generation_;
    }
    {
      ScopedFloatControl caller_mode(float_control_);  // the caller's denormal mode
      RunTasks();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--busy_workers_ == 0) done_cv_.notify_all();
    }
  }
}

void ThreadPool::ParallelFor(int64_t num_tasks, const std::function<void(int64_t)>& fn,
                             int max_threads) {
  if (num_tasks <= 0) return;
  int threads = max_threads <= 0 ? size() : std::min(max_threads, size());
  threads = static_cast<int>(std::min<int64_t>(threads, num_tasks));
  if (threads <= 1 || in_pool_task) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t);
    return;
  }
  std::lock_guard<std::mutex> call_lock(call_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    fn_ = &fn;
    num_tasks_ = num_tasks;
    next_task_ = 0;
    active_workers_ = threads - 1;
    float_control_ = FloatControl();
    busy_workers_ = threads - 1;
    ++generation_;
  }
  work_cv_.notify_all();
  RunTasks();
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return busy_workers_ == 0; });
  fn_ = nullptr;
}

}  // namespace axe
