// One element's bytes from its text, for a relayout's padding value (axe relayout --fill).
//
// The text must name a value the type holds exactly, or, for floating-point types, one that
// rounds to a finite value of the type; nothing is silently wrapped, truncated or clamped:
//
//   ParseElementValue("300", DType::kU8);     // OutOfRange: 300 is out of range for u8 ...
//   ParseElementValue("1.5", DType::kS32);    // InvalidArgument: not an integer
//   ParseElementValue("true", DType::kPred);  // {1}
//   ParseElementValue("1.00390625", DType::kBF16);  // rounded to nearest even: 1.0
//
// The bytes are in the machine's order, as ElementValue<T> (relayout_plan.h) gives them.
#ifndef AXE_RELAYOUT_ELEMENT_VALUE_H_
#define AXE_RELAYOUT_ELEMENT_VALUE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/base/dtype.h"

namespace axe::relayout {

// The bytes of the element of `type` written `text` (surrounding whitespace ignored).
//  pred: 0, 1, true or false.
//  s8 ... s64, u8 ... u64: a decimal integer in the type's range.
//  f16, bf16, f32, f64: a decimal number, inf, -inf or nan, rounded once to the nearest
//    value of the type (ties to even; not through a double first); a finite number that
//    rounds past the largest finite value is out of range.
// Errors: InvalidArgument for text that is not a value of the type's kind, OutOfRange for
// values the type cannot hold (the message names the type and its range), Unimplemented
// for the other types (f8, f6, f4, complex, sub-byte integers).
absl::StatusOr<std::vector<uint8_t>> ParseElementValue(absl::string_view text, DType type);

// `value` rounded to the nearest IEEE half (f16) or bfloat16 bit pattern, ties to even;
// infinities and NaN kept (NaN as the quiet NaN of the value's sign).
uint16_t RoundToF16Bits(double value);
uint16_t RoundToBF16Bits(double value);

}  // namespace axe::relayout

#endif  // AXE_RELAYOUT_ELEMENT_VALUE_H_
