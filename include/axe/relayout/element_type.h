// Element sizes of the data types the relayout engine moves.
//
// The engine copies opaque elements of 1, 2, 4, 8 or 16 bytes: every array element type
// (axe::DType, see axe/base/dtype.h) of a byte or more. Types narrower than a byte (s4, u4,
// s2, u2, s1, u1, f4e2m1fn: XLA's packed types, `E(n)` layouts) are not supported yet and
// are rejected with an Unimplemented error that says so. Names ("bf16", "bfloat16", ...)
// are parsed with axe::ParseDType.
//
//   ElementBytes(DType::kBF16);              // 2
//   ElementBytes(*ParseDType("float32"));    // 4
//   ElementBytes(DType::kS4);                // Unimplemented: sub-byte packed type ...
#ifndef AXE_RELAYOUT_ELEMENT_TYPE_H_
#define AXE_RELAYOUT_ELEMENT_TYPE_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "axe/base/dtype.h"

namespace axe::relayout {

// Bytes per element of `type`: pred, s8, u8 and the f8/f6 types 1; s16, u16, f16, bf16 2;
// s32, u32, f32 4; s64, u64, f64, c64 8; c128 16. Errors: Unimplemented for sub-byte
// packed types, InvalidArgument for the non-array types (tuple, token, opaque, buffer,
// invalid).
absl::StatusOr<int> ElementBytes(DType type);

// OK iff the engine supports elements of `bytes` bytes (1, 2, 4, 8, 16).
absl::Status CheckElementBytes(int bytes);

}  // namespace axe::relayout

#endif  // AXE_RELAYOUT_ELEMENT_TYPE_H_
