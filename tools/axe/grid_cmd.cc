// axe grid show|check: Pallas grids and BlockSpecs on the command line.
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/explorer/answer_json.h"
#include "axe/pallas/block_dim.h"
#include "axe/pallas/execute.h"
#include "axe/pallas/index_map_expr.h"
#include "axe/pallas/numpy_format.h"
#include "axe/pallas/show_program_ids.h"
#include "axe/pallas/validate.h"
#include "axe/picture/grid_picture.h"
#include "cli.h"

namespace axe::cli {
namespace grid_cmd {
namespace {

using axe::DType;
using pallas::AnyArray;
using pallas::BlockDim;
using pallas::Grid;
using pallas::IndexMap;

// Prefixes an error with the option it came from.
// The command line runs and prints small examples; larger grids and arrays are refused
// rather than left to run for hours or exhaust memory.
// A block far larger than the array pads it to whole blocks; the CLI keeps that buffer small.
constexpr int64_t kMaxCliBufferBytes = int64_t{1} << 28;
constexpr int64_t kMaxCliCount = pallas::kMaxShowPrograms;
// grid show --json lists at most this many clamped windows (the first ones).
constexpr int64_t kMaxJsonClampReports = 1000;

struct GridArgs {
  std::string shape, block = "none", grid = "()", index_map, dtype;
};

void AddGridArgs(CLI::App* cmd, GridArgs& args, absl::string_view default_dtype,
                 absl::string_view index_map_help) {
  args.dtype = std::string(default_dtype);
  cmd->add_option("--shape", args.shape, "Array shape, e.g. 8,6")->required();
  cmd->add_option(
      "--block", args.block,
      "Block shape: entries 2, Element(2), Element(3,(2,0)), None (squeezed), Blocked(2), "
      "e.g. '2,3' or 'None,2'; 'none' for the whole array (default)");
  cmd->add_option("--grid", args.grid, "Grid, e.g. 4,2 (default (): one program)");
  cmd->add_option("--index-map", args.index_map, std::string(index_map_help));
  cmd->add_option(
      "--dtype", args.dtype,
      absl::StrCat("Element type: int32, float32, bool, ... or i32, s32, f32, bf16 (default ",
                   default_dtype, ")"));
}

// The options' texts, each read from stdin ("-") or a file ("@path") when so given.
absl::StatusOr<GridArgs> ReadGridArgs(const GridArgs& given) {
  GridArgs text;
  AXE_ASSIGN_OR_RETURN(text.shape, ReadInputText(given.shape, "--shape"));
  AXE_ASSIGN_OR_RETURN(text.block, ReadInputText(given.block, "--block"));
  AXE_ASSIGN_OR_RETURN(text.grid, ReadInputText(given.grid, "--grid"));
  AXE_ASSIGN_OR_RETURN(text.index_map, ReadInputText(given.index_map, "--index-map"));
  AXE_ASSIGN_OR_RETURN(text.dtype, ReadInputText(given.dtype, "--dtype"));
  return text;
}

struct Parsed {
  std::vector<int64_t> shape;
  std::optional<std::vector<BlockDim>> block;
  Grid grid;
  DType dtype;
};

absl::StatusOr<Parsed> ParseGridArgs(const GridArgs& args) {
  Parsed p;
  AXE_ASSIGN_OR_RETURN(p.shape, ParseIntListOption(args.shape, "--shape"));
  AXE_RETURN_IF_ERROR(InOption("--shape", pallas::ValidateShape(p.shape, "the shape")));
  if (absl::AsciiStrToLower(absl::StripAsciiWhitespace(args.block)) == "none" &&
      absl::StripAsciiWhitespace(args.block) != "None") {
    p.block = std::nullopt;
  } else {
    absl::StatusOr<std::vector<BlockDim>> b = pallas::ParseBlockShape(args.block);
    if (!b.ok()) return InOption("--block", b.status());
    p.block = *b;
  }
  absl::StatusOr<Grid> g = Grid::Parse(args.grid);
  if (!g.ok()) return InOption("--grid", g.status());
  p.grid = *g;
  if (p.grid.num_programs() > kMaxCliCount) {
    return absl::InvalidArgumentError(
        absl::StrCat("--grid: ", p.grid.ToString(), " has ", p.grid.num_programs(),
                     " programs; axe grid runs at most ", kMaxCliCount));
  }
  absl::StatusOr<DType> t = axe::ParseDType(args.dtype);
  if (!t.ok()) return InOption("--dtype", t.status());
  p.dtype = *t;
  return p;
}

// --index-map: an expression, "none" (zeros), or `fallback` when not given.
absl::StatusOr<IndexMap> ParseIndexMap(const std::string& text, std::optional<IndexMap> fallback) {
  if (text.empty() && fallback.has_value()) return *fallback;
  if (absl::AsciiStrToLower(absl::StripAsciiWhitespace(text)) == "none") return IndexMap();
  absl::StatusOr<pallas::IndexMapExpr> e = pallas::IndexMapExpr::Parse(text);
  if (!e.ok()) return InOption("--index-map", e.status());
  return e->ToIndexMap();
}

void AddShow(CLI::App& group, Selected& selected) {
  auto args = std::make_shared<GridArgs>();
  auto repr = std::make_shared<bool>(false);
  auto svg = std::make_shared<std::string>();    // --svg FILE
  auto latex = std::make_shared<std::string>();  // --latex FILE
  CLI::App* cmd = group.add_subcommand("show",
                                       "Run show_program_ids in interpret mode: every program "
                                       "fills its output block with its grid indices as "
                                       "decimal digits; prints the array as NumPy's print() does");
  AddGridArgs(cmd, *args, "int32",
              "Index map, e.g. '(i,j)->(i,j)' or 'lambda i, j: (2*i, 3*j)' (+ - * // %); 'none' "
              "for all zeros; "
              "default: the identity over the grid");
  cmd->add_flag("--repr", *repr, "Print JAX's repr, Array([...], dtype=...), instead of print()");
  cmd->add_option("--svg", *svg,
                  "Also draw the program blocks over the array (clamped and padded blocks "
                  "marked) as an SVG picture into FILE")
      ->check(OutputFileName());
  AddLatexOption(cmd, *latex);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [given = args, repr, svg, latex, &selected]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(GridArgs text, ReadGridArgs(*given));
    const GridArgs* args = &text;
    AXE_ASSIGN_OR_RETURN(Parsed p, ParseGridArgs(*args));
    if (int64_t n = *CheckedProduct(p.shape); n > kMaxCliCount) {
      return absl::InvalidArgumentError(
          absl::StrCat("--shape: ", FormatTuple(p.shape, true), " has ", n,
                       " elements; axe grid show prints at most ", kMaxCliCount));
    }
    if (args->index_map.empty() && p.grid.rank() != static_cast<int>(p.shape.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--index-map: the default is the identity ",
          pallas::IndexMapExpr::Identity(p.grid.rank()).ToString(),
          ", which needs one grid axis per array dimension, but the grid ", p.grid.ToString(),
          " has ", p.grid.rank(), " axes and the shape ", FormatTuple(p.shape, true), " ",
          p.shape.size(), " dimensions; give --index-map (or 'none' for all zeros)"));
    }
    AXE_ASSIGN_OR_RETURN(
        IndexMap map,
        ParseIndexMap(args->index_map, pallas::IndexMapExpr::Identity(p.grid.rank()).ToIndexMap()));
    if (!svg->empty() || !latex->empty()) {
      absl::StatusOr<std::string> drawing =
          picture::GridSvg({p.dtype, p.shape}, p.block, p.grid, map);
      if (!drawing.ok()) return InOption(svg->empty() ? "--latex" : "--svg", drawing.status());
      AXE_RETURN_IF_ERROR(WritePictureFiles(*svg, *latex, *drawing));
    }
    // Text mode reports the first clamped window and the count; --json lists the first ones.
    const int64_t max_reports = selected.json ? kMaxJsonClampReports : 1;
    AXE_RETURN_IF_ERROR(
        pallas::CheckShowProgramIdsCost({p.dtype, p.shape}, p.grid, max_reports, selected.budget));
    std::vector<pallas::ClampEvent> clamps;
    int64_t clamped = 0;
    AXE_ASSIGN_OR_RETURN(AnyArray ids,
                         pallas::ShowProgramIds({p.dtype, p.shape}, p.block, p.grid, std::move(map),
                                                {.clamp_report = &clamps,
                                                 .max_clamp_reports = max_reports,
                                                 .clamp_count = &clamped,
                                                 .max_buffer_bytes = kMaxCliBufferBytes}));
    std::ostream& out = *selected.out;
    if (selected.json) {
      out << explorer::GridShowJson(ids, clamps) << "\n";
      return absl::OkStatus();
    }
    out << (*repr ? pallas::FormatNumpyRepr(ids) : pallas::FormatNumpy(ids)) << "\n";
    std::ostream& err = *selected.err;
    if (clamped == 1) err << "axe: note: clamped: " << clamps[0].ToString() << "\n";
    if (clamped > 1) {
      err << "axe: note: " << clamped << " windows clamped, first: " << clamps[0].ToString()
          << "\n";
    }
    return absl::OkStatus();
  });
}

