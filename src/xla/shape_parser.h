// Internal: the recursive-descent parser behind ParseShape, ParseLayout and
// ParseProgramShape, working on a caller's Scanner (comments skipped).
#ifndef AXE_SRC_XLA_SHAPE_PARSER_H_
#define AXE_SRC_XLA_SHAPE_PARSER_H_

#include <optional>

#include "absl/status/statusor.h"
#include "axe/base/scanner.h"
#include "axe/xla/layout.h"
#include "axe/xla/shape.h"
#include "axe/xla/text.h"

namespace axe::xla::internal {

class ShapeParser {
 public:
  ShapeParser(Scanner& scanner, const ParseOptions& options) : s_(scanner), options_(options) {}

  // One shape at the scanner's position. Tuple elements are validated; the shape itself is
  // not (see FinishTopLevel).
  absl::StatusOr<Shape> ParseShape();
  // A layout starting at '{'.
  absl::StatusOr<Layout> ParseLayout();
  // Validates a complete top-level shape per the options (strict unless lenient).
  absl::Status ValidateTopLevel(const Shape& shape) const;

 private:
  // An array, token, opaque or buffer shape.
  absl::StatusOr<Shape> ParseLeaf();
  absl::StatusOr<Shape> ParseBuffer(size_t at);
  // "unknown element type 'f128'" for an identifier that names no type, else "expected
  // primitive type".
  absl::Status UnknownType(std::optional<absl::string_view> ident, size_t at) const;
  absl::StatusOr<Shape> ParseArray(PrimitiveType type, size_t at);
  absl::Status ParseDims(std::vector<int64_t>& dims, std::vector<bool>& dynamic);
  bool AtLayoutStart();
  absl::Status ParseAttributes(Layout& layout);
  absl::StatusOr<std::vector<DimLevel>> ParseDimLevels();
  absl::StatusOr<Tile> ParseTile();
  // One or more tiles / split configs, as long as another '(' follows.
  absl::StatusOr<std::vector<Tile>> ParseTiles();
  absl::StatusOr<std::vector<SplitConfig>> ParseSplitConfigs();
  // P(shape) after the P at `at`, within the nesting limit.
  absl::StatusOr<Shape> ParsePhysicalShape(size_t at);
  absl::StatusOr<SplitConfig> ParseSplitConfig();
  absl::StatusOr<int64_t> ParseParenInt(size_t* value_at = nullptr);
  absl::StatusOr<PrimitiveType> ParseUnsignedType();

  Scanner& s_;
  const ParseOptions& options_;
  // P(...) shapes recurse through the call stack; their nesting has its own small bound.
  static constexpr int kMaxPhysicalShapeNesting = 64;
  int depth_ = 0;  // tuple nesting outside the shape being parsed
  int physical_depth_ = 0;
};

}  // namespace axe::xla::internal

#endif  // AXE_SRC_XLA_SHAPE_PARSER_H_
