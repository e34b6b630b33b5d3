// The extension module axe._axe. The Python package (python/axe) re-exports it with JAX's
// names; each Bind* function adds one area's classes and functions.
#include <nanobind/nanobind.h>

#include "bindings.h"

NB_MODULE(_axe, m) {
  m.doc() = "axe: tensor layouts (Axe, XLA, JAX shardings, Pallas) and the relayout engine";
  axe::python::BindLayout(m);
  nanobind::module_ xla = m.def_submodule("xla", "XLA shapes and layouts");
  axe::python::BindXla(xla);
  nanobind::module_ sharding = m.def_submodule("sharding", "JAX shardings and formats");
  axe::python::BindSharding(sharding);
  axe::python::BindMemory(m);
  axe::python::BindRelayout(m);
  nanobind::module_ pallas = m.def_submodule("pallas", "Pallas grids and BlockSpecs");
  axe::python::BindPallas(pallas);
  nanobind::module_ ir = m.def_submodule("ir", "Jaxprs: parse, check, transpose, comm, eval, AD");
  axe::python::BindIr(ir);
  nanobind::module_ jit = m.def_submodule("jit", "Jaxprs compiled with Formats, and called");
  axe::python::BindJit(jit);
  nanobind::module_ picture = m.def_submodule("picture", "SVG and TikZ pictures");
  axe::python::BindPicture(picture);
  nanobind::module_ bench = m.def_submodule("bench", "For benchmarks, not programs");
  axe::python::BindBench(bench);
}
