// The shape of a computation: named parameter shapes and a result shape.
//
// ToString() is XLA's ProgramShape::ToString, `(name: shape, ...) -> result` without layouts
// (unnamed parameters print as `(unknown)`). ComputationLayoutString() is the form HLO module
// headers carry in entry_computation_layout={...}: `(p0, p1, ...)->result` with layouts,
// parameters joined like tuple elements (", ", /*index=N*/ every fifth).
//
//   ProgramShape p = *ParseProgramShape("(f32[], f32[2,3]{1,0:S(1)})->f32[2,3]{1,0:S(1)}");
//   p.ComputationLayoutString();   // the same string
#ifndef AXE_XLA_PROGRAM_SHAPE_H_
#define AXE_XLA_PROGRAM_SHAPE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/xla/shape.h"
#include "axe/xla/text.h"

namespace axe::xla {

struct ProgramShape {
  std::vector<Shape> parameters;
  std::vector<std::string> parameter_names;  // may be shorter than parameters
  Shape result;

  std::string ToString() const;
  std::string ComputationLayoutString() const;

  friend bool operator==(const ProgramShape&, const ProgramShape&) = default;
};

// Parses `(shape, ...)->shape` or `(name: shape, ...) -> shape`, optionally wrapped in
// braces as in `entry_computation_layout={...}`. Shapes are parsed with `options`.
absl::StatusOr<ProgramShape> ParseProgramShape(absl::string_view text,
                                               const ParseOptions& options = {});

}  // namespace axe::xla

#endif  // AXE_XLA_PROGRAM_SHAPE_H_
