#include "axe/jit/eager_layout_constraint.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/layout_constraint.h"
#include "axe/jit/execute.h"

namespace axe::jit {

absl::StatusOr<runtime::Array> WithLayoutConstraint(runtime::Array x, const JitLayout& layout) {
  const auto* concrete = std::get_if<LocalLayout>(&layout);
  if (concrete == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layouts passed to `with_layout_constraint` must be of type `Layout`. Got [",
        std::holds_alternative<AutoLayout>(layout) ? "<class 'jax._src.layout.AutoLayout'>"
                                                   : "<class 'NoneType'>",
        "]"));
  }
  AXE_RETURN_IF_ERROR(ir::CheckLayoutConstraintRank(*concrete, x.shape()));
  AXE_ASSIGN_OR_RETURN(xla::Layout target, concrete->ToXla(x.dtype()));
  AXE_ASSIGN_OR_RETURN(LocalLayout full, LocalLayout::FromXla(target));
  if (LayoutOfArray(x) == full) return x;
  AXE_ASSIGN_OR_RETURN(runtime::Array out, x.Relayout(std::move(target)));
  out.set_committed(x.committed());
  return out;
}

}  // namespace axe::jit
