// Broadcasting: a logical dimension that does not move the address.
//
// Broadcast(L, n, pos, axis) inserts the shard iter (n, 0@axis) at position pos of D. Every
// one of the n logical points of the new dimension maps to the same physical point. This is
// distinct from replication: a replica maps one logical point to several physical points; a
// broadcast maps several logical points to one. The result is not canonicalized (the
// inserted iter stays where it was put).
//
//   Broadcast(S[8:1], 4, 0)   // S[(4,8):(0,1)]: shape (4, 8), every row reads the same 8 values
#ifndef AXE_LAYOUT_BROADCAST_H_
#define AXE_LAYOUT_BROADCAST_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "axe/layout/layout.h"

namespace axe {

// Errors (InvalidArgument): n < 1, pos > the number of shard iters, or the size overflows.
absl::StatusOr<Layout> Broadcast(const Layout& layout, int64_t n, size_t pos,
                                 Axis axis = Axis::Memory());

}  // namespace axe

#endif  // AXE_LAYOUT_BROADCAST_H_
