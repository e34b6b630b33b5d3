// Python-style text helpers for the IR printer and parser (internal to src/ir).
#ifndef AXE_SRC_IR_PYTHON_TEXT_H_
#define AXE_SRC_IR_PYTHON_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace axe::ir::internal {

// [A-Za-z_][A-Za-z0-9_]*, at most 256 characters.
bool IsIdentifier(absl::string_view text);
// Identifiers joined by '-' (JAX names primitives such as scatter-add so).
bool IsPrimitiveName(absl::string_view text);
// Python's repr/str of a float: the shortest round-trip digits, "1.0", "0.5", "1e+16",
// "1.5e-05", "inf", "-inf", "nan", "-0.0".
std::string PythonFloat(double value);
// Python's repr of a str: single quotes unless the text holds ' and no ", escapes for \\,
// the quote, \n, \r, \t and other control characters (\xNN; also U+0080..U+00A0 and
// U+00AD, as Python writes them). The parser reads \xNN back as the code point U+00NN.
std::string PythonStringRepr(absl::string_view text);

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_PYTHON_TEXT_H_
