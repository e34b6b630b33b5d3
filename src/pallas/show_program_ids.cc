#include "axe/pallas/show_program_ids.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/pallas/execute.h"
#include "axe/pallas/program.h"

namespace axe::pallas {

absl::Status CheckShowProgramIdsCost(const ShapeDType& out, const Grid& grid,
                                     int64_t max_clamp_reports, const MemoryBudget& budget) {
  if (grid.num_programs() > kMaxShowPrograms) {
    return absl::InvalidArgumentError(
        absl::StrCat("the grid ", grid.ToString(), " has ", grid.num_programs(),
                     " programs; show_program_ids runs at most ", kMaxShowPrograms));
  }
  const int64_t element_bytes = ByteWidth(out.dtype);
  std::optional<int64_t> elements = CheckedProduct(out.shape);
  // The padded buffer, the result, its copy for the caller, and its text.
  std::optional<int64_t> needed =
      elements ? CheckedMul(*elements, 3 * std::max<int64_t>(element_bytes, 1) + 16) : std::nullopt;
  const int64_t reports =
      std::min(std::max<int64_t>(max_clamp_reports, 0), grid.num_programs()) * kClampEventBytes;
  if (needed) needed = CheckedAdd(*needed, reports);
  return budget.Check(needed, absl::StrCat("show_program_ids of shape ", FormatTuple(out.shape),
                                           " on the grid ", grid.ToString()));
}

absl::StatusOr<AnyArray> ShowProgramIds(const ShapeDType& out,
                                        std::optional<std::vector<BlockDim>> block_shape,
                                        const Grid& grid, IndexMap index_map, CallOptions options) {
  if (grid.rank() > 18) {
    return absl::InvalidArgumentError(absl::StrCat("show_program_ids: the grid ", grid.ToString(),
                                                   " has more axes than int64 has decimal digits"));
  }
  options.name = "show_program_ids";
  CallSpec spec{
      .grid = grid,
      .in_specs = {},
      .out_specs = {block_shape.has_value()
                        ? BlockSpec(*std::move(block_shape), std::move(index_map))
                        : BlockSpec::WholeArray(std::move(index_map))},
      .options = std::move(options),
  };
  auto kernel = [rank = grid.rank()](absl::Span<const RawRef>,
                                     absl::Span<const RawRef> outs) -> absl::Status {
    int64_t value = 0;
    for (int a = 0; a < rank; ++a) {
      std::optional<int64_t> v = CheckedMul(value, 10);
      if (v) v = CheckedAdd(*v, ProgramId(a));
      if (!v) return absl::InvalidArgumentError("the program's decimal digits overflow int64");
      value = *v;
    }
    const RawRef& o = outs[0];
    VisitDType(o.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      o.As<T>().Fill(static_cast<T>(value));
    });
    return absl::OkStatus();
  };
  AXE_ASSIGN_OR_RETURN(std::vector<AnyArray> outs, ExecuteCall(spec, {}, {out}, kernel));
  return std::move(outs[0]);
}

}  // namespace axe::pallas
