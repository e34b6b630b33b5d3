// Runs the programs of a planned Pallas call: interpret mode (row-major, one at a time) and
// parallel mode (the "parallel" grid axes spread over a thread pool).
#ifndef AXE_SRC_PALLAS_RUNNER_H_
#define AXE_SRC_PALLAS_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "axe/pallas/call_spec.h"
#include "axe/pallas/execute.h"
#include "operand_plan.h"

namespace axe::pallas::internal {

// Per-thread state of the programs a thread runs.
struct Worker {
  explicit Worker(const Plan& plan) : refs(plan.operands.size()), scratch(plan.operands.size()) {}
  Window window;
  std::vector<RawRef> refs;                            // one per operand
  std::vector<std::vector<std::byte>> scratch;         // copied input blocks
  std::vector<std::pair<int64_t, ClampEvent>> clamps;  // (program number, event)
  int64_t clamped = 0;                                 // windows clamped, reported or not
  absl::Status program_error;                          // raised through ProgramId/NumPrograms
};

class Runner {
 public:
  // `plan` has its buffers attached.
  Runner(const CallSpec& spec, const CallSite& site, const Plan& plan, RawKernel kernel)
      : spec_(spec), site_(site), plan_(plan), kernel_(kernel) {}

  absl::Status RunInterpret();
  absl::Status RunParallel();

 private:
  // The state parallel chunks share.
  struct Shared {
    std::mutex mu;
    absl::Status first_error;
    int64_t first_error_program = -1;
    std::vector<std::pair<int64_t, ClampEvent>> clamps;
    int64_t clamped = 0;
    std::atomic<bool> failed{false};
  };
  // How parallel mode divides the grid: tasks over the parallel axes, each running the
  // arbitrary axes in order.
  struct Split {
    std::vector<int> parallel_axes, arbitrary_axes;
    int64_t num_tasks = 1, programs_per_task = 1, num_chunks = 1;
  };

  absl::Status RunProgram(Worker& w, absl::Span<const int64_t> point, int64_t number);
  // Points w.refs[k] at operand k's block for the window in w.window.
  void BindRef(Worker& w, size_t k);
  void RunChunk(const Split& split, int64_t chunk, Shared& shared);
  int64_t ProgramNumber(absl::Span<const int64_t> point) const;
  void Report(std::vector<std::pair<int64_t, ClampEvent>>& clamps, int64_t clamped) const;
  ClampEvent ClampReport(const Operand& op, absl::Span<const int64_t> point,
                         const Window& window) const;
  // Fills `scratch` with an input block whose window (buffer coordinates `starts`) reaches
  // outside the array: the uninitialized value, then the part inside the array.
  std::byte* CopyIn(const Operand& op, std::vector<std::byte>& scratch, const Shape& starts) const;

  const CallSpec& spec_;
  const CallSite& site_;
  const Plan& plan_;
  RawKernel kernel_;
};

}  // namespace axe::pallas::internal

#endif  // AXE_SRC_PALLAS_RUNNER_H_
