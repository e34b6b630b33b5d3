// axe.memory_budget(): the memory budget the sized entry points check before allocating
// (include/axe/base/memory_budget.h), resolved when called.
#include <cstdint>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "axe/base/memory_budget.h"
#include "bindings.h"
#include "status.h"

namespace nb = nanobind;

namespace axe::python {

void BindMemory(nb::module_& m) {
  m.def(
      "memory_budget",
      [] {
        MemoryBudget budget = Unwrap(ResolveMemoryBudget(std::nullopt));
        return nb::make_tuple(budget.bytes, budget.source);
      },
      "(bytes, source): the memory axe may allocate now: AXE_MEMORY_LIMIT when set, else the "
      "least of the cgroup limit minus usage and MemAvailable. ValueError for a bad "
      "AXE_MEMORY_LIMIT.");
}

}  // namespace axe::python
