#include "axe/sharding/to_axe.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"
#include "axe/xla/shape.h"
#include "axe/xla/to_axe.h"

namespace axe::sharding {
namespace {

// The memory layout of one shard, grouped by the local shape.
absl::StatusOr<Grouped> LocalMemory(const std::vector<int64_t>& local,
                                    const std::optional<xla::Layout>& local_layout, DType dtype) {
  for (size_t i = 0; i < local.size(); ++i) {
    if (local[i] == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", i, " has size 0: an Axe layout needs at least one element"));
    }
  }
  std::vector<int64_t> m2m(local.size());
  for (size_t i = 0; i < local.size(); ++i) m2m[i] = static_cast<int64_t>(local.size() - 1 - i);
  xla::Layout layout = local_layout ? *local_layout : xla::Layout(std::move(m2m));
  xla::Shape shape = xla::Shape::Array(dtype, local, {}, std::move(layout));
  AXE_ASSIGN_OR_RETURN(xla::AxeForm form, xla::ToAxe(shape));
  if (form.padded()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "not expressible: the local layout pads the shard (local shape ", shape.ToString(), ")"));
  }
  return Group(form.layout, local);
}

Iter DeviceIter(const Mesh& mesh, size_t j, DeviceAxisMode mode) {
  const MeshAxis& a = mesh.axes()[j];
  if (mode == DeviceAxisMode::kFlat) return Iter{a.size, mesh.axis_stride(j), Axis::Get("gpuid")};
  return Iter{a.size, 1, Axis::Get(a.name, AxisKind::kDevice)};
}

}  // namespace

absl::StatusOr<axe::Layout> ShardedToAxe(absl::Span<const int64_t> global_shape,
                                         const NamedSharding& sharding,
                                         const std::optional<xla::Layout>& local_layout,
                                         DeviceAxisMode mode, DType dtype) {
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> local, sharding.ShardShape(global_shape));
  AXE_ASSIGN_OR_RETURN(Grouped memory, LocalMemory(local, local_layout, dtype));
  const std::vector<Iter>& mg = memory.layout.shard();
  std::vector<Iter> shard;
  for (size_t i = 0; i < local.size(); ++i) {
    for (size_t j : sharding.DimAxes(i)) shard.push_back(DeviceIter(sharding.mesh(), j, mode));
    shard.insert(shard.end(), mg.begin() + static_cast<std::ptrdiff_t>(memory.seps[i]),
                 mg.begin() + static_cast<std::ptrdiff_t>(memory.seps[i + 1]));
  }
  std::vector<Iter> replica;
  for (size_t j : sharding.ReplicatedAxes())
    replica.push_back(DeviceIter(sharding.mesh(), j, mode));
  AXE_ASSIGN_OR_RETURN(axe::Layout layout,
                       axe::Layout::Create(std::move(shard), std::move(replica)));
  return Canonicalize(layout);
}

}  // namespace axe::sharding
