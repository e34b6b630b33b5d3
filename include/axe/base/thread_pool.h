// A fixed pool of worker threads for data-parallel loops (relayout, Pallas parallel grids).
// The calling thread takes part in the work, so ParallelFor on a pool of size 1 runs inline
// with no synchronization.
//
//   ThreadPool& pool = ThreadPool::Default();           // a thread per CPU it may use
//   pool.ParallelFor(n_tasks, [&](int64_t task) { ... });
#ifndef AXE_BASE_THREAD_POOL_H_
#define AXE_BASE_THREAD_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace axe {

class ThreadPool {
 public:
  // A pool that runs work on `num_threads` threads in total (the caller plus
  // num_threads - 1 workers). Requires num_threads >= 1.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The process-wide pool with a thread per CPU of the process's affinity mask when first
  // called (taskset, mpirun's binding); hardware_concurrency() where the mask is unknown.
  static ThreadPool& Default();

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs fn(task) for every task in [0, num_tasks), spread over at most `max_threads`
  // threads of this pool (<= 0: all of them), and returns when all are done. Tasks are
  // claimed dynamically in increasing order. fn must not throw. Calls from several threads
  // are serialized; a nested call from inside fn runs inline. The workers compute in the
  // caller's floating-point mode (denormals flushed or not: float_environment.h).
  void ParallelFor(int64_t num_tasks, const std::function<void(int64_t)>& fn, int max_threads = 0);

 private:
  void WorkerLoop(int index);
  void RunTasks();

  std::vector<std::thread> workers_;
  std::mutex call_mu_;  // one ParallelFor at a time

  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  const std::function<void(int64_t)>* fn_ = nullptr;
  int64_t num_tasks_ = 0;
  int64_t next_task_ = 0;
  int active_workers_ = 0;  // workers allowed to join the current call
  int busy_workers_ = 0;    // workers still inside the current call
  uint64_t generation_ = 0;
  uint32_t float_control_ = 0;  // the caller's floating-point mode, taken on by the workers
  bool stop_ = false;
};

}  // namespace axe

#endif  // AXE_BASE_THREAD_POOL_H_
