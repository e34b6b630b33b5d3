// The HLO text form of shapes and layouts: parser (byte-for-byte XLA grammar, docs/xla.md)
// and printer (Shape::ToString, Layout::ToString).
//
//   shape  ::= 'b' '(' array ')' | '(' [shape {',' shape}] ')' | TYPE '[' [dim {',' dim}] ']'
//   [layout] dim    ::= INT | '<=' INT | '?' layout ::= '{' [INT {',' INT}] [':' D T L # * E S SC P
//   M] '}'      (fixed order, each once)
//
// Whitespace and /* */ // comments are skipped between tokens. After ']', a '{' starts a
// layout only when the next token is an integer or ':' (so `f32[2]{}` has extra content).
// Errors name the position:
//   ParseShape("f32[123,456,789]{1:T(2,*,128)}")
//   // "position 16: Dimensions size is 3, but minor to major size is 1. in \"...\""
//
//   Shape s = *ParseShape("bf16[16,256]{1,0:T(8,128)(2,1)}");
//   s.ToString();   // the same string
#ifndef AXE_XLA_TEXT_H_
#define AXE_XLA_TEXT_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/xla/layout.h"
#include "axe/xla/shape.h"

namespace axe::xla {

struct ParseOptions {
  // XLA's standalone behaviour: a top-level array (or buffer) is checked only for its
  // minor_to_major length. Tuple elements are always fully validated (as XLA does), and
  // inputs on which XLA crashes (T(-2), L(0), token[1], ...) are always rejected.
  bool lenient = false;
  // Keep D(...) dim level types (pre-2025 XLA) instead of dropping them.
  bool preserve_dim_level_types = false;
  // Give non-scalar arrays written without a layout the default descending layout.
  bool fill_missing_layouts = true;
  // Maximum nesting of tuples, buffers and P(...) shapes. XLA allows 8192; axe's default is
  // smaller because validation, printing, comparison and hashing recurse over the nesting.
  int max_depth = 512;
};

absl::StatusOr<Shape> ParseShape(absl::string_view text, const ParseOptions& options = {});

// A bare layout `{1,0:T(8,128)}` (no shape to validate against: only the syntax and the
// shape-independent checks apply).
absl::StatusOr<Layout> ParseLayout(absl::string_view text, const ParseOptions& options = {});

}  // namespace axe::xla

#endif  // AXE_XLA_TEXT_H_
