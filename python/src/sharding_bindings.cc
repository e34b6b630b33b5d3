// axe.sharding: JAX's sharding vocabulary (include/axe/sharding) with JAX's names, reprs and
// error texts. The flexible constructors (a mesh from a NumPy array of ids or of JAX devices,
// P(*entries)) read Python objects here; the Python package adds the bridges from JAX.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include "absl/hash/hash.h"
#include "axe/base/dims.h"
#include "axe/base/dtype.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/explain.h"
#include "axe/sharding/format.h"
#include "axe/sharding/from_hlo.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/sharding/local_layout.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/named_sharding.h"
#include "axe/sharding/partition_spec.h"
#include "axe/sharding/sharding.h"
#include "axe/sharding/to_axe.h"
#include "bindings.h"
#include "status.h"

namespace nb = nanobind;

namespace axe::python {
namespace {

using sharding::DeviceShard;
using sharding::Format;
using sharding::HloSharding;
using sharding::LocalLayout;
using sharding::Mesh;
using sharding::NamedSharding;
using sharding::PartitionSpec;
using sharding::Sharding;
using sharding::SingleDeviceSharding;
// Anything JAX accepts where a sharding goes: NamedSharding or SingleDeviceSharding.
using AnySharding = std::variant<NamedSharding, SingleDeviceSharding>;
Sharding ToSharding(const AnySharding& s) {
  return std::visit([](const auto& v) { return Sharding(v); }, s);
}

// A device: an int id, or an object with an int `.id` (a jax.Device).
int64_t DeviceId(nb::handle device) {
  if (nb::hasattr(device, "id")) return ToInt64(device.attr("id"), "a device's id");
  // NumPy integers are ints through __index__.
  PyObject* index = PyNumber_Index(device.ptr());
  if (index == nullptr) {
    PyErr_Clear();
    throw nb::type_error(
        ("a device is an int id or a jax.Device, got " + nb::cast<std::string>(nb::repr(device)))
            .c_str());
  }
  return ToInt64(nb::steal(index), "a device id");
}

sharding::MeshAxisType AxisTypeFromPython(nb::handle type) {
  // JAX's AxisType enum members print as AxisType.Auto; their .name is Auto.
  std::string name = nb::hasattr(type, "name") ? nb::cast<std::string>(type.attr("name"))
                                               : nb::cast<std::string>(type);
  if (name == "Auto") return sharding::MeshAxisType::kAuto;
  if (name == "Explicit") return sharding::MeshAxisType::kExplicit;
  if (name == "Manual") return sharding::MeshAxisType::kManual;
  throw nb::value_error(("unknown axis type '" + name + "' (Auto, Explicit, Manual)").c_str());
}

// JAX's Mesh(devices, axis_names, axis_types=None): `devices` is an array (any nesting of
// sequences, or a NumPy array) of device ids or jax.Device objects, one axis per name.
Mesh MeshFromDevices(nb::object devices, const std::vector<std::string>& axis_names,
                     nb::object axis_types) {
  nb::object array = nb::module_::import_("numpy").attr("asarray")(devices, "object");
  Dims shape = nb::cast<Dims>(array.attr("shape"));
  if (shape.size() != axis_names.size()) {
    throw nb::value_error(
        ("Mesh requires the ndim of its first argument (`devices`) to equal "
         "the length of its second argument (`axis_names`), got devices.ndim == " +
         std::to_string(shape.size()) +
         " and len(axis_names) == " + std::to_string(axis_names.size()) + ".")
            .c_str());
  }
  std::vector<sharding::MeshAxis> axes;
  for (size_t j = 0; j < shape.size(); ++j) axes.push_back({axis_names[j], shape[j]});
  std::vector<int64_t> ids;
  for (nb::handle d : array.attr("ravel")()) ids.push_back(DeviceId(d));
  bool identity = true;
  for (size_t i = 0; i < ids.size(); ++i) identity = identity && ids[i] == int64_t(i);
  std::vector<sharding::MeshAxisType> types;
  if (!axis_types.is_none()) {
    for (nb::handle t : axis_types) types.push_back(AxisTypeFromPython(t));
  }
  return Unwrap(
      Mesh::Create(std::move(axes), identity ? std::vector<int64_t>{} : ids, std::move(types)));
}

// One PartitionSpec entry from Python: None, a name, or a tuple/list of names.
PartitionSpec::Entry EntryFromPython(nb::handle entry) {
  if (entry.is_none()) return {};
  if (nb::isinstance<nb::str>(entry)) return {nb::cast<std::string>(entry)};
  if (nb::isinstance<nb::tuple>(entry) || nb::isinstance<nb::list>(entry)) {
    PartitionSpec::Entry names;
    for (nb::handle name : entry) {
      if (!nb::isinstance<nb::str>(name)) {
        throw nb::type_error("a PartitionSpec entry names mesh axes by str");
      }
      names.push_back(nb::cast<std::string>(name));
    }
    return names;
  }
  throw nb::type_error(("PartitionSpec entries must be None, a str or a tuple of str, got " +
                        nb::cast<std::string>(nb::repr(entry)))
                           .c_str());
}

nb::object EntryToPython(const PartitionSpec::Entry& entry) {
  if (entry.empty()) return nb::none();
  if (entry.size() == 1) return nb::str(entry[0].c_str());
  return nb::tuple(nb::cast(entry));
}

// JAX's devices_indices_map: {device id: (slice, ...)}, slice(None) for a whole dimension.
nb::dict IndicesMap(const std::vector<DeviceShard>& map, const Dims& shape) {
  nb::dict out;
  nb::object slice = nb::module_::import_("builtins").attr("slice");
  for (const DeviceShard& d : map) {
    nb::list index;
    for (size_t i = 0; i < d.index.size(); ++i) {
      auto [begin, end] = d.index[i];
      if (begin == 0 && end == shape[i]) {
        index.append(slice(nb::none()));
      } else {
        index.append(slice(begin, end));
      }
    }
    out[nb::int_(d.device)] = nb::tuple(index);
  }
  return out;
}

DType DTypeFromPython(const std::string& name) { return Unwrap(ParseDType(name)); }

void BindMesh(nb::module_& m) {
  nb::class_<Mesh>(m, "Mesh", "JAX's Mesh: named axes over devices (ids).")
      .def(
          "__init__",
          [](Mesh* self, nb::object devices, const std::vector<std::string>& axis_names,
             nb::object axis_types) {
            new (self) Mesh(MeshFromDevices(std::move(devices), axis_names, axis_types));
          },
          nb::arg("devices"), nb::arg("axis_names"), nb::arg("axis_types").none() = nb::none())
      .def_static(
          "parse", [](const std::string& t) { return Unwrap(Mesh::Parse(t)); }, nb::arg("text"),
          "Reads Mesh('x': 2, 'y': 2), {x:2, y:2}, x=2,y=2 or JAX's repr, Mesh(axis_sizes=(2, 2), "
          "axis_names=('x', 'y'), axis_types=(Auto, Auto)).")
      .def("__repr__", &Mesh::JaxRepr,
           "JAX's repr: Mesh(axis_sizes=(2, 2), axis_names=('x', 'y'), axis_types=(Auto, "
           "Auto)).")
      .def("__str__", &Mesh::JaxStr,
           "JAX's str (as a NamedSharding shows its mesh): Mesh('x': 2, 'y': 2, "
           "axis_types=(Auto, Auto)).")
      .def_prop_ro("text", &Mesh::ToString,
                   "axe's canonical text, with the device ids when they are not 0..N-1 in order "
                   "(Mesh.parse reads it back).")
      .def("__eq__", [](const Mesh& a, const Mesh& b) { return a == b; })
      .def("__eq__", [](const Mesh&, nb::handle) { return false; })
      .def("__hash__", [](const Mesh& x) { return absl::HashOf(x); })
      .def_prop_ro("axis_names",
                   [](const Mesh& x) {
                     std::vector<std::string> names;
                     for (const auto& a : x.axes()) names.push_back(a.name);
                     return nb::tuple(nb::cast(names));
                   })
      .def_prop_ro("axis_sizes",
                   [](const Mesh& x) {
                     Dims sizes;
                     for (const auto& a : x.axes()) sizes.push_back(a.size);
                     return nb::tuple(nb::cast(sizes));
                   })
      .def_prop_ro("size", &Mesh::num_devices)
      .def_prop_ro("device_ids", &Mesh::device_array,
                   "The device ids in mesh-position order (flattened devices array).");
}

void BindSpec(nb::module_& m) {
  nb::class_<PartitionSpec>(m, "PartitionSpec", "JAX's P(*entries).")
      .def("__init__",
           [](PartitionSpec* self, nb::args entries) {
             std::vector<PartitionSpec::Entry> parsed;
             for (nb::handle e : entries) parsed.push_back(EntryFromPython(e));
             new (self) PartitionSpec(Unwrap(PartitionSpec::Create(std::move(parsed))));
           })
      .def_static(
          "parse", [](const std::string& t) { return Unwrap(PartitionSpec::Parse(t)); },
          nb::arg("text"))
      .def("__repr__", &PartitionSpec::ToString)
      .def("__len__", &PartitionSpec::size)
      .def("__getitem__",
           [](const PartitionSpec& p, int64_t i) {
             int64_t n = static_cast<int64_t>(p.size());
             if (i < -n || i >= n) throw nb::index_error("tuple index out of range");
             return EntryToPython(p.entries()[i < 0 ? i + n : i]);
           })
      .def("__iter__",
           [](const PartitionSpec& p) {
             nb::list entries;
             for (const auto& e : p.entries()) entries.append(EntryToPython(e));
             return nb::iter(entries);
           })
      .def("__eq__", [](const PartitionSpec& a, const PartitionSpec& b) { return a == b; })
      .def("__eq__", [](const PartitionSpec&, nb::handle) { return false; })
      .def("__hash__", [](const PartitionSpec& p) { return absl::HashOf(p); });
}

NamedSharding ParseNamed(const std::string& text) {
  Sharding s = Unwrap(Sharding::Parse(text));
  if (s.named() == nullptr) throw nb::value_error(("not a NamedSharding: " + text).c_str());
  return *s.named();
}

void BindNamedSharding(nb::module_& m) {
  nb::class_<NamedSharding>(m, "NamedSharding", "JAX's NamedSharding(mesh, spec).")
      .def(
          "__init__",
          [](NamedSharding* self, const Mesh& mesh, const PartitionSpec& spec,
             std::optional<std::string> memory_kind) {
            new (self) NamedSharding(Unwrap(NamedSharding::Create(mesh, spec, memory_kind)));
          },
          nb::arg("mesh"), nb::arg("spec"), nb::arg("memory_kind").none() = nb::none())
      .def_static("parse", &ParseNamed, nb::arg("text"),
                  "Reads JAX's repr, e.g. NamedSharding(mesh=Mesh('x': 2), spec=P('x',)).")
      .def("__repr__", &NamedSharding::ToString)
      .def("__eq__", [](const NamedSharding& a, const NamedSharding& b) { return a == b; })
      .def("__eq__", [](const NamedSharding&, nb::handle) { return false; })
      .def("__hash__", [](const NamedSharding& s) { return absl::HashOf(s); })
      .def_prop_ro("mesh", &NamedSharding::mesh)
      .def_prop_ro("spec", &NamedSharding::spec)
      .def_prop_ro("memory_kind", &NamedSharding::memory_kind)
      .def_prop_ro("num_devices", [](const NamedSharding& s) { return s.mesh().num_devices(); })
      .def_prop_ro("is_fully_replicated", &NamedSharding::IsFullyReplicated)
      .def(
          "shard_shape",
          [](const NamedSharding& s, const Dims& shape) {
            return nb::tuple(nb::cast(Unwrap(s.ShardShape(shape))));
          },
          nb::arg("global_shape"))
      .def(
          "devices_indices_map",
          [](const NamedSharding& s, const Dims& shape) {
            return IndicesMap(Unwrap(sharding::DevicesIndicesMap(s, shape)), shape);
          },
          nb::arg("global_shape"))
      .def(
          "_to_xla_hlo_sharding",
          [](const NamedSharding& s, size_t ndim) {
            return Unwrap(sharding::NamedToHloSharding(s, ndim));
          },
          nb::arg("num_dimensions"), "The HLO sharding JAX lowers this sharding to.");
}

void BindSingleDevice(nb::module_& m) {
  nb::class_<SingleDeviceSharding>(m, "SingleDeviceSharding")
      .def(
          "__init__",
          [](SingleDeviceSharding* self, nb::handle device,
             std::optional<std::string> memory_kind) {
            new (self) SingleDeviceSharding(
                Unwrap(SingleDeviceSharding::Create(DeviceId(device), memory_kind)));
          },
          nb::arg("device"), nb::arg("memory_kind").none() = nb::none())
      .def("__repr__", &SingleDeviceSharding::ToString)
      .def("__eq__",
           [](const SingleDeviceSharding& a, const SingleDeviceSharding& b) { return a == b; })
      .def("__eq__", [](const SingleDeviceSharding&, nb::handle) { return false; })
      .def("__hash__", [](const SingleDeviceSharding& s) { return absl::HashOf(s); })
      .def_prop_ro("device", &SingleDeviceSharding::device)
      .def_prop_ro("memory_kind", &SingleDeviceSharding::memory_kind)
      .def("shard_shape", [](const SingleDeviceSharding&,
                             const Dims& shape) { return nb::tuple(nb::cast(shape)); })
      .def(
          "devices_indices_map",
          [](const SingleDeviceSharding& s, const Dims& shape) {
            return IndicesMap(Unwrap(sharding::DevicesIndicesMap(s, shape)), shape);
          },
          nb::arg("global_shape"));
}

void BindHloSharding(nb::module_& m) {
  nb::class_<HloSharding>(m, "HloSharding", "An XLA HLO sharding, e.g. {devices=[2,1]<=[2]}.")
      .def(
          "__init__",
          [](HloSharding* self, const std::string& text) {
            new (self) HloSharding(Unwrap(HloSharding::Parse(text)));
          },
          nb::arg("text"))
      .def_static(
          "parse", [](const std::string& t) { return Unwrap(HloSharding::Parse(t)); },
          nb::arg("text"))
      .def("__str__", &HloSharding::ToString)
      .def("__repr__", &HloSharding::ToString)
      .def("__eq__", [](const HloSharding& a, const HloSharding& b) { return a == b; })
      .def("__eq__", [](const HloSharding&, nb::handle) { return false; })
      .def("__hash__", [](const HloSharding& s) { return absl::HashOf(s.ToString()); });
}

void BindFormat(nb::module_& m) {
  nb::class_<sharding::AutoLayout>(m, "_AutoLayout")
      .def("__repr__", &sharding::AutoLayout::ToString)
      .def("__eq__", [](const sharding::AutoLayout&, const sharding::AutoLayout&) { return true; })
      .def("__eq__", [](const sharding::AutoLayout&, nb::handle) { return false; })
      .def("__hash__", [](const sharding::AutoLayout& a) { return absl::HashOf(a); });
  nb::class_<LocalLayout> layout(m, "Layout", "JAX's device-local Layout(major_to_minor, tiling).");
  layout
      .def(
          "__init__",
          [](LocalLayout* self, const Dims& major_to_minor,
             std::optional<LocalLayout::Tiling> tiling, int64_t sub_byte_bits) {
            new (self) LocalLayout(
                Unwrap(LocalLayout::Create(major_to_minor, std::move(tiling), sub_byte_bits)));
          },
          nb::arg("major_to_minor"), nb::arg("tiling").none() = nb::none(),
          nb::arg("sub_byte_element_size_in_bits") = 0)
      .def_static(
          "parse", [](const std::string& t) { return Unwrap(LocalLayout::Parse(t)); },
          nb::arg("text"))
      .def("__repr__", &LocalLayout::ToString)
      .def("__eq__", [](const LocalLayout& a, const LocalLayout& b) { return a == b; })
      .def("__eq__", [](const LocalLayout&, nb::handle) { return false; })
      .def("__hash__", [](const LocalLayout& l) { return absl::HashOf(l); })
      .def_prop_ro("major_to_minor",
                   [](const LocalLayout& l) { return nb::tuple(nb::cast(l.major_to_minor())); })
      .def_prop_ro("tiling",
                   [](const LocalLayout& l) -> nb::object {
                     if (!l.tiling()) return nb::none();
                     nb::list tiles;
                     for (const auto& t : *l.tiling()) tiles.append(nb::tuple(nb::cast(t)));
                     return nb::tuple(tiles);
                   })
      .def_prop_ro("sub_byte_element_size_in_bits", &LocalLayout::sub_byte_element_size_in_bits);
  layout.attr("AUTO") = sharding::AutoLayout{};

  using Choice = std::variant<std::monostate, sharding::AutoLayout, LocalLayout>;
  nb::class_<Format>(m, "Format", "JAX's Format(layout, sharding).")
      .def(
          "__init__",
          [](Format* self, std::optional<std::variant<sharding::AutoLayout, LocalLayout>> layout,
             std::optional<AnySharding> sharding) {
            Choice choice;
            if (layout) std::visit([&](const auto& v) { choice = v; }, *layout);
            std::optional<Sharding> s;
            if (sharding) s = ToSharding(*sharding);
            new (self) Format(Unwrap(Format::Create(std::move(choice), std::move(s))));
          },
          nb::arg("layout").none() = nb::none(), nb::arg("sharding").none() = nb::none())
      .def(
          "__init__",
          [](Format*, nb::object layout, nb::object sharding) {
            // Reached only when the typed overload above refused an argument: JAX's TypeError.
            const bool layout_ok = layout.is_none() ||
                                   nb::isinstance<sharding::AutoLayout>(layout) ||
                                   nb::isinstance<LocalLayout>(layout);
            nb::handle bad = layout_ok ? sharding : layout;
            const std::string got = nb::cast<std::string>(nb::str(bad)) + " of type " +
                                    nb::cast<std::string>(nb::str(bad.type()));
            throw nb::type_error(
                (layout_ok ? "Invalid value received for the sharding argument. Expected values "
                             "are `None` or an instance of `jax.Sharding`. Got " +
                                 got
                           : "Invalid value received for the layout argument. Expected values "
                             "are `None`, `Layout.AUTO` or an instance of `Layout`. Got " +
                                 got)
                    .c_str());
          },
          nb::arg("layout").none() = nb::none(), nb::arg("sharding").none() = nb::none())
      .def_static(
          "parse", [](const std::string& t) { return Unwrap(Format::Parse(t)); }, nb::arg("text"))
      .def("__repr__", &Format::ToString)
      .def("__eq__", [](const Format& a, const Format& b) { return a == b; })
      .def("__eq__", [](const Format&, nb::handle) { return false; })
      .def("__hash__", [](const Format& f) { return absl::HashOf(f); })
      .def_prop_ro("layout",
                   [](const Format& f) -> nb::object {
                     if (f.is_auto()) return nb::cast(sharding::AutoLayout{});
                     if (f.local_layout()) return nb::cast(*f.local_layout());
                     return nb::none();
                   })
      .def_prop_ro("sharding", [](const Format& f) -> nb::object {
        if (!f.sharding()) return nb::none();
        if (const NamedSharding* n = f.sharding()->named()) return nb::cast(*n);
        return nb::cast(*f.sharding()->single_device());
      });
}

void BindExplanation(nb::module_& m) {
  using sharding::ShardingExplanation;
  using sharding::TextOrReason;
  auto text = [](const TextOrReason& t) -> nb::object {
    return t.text ? nb::cast(*t.text) : nb::none();
  };
  auto reason = [](const TextOrReason& t) { return t.reason; };
  nb::class_<ShardingExplanation> e(m, "Explanation",
                                    "What `axe shard explain` shows about a sharded array.");
  e.def_prop_ro("global_shape",
                [](const ShardingExplanation& x) { return nb::tuple(nb::cast(x.global_shape)); })
      .def_prop_ro("dtype",
                   [](const ShardingExplanation& x) { return std::string(XlaName(x.dtype)); })
      .def_prop_ro("shardy_mesh", [](const ShardingExplanation& x) { return x.shardy_mesh; })
      .def_prop_ro("device_assignment",
                   [](const ShardingExplanation& x) { return x.device_assignment; })
      .def_prop_ro("notes", [](const ShardingExplanation& x) { return x.notes; })
      .def_prop_ro("shard_shape",
                   [](const ShardingExplanation& x) { return nb::tuple(nb::cast(x.shard_shape)); })
      .def_prop_ro("fully_replicated",
                   [](const ShardingExplanation& x) { return x.fully_replicated; })
      .def_prop_ro("num_devices", [](const ShardingExplanation& x) { return x.num_devices; })
      .def_prop_ro("local_shape", [](const ShardingExplanation& x) { return x.local_shape; })
      .def_prop_ro("named_jax", [](const ShardingExplanation& x) { return x.named_jax; })
      .def_prop_ro("picture", [](const ShardingExplanation& x) { return x.picture; })
      .def_prop_ro("devices", [](const ShardingExplanation& x) {
        nb::list out;
        for (const DeviceShard& d : x.devices) {
          nb::list index;
          for (auto [b, end] : d.index) index.append(nb::make_tuple(b, end));
          out.append(nb::make_tuple(d.device, d.replica_group, nb::tuple(index)));
        }
        return out;
      });
  // The notations: text or None, and the reason when None.
  for (auto [name, field] : {std::pair{"named", &ShardingExplanation::named},
                             {"hlo", &ShardingExplanation::hlo},
                             {"axe", &ShardingExplanation::axe},
                             {"shardy", &ShardingExplanation::shardy},
                             {"format", &ShardingExplanation::format},
                             {"local_axe", &ShardingExplanation::local_axe}}) {
    e.def_prop_ro(name, [text, field](const ShardingExplanation& x) { return text(x.*field); });
    e.def_prop_ro((std::string(name) + "_reason").c_str(),
                  [reason, field](const ShardingExplanation& x) { return reason(x.*field); });
  }
}

void BindFunctions(nb::module_& m) {
  m.def(
      "explain",
      [](const Dims& shape, const AnySharding& s, const std::string& dtype,
         std::optional<LocalLayout> local_layout, const std::vector<std::string>& notes) {
        sharding::ExplainOptions options;
        options.dtype = DTypeFromPython(dtype);
        if (local_layout) {
          options.local_layout = Unwrap(local_layout->ToXla(options.dtype));
          options.jax_layout = *local_layout;
        }
        sharding::ShardingExplanation out =
            Unwrap(sharding::ExplainSharding(shape, ToSharding(s), options));
        out.notes.insert(out.notes.begin(), notes.begin(), notes.end());
        return out;
      },
      nb::arg("shape"), nb::arg("sharding"), nb::arg("dtype") = "float32",
      nb::arg("local_layout").none() = nb::none(), nb::arg("notes") = std::vector<std::string>{},
      "The explanation; `notes` are put first among its notes (what the caller assumed).");
  m.def(
      "to_axe",
      [](const Dims& shape, const AnySharding& s, const std::string& dtype,
         std::optional<LocalLayout> local_layout) {
        DType type = DTypeFromPython(dtype);
        if (!local_layout) {  // the default: row-major shards
          std::vector<int64_t> major_to_minor(shape.size());
          for (size_t i = 0; i < shape.size(); ++i) major_to_minor[i] = static_cast<int64_t>(i);
          local_layout = Unwrap(LocalLayout::Create(std::move(major_to_minor)));
        }
        Format format = Unwrap(Format::Create(*local_layout, ToSharding(s)));
        return Unwrap(sharding::FormatToAxe(shape, format, type));
      },
      nb::arg("shape"), nb::arg("sharding"), nb::arg("dtype") = "float32",
      nb::arg("local_layout").none() = nb::none(),
      "The Axe layout (device iters on gpuid) of a sharded array.");
  m.def(
      "from_hlo",
      [](const HloSharding& hlo, size_t ndim, std::optional<Mesh> mesh, int64_t num_devices) {
        if (mesh) return Unwrap(sharding::HloToNamedSharding(hlo, ndim, *mesh));
        return Unwrap(sharding::HloToNamedSharding(hlo, ndim, num_devices));
      },
      nb::arg("hlo"), nb::arg("ndim"), nb::arg("mesh").none() = nb::none(),
      nb::arg("num_devices") = 0, "The NamedSharding of an HLO sharding (on `mesh` when given).");
}

}  // namespace

void BindSharding(nb::module_& m) {
  BindMesh(m);
  BindSpec(m);
  BindNamedSharding(m);
  BindSingleDevice(m);
  BindHloSharding(m);
  BindFormat(m);
  BindExplanation(m);
  BindFunctions(m);
}

}  // namespace axe::python
