// Reading Python call expressions such as `Layout((1, 0), tiling=None)` or
// `NamedSharding(mesh=Mesh('x': 2), spec=P('x',))` (internal to axe::sharding).
//
// ReadCall splits a call into its callee and its argument texts without interpreting the
// arguments (brackets and quotes are matched, nesting is bounded), so that each argument can
// be handed to the parser of its own type. BindArgs maps positional and keyword arguments to
// parameters with Python's rules and messages. Every error names the character position in
// the scanner's text.
#ifndef AXE_SRC_SHARDING_CALL_TEXT_H_
#define AXE_SRC_SHARDING_CALL_TEXT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/base/scanner.h"

namespace axe::sharding {

// The deepest bracket nesting an argument may have.
inline constexpr size_t kMaxCallNesting = 32;

struct CallArg {
  std::optional<std::string> keyword;  // set for `keyword=value`
  size_t start = 0;                    // where the argument (its keyword, if any) starts
  size_t begin = 0;                    // the value's text: [begin, end) of the scanner's text,
  size_t end = 0;                      // surrounding whitespace excluded
};

struct Call {
  std::string callee;  // as written, possibly dotted (`jax.sharding.NamedSharding`)
  size_t callee_pos = 0;
  std::vector<CallArg> args;

  // The last component of the callee (`NamedSharding`).
  absl::string_view name() const;
};

// The end of the value starting at `begin`: the first `,` or `)` (or `]`/`}` closing an
// outer bracket) outside brackets and quotes. Errors: an unbalanced bracket, an unterminated
// string, nesting deeper than kMaxCallNesting.
absl::StatusOr<size_t> FindValueEnd(const Scanner& s, size_t begin);

// Reads `Callee(arg, ..., keyword=value, ...)` at the scanner's position, with an optional
// trailing comma; at most `max_args` arguments.
absl::StatusOr<Call> ReadCall(Scanner& s, size_t max_args);

// One parameter of a call; `alias` is an accepted second spelling of its keyword.
struct Param {
  absl::string_view name;
  absl::string_view alias;
};

// Binds the arguments to `params` (positional ones in order, then keywords), one slot per
// parameter. Python's errors: more positional arguments than parameters, an unexpected
// keyword, two values for one parameter, a positional argument after a keyword argument.
absl::StatusOr<std::vector<std::optional<CallArg>>> BindArgs(const Scanner& s, const Call& call,
                                                             absl::Span<const Param> params);

// The text of an argument.
absl::string_view ArgText(const Scanner& s, const CallArg& arg);

// A sub-parser's error about the argument `what`, placed at the argument's position in the
// whole text (keeping its code).
absl::Status InArgument(const Scanner& s, const CallArg& arg, absl::string_view what,
                        const absl::Status& status);

// How Python would describe the type of a value written as `text` (for JAX's TypeError
// texts): <class 'int'>, <class 'float'>, <class 'str'>, <class 'tuple'>, <class 'list'>,
// <class 'dict'>, <class 'set'>, <class 'bool'> and, for a call `Foo(...)`, <class 'Foo'>.
// Empty when the text is none of these (a bare name, a malformed literal).
std::string PythonTypeOf(absl::string_view text);

}  // namespace axe::sharding

#endif  // AXE_SRC_SHARDING_CALL_TEXT_H_
