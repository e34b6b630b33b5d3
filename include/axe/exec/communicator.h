// The exchange the executor's collectives meet at: inside shard_map, every mesh position runs
// the body's plan on its own thread, and a collective (psum, all_gather, ppermute, ...) hands
// each member's operand to the communicator, which returns every member's operand to each
// of them once the whole group has arrived. The collective's result is then computed by each
// member from the members' typed buffers (shared, read-only: nothing is copied or converted).
//
//   std::unique_ptr<exec::Communicator> comm = exec::NewInProcessCommunicator(4);
//   // on position p's thread, for a psum over a group of positions {0, 1, 2, 3}:
//   absl::StatusOr<std::vector<exec::Value>> all = comm->Exchange({0, 1, 2, 3}, p, tag, x);
//   ...
//   comm->Finish(p);            // when p's body has returned
//   comm->Abort(status);        // when p's body failed: every waiting member is released
//
// The in-process implementation is a rendezvous over threads of one process; another
// transport (a runtime backend's devices, MPI ranks) implements the same three calls.
#ifndef AXE_EXEC_COMMUNICATOR_H_
#define AXE_EXEC_COMMUNICATOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/exec/value.h"

namespace axe::exec {

class Communicator {
 public:
  virtual ~Communicator() = default;

  // Hands `value` to the exchange of `group` (the members' mesh positions, in member order;
  // this caller is member `member`) and returns the members' values in member order once all
  // have arrived. `tag` names the collective: every member of one exchange passes the same.
  // Errors: the status given to Abort (or Aborted when another member failed); members that
  // reached different collectives, or positions all waiting for one that finished or waits
  // elsewhere (InvalidArgument naming what they wait in, instead of hanging).
  virtual absl::StatusOr<std::vector<Value>> Exchange(absl::Span<const int64_t> group,
                                                      int64_t member, uint64_t tag,
                                                      Value value) = 0;
  // Ends every pending and later Exchange with an error; the first status given is kept.
  virtual void Abort(absl::Status status) = 0;
  // Position `position` will exchange nothing more (its body returned).
  virtual void Finish(int64_t position) = 0;
  // The first status given to Abort, or OK.
  virtual absl::Status first_error() const = 0;
};

// A rendezvous for `positions` threads of this process.
std::unique_ptr<Communicator> NewInProcessCommunicator(int64_t positions);

}  // namespace axe::exec

#endif  // AXE_EXEC_COMMUNICATOR_H_
