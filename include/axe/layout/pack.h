// Changing the element granularity of a layout: unpack(n) views each element as n
// sub-elements, pack(n) is its inverse.
//
//   Unpack(S[(8,4):(4,1)], 2)   // S[64:1]: strides x2, then (2, 1@m) appended
//   Pack(S[64:1], 2)            // S[32:1]
#ifndef AXE_LAYOUT_PACK_H_
#define AXE_LAYOUT_PACK_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "axe/layout/layout.h"

namespace axe {

// Multiplies every stride (shard and replica) and offset on a memory axis by n, then appends
// the shard iter (n, 1@mem), mem being the axis of the innermost (last) memory shard iter (m
// when there is none). Thread and device strides are unchanged. The logical shape's last
// dimension grows by n. The result is canonical. Errors: n < 1, or int64 overflow.
absl::StatusOr<Layout> Unpack(const Layout& layout, int64_t n);

// On the canonical layout: the last shard iter must be (e, 1@mem) on a memory axis with
// n | e; it becomes (e/n, 1@mem), and every other memory stride and memory offset must be
// divisible by n and is divided. The result is canonical; Pack(l, 1) only canonicalizes.
// Errors name the offending iter or offset (and n < 1).
absl::StatusOr<Layout> Pack(const Layout& layout, int64_t n);

}  // namespace axe

#endif  // AXE_LAYOUT_PACK_H_
