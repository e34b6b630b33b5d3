// with_layout_constraint(x, layout) applied eagerly to an array (spec jax-layout-format.md
// §6): the identity on values; the array is re-laid-out when its layout differs (a new
// array, the same sharding and committed flag), else returned as is (moved through).
#ifndef AXE_JIT_EAGER_LAYOUT_CONSTRAINT_H_
#define AXE_JIT_EAGER_LAYOUT_CONSTRAINT_H_

#include "absl/status/statusor.h"
#include "axe/jit/layout_rules.h"
#include "axe/runtime/array.h"

namespace axe::jit {

// Errors (JAX's ValueError texts, as ir::WithLayoutConstraint): a layout that is not a
// concrete Layout (None, AUTO), a rank that differs from the array's; the relayout's errors.
absl::StatusOr<runtime::Array> WithLayoutConstraint(runtime::Array x, const JitLayout& layout);

}  // namespace axe::jit

#endif  // AXE_JIT_EAGER_LAYOUT_CONSTRAINT_H_
