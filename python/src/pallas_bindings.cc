// axe.pallas: show_program_ids, the reference kernel of the Pallas grid documentation, in
// interpret mode (include/axe/pallas/show_program_ids.h). The Python wrapper turns the
// returned bytes into a NumPy array.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"
#include "axe/base/checked_math.h"
#include "axe/base/dtype.h"
#include "axe/base/memory_budget.h"
#include "axe/pallas/array.h"
#include "axe/pallas/block_dim.h"
#include "axe/pallas/clamp_report.h"
#include "axe/pallas/grid.h"
#include "axe/pallas/index_map_expr.h"
#include "axe/pallas/show_program_ids.h"
#include "bindings.h"
#include "status.h"

namespace nb = nanobind;

namespace axe::python {
namespace {

// (data bytes, numpy dtype name, shape, clamp reports: every clamped window's when
// `report_clamps`, else none).
nb::tuple ShowProgramIds(const std::vector<int64_t>& shape,
                         const std::optional<std::string>& block_shape, const std::string& grid,
                         const std::optional<std::string>& index_map, bool identity,
                         const std::string& dtype, bool report_clamps) {
  pallas::Grid g = Unwrap(pallas::Grid::Parse(grid));
  std::optional<std::vector<pallas::BlockDim>> block;
  if (block_shape) block = Unwrap(pallas::ParseBlockShape(*block_shape));
  // `identity`: the documentation function's default, (i, j) -> (i, j). No index map (None,
  // or the CLI's "none"): JAX's BlockSpec default, zeros for every dimension.
  const bool zeros =
      !index_map || absl::AsciiStrToLower(absl::StripAsciiWhitespace(*index_map)) == "none";
  pallas::IndexMap map = identity ? pallas::IndexMapExpr::Identity(g.rank()).ToIndexMap()
                         : zeros  ? pallas::IndexMap()
                                  : Unwrap(pallas::IndexMapExpr::Parse(*index_map)).ToIndexMap();
  std::vector<pallas::ClampEvent> clamps;
  pallas::CallOptions options;
  options.clamp_report = &clamps;
  DType type = Unwrap(ParseDType(dtype));
  // Refused before running: over the programs cap (ValueError) or the memory budget
  // (MemoryError), every program's clamp report counted.
  const MemoryBudget budget = Unwrap(ResolveMemoryBudget(std::nullopt));
  options.max_clamp_reports = report_clamps ? INT64_MAX : 0;
  ThrowIfError(
      pallas::CheckShowProgramIdsCost({type, shape}, g, options.max_clamp_reports, budget));
  pallas::AnyArray out = Unwrap(pallas::ShowProgramIds({type, shape}, block, g, map, options));
  size_t bytes = static_cast<size_t>(out.size()) * out.element_size();
  std::vector<std::string> reports;
  for (const pallas::ClampEvent& e : clamps) reports.push_back(e.ToString());
  return nb::make_tuple(nb::bytes(static_cast<const char*>(out.data()), bytes),
                        std::string(NumpyName(out.dtype())), nb::tuple(nb::cast(shape)),
                        nb::cast(reports));
}

}  // namespace

void BindPallas(nb::module_& m) {
  m.def("_show_program_ids", &ShowProgramIds, nb::arg("shape"), nb::arg("block_shape").none(),
        nb::arg("grid"), nb::arg("index_map").none(), nb::arg("identity"), nb::arg("dtype"),
        nb::arg("report_clamps"));
}

}  // namespace axe::python
