// Changing the element granularity of a layout: unpack(n) views each element as n
// sub-elements, pack(n) is its inverse.
//
// Both act on ONE memory axis, the element-address axis: by default the axis of the
// innermost (last) memory shard iter (m when there is none). Other memory axes select a
// storage row (Trainium partitions P, PSUM banks, TMEM lanes) and are unchanged, as are
// thread and device axes: unpacking S[(128,512):(1@P,1@F)] by 2 gives S[(128,1024):(1@P,1@F)].
// Where the innermost memory iter is not the address axis (PSUM's S[(2,512,8):(1@Bank,1@F,1@P)]),
// name the axis explicitly.
//
//   Unpack(S[(8,4):(4,1)], 2)   // S[64:1]: strides x2, then (2, 1@m) appended
//   Pack(S[64:1], 2)            // S[32:1]
#ifndef AXE_LAYOUT_PACK_H_
#define AXE_LAYOUT_PACK_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "axe/layout/layout.h"

namespace axe {

// Multiplies every stride (shard and replica) and the offset on the address axis `mem` by n,
// then appends the shard iter (n, 1@mem). The logical shape's last dimension grows by n.
// The result is canonical. Errors: n < 1, `axis` is not a memory axis, or int64 overflow.
absl::StatusOr<Layout> Unpack(const Layout& layout, int64_t n,
                              std::optional<Axis> axis = std::nullopt);

// On the canonical layout: the last shard iter must be (e, 1@mem) with n | e; it becomes
// (e/n, 1@mem), and every other stride and the offset on `mem` must be divisible by n and
// are divided. `mem` defaults to the last shard iter's axis, which must be a memory axis.
// The result is canonical; Pack(l, 1) only canonicalizes. Errors name the offending iter
// or offset (and n < 1).
absl::StatusOr<Layout> Pack(const Layout& layout, int64_t n,
                            std::optional<Axis> axis = std::nullopt);

}  // namespace axe

#endif  // AXE_LAYOUT_PACK_H_
