// What `axe xla explain` says about a shape, computed in the library: every fact of every
// array leaf (element type, physical order, tile levels, E/L/M/S/SC, the four sizes, the
// Axe form, or why the shape is invalid), the position of one element (element, byte and
// bit offsets, the tile at each level), and the text the command prints. The work and the
// text are linear in the size of the shape (a tile level lists only the dims it covers).
//
//   Shape s = *ParseShape("bf16[16,256]{1,0:T(8,128)(2,1)}");
//   ArrayExplanation e = ExplainArray(s);     // e.array_size_bytes == 8192, ...
//   std::string text = ExplainText(e);        // the lines `axe xla explain` prints
//   IndexExplanation at = *ExplainIndex(s, {9, 130});
#ifndef AXE_XLA_EXPLAIN_H_
#define AXE_XLA_EXPLAIN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/xla/shape.h"
#include "axe/xla/tiling.h"
#include "axe/xla/to_axe.h"

namespace axe::xla {

// One tile level, as far as it reaches: the dims it covers and what it makes of them.
struct TileLevelFacts {
  std::string tile;              // "T(8,128)"
  size_t input_rank = 0;         // rank of the level's input
  std::vector<int64_t> covered;  // the (left-padded) minor dims the tile covers
  std::vector<int64_t> folded;   // per non-`*` bound: the covered dims folded into it
  std::vector<int64_t> counts;   // tiles per folded dim
  std::vector<int64_t> bounds;   // the tile's bounds (without `*`)
};

struct ArrayExplanation {
  std::string kind = "array";  // "array", "buffer", "token", "opaque"
  std::string shape;           // canonical text
  std::string element_type;
  std::string element_kind;  // "floating point", ...
  int64_t bit_width = 0;
  int64_t byte_width = 0;
  // The validation error when the shape was parsed leniently and is invalid; then only the
  // element type, memory space and the sizes that need no valid layout are filled in.
  std::optional<std::string> invalid;
  bool has_layout = false;
  std::vector<int64_t> minor_to_major;
  std::vector<int64_t> major_to_minor;
  std::string physical_order;  // in words
  std::vector<TileLevelFacts> tile_levels;
  std::vector<int64_t> expanded_shape;     // after every tile level (physical dims without tiles)
  int64_t element_size_in_bits = 0;        // E(n); 0 = natural
  int64_t tail_padding_alignment = 1;      // L(n)
  int64_t metadata_prefix_bytes = 0;       // M(n)
  std::vector<std::string> split_configs;  // "(0:30)"
  int64_t memory_space = 0;
  std::string memory_space_name;
  std::string memory_space_description;
  absl::StatusOr<int64_t> elements_in = 0;
  absl::StatusOr<int64_t> byte_size_of = 0;
  absl::StatusOr<int64_t> array_size_bytes = 0;
  absl::StatusOr<int64_t> padded_elements = 0;
  // Why array_size_bytes is what it is when that is surprising (a `*` in the first tile).
  std::optional<std::string> array_size_note;
  absl::StatusOr<AxeForm> axe = absl::UnknownError("not computed");
};

// One leaf of a shape: an array (or a buffer's array), a token or an opaque value.
struct LeafExplanation {
  std::vector<int64_t> tuple_index;  // empty for a non-tuple shape
  std::string shape;
  std::string kind;                       // "array", "buffer", "token", "opaque"
  std::optional<ArrayExplanation> array;  // arrays and buffers
};

// The facts of an array or buffer shape (other kinds: an error).
absl::StatusOr<ArrayExplanation> ExplainArray(const Shape& shape);
// The facts of any non-tuple shape, with the same fields whatever its kind: ExplainArray for
// an array or buffer; for a token or opaque value: kind, shape, element_type, element_kind (a
// sentence on what the value is), byte_size_of (0 for a token; an opaque one's depends on the
// pointer size: an error), and every array-only field empty or an error. Tuples: an error.
absl::StatusOr<ArrayExplanation> ExplainNonTuple(const Shape& shape);
// True for kind "array" and "buffer": the array-only fields of `e` apply.
inline bool HasArrayFacts(const ArrayExplanation& e) {
  return e.kind == "array" || e.kind == "buffer";
}
// Every leaf of any shape, in tuple order.
std::vector<LeafExplanation> ExplainLeaves(const Shape& shape);

// The leaf of a tuple at `leaf_index` (`{1,0}`: element 0 of element 1); the shape itself
// for an empty index. Errors name the position that does not exist.
absl::StatusOr<const Shape*> TupleLeaf(const Shape& shape, absl::Span<const int64_t> leaf_index);

// Where one element of an array lives.
struct IndexExplanation {
  std::vector<int64_t> index;
  int64_t linear_index = 0;  // in elements, after every tile level
  int64_t byte_offset = 0;
  // With a packed element size E(n): the element's first bit (0 = least significant) within
  // byte_offset and the bit offset from the start; E = 0: both 0.
  int64_t bit_in_byte = 0;
  int64_t bit_offset = 0;
  bool packed = false;
  std::vector<LevelPosition> levels;  // per tile level: which tile, where inside it
};
absl::StatusOr<IndexExplanation> ExplainIndex(const Shape& shape, absl::Span<const int64_t> index);

// The lines `axe xla explain` prints for an array (ends with '\n').
std::string ExplainText(const ArrayExplanation& e);
// The same for an element position (the "index" lines).
std::string ExplainIndexText(const IndexExplanation& at);
// One line for a tuple leaf: "{1,0} s4[8]{0:E(4)}: 8 elements, byte_size_of 4, ...".
std::string LeafLine(const LeafExplanation& leaf);

}  // namespace axe::xla

#endif  // AXE_XLA_EXPLAIN_H_
