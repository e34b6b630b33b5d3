// axe.relayout: the relayout engine (include/axe/relayout/relayout_plan.h) on NumPy buffers.
// The Python wrapper (python/axe/_relayout.py) allocates the output; here the plan runs from
// the input's memory straight into it (no staging copy), with the GIL released.
#include <cstdint>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "axe/relayout/buffer_layout.h"
#include "axe/relayout/relayout_plan.h"
#include "axe/runtime/tensor_buffer.h"
#include "axe/xla/shape.h"
#include "axe/xla/to_axe.h"
#include "bindings.h"
#include "status.h"

namespace nb = nanobind;

namespace axe::python {
namespace {

using relayout::BufferLayout;
using relayout::RelayoutPlan;
using Buffer = nb::ndarray<nb::c_contig, nb::device::cpu>;
// The input may be read-only (np.asarray of a jax.Array is).
using ReadOnlyBuffer = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

// A layout argument (`what`: src or dst): an axe.Layout, an XLA shape with its layout
// (axe.xla.Shape: the buffer XLA stores it in, tiles and padding included), the AxeForm of one
// (its layout over its padded domain), or the text of a buffer layout ("S[...] over (...)");
// TypeError for anything else.
BufferLayout ToBufferLayout(nb::handle layout, const char* what) {
  if (nb::isinstance<Layout>(layout)) return BufferLayout(nb::cast<Layout>(layout));
  if (nb::isinstance<xla::Shape>(layout)) {
    return Unwrap(runtime::BufferLayoutFromXla(nb::cast<xla::Shape>(layout))).buffer;
  }
  if (nb::isinstance<xla::AxeForm>(layout)) {
    const auto& form = nb::cast<const xla::AxeForm&>(layout);
    if (form.domain.size() != form.real_dims.size()) {
      throw nb::value_error((std::string(what) +
                             ": this AxeForm's domain folds several dimensions into one (a "
                             "'*' tile); pass the axe.xla.Shape itself")
                                .c_str());
    }
    return BufferLayout(form.layout, form.domain);
  }
  if (!nb::isinstance<nb::str>(layout)) {
    throw nb::type_error((std::string(what) +
                          " must be an axe.Layout, an axe.xla.Shape, its AxeForm or a "
                          "buffer-layout text (str), got " +
                          nb::cast<std::string>(nb::repr(layout.type())))
                             .c_str());
  }
  return Unwrap(BufferLayout::Parse(nb::cast<std::string>(layout)));
}

RelayoutPlan Plan(nb::handle src, nb::handle dst, const std::vector<int64_t>& shape,
                  int element_bytes) {
  return Unwrap(relayout::PlanRelayout(ToBufferLayout(src, "src"), ToBufferLayout(dst, "dst"),
                                       shape, element_bytes));
}

// Checks that `buffer` (`what`) holds the element range [begin, end) of the plan.
template <typename Array>
void CheckCovers(const Array& buffer, int64_t begin, int64_t end, const char* what) {
  if (begin < 0) {
    throw nb::value_error((std::string("the ") + what + " layout addresses element offset " +
                           std::to_string(begin) + ", before the start of the array")
                              .c_str());
  }
  if (static_cast<uint64_t>(end) > buffer.size()) {
    throw nb::value_error((std::string("the ") + what + " layout addresses elements up to " +
                           std::to_string(end) + " but the " + what + " array has " +
                           std::to_string(buffer.size()))
                              .c_str());
  }
}

void RelayoutInto(const RelayoutPlan& plan, const ReadOnlyBuffer& source, Buffer out) {
  if (source.itemsize() != out.itemsize() ||
      static_cast<int64_t>(source.itemsize()) != plan.element_bytes()) {
    throw nb::type_error("the input and output arrays and the plan have different element sizes");
  }
  CheckCovers(source, plan.src_begin(), plan.src_end(), "source");
  CheckCovers(out, plan.dst_begin(), plan.dst_end(), "destination");
  const void* from = source.data();
  void* to = out.data();
  absl::Status status;
  {
    nb::gil_scoped_release release;
    status = plan.Execute(from, to);
  }
  ThrowIfError(status);
}

}  // namespace

void BindRelayout(nb::module_& m) {
  nb::class_<RelayoutPlan>(m, "RelayoutPlan", "A relayout plan: loops, kernels, threads.")
      .def("__str__", &RelayoutPlan::ToString)
      .def_prop_ro("src_end", &RelayoutPlan::src_end, "Source elements the plan reads (end).")
      .def_prop_ro("dst_end", &RelayoutPlan::dst_end, "Destination elements it writes (end).")
      .def_prop_ro("kernels", &RelayoutPlan::kernels)
      .def_prop_ro("threads", &RelayoutPlan::threads);
  m.def("plan_relayout", &Plan, nb::arg("src"), nb::arg("dst"), nb::arg("shape"),
        nb::arg("itemsize"), "The plan axe.relayout runs (without running it).");
  m.def("_relayout_into", &RelayoutInto, nb::arg("plan"), nb::arg("source"), nb::arg("out"));
}

}  // namespace axe::python
