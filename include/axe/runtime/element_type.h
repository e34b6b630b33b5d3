// Element sizes of the data types the relayout engine moves.
//
// The engine copies opaque elements of 1, 2, 4, 8 or 16 bytes. Types narrower than a byte
// (s4, u4, s2, u2, s1, u1, f4e2m1fn: XLA's packed types, `E(4)` layouts) are not supported
// yet and are rejected with an Unimplemented error that says so.
//
//   ElementBytes("bf16");  // 2
//   ElementBytes("s4");    // Unimplemented: sub-byte packed type ...
#ifndef AXE_RUNTIME_ELEMENT_TYPE_H_
#define AXE_RUNTIME_ELEMENT_TYPE_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace axe::runtime {

// Bytes per element of a dtype name: pred/s8/u8/f8e4m3fn/f8e5m2/... 1; s16/u16/f16/bf16 2;
// s32/u32/f32 4; s64/u64/f64/c64 8; c128 16. Errors: Unimplemented for sub-byte packed
// types, InvalidArgument (listing the known names) for anything else.
absl::StatusOr<int> ElementBytes(absl::string_view dtype);

// OK iff the engine supports elements of `bytes` bytes (1, 2, 4, 8, 16).
absl::Status CheckElementBytes(int bytes);

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_ELEMENT_TYPE_H_
