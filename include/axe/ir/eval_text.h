// Text for evaluation inputs and outputs (axe ir run): argument specs and numpy-like values.
//
//   ParseArgSpec("f32[8]=iota")        // 0, 1, ..., 7
//   ParseArgSpec("f32[2,2]=0.5")       // every element 0.5
//   ParseArgSpec("i32[4]=1,2,3,4")     // row-major values (true/false, inf, -inf, nan too)
//   FormatValues(a)                    // "[[0.0, 1.0], [2.0, 3.0]]"
//   ParseArgSpec("key<fry>[2]=0,1,0,2") // two PRNG keys given by their key data (u32 pairs)
//
// Values are rounded to the type (RoundToDType), so "f32[1]=0.1" holds 0.1f. Errors
// (InvalidArgument) name the 0-based character position: a missing '=', a type that does not
// parse (ShapedArray::ParseShort's error), a value that is not a number, a count of values
// other than the element count, more than kMaxEvalTextElements elements; (Unimplemented) an
// element type the interpreter cannot hold (complex, f8, sub-byte).
#ifndef AXE_IR_EVAL_TEXT_H_
#define AXE_IR_EVAL_TEXT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/ir/host_array.h"

namespace axe::ir {

inline constexpr int64_t kMaxEvalTextElements = int64_t{1} << 24;

absl::StatusOr<HostArray> ParseArgSpec(absl::string_view text);

// One element as printed: bool True/False, a PRNG key as its key data [w0, w1], integers in
// decimal, floats in the shortest text
// that reads back to the same value of their type, with a decimal point (1.0, 0.1, inf, nan).
std::string FormatElement(double value, DType dtype);
// The values nested by dimension like numpy's repr: 2.0, [1.0, 2.0], [[1, 2], [3, 4]]; an
// array without elements prints [] (numpy's str), whatever its shape.
std::string FormatValues(const HostArray& array);

}  // namespace axe::ir

#endif  // AXE_IR_EVAL_TEXT_H_
