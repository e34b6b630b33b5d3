// The pieces of a Pallas call description: grids (pallas::Grid::Parse), block shapes
// (ParseBlockShape, BlockDim::Parse) and operand types (ShapeDType::Parse, "int32[8,6]").
// Every parser sees the whole input. Laws: each reads back from its print to an equal
// value (a BlockDim also from its dataclass repr); Validate never crashes and a valid grid
// counts its programs and walks its points without overflow.
#include <cstdint>
#include <string>
#include <vector>

#include "axe/pallas/array.h"
#include "axe/pallas/block_dim.h"
#include "axe/pallas/grid.h"
#include "fuzz_check.h"

namespace {

namespace pl = axe::pallas;

void CheckGrid(const pl::Grid& grid) {
  const std::string text = grid.ToString();
  absl::StatusOr<pl::Grid> again = pl::Grid::Parse(text);
  AXE_FUZZ_CHECK(again.ok() && *again == grid, "parse(print(g)) == g for " + text);
  if (!grid.Validate().ok()) return;
  const int64_t programs = grid.num_programs();
  AXE_FUZZ_CHECK(programs >= 0, "a valid grid has programs >= 0: " + text);
  if (programs > 64) return;
  std::vector<int64_t> point(grid.sizes().size(), 0);
  int64_t visited = programs == 0 ? 0 : 1;
  while (programs > 0 && pl::NextGridPoint(grid, absl::MakeSpan(point))) ++visited;
  AXE_FUZZ_CHECK(visited == programs, "the grid walk visits every program of " + text);
}

void CheckBlockShape(const std::vector<pl::BlockDim>& dims) {
  const std::string text = pl::BlockShapeToString(dims);
  absl::StatusOr<std::vector<pl::BlockDim>> again = pl::ParseBlockShape(text);
  AXE_FUZZ_CHECK(again.ok() && *again == dims, "parse(print(block shape)) for " + text);
  (void)pl::FormatBlockShape(dims);
  for (const pl::BlockDim& d : dims) {
    (void)d.Validate();
    absl::StatusOr<pl::BlockDim> str = pl::BlockDim::Parse(d.ToString());
    AXE_FUZZ_CHECK(str.ok() && *str == d, "BlockDim reads back from str: " + d.ToString());
    absl::StatusOr<pl::BlockDim> repr = pl::BlockDim::Parse(d.Repr());
    AXE_FUZZ_CHECK(repr.ok() && *repr == d, "BlockDim reads back from repr: " + d.Repr());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input = axe::fuzz::AsText(data, size);
  if (absl::StatusOr<pl::Grid> g = pl::Grid::Parse(input); g.ok()) CheckGrid(*g);
  if (absl::StatusOr<std::vector<pl::BlockDim>> b = pl::ParseBlockShape(input); b.ok()) {
    CheckBlockShape(*b);
  }
  if (absl::StatusOr<pl::BlockDim> d = pl::BlockDim::Parse(input); d.ok()) CheckBlockShape({*d});
  if (absl::StatusOr<pl::ShapeDType> s = pl::ShapeDType::Parse(input); s.ok()) {
    const std::string text = s->ToString();
    absl::StatusOr<pl::ShapeDType> again = pl::ShapeDType::Parse(text);
    AXE_FUZZ_CHECK(again.ok() && *again == *s, "parse(print(s)) == s for " + text);
  }
  return 0;
}
