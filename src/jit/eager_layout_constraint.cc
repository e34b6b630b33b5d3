#include "axe/jit/eager_layout_constraint.h"

#include <utility>

#include "axe/base/status_macros.h"
#include "axe/ir/layout_constraint.h"
#include "axe/jit/execute.h"

namespace axe::jit {

absl::StatusOr<runtime::Array> WithLayoutConstraint(runtime::Array x, const JitLayout& layout) {
  AXE_ASSIGN_OR_RETURN(LocalLayout concrete, ir::ConstraintLayout(layout, x.shape()));
  AXE_ASSIGN_OR_RETURN(xla::Layout target, concrete.ToXla(x.dtype()));
  AXE_ASSIGN_OR_RETURN(LocalLayout full, LocalLayout::FromXla(target));
  if (LayoutOfArray(x) == full) return x;
  AXE_ASSIGN_OR_RETURN(runtime::Array out, x.Relayout(full));
  out.set_committed(x.committed());
  return out;
}

}  // namespace axe::jit
