// /api/grid: a Pallas grid over its output, run as `axe grid show` (show_program_ids) and
// drawn (picture/grid_picture.h).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/dtype.h"
#include "axe/base/int_list.h"
#include "axe/explorer/answer_json.h"
#include "axe/explorer/handler.h"
#include "axe/pallas/array.h"
#include "axe/pallas/block_dim.h"
#include "axe/pallas/grid.h"
#include "axe/pallas/index_map_expr.h"
#include "axe/pallas/show_program_ids.h"
#include "axe/picture/grid_picture.h"
#include "kinds.h"

namespace axe::explorer {
namespace {

struct GridInput {
  pallas::ShapeDType out;
  std::optional<std::vector<pallas::BlockDim>> block;
  pallas::Grid grid;
  pallas::IndexMap index_map;
};

// `what` ("the array has 9 elements") past the explorer's `limit`.
absl::Status TooLarge(absl::string_view what, int64_t limit) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, "; the explorer runs at most ", limit, " (use axe grid show)"));
}

KindAnswer ParseShapeAndBlock(const Fields& fields, GridInput& in) {
  absl::StatusOr<std::vector<int64_t>> shape = ParseIntList(Trimmed(fields, "shape"));
  if (!shape.ok()) return FieldError("shape", shape.status());
  if (absl::Status valid = pallas::ValidateShape(*shape, "the shape"); !valid.ok()) {
    return FieldError("shape", valid);
  }
  std::optional<int64_t> elements = CheckedProduct(*shape);
  if (!elements || *elements > kMaxGridElements) {
    return FieldError("shape",
                      TooLarge(elements ? absl::StrCat("the array has ", *elements, " elements")
                                        : "the array has more than 2^63 elements",
                               kMaxGridElements));
  }
  const std::string dtype = Trimmed(fields, "dtype");
  absl::StatusOr<DType> t = ParseDType(dtype.empty() ? "int32" : dtype);
  if (!t.ok()) return FieldError("dtype", t.status());
  if (absl::Status fits = pallas::CheckStridesFit(*t, *shape); !fits.ok()) {
    return FieldError("shape", fits);
  }
  in.out = {*t, *std::move(shape)};
  const std::string block = Trimmed(fields, "block");
  // "none" (any case but Python's None, a squeezed entry): the whole array.
  if (!block.empty() && (absl::AsciiStrToLower(block) != "none" || block == "None")) {
    absl::StatusOr<std::vector<pallas::BlockDim>> b = pallas::ParseBlockShape(block);
    if (!b.ok()) return FieldError("block", b.status());
    in.block = *std::move(b);
  }
  return {};
}

// The block and the padded array stay within kMaxGridElements: show_program_ids works on
// block-sized windows and the padded array, so a block of 2^32 elements over an array of 8
// would otherwise run for minutes.
KindAnswer CheckBlockBounded(const GridInput& in) {
  if (!in.block) return {};
  std::vector<int64_t> block_sizes, padded;
  for (size_t d = 0; d < in.block->size(); ++d) {
    const pallas::BlockDim& b = (*in.block)[d];
    block_sizes.push_back(b.size());
    const int64_t extent = d < in.out.shape.size() ? in.out.shape[d] : 1;
    std::optional<int64_t> with_lo = CheckedAdd(extent, b.padding_lo());
    std::optional<int64_t> with_both =
        with_lo ? CheckedAdd(*with_lo, b.padding_hi()) : std::nullopt;
    if (!with_both) {
      return FieldError("block",
                        TooLarge("the padded array has more than 2^63 elements", kMaxGridElements));
    }
    padded.push_back(*with_both);
  }
  for (const auto& [what, sizes] :
       {std::pair{"the block", &block_sizes}, std::pair{"the padded array", &padded}}) {
    std::optional<int64_t> n = CheckedProduct(*sizes);
    if (!n || *n > kMaxGridElements) {
      return FieldError("block", TooLarge(n ? absl::StrCat(what, " has ", *n, " elements")
                                            : absl::StrCat(what, " has more than 2^63 elements"),
                                          kMaxGridElements));
    }
  }
  return {};
}

KindAnswer ParseGridAndMap(const Fields& fields, GridInput& in) {
  const std::string grid = Trimmed(fields, "grid");
  absl::StatusOr<pallas::Grid> g = pallas::Grid::Parse(grid.empty() ? "()" : grid);
  if (!g.ok()) return FieldError("grid", g.status());
  if (g->num_programs() > kMaxGridPrograms) {
    return FieldError(
        "grid",
        TooLarge(absl::StrCat("the grid has ", g->num_programs(), " programs"), kMaxGridPrograms));
  }
  in.grid = *g;
  const std::string map = Trimmed(fields, "index_map");
  const int rank = static_cast<int>(in.out.shape.size());
  if (map.empty()) {
    if (in.grid.rank() != rank) {
      return FieldError("index_map", absl::InvalidArgumentError(absl::StrCat(
                                         "the default is the identity, which needs one grid "
                                         "axis per array dimension (grid ",
                                         in.grid.ToString(), ", ", rank, " dimensions)")));
    }
    in.index_map = pallas::IndexMapExpr::Identity(rank).ToIndexMap();
  } else if (absl::AsciiStrToLower(map) == "none") {
    in.index_map = pallas::IndexMap();
  } else {
    absl::StatusOr<pallas::IndexMapExpr> e = pallas::IndexMapExpr::Parse(map);
    if (!e.ok()) return FieldError("index_map", e.status());
    in.index_map = e->ToIndexMap();
  }
  return {};
}

}  // namespace

KindAnswer AnswerGrid(const Fields& fields) {
  KindAnswer known = CheckKnownFields(fields, {"shape", "dtype", "block", "grid", "index_map"});
  if (!known.error.ok()) return known;
  GridInput in;
  if (KindAnswer bad = ParseShapeAndBlock(fields, in); !bad.error.ok()) return bad;
  if (KindAnswer bad = CheckBlockBounded(in); !bad.error.ok()) return bad;
  if (KindAnswer bad = ParseGridAndMap(fields, in); !bad.error.ok()) return bad;
  std::vector<pallas::ClampEvent> clamps;
  absl::StatusOr<pallas::AnyArray> output =
      pallas::ShowProgramIds(in.out, in.block, in.grid, in.index_map, {.clamp_report = &clamps});
  if (!output.ok()) return FieldError("block", output.status());
  KindAnswer out;
  out.answer_json = GridShowJson(*output, clamps);
  absl::StatusOr<std::string> svg = picture::GridSvg(in.out, in.block, in.grid, in.index_map);
  if (svg.ok()) {
    out.svg = *std::move(svg);
  } else {
    out.svg_error = std::string(svg.status().message());
  }
  return out;
}

}  // namespace axe::explorer
