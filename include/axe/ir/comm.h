// The communication of a jaxpr, counted statically (spec ir-and-shard-map.md §5, §7, §8): every
// collective it performs and the bytes one device sends for it, so that a transpose under
// variance typing and the naive (check_vma = false) one can be compared by a number.
//
//   absl::StatusOr<CommunicationCount> c = CountCommunication(t);
//   c->total_bytes_per_device;   // e.g. 48 for one psum_invariant of f32[8] over x=4
//
// Nested jaxprs are walked: a shard_map body inside its mesh's axes, jit / closed_call bodies
// once, a scan body `length` times (its entries' counts and bytes are multiplied), and of a
// cond's branches the one that moves the most bytes (which branch runs is not static).
//
// Bytes per device, with S the bytes of the operand as one device holds it (its local aval in
// the body, sub-byte types packed) and n the group size (the product of the sizes of the
// axes the collective acts over), as a ring algorithm sends them:
//
//   psum, psum_invariant, pmax, pmin     all-reduce          ceil(2 (n-1) S / n)
//   all_gather, all_gather_invariant     all-gather          (n-1) S
//   reduce_scatter (psum_scatter)        reduce-scatter      (n-1) S / n
//   all_to_all                           all-to-all          (n-1) S / n
//   ppermute                             collective-permute  S if some pair moves data, else 0
//   pvary                                none (a cast)       0
//
// pvary entries are listed with 0 bytes (the transposes of psum are visible in the table);
// axis_index moves nothing and is not listed. A group of one device moves 0 bytes.
#ifndef AXE_IR_COMM_H_
#define AXE_IR_COMM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/ir/jaxpr.h"

namespace axe::ir {

struct CollectiveCount {
  std::string primitive;          // as in the jaxpr: psum_invariant, reduce_scatter, ...
  std::string kind;               // all-reduce, all-gather, ..., none
  std::vector<std::string> axes;  // the axes it acts over, as the equation names them
  int64_t group_size = 1;         // the product of those axes' sizes
  std::string operand;            // the local operand type(s), short form: f32[8]{V:x}
  int64_t count = 1;              // how many times it runs (scan lengths multiplied)
  int64_t bytes_per_device = 0;   // for all `count` runs

  friend bool operator==(const CollectiveCount&, const CollectiveCount&) = default;
};

struct CommunicationCount {
  std::vector<CollectiveCount> collectives;  // in program order (nested bodies in place)
  int64_t total_bytes_per_device = 0;
};

// Errors (InvalidArgument): a collective over an axis no enclosing shard_map binds (JAX's
// "Found an unbound axis name" text), malformed collective params, or a byte count past
// 2^63 - 1.
absl::StatusOr<CommunicationCount> CountCommunication(const ClosedJaxpr& jaxpr);
absl::StatusOr<CommunicationCount> CountCommunication(const Jaxpr& jaxpr);

// The table as `axe ir comm` prints it: one line per collective and the total.
std::string CommunicationTable(const CommunicationCount& count);

}  // namespace axe::ir

#endif  // AXE_IR_COMM_H_
