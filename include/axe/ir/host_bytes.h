// HostArray values <-> the bytes of arrays in memory (row-major, the element type's own
// encoding): how programs evaluated by EvalJaxpr read and write the runtime's arrays.
//
//   HostArray x = *HostArrayFromBytes(ShapedArray({2, 3}, DType::kF32), array.ToHost()->data());
//   std::vector<uint8_t> bytes = *HostArrayToBytes(x);
//
// Part of target axe::ir_run (it uses the runtime's f16/bf16 conversions).
#ifndef AXE_IR_HOST_BYTES_H_
#define AXE_IR_HOST_BYTES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/ir/host_array.h"

namespace axe::ir {

// Errors (Unimplemented): an element type a HostArray cannot hold (complex, f8, sub-byte);
// (InvalidArgument) a byte count that is not the aval's size.
absl::StatusOr<HostArray> HostArrayFromBytes(ShapedArray aval, absl::Span<const uint8_t> bytes);
absl::StatusOr<std::vector<uint8_t>> HostArrayToBytes(const HostArray& array);

// HostArrayFromBytes for values a user gives: a 64-bit integer past 2^53, which a double
// cannot hold, is refused (InvalidArgument naming the element) instead of rounded.
absl::StatusOr<HostArray> HostArrayFromBytesExact(ShapedArray aval,
                                                  absl::Span<const uint8_t> bytes);

}  // namespace axe::ir

#endif  // AXE_IR_HOST_BYTES_H_
