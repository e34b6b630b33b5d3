// The running program, visible to ProgramId/NumPrograms through a thread-local pointer.
#ifndef AXE_SRC_PALLAS_PROGRAM_CONTEXT_H_
#define AXE_SRC_PALLAS_PROGRAM_CONTEXT_H_

#include <cstdint>

#include "absl/status/status.h"
#include "axe/pallas/grid.h"

namespace axe::pallas::internal {

struct ProgramContext {
  const Grid* grid;
  const int64_t* point;  // grid.rank() indices
  absl::Status* error;   // the first error raised through ProgramId/NumPrograms
};

// The current thread's program, or nullptr outside a kernel.
ProgramContext*& CurrentProgram();

// Installs a context for the lifetime of the scope (restoring the previous one, so that a
// kernel may itself run a Pallas call).
class ScopedProgram {
 public:
  explicit ScopedProgram(ProgramContext* ctx) : saved_(CurrentProgram()) { CurrentProgram() = ctx; }
  ~ScopedProgram() { CurrentProgram() = saved_; }
  ScopedProgram(const ScopedProgram&) = delete;
  ScopedProgram& operator=(const ScopedProgram&) = delete;

 private:
  ProgramContext* saved_;
};

}  // namespace axe::pallas::internal

#endif  // AXE_SRC_PALLAS_PROGRAM_CONTEXT_H_
