#include "axe/pallas/show_program_ids.h"

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/pallas/execute.h"
#include "axe/pallas/program.h"

namespace axe::pallas {

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
