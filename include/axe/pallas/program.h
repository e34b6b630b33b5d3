// Inside a kernel: which program is running. JAX's pl.program_id / pl.num_programs.
//
//   void Kernel(Ref<int32_t> o) { o.Fill(10 * ProgramId(0) + ProgramId(1)); }
//
// A negative axis counts from the end. An axis outside the grid, or an unknown axis name,
// makes the call fail with "Axis 2 is out of bounds for grid (4, 2)" (the function itself
// returns 0 so the kernel can finish). Calling these outside a kernel aborts.
#ifndef AXE_PALLAS_PROGRAM_H_
#define AXE_PALLAS_PROGRAM_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace axe::pallas {

// The running program's index along `axis`.
int64_t ProgramId(int axis);
// The grid size along `axis`.
int64_t NumPrograms(int axis);
// The same for a named grid axis (Grid::Named); JAX's axis_index / axis_size.
int64_t ProgramId(absl::string_view axis_name);
int64_t NumPrograms(absl::string_view axis_name);

}  // namespace axe::pallas

#endif  // AXE_PALLAS_PROGRAM_H_
