#include "axe/sharding/mesh.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/layout/axis.h"
#include "python_text.h"

namespace axe::sharding {

Mesh::Mesh() = default;

namespace {

absl::Status CheckDevices(const std::vector<int64_t>& devices, int64_t n) {
  if (static_cast<int64_t>(devices.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("mesh: the device array has ", devices.size(),
                                                   " entries but the mesh has ", n, " devices"));
  }
  absl::flat_hash_set<int64_t> seen;
  for (size_t p = 0; p < devices.size(); ++p) {
    const int64_t d = devices[p];
    if (d < 0 || d >= Mesh::kMaxDevices) {
      return absl::InvalidArgumentError(absl::StrCat("mesh: device id ", d, " at position ", p,
                                                     " is outside [0, ", Mesh::kMaxDevices, ")"));
    }
    if (!seen.insert(d).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("mesh: device id ", d, " appears twice (again at position ", p, ")"));
    }
  }
  return absl::OkStatus();
}

bool IsIdentity(const std::vector<int64_t>& devices) {
  for (size_t p = 0; p < devices.size(); ++p) {
    if (devices[p] != static_cast<int64_t>(p)) return false;
  }
  return true;
}

}  // namespace

absl::string_view MeshAxisTypeName(MeshAxisType type) {
  switch (type) {
    case MeshAxisType::kAuto: return "Auto";
    case MeshAxisType::kExplicit: return "Explicit";
    case MeshAxisType::kManual: return "Manual";
  }
  return "Auto";
}

absl::StatusOr<Mesh> Mesh::Create(std::vector<MeshAxis> axes, std::vector<int64_t> devices,
                                  std::vector<MeshAxisType> axis_types) {
  if (!axis_types.empty() && axis_types.size() != axes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("mesh: ", axis_types.size(), " axis types for ", axes.size(), " axes"));
  }
  if (axes.size() > kMaxAxes) {
    return absl::InvalidArgumentError(
        absl::StrCat("mesh: ", axes.size(), " axes (at most ", kMaxAxes, ")"));
  }
  Mesh mesh;
  int64_t n = 1;
  for (size_t j = 0; j < axes.size(); ++j) {
    const MeshAxis& a = axes[j];
    if (a.name.size() > kMaxAxisNameLength) {
      return absl::InvalidArgumentError(absl::StrCat("mesh: axis ", j, " has a name of ",
                                                     a.name.size(), " characters (at most ",
                                                     kMaxAxisNameLength, ")"));
    }
    if (!Axis::IsValidName(a.name)) {
      return absl::InvalidArgumentError(absl::StrCat("mesh: axis ", j, " has the name '",
                                                     ElideForMessage(a.name, 40),
                                                     "', which is not an identifier"));
    }
    for (size_t k = 0; k < j; ++k) {
      if (axes[k].name == a.name) {
        return absl::InvalidArgumentError(absl::StrCat(
            "mesh: axis name '", a.name, "' is used twice (axes ", k, " and ", j, ")"));
      }
    }
    if (a.size < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("mesh: axis '", a.name, "' has size ", a.size, " (must be >= 1)"));
    }
    std::optional<int64_t> next = CheckedMul(n, a.size);
    if (!next || *next > kMaxDevices) {
      return absl::InvalidArgumentError(
          absl::StrCat("mesh: more than ", kMaxDevices, " devices (at axis '", a.name, "')"));
    }
    n = *next;
  }
  mesh.strides_.assign(axes.size(), 1);
  for (size_t j = axes.size(); j-- > 1;) mesh.strides_[j - 1] = mesh.strides_[j] * axes[j].size;
  mesh.axes_ = std::move(axes);
  mesh.num_devices_ = n;
  if (std::any_of(axis_types.begin(), axis_types.end(),
                  [](MeshAxisType t) { return t != MeshAxisType::kAuto; })) {
    mesh.axis_types_ = std::move(axis_types);
  }
  if (!devices.empty()) {
    AXE_RETURN_IF_ERROR(CheckDevices(devices, n));
    if (!IsIdentity(devices)) {
      for (size_t p = 0; p < devices.size(); ++p) {
        mesh.positions_.emplace_back(devices[p], static_cast<int64_t>(p));
      }
      std::sort(mesh.positions_.begin(), mesh.positions_.end());
      mesh.devices_ = std::move(devices);
    }
  }
  return mesh;
}

std::vector<int64_t> Mesh::device_array() const {
  if (!devices_.empty()) return devices_;
  std::vector<int64_t> ids(static_cast<size_t>(num_devices_));
  for (size_t p = 0; p < ids.size(); ++p) ids[p] = static_cast<int64_t>(p);
  return ids;
}

