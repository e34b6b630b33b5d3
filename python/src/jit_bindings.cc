// axe.jit: a jaxpr compiled with a Format per input and output (include/axe/jit/compile.h,
// JAX's jit(f, in_shardings=..., out_shardings=...).lower(...).compile()), its formats as
// axe.sharding objects, and calls on NumPy arrays through the in-process runtime
// (execute.h): each argument is put on device 0 uncommitted, so Execute moves it to the
// compiled format as JAX does for a host array, and the outputs come back row-major.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/check.h"
#include "axe/ir/eval_devices.h"
#include "axe/ir/printer.h"
#include "axe/jit/auto_layout.h"
#include "axe/jit/compile.h"
#include "axe/jit/execute.h"
#include "axe/jit/layout_rules.h"
#include "axe/runtime/array.h"
#include "axe/runtime/client.h"
#include "axe/sharding/format.h"
#include "axe/sharding/named_sharding.h"
#include "axe/sharding/sharding.h"
#include "bindings.h"
#include "status.h"

namespace nb = nanobind;

namespace axe::python {
namespace {

using jit::Compiled;
using sharding::Format;
using sharding::LocalLayout;
using InBytes = nb::ndarray<const uint8_t, nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using OutBytes = nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// One leaf of in_formats / out_formats: None, a Format, or a sharding (a Format without a
// layout). A bare Layout or Layout.AUTO is JAX's error (JitLayoutOfBareLayout).
std::optional<Format> FormatLeaf(nb::handle leaf) {
  if (leaf.is_none()) return std::nullopt;
  if (nb::isinstance<Format>(leaf)) return nb::cast<Format>(leaf);
  if (nb::isinstance<sharding::NamedSharding>(leaf)) {
    return Unwrap(Format::Create({}, nb::cast<sharding::NamedSharding>(leaf)));
  }
  if (nb::isinstance<sharding::SingleDeviceSharding>(leaf)) {
    return Unwrap(Format::Create({}, nb::cast<sharding::SingleDeviceSharding>(leaf)));
  }
  if (nb::isinstance<LocalLayout>(leaf) || nb::isinstance<sharding::AutoLayout>(leaf)) {
    jit::JitLayout bare;
    if (nb::isinstance<LocalLayout>(leaf)) {
      bare = nb::cast<LocalLayout>(leaf);
    } else {
      bare = sharding::AutoLayout{};
    }
    ThrowIfError(jit::JitLayoutOfBareLayout(bare).status());
  }
  throw nb::type_error(("a format is None, an axe.sharding.Format or a sharding, got " +
                        nb::cast<std::string>(nb::repr(leaf)))
                           .c_str());
}

// None: every entry none; a single leaf: the same for all `n`; else one leaf per value.
std::vector<std::optional<Format>> FormatLeaves(nb::handle formats, size_t n, const char* what) {
  if (formats.is_none()) return {};
  if (!nb::isinstance<nb::list>(formats) && !nb::isinstance<nb::tuple>(formats)) {
    return std::vector<std::optional<Format>>(n, FormatLeaf(formats));
  }
  std::vector<std::optional<Format>> out;
  for (nb::handle leaf : formats) out.push_back(FormatLeaf(leaf));
  if (out.size() != n) {
    throw nb::value_error(
        absl::StrCat(what, " has ", out.size(), " entries for ", n, " values").c_str());
  }
  return out;
}

Compiled CompileJaxpr(const ir::ClosedJaxpr& jaxpr, nb::handle in_formats, nb::handle out_formats,
                      const std::vector<int64_t>& donate_argnums) {
  ThrowIfError(ir::CheckJaxpr(jaxpr));
  jit::CompileOptions options;
  for (int64_t d : donate_argnums) {
    if (d < 0) {
      throw nb::value_error(absl::StrCat("donate_argnums entry ", d, " is negative").c_str());
    }
    options.donate_argnums.push_back(static_cast<size_t>(d));
  }
  return Unwrap(
      jit::Compile(jaxpr, FormatLeaves(in_formats, jaxpr.jaxpr.invars.size(), "in_formats"),
                   FormatLeaves(out_formats, jaxpr.jaxpr.outvars.size(), "out_formats"), options));
}

// The compiled formats as axe.sharding.Format objects (sharding None where the program was
// left to choose it).
nb::list FormatObjects(const std::vector<Format>& formats) {
  nb::list out;
  for (const Format& f : formats) out.append(nb::cast(f));
  return out;
}

// The highest device id + 1 a sharding names (1 for none).
int64_t DevicesOf(const std::optional<sharding::Sharding>& s) {
  return s ? s->device_id_bound() : 1;
}

int64_t DevicesForCall(const Compiled& c) {
  int64_t n = std::max<int64_t>(1, ir::DevicesNeeded(c.jaxpr()));
  for (const Format& f : c.input_formats()) n = std::max(n, DevicesOf(f.sharding()));
  for (const Format& f : c.output_formats()) n = std::max(n, DevicesOf(f.sharding()));
  return n;
}

nb::list RelayoutRows(const std::vector<jit::ArgumentRelayout>& relayouts) {
  nb::list out;
  for (const jit::ArgumentRelayout& r : relayouts) {
    nb::dict row;
    row["index"] = r.index;
    row["name"] = r.name;
    row["from"] = nb::cast(r.from);
    row["to"] = nb::cast(r.to);
    row["resharded"] = r.resharded;
    out.append(row);
  }
  return out;
}

// Runs `c` on host arrays (row-major bytes, typed as its inputs; ir.py checked the types):
// each is put on device 0 uncommitted, Execute moves it to the compiled format, and the
// outputs are gathered row-major into `outs`. Returns what was re-laid-out.
nb::list Call(const Compiled& c, const std::vector<InBytes>& args, std::vector<OutBytes> outs) {
  const std::vector<ir::ShapedArray> in = c.jaxpr().jaxpr.in_avals();
  if (args.size() != in.size() || outs.size() != c.output_formats().size()) {
    throw std::runtime_error("axe.jit: argument or output count");
  }
  const int64_t devices = DevicesForCall(c);
  if (devices > runtime::Client::kMaxInProcessDevices) {
    throw nb::value_error(absl::StrCat("the program's formats name device ", devices - 1,
                                       "; the in-process runtime has at most ",
                                       runtime::Client::kMaxInProcessDevices, " devices")
                              .c_str());
  }
  const Format device0 = Unwrap(runtime::MakeArrayFormat(
      Unwrap(sharding::NamedSharding::Create(sharding::Mesh(), sharding::PartitionSpec()))));
  jit::CallResult result;
  std::vector<std::vector<uint8_t>> gathered;
  absl::Status status;
  {
    nb::gil_scoped_release release;
    status = [&]() -> absl::Status {
      AXE_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Client> client,
                           runtime::Client::InProcess(static_cast<int>(devices)));
      std::vector<runtime::Array> arrays;
      for (size_t i = 0; i < args.size(); ++i) {
        absl::Span<const uint8_t> bytes(args[i].data(), args[i].size());
        AXE_ASSIGN_OR_RETURN(runtime::Array a,
                             runtime::Array::DevicePut(*client, bytes, in[i].shape(), in[i].dtype(),
                                                       device0, /*committed=*/false));
        arrays.push_back(std::move(a));
      }
      std::vector<const runtime::Array*> ptrs;
      for (const runtime::Array& a : arrays) ptrs.push_back(&a);
      AXE_ASSIGN_OR_RETURN(result, jit::Execute(c, *client, ptrs));
      for (const runtime::Array& o : result.outputs) {
        AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, o.ToHost());
        gathered.push_back(std::move(bytes));
      }
      result.outputs.clear();  // before the client goes
      return absl::OkStatus();
    }();
  }
  ThrowIfError(status);
  for (size_t i = 0; i < outs.size(); ++i) {
    if (gathered[i].size() != outs[i].size()) throw std::runtime_error("axe.jit: output size");
    if (!gathered[i].empty()) std::memcpy(outs[i].data(), gathered[i].data(), gathered[i].size());
  }
  return RelayoutRows(result.relayouts);
}