void AddCheck(CLI::App& group, Selected& selected) {
  struct Args : GridArgs {
    std::string backend, memory_space = "default";
    bool old_rule = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = group.add_subcommand("check",
                                       "Check a block shape against a backend's rules (TPU 8x128 "
                                       "and rank-1 rules, Mosaic GPU, Triton); "
                                       "prints ok or the violation");
  cmd->add_option(
         "--backend", args->backend,
         "tpu, mosaic-gpu or triton (also JAX's mosaic_tpu, mosaic_gpu; 'gpu' and 'mosaic' are "
         "ambiguous and rejected)")
      ->required();
  AddGridArgs(cmd, *args, "float32", "Index map (as for 'grid show'); default: all zeros");
  cmd->add_option("--memory-space", args->memory_space,
                  "default, any (TPU HBM), smem (TPU) or gmem (GPU)");
  cmd->add_flag("--old-rank1-rule", args->old_rule,
                "TPU: the rank-1 rule before 2026-02 (multiple of 128*packing)");
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(GridArgs text, ReadGridArgs(*args));
    AXE_ASSIGN_OR_RETURN(Parsed p, ParseGridArgs(text));
    AXE_ASSIGN_OR_RETURN(std::string backend_text, ReadInputText(args->backend, "--backend"));
    absl::StatusOr<pallas::Backend> backend = pallas::ParseBackend(backend_text);
    if (!backend.ok()) return InOption("--backend", backend.status());
    AXE_ASSIGN_OR_RETURN(std::string memory_space,
                         ReadInputText(args->memory_space, "--memory-space"));
    absl::StatusOr<pallas::MemorySpace> ms = pallas::ParseMemorySpace(memory_space);
    if (!ms.ok()) return InOption("--memory-space", ms.status());
    AXE_ASSIGN_OR_RETURN(IndexMap map, ParseIndexMap(text.index_map, IndexMap()));
    pallas::CallSpec spec{
        .grid = p.grid,
        .in_specs = {p.block.has_value() ? pallas::BlockSpec(*p.block, std::move(map), *ms)
                                         : pallas::BlockSpec::WholeArray(std::move(map), *ms)}};
    std::vector<pallas::ShapeDType> inputs = {{p.dtype, p.shape}};
    // A call that is malformed in itself (ranks, sizes, index-map arity) is bad input.
    AXE_RETURN_IF_ERROR(pallas::ValidateCall(spec, inputs, {}));
    absl::Status verdict =
        pallas::Validate(spec, inputs, {}, *backend, {.old_tpu_rank1_rule = args->old_rule});
    std::ostream& out = *selected.out;
    if (selected.json) {
      Json j = {{"ok", verdict.ok()}};
      if (!verdict.ok()) j["error"] = std::string(verdict.message());
      PrintJson(out, j);
    } else {
      out << (verdict.ok() ? std::string("ok") : std::string(verdict.message())) << "\n";
    }
    return absl::OkStatus();
  });
}

void AddGridCommands(CLI::App& app, Selected& selected) {
  CLI::App* group = app.add_subcommand(
      "grid", "Pallas grids and BlockSpecs: show_program_ids, backend block rules");
  group->require_subcommand(1);
  AddShow(*group, selected);
  AddCheck(*group, selected);
}

AXE_CLI_COMMAND_GROUP(40, AddGridCommands);

}  // namespace
}  // namespace grid_cmd
}  // namespace axe::cli
