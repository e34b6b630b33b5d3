// Tensors distributed over a device mesh. A mesh is a grid of devices numbered on one device
// axis (`gpuid` by default); a tensor is sharded over some mesh dimensions and replicated
// over the others. Its layout is the tile of a local layout (what one device stores, on
// memory axes) by the mesh layout (on the device axis): because the local layout does not use
// the device axis, the tile does not scale the mesh strides and every device's local storage
// is exactly the local layout (compact when the local layout is).
//
//   DeviceMesh mesh = *DeviceMesh::ColumnMajor({2, 2});     // the paper's 2x2 figure
//   MeshShardedLayout({64, 128}, mesh, {{0}, {1}})          // Alpa S0S1:
//   // S[(2,32,2,64):(1@gpuid,64,2@gpuid,1)]
//   MeshShardedLayout({64, 128}, mesh, {{0}, {}})           // Alpa S0R:
//   // S[(2,32,128):(1@gpuid,128,1)] + R[2:2@gpuid] (grouped by (64, 128); canonical:
//   // S[(2,4096):(1@gpuid,1)] + R[2:2@gpuid])
#ifndef AXE_LAYOUT_MESH_H_
#define AXE_LAYOUT_MESH_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/axis.h"
#include "axe/layout/axis_catalog.h"
#include "axe/layout/layout.h"

namespace axe {

// The device axis names of the standard catalogue: gpuid, gpuid_x, gpuid_y and pid.
absl::Span<const AxisCatalogEntry> MeshAxisNames();

struct DeviceMesh {
  std::vector<int64_t> shape;    // devices per mesh dimension
  std::vector<int64_t> strides;  // device-number stride of each mesh dimension
  Axis axis;                     // the device axis

  // Devices numbered row-major (the last mesh dimension fastest), as JAX numbers them.
  static absl::StatusOr<DeviceMesh> RowMajor(std::vector<int64_t> shape,
                                             Axis axis = Axis::Get("gpuid"));
  // Devices numbered column-major (the first mesh dimension fastest), as the paper's figure.
  static absl::StatusOr<DeviceMesh> ColumnMajor(std::vector<int64_t> shape,
                                                Axis axis = Axis::Get("gpuid"));

  // The layout of the mesh itself: mesh coordinate -> device, S[shape:strides@axis].
  absl::StatusOr<Layout> ToLayout() const;
};

// The layout of a tensor of `local_shape` per device whose dimension d is sharded over the
// mesh dimensions sharding[d] (major to minor; empty: not sharded) and replicated over every
// mesh dimension that appears nowhere: Tile(mesh part, per-dimension mesh extents, local,
// local_shape). The natural logical shape is local_shape[d] * (product of the mesh extents
// sharding d); the result is grouped by it (each dimension's iters side by side, not
// canonical). Errors: sharding's rank differs from local_shape's, a mesh dimension is out of
// range or used twice, the local layout uses the mesh's device axis, or Tile's errors.
absl::StatusOr<Layout> ShardOverMesh(const Layout& local, absl::Span<const int64_t> local_shape,
                                     const DeviceMesh& mesh,
                                     const std::vector<std::vector<int>>& sharding);

// The same with a compact row-major local layout on `m`: the global shape is divided by the
// mesh extents (exactly; an error names the dimension otherwise).
absl::StatusOr<Layout> MeshShardedLayout(absl::Span<const int64_t> global_shape,
                                         const DeviceMesh& mesh,
                                         const std::vector<std::vector<int>>& sharding);

}  // namespace axe

#endif  // AXE_LAYOUT_MESH_H_
