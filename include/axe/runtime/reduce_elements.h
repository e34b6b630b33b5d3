// Elementwise reductions over several inputs of one element type, as the reducing
// collectives (all-reduce, reduce-scatter) apply them. Inputs are folded in the order
// given: out = op(...op(op(in[0], in[1]), in[2])..., in[k-1]).
//
//  - integers: sum wraps modulo 2^bits (XLA's add); max, min;
//  - f32, f64: IEEE arithmetic in the type; max and min propagate NaN (the first NaN met);
//  - f16, bf16: accumulated in f32 and rounded once to the type (ties to even);
//  - pred: sum and max are OR, min is AND (results 0 or 1);
//  - c64, c128: sum only (componentwise).
// Other types (f8, f6, f4, sub-byte) and max/min of complex values are Unimplemented.
#ifndef AXE_RUNTIME_REDUCE_ELEMENTS_H_
#define AXE_RUNTIME_REDUCE_ELEMENTS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"

namespace axe::runtime {

enum class ReduceOp { kSum, kMax, kMin };

// "sum", "max", "min".
absl::string_view ReduceOpName(ReduceOp op);

// OK iff ReduceElements supports `op` on `type`; the error names both.
absl::Status CheckReduction(ReduceOp op, DType type);

// out[i] = the fold of inputs[k][i] over k, for i in [0, elements). `inputs` must not be
// empty; `out` may be one of the inputs.
absl::Status ReduceElements(ReduceOp op, DType type, absl::Span<const uint8_t* const> inputs,
                            int64_t elements, uint8_t* out);

// IEEE half and bfloat16 bit patterns as float (exact).
float F16BitsToFloat(uint16_t bits);
float BF16BitsToFloat(uint16_t bits);

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_REDUCE_ELEMENTS_H_