std::optional<size_t> Mesh::AxisIndex(absl::string_view name) const {
  for (size_t j = 0; j < axes_.size(); ++j) {
    if (axes_[j].name == name) return j;
  }
  return std::nullopt;
}

int64_t Mesh::DeviceAtPosition(int64_t position) const {
  return devices_.empty() ? position : devices_[static_cast<size_t>(position)];
}

absl::StatusOr<int64_t> Mesh::DeviceAt(absl::Span<const int64_t> coordinate) const {
  if (coordinate.size() != axes_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("mesh coordinate has ", coordinate.size(),
                                                   " entries but the mesh has ", axes_.size(),
                                                   " axes"));
  }
  int64_t position = 0;
  for (size_t j = 0; j < axes_.size(); ++j) {
    if (coordinate[j] < 0 || coordinate[j] >= axes_[j].size) {
      return absl::InvalidArgumentError(absl::StrCat("mesh coordinate ", coordinate[j],
                                                     " on axis '", axes_[j].name,
                                                     "' is outside [0, ", axes_[j].size, ")"));
    }
    position += coordinate[j] * strides_[j];
  }
  return DeviceAtPosition(position);
}

absl::StatusOr<int64_t> Mesh::PositionOf(int64_t device) const {
  if (positions_.empty()) {
    if (device < 0 || device >= num_devices_) {
      return absl::InvalidArgumentError(
          absl::StrCat("device id ", device, " is outside [0, ", num_devices_, ")"));
    }
    return device;
  }
  auto it = std::lower_bound(positions_.begin(), positions_.end(),
                             std::pair<int64_t, int64_t>{device, 0});
  if (it == positions_.end() || it->first != device) {
    return absl::InvalidArgumentError(
        absl::StrCat("device id ", device, " is not in the mesh (", ToString(), ")"));
  }
  return it->second;
}

int64_t Mesh::device_id_bound() const {
  return positions_.empty() ? num_devices_ : positions_.back().first + 1;
}

bool Mesh::has_dense_devices() const {
  return positions_.empty() ||
         (positions_.front().first == 0 && positions_.back().first == num_devices_ - 1);
}

absl::StatusOr<std::vector<int64_t>> Mesh::CoordinateOf(int64_t device) const {
  AXE_ASSIGN_OR_RETURN(int64_t position, PositionOf(device));
  return CoordinateOfPosition(position);
}

std::vector<int64_t> Mesh::CoordinateOfPosition(int64_t position) const {
  std::vector<int64_t> c(axes_.size());
  for (size_t j = 0; j < axes_.size(); ++j) {
    c[j] = (position / strides_[j]) % axes_[j].size;
  }
  return c;
}

std::string Mesh::ToString() const {
  std::vector<std::string> parts;
  for (const MeshAxis& a : axes_) parts.push_back(absl::StrCat(PyStr(a.name), ": ", a.size));
  if (!devices_.empty())
    parts.push_back(absl::StrCat("devices=[", absl::StrJoin(devices_, ", "), "]"));
  if (!axis_types_.empty()) {
    std::vector<std::string> types;
    for (MeshAxisType t : axis_types_) types.emplace_back(MeshAxisTypeName(t));
    parts.push_back(
        absl::StrCat("axis_types=(", absl::StrJoin(types, ", "), types.size() == 1 ? ",)" : ")"));
  }
  return absl::StrCat("Mesh(", absl::StrJoin(parts, ", "), ")");
}

namespace {

// JAX's axis_types tuple: (Auto, Explicit), (Auto,) or ().
std::string AxisTypesTuple(const Mesh& mesh) {
  std::vector<std::string> types;
  for (size_t j = 0; j < mesh.rank(); ++j) types.emplace_back(MeshAxisTypeName(mesh.axis_type(j)));
  return absl::StrCat("(", absl::StrJoin(types, ", "), types.size() == 1 ? ",)" : ")");
}

}  // namespace

std::string Mesh::JaxRepr() const {
  std::vector<int64_t> sizes;
  for (const MeshAxis& a : axes_) sizes.push_back(a.size);
  return absl::StrCat("Mesh(axis_sizes=", PyIntTuple(sizes), ", axis_names=", AxisNamesTuple(),
                      ", axis_types=", AxisTypesTuple(*this), ")");
}

std::string Mesh::JaxStr() const {
  std::vector<std::string> axes;
  for (const MeshAxis& a : axes_) axes.push_back(absl::StrCat(PyStr(a.name), ": ", a.size));
  return absl::StrCat("Mesh(", absl::StrJoin(axes, ", "), ", axis_types=", AxisTypesTuple(*this),
                      ")");
}

std::string Mesh::AxisNamesTuple() const {
  std::vector<std::string> names;
  for (const MeshAxis& a : axes_) names.push_back(a.name);
  return PyStrTuple(names);
}

}  // namespace axe::sharding
