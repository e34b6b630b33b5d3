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
// The in-process implementation is a rendezvous over threads of one process. The backend
// implementation serves a process that holds one device of a runtime client (an MPI rank):
// it runs that device's mesh position only, and each exchange moves the value's own bytes
// through the raw exchanges of the client's backend (runtime/backend.h), so the ranks meet in
// the backend's collectives and its timeouts end a run whose ranks cannot all meet.
#ifndef AXE_EXEC_COMMUNICATOR_H_
#define AXE_EXEC_COMMUNICATOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/exec/value.h"

namespace axe::runtime {
class Client;
}  // namespace axe::runtime
namespace axe::sharding {
class Mesh;
}  // namespace axe::sharding

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
  // As Exchange, for a collective over the mesh axes `axes` (`group` is one of their groups):
  // what a transport that addresses groups by mesh axes needs. By default, Exchange.
  virtual absl::StatusOr<std::vector<Value>> ExchangeOverAxes(absl::Span<const std::string> axes,
                                                              absl::Span<const int64_t> group,
                                                              int64_t member, uint64_t tag,
                                                              Value value) {
    (void)axes;
    return Exchange(group, member, tag, std::move(value));
  }

  // Whether the members' values live in other processes, so that an exchange copies bytes
  // (an MPI rank): then the collectives hand their own buffers to the *Into calls below,
  // which move the bytes straight between the members' buffers; otherwise the members'
  // values are shared in memory and each member reads them where they lie (Exchange).
  virtual bool copies_between_processes() const { return false; }
  // The members' bytes of `value` (each value.num_bytes()), in member order, in `into`'s
  // buffer. By default through ExchangeOverAxes.
  virtual absl::Status GatherInto(absl::Span<const std::string> axes,
                                  absl::Span<const int64_t> group, int64_t member, uint64_t tag,
                                  const Value& value, Value& into);
  // ppermute's exchange: `into`'s buffer gets the bytes of member source_of[member]'s
  // `value` (untouched when it is -1). By default through ExchangeOverAxes.
  virtual absl::Status PermuteInto(absl::Span<const std::string> axes,
                                   absl::Span<const int64_t> group, int64_t member, uint64_t tag,
                                   const Value& value, absl::Span<const int64_t> source_of,
                                   Value& into);
  // all_to_all's exchange: `send` holds group.size() blocks of `block` bytes, block j for
  // member j; `into`'s buffer gets member j's block for this member at j. By default
  // through ExchangeOverAxes.
  virtual absl::Status AllToAllInto(absl::Span<const std::string> axes,
                                    absl::Span<const int64_t> group, int64_t member, uint64_t tag,
                                    const Value& send, int64_t block, Value& into);

  // Ends every pending and later Exchange with an error; the first status given is kept.
  virtual void Abort(absl::Status status) = 0;
  // Position `position` will exchange nothing more (its body returned).
  virtual void Finish(int64_t position) = 0;
  // The first status given to Abort, or OK.
  virtual absl::Status first_error() const = 0;
};

// A rendezvous for `positions` threads of this process.
std::unique_ptr<Communicator> NewInProcessCommunicator(int64_t positions);

// The exchange of the one mesh position whose device this process holds, over `client`'s
// backend: Exchange fails (InvalidArgument: the backend addresses groups by mesh axes); the
// *Into calls move the members' bytes straight between their buffers through the backend's
// raw exchanges (runtime::AllGatherBytes, PermuteBytes, AllToAllBytes), and ExchangeOverAxes
// all-gathers them into one buffer that the returned values view. Errors of an exchange:
// the backend's (DeadlineExceeded after its timeout when a rank never arrives).
std::unique_ptr<Communicator> NewBackendCommunicator(runtime::Client& client,
                                                     const sharding::Mesh& mesh);

}  // namespace axe::exec

#endif  // AXE_EXEC_COMMUNICATOR_H_
