// One function per area of the extension module axe._axe (module.cc calls them in order).
#ifndef AXE_PYTHON_SRC_BINDINGS_H_
#define AXE_PYTHON_SRC_BINDINGS_H_

#include <nanobind/nanobind.h>

namespace axe::python {

// axe.Layout: parse, print, ==/hash, apply, inverse, canonicalize, equivalent, tile, group,
// slice.
void BindLayout(nanobind::module_& m);
// axe.xla.Shape: parse, print, dimensions, sizes, index math, to_axe.
void BindXla(nanobind::module_& m);
// axe.sharding: Mesh, PartitionSpec, NamedSharding, SingleDeviceSharding, HloSharding,
// Layout (JAX's device-local layout), Format, explain.
void BindSharding(nanobind::module_& m);
// axe.memory_budget(): (bytes, source) of the memory budget.
void BindMemory(nanobind::module_& m);
// axe.relayout(array, src, dst) and axe.RelayoutPlan.
void BindRelayout(nanobind::module_& m);
// axe.pallas: show_program_ids.
void BindPallas(nanobind::module_& m);
// axe.ir: Jaxpr (parse, print, ==/hash, avals), check, transpose, comm, eval, jvp,
// linearize, vjp, grad, vmap.
void BindIr(nanobind::module_& m);
// axe.jit: compile (a jaxpr with in/out Formats), Compiled (formats, donations, calls on
// NumPy arrays through the in-process runtime).
void BindJit(nanobind::module_& m);
// axe._axe.picture: layout_svg, xla_svg, sharding_svg, to_latex (python/axe/_display.py).
void BindPicture(nanobind::module_& m);
// axe._axe.bench: for benchmarks only: restrict the executor's SIMD dispatch, name OpenBLAS's
// kernels.
void BindBench(nanobind::module_& m);

}  // namespace axe::python

#endif  // AXE_PYTHON_SRC_BINDINGS_H_