void BindCompiled(nb::module_& m) {
  nb::class_<Compiled>(m, "Compiled", "JAX's Compiled: a jaxpr with its formats chosen.")
      .def_prop_ro("input_formats",
                   [](const Compiled& c) { return FormatObjects(c.input_formats()); })
      .def_prop_ro("output_formats",
                   [](const Compiled& c) { return FormatObjects(c.output_formats()); })
      .def_prop_ro("jaxpr", [](const Compiled& c) { return c.jaxpr(); })
      .def("as_text", [](const Compiled& c) { return ir::PrintJaxpr(c.jaxpr()); })
      .def_prop_ro(
          "donations", [](const Compiled& c) { return c.donations(); },
          "(donated input, output it aliases) pairs.")
      .def_prop_ro(
          "relayouts", [](const Compiled& c) { return c.plan().relayouts; },
          "The relayouts the chosen layouts make the program do.")
      .def(
          "explain", [](const Compiled& c) { return jit::ExplainText(c.plan()); },
          "Per AUTO value: the candidate layouts, their estimated bytes, the chosen one.")
      .def("__repr__", [](const Compiled& c) {
        return absl::StrCat("Compiled(", c.input_formats().size(), " inputs, ",
                            c.output_formats().size(), " outputs)");
      });
}

}  // namespace

void BindJit(nb::module_& m) {
  BindCompiled(m);
  m.def("compile", &CompileJaxpr, nb::arg("jaxpr"), nb::arg("in_formats").none() = nb::none(),
        nb::arg("out_formats").none() = nb::none(),
        nb::arg("donate_argnums") = std::vector<int64_t>{});
  m.def("_call", &Call, nb::arg("compiled"), nb::arg("args"), nb::arg("outs"));
}

}  // namespace axe::python
