// A device mesh (spec jax-layout-format.md §8.1): an ordered list of named axes with sizes
// and the devices laid out over them.
//
// Device ids 0..N-1 are laid out row-major over the axes by default (last axis fastest);
// an explicit device array (any N distinct ids, listed in mesh-position order: a
// permutation of 0..N-1, or a mesh on devices 4-7 of a bigger machine) replaces that order. The
// *mesh position* of the device at mesh coordinate c is Σ_j c_j · M_j with M_j = Π_{l>j} m_l (equal
// to the device id for the default order).
//
// Meshes are immutable values with ==, a hash and one canonical text form that Parse()
// reads back:
//
//   Mesh('x': 2, 'y': 2)                          // default device order
//   Mesh('x': 2, 'y': 2, devices=[0, 2, 1, 3])    // explicit device array
//   Mesh('x': 2, 'y': 2, axis_types=(Explicit, Auto))   // JAX's axis types
//   Mesh()                                        // no axes: one device (id 0)
//
// Axis types (JAX's AxisType: Auto, Explicit, Manual) say how a program may use an axis;
// they do not move any element. The canonical text names them only when one is not Auto
// (JAX's repr always does; Parse reads both).
//
// Parse() also accepts the forms people type: `{x:2, y:2}`, `{'x': 2}`, the CLI's
// `x=2,y=2` (optionally followed by `devices=[...]` or `devices=0,2,1,3` after a comma), and
// JAX's repr, `Mesh(axis_sizes=(2, 2), axis_names=('x', 'y'), axis_types=(Auto, Auto))`.
#ifndef AXE_SHARDING_MESH_H_
#define AXE_SHARDING_MESH_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace axe::sharding {

enum class MeshAxisType { kAuto, kExplicit, kManual };
// "Auto", "Explicit", "Manual".
absl::string_view MeshAxisTypeName(MeshAxisType type);

struct MeshAxis {
  std::string name;  // an identifier, unique within the mesh
  int64_t size = 1;  // >= 1

  friend bool operator==(const MeshAxis&, const MeshAxis&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const MeshAxis& a) {
    return H::combine(std::move(h), a.name, a.size);
  }
};

class Mesh {
 public:
  // Bounds that keep every mesh enumerable.
  static constexpr int64_t kMaxDevices = int64_t{1} << 16;
  static constexpr size_t kMaxAxes = 32;
  static constexpr size_t kMaxTextLength = size_t{1} << 20;

  // The mesh with no axes (one device, id 0).
  Mesh();

  // Validates (InvalidArgument naming the axis): names are identifiers (Axis::IsValidName),
  // unique and not `m` (the memory axis of Axe layouts), sizes
  // >= 1, at most kMaxAxes axes and kMaxDevices devices; `devices` is empty (the default
  // row-major order) or lists N distinct ids in [0, kMaxDevices), in mesh-position order.
  // `axis_types` is empty (all Auto) or one per axis.
  static absl::StatusOr<Mesh> Create(std::vector<MeshAxis> axes, std::vector<int64_t> devices = {},
                                     std::vector<MeshAxisType> axis_types = {});
  // Reads any of the forms above. Errors name the 0-based character position.
  static absl::StatusOr<Mesh> Parse(absl::string_view text);

  const std::vector<MeshAxis>& axes() const { return axes_; }
  size_t rank() const { return axes_.size(); }
  // N, the number of devices (1 for the mesh with no axes).
  int64_t num_devices() const { return num_devices_; }
  // The type of axis j (Auto unless given).
  MeshAxisType axis_type(size_t j) const {
    return axis_types_.empty() ? MeshAxisType::kAuto : axis_types_[j];
  }
  // True when every axis is Auto.
  bool has_default_axis_types() const { return axis_types_.empty(); }
  // True when device ids follow the default row-major order.
  bool has_default_devices() const { return devices_.empty(); }
  // True when the device ids are 0..N-1 (in any order).
  bool has_dense_devices() const;
  // The device array in mesh-position order (0..N-1 for the default order).
  std::vector<int64_t> device_array() const;
  // The largest device id + 1: the devices a client needs to hold every device of the mesh
  // (8 for a mesh on devices 4-7).
  int64_t device_id_bound() const;
  // The index of the axis named `name`, if any.
  std::optional<size_t> AxisIndex(absl::string_view name) const;
  // M_j: the mesh-position stride of axis j (product of the sizes of later axes).
  int64_t axis_stride(size_t j) const { return strides_[j]; }

  // The device at a mesh position in [0, N) (unchecked: the caller stays in range).
  int64_t DeviceAtPosition(int64_t position) const;
  // The device at a mesh coordinate. Errors: wrong length, a component out of range.
  absl::StatusOr<int64_t> DeviceAt(absl::Span<const int64_t> coordinate) const;
  // The mesh position of a device. Errors: an id not in the mesh.
  absl::StatusOr<int64_t> PositionOf(int64_t device) const;
  // The mesh coordinate of a device. Errors: an id not in the mesh.
  absl::StatusOr<std::vector<int64_t>> CoordinateOf(int64_t device) const;
  // The mesh coordinate of a mesh position in [0, N) (unchecked).
  std::vector<int64_t> CoordinateOfPosition(int64_t position) const;

  // The canonical text (see the header comment).
  std::string ToString() const;
  // JAX's repr(mesh): Mesh(axis_sizes=(2, 4), axis_names=('x', 'y'), axis_types=(Auto, Auto)).
  // Like JAX's, it names no device ids.
  std::string JaxRepr() const;
  // JAX's str(mesh), also how a NamedSharding's repr shows its mesh:
  // Mesh('x': 2, 'y': 4, axis_types=(Auto, Auto)), and Mesh(, axis_types=()) with no axes.
  // Like JAX's, it names no device ids; Parse reads it back (with the default device order).
  std::string JaxStr() const;
  // The axis names as a Python tuple: ('x', 'y'), ('x',) or ().
  std::string AxisNamesTuple() const;

  friend bool operator==(const Mesh& a, const Mesh& b) {
    return a.axes_ == b.axes_ && a.devices_ == b.devices_ && a.axis_types_ == b.axis_types_;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Mesh& m) {
    return H::combine(std::move(h), m.axes_, m.devices_, m.axis_types_);
  }
  friend std::ostream& operator<<(std::ostream& os, const Mesh& m) { return os << m.ToString(); }

 private:
  std::vector<MeshAxis> axes_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> devices_;  // empty for the default order
  // (device id, mesh position), sorted by id: the inverse of devices_ (empty for the
  // default order).
  std::vector<std::pair<int64_t, int64_t>> positions_;
  std::vector<MeshAxisType> axis_types_;  // empty when all are Auto
  int64_t num_devices_ = 1;
};

}  // namespace axe::sharding

#endif  // AXE_SHARDING_MESH_H_
