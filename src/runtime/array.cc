#include "axe/runtime/array.h"

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/box_copy.h"
#include "axe/relayout/element_type.h"
#include "axe/relayout/index_box.h"
#include "axe/relayout/relayout_plan.h"
#include "axe/runtime/tensor_buffer.h"
#include "axe/xla/shape.h"

namespace axe::runtime {

using relayout::BufferLayout;
using relayout::CheckBufferLayout;
using relayout::CopyBox;
using relayout::ElementBytes;
using relayout::MutableStoredTensor;
using relayout::PlanRelayout;
using relayout::RelayoutOptions;
using relayout::RelayoutPlan;
using relayout::RowMajorBuffer;
using relayout::StoredTensor;
using relayout::WholeBox;

namespace {

using sharding::DeviceShard;

// The element offsets [begin, end) a layout addresses for a tensor of `shape` (and, for a
// destination, that it is injective).
absl::StatusOr<std::pair<int64_t, int64_t>> AddressRange(const BufferLayout& layout,
                                                         absl::Span<const int64_t> shape,
                                                         int element_bytes, bool destination) {
  AXE_ASSIGN_OR_RETURN(BufferLayout dense, RowMajorBuffer(shape));
  RelayoutOptions options;
  options.threads = 1;
  if (destination) {
    AXE_ASSIGN_OR_RETURN(RelayoutPlan p,
                         PlanRelayout(dense, layout, shape, element_bytes, options));
    return std::make_pair(p.dst_begin(), p.dst_end());
  }
  AXE_ASSIGN_OR_RETURN(RelayoutPlan p, PlanRelayout(layout, dense, shape, element_bytes, options));
  return std::make_pair(p.src_begin(), p.src_end());
}

absl::Status CheckHostBytes(std::pair<int64_t, int64_t> range, int element_bytes, size_t bytes) {
  std::optional<int64_t> need = CheckedMul(range.second, element_bytes);
  if (range.first < 0 || !need) {
    return absl::InvalidArgumentError(
        absl::StrCat("the host layout addresses elements [", range.first, ", ", range.second,
                     "), outside a host buffer that starts at offset 0"));
  }
  if (static_cast<uint64_t>(*need) > bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the host buffer has ", bytes, " bytes but its layout addresses ", *need));
  }
  return absl::OkStatus();
}

// For each device id of a client with `devices` devices, the index of its entry in `map` (-1
// for a device that holds no shard): a mesh's devices need not be 0..N-1.
std::vector<int64_t> EntryOfDevice(const std::vector<DeviceShard>& map, int devices) {
  std::vector<int64_t> entries(static_cast<size_t>(devices), -1);
  for (size_t i = 0; i < map.size(); ++i) {
    const int64_t d = map[i].device;
    if (d >= 0 && d < devices) entries[static_cast<size_t>(d)] = static_cast<int64_t>(i);
  }
  return entries;
}

}  // namespace

absl::StatusOr<sharding::Format> MakeArrayFormat(sharding::Sharding sharding,
                                                 const std::optional<xla::Layout>& local_layout) {
  sharding::Format::LayoutChoice layout;
  if (local_layout) {
    AXE_ASSIGN_OR_RETURN(layout, sharding::LocalLayout::FromXla(*local_layout));
  }
  return sharding::Format::Create(std::move(layout), std::move(sharding));
}

absl::StatusOr<sharding::NamedSharding> ArraySharding(const sharding::Sharding& sharding) {
  if (const sharding::NamedSharding* named = sharding.named()) return *named;
  // A mesh without axes on the one device.
  AXE_ASSIGN_OR_RETURN(sharding::Mesh mesh,
                       sharding::Mesh::Create({}, {sharding.single_device()->device()}));
  return sharding::NamedSharding::Create(std::move(mesh), sharding::PartitionSpec(),
                                         sharding.memory_kind());
}

absl::StatusOr<sharding::NamedSharding> ArraySharding(const sharding::Format& format) {
  if (!format.sharding() || format.is_auto()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a runtime array needs a concrete sharding (NamedSharding or "
                     "SingleDeviceSharding) and a concrete layout or None; got ",
                     format.ToString()));
  }
  return ArraySharding(*format.sharding());
}

absl::StatusOr<std::optional<xla::Layout>> ArrayLocalLayout(const sharding::Format& format,
                                                            absl::Span<const int64_t> shape,
                                                            DType dtype) {
  const sharding::LocalLayout* layout = format.local_layout();
  if (layout == nullptr) return std::nullopt;
  absl::Status fits = layout->CheckCompatibleAval(shape);
  absl::StatusOr<xla::Layout> xla_layout =
      fits.ok() ? layout->ToXla(dtype) : absl::StatusOr<xla::Layout>(fits);
  if (!xla_layout.ok()) {
    return absl::Status(
        xla_layout.status().code(),
        absl::StrCat("local layout ", layout->ToString(), ": ", xla_layout.status().message()));
  }
  return *std::move(xla_layout);
}

namespace {

// The storage of a `shape` array of `dtype` stored with `named` and `local_layout`.
absl::StatusOr<ShardStorage> ShardStorageOf(absl::Span<const int64_t> shape, DType dtype,
                                            const sharding::NamedSharding& named,
                                            const std::optional<xla::Layout>& local_layout) {
  AXE_ASSIGN_OR_RETURN(int element_bytes, ElementBytes(dtype));
  AXE_RETURN_IF_ERROR(named.CheckShape(shape));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shard_shape, named.ShardShape(shape));
  ShardStorage storage{shard_shape, *Layout::RowMajor({1}), 0, element_bytes};
  if (local_layout.has_value()) {
    xla::Shape local = xla::Shape::Array(dtype, shard_shape, {}, *local_layout);
    absl::StatusOr<TensorBuffer> buffer = BufferLayoutFromXla(local);
    if (!buffer.ok()) {
      return absl::Status(
          buffer.status().code(),
          absl::StrCat("local layout ", local_layout->ToString(), ": ", buffer.status().message()));
    }
    storage.layout = std::move(buffer->buffer);
  } else {
    AXE_ASSIGN_OR_RETURN(storage.layout, RowMajorBuffer(shard_shape));
  }
  AXE_ASSIGN_OR_RETURN(auto range, AddressRange(storage.layout, shard_shape, element_bytes, true));
  if (range.first < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("local layout ", storage.layout.ToString(), " addresses a negative offset"));
  }
  storage.buffer_elements = range.second;
  if (!CheckedMul(range.second, element_bytes)) {
    return absl::InvalidArgumentError("a shard's buffer size overflows int64");
  }
  return storage;
}

}  // namespace

absl::StatusOr<ShardStorage> MakeShardStorage(absl::Span<const int64_t> shape, DType dtype,
                                              const sharding::Format& format) {
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding named, ArraySharding(format));
  AXE_ASSIGN_OR_RETURN(std::optional<xla::Layout> local_layout,
                       ArrayLocalLayout(format, shape, dtype));
  return ShardStorageOf(shape, dtype, named, local_layout);
}

absl::StatusOr<Array> Array::Allocate(Client& client, absl::Span<const int64_t> shape, DType dtype,
                                      sharding::Format format) {
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding named, ArraySharding(format));
  AXE_ASSIGN_OR_RETURN(std::optional<xla::Layout> local_layout,
                       ArrayLocalLayout(format, shape, dtype));
  const sharding::Mesh& mesh = named.mesh();
  if (mesh.num_devices() > client.num_devices()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the mesh ", mesh.ToString(), " has ", mesh.num_devices(),
                     " devices but the client has ", client.num_devices()));
  }
  for (int64_t d : mesh.device_array()) {
    if (d >= client.num_devices()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the mesh ", mesh.ToString(), " uses device ", d, " but the client has ",
                       client.num_devices(), " devices (ids 0 to ", client.num_devices() - 1, ")"));
    }
  }
  AXE_ASSIGN_OR_RETURN(ShardStorage storage, ShardStorageOf(shape, dtype, named, local_layout));
  Array array(&client, {shape.begin(), shape.end()}, dtype, std::move(format), std::move(named),
              std::move(local_layout), std::move(storage));
  AXE_ASSIGN_OR_RETURN(array.map_, sharding::DevicesIndicesMap(array.sharding_, shape));
  array.buffers_.resize(static_cast<size_t>(client.num_devices()));
  int64_t bytes = array.shard_bytes();
  for (const DeviceShard& shard : array.map_) {
    int d = static_cast<int>(shard.device);
    if (!client.IsAddressable(d)) continue;
    AXE_ASSIGN_OR_RETURN(array.buffers_[static_cast<size_t>(d)], client.device(d).Allocate(bytes));
  }
  return array;
}

absl::StatusOr<Array> Array::DevicePut(Client& client, absl::Span<const uint8_t> host,
                                       const BufferLayout& host_layout,
                                       absl::Span<const int64_t> shape, DType dtype,
                                       sharding::Format format, bool committed) {
  AXE_ASSIGN_OR_RETURN(Array array, Allocate(client, shape, dtype, std::move(format)));
  array.committed_ = committed;
  AXE_RETURN_IF_ERROR(CheckBufferLayout(host_layout, shape, "host"));
  AXE_ASSIGN_OR_RETURN(auto range, AddressRange(host_layout, shape, array.element_bytes(), false));
  AXE_RETURN_IF_ERROR(CheckHostBytes(range, array.element_bytes(), host.size()));
  StoredTensor from{host_layout, shape, host.data()};
  const std::vector<int64_t> entries = EntryOfDevice(array.map_, client.num_devices());
  AXE_RETURN_IF_ERROR(client.RunOnDevices([&](int device) -> absl::Status {
    DeviceBuffer* buffer = array.mutable_shard_buffer(device);
    if (buffer == nullptr) return absl::OkStatus();
    const DeviceShard& shard =
        array.map_[static_cast<size_t>(entries[static_cast<size_t>(device)])];
    MutableStoredTensor to{array.storage_.layout, array.storage_.shape, buffer->data()};
    return CopyBox(from, shard.index, to, WholeBox(array.storage_.shape), array.element_bytes());
  }));
  return array;
}

absl::StatusOr<Array> Array::DevicePut(Client& client, absl::Span<const uint8_t> host,
                                       absl::Span<const int64_t> shape, DType dtype,
                                       sharding::Format format, bool committed) {
  AXE_ASSIGN_OR_RETURN(BufferLayout dense, RowMajorBuffer(shape));
  return DevicePut(client, host, dense, shape, dtype, std::move(format), committed);
}

absl::Status Array::ToHost(absl::Span<uint8_t> host, const BufferLayout& host_layout) const {
  AXE_RETURN_IF_ERROR(CheckBufferLayout(host_layout, shape_, "host"));
  AXE_ASSIGN_OR_RETURN(auto range, AddressRange(host_layout, shape_, element_bytes(), true));
  AXE_RETURN_IF_ERROR(CheckHostBytes(range, element_bytes(), host.size()));
  std::vector<bool> reader(map_.size(), false);  // the first device of each replica group
  std::vector<bool> group_seen;
  for (size_t i = 0; i < map_.size(); ++i) {
    auto g = static_cast<size_t>(map_[i].replica_group);
    if (g >= group_seen.size()) group_seen.resize(g + 1, false);
    int d = static_cast<int>(map_[i].device);
    if (!group_seen[g] && shard_buffer(d) != nullptr) reader[i] = group_seen[g] = true;
  }
  // Every block must be readable here: on an MPI client the other ranks' shards are not.
  for (size_t g = 0; g < group_seen.size(); ++g) {
    if (!group_seen[g]) {
      return absl::FailedPreconditionError(
          absl::StrCat("ToHost: no device of replica group ", g,
                       " is in this process (an MPI client: gather the array over MPI first)"));
    }
  }
  MutableStoredTensor to{host_layout, shape_, host.data()};
  const std::vector<int64_t> entries = EntryOfDevice(map_, client_->num_devices());
  return client_->RunOnDevices([&](int device) -> absl::Status {
    const int64_t entry = entries[static_cast<size_t>(device)];
    if (entry < 0 || !reader[static_cast<size_t>(entry)]) return absl::OkStatus();
    StoredTensor from{storage_.layout, storage_.shape, shard_buffer(device)->data()};
    return CopyBox(from, WholeBox(storage_.shape), to, map_[static_cast<size_t>(entry)].index,
                   element_bytes());
  });
}

absl::StatusOr<std::vector<uint8_t>> Array::ToHost() const {
  AXE_ASSIGN_OR_RETURN(BufferLayout dense, RowMajorBuffer(shape_));
  std::optional<int64_t> n = CheckedProduct(shape_);
  std::optional<int64_t> bytes = n ? CheckedMul(*n, element_bytes()) : std::nullopt;
  if (!bytes) return absl::InvalidArgumentError("the array's size overflows int64");
  std::vector<uint8_t> host(static_cast<size_t>(*bytes));
  AXE_RETURN_IF_ERROR(ToHost(absl::MakeSpan(host), dense));
  return host;
}

absl::StatusOr<std::vector<uint8_t>> Array::ShardToHost(int device) const {
  const DeviceBuffer* buffer = shard_buffer(device);
  if (buffer == nullptr) {
    return absl::NotFoundError(absl::StrCat("device ", device, " holds no shard of the array"));
  }
  AXE_ASSIGN_OR_RETURN(BufferLayout dense, RowMajorBuffer(storage_.shape));
  int64_t n = *CheckedProduct(storage_.shape);  // fits: the shard's buffer holds it
  std::vector<uint8_t> host(static_cast<size_t>(n * element_bytes()));
  StoredTensor from{storage_.layout, storage_.shape, buffer->data()};
  MutableStoredTensor to{dense, storage_.shape, host.data()};
  AXE_RETURN_IF_ERROR(
      CopyBox(from, WholeBox(storage_.shape), to, WholeBox(storage_.shape), element_bytes()));
  return host;
}

absl::StatusOr<Array> Array::Relayout(
    const std::optional<sharding::LocalLayout>& local_layout) const {
  sharding::Format::LayoutChoice layout;
  if (local_layout) layout = *local_layout;
  AXE_ASSIGN_OR_RETURN(sharding::Format format,
                       sharding::Format::Create(std::move(layout), *format_.sharding()));
  AXE_ASSIGN_OR_RETURN(Array out, Allocate(*client_, shape_, dtype_, std::move(format)));
  out.committed_ = committed_;
  AXE_RETURN_IF_ERROR(client_->RunOnDevices([&](int device) -> absl::Status {
    const DeviceBuffer* from_buffer = shard_buffer(device);
    if (from_buffer == nullptr) return absl::OkStatus();
    StoredTensor from{storage_.layout, storage_.shape, from_buffer->data()};
    MutableStoredTensor to{out.storage_.layout, out.storage_.shape,
                           out.mutable_shard_buffer(device)->data()};
    return CopyBox(from, WholeBox(storage_.shape), to, WholeBox(storage_.shape), element_bytes());
  }));
  return out;
}

int64_t Array::shard_bytes() const {
  return storage_.buffer_elements * storage_.element_bytes;  // checked in MakeShardStorage
}

const DeviceBuffer* Array::shard_buffer(int device) const {
  if (device < 0 || static_cast<size_t>(device) >= buffers_.size()) return nullptr;
  const DeviceBuffer& b = buffers_[static_cast<size_t>(device)];
  return b.device() == nullptr ? nullptr : &b;
}

DeviceBuffer* Array::mutable_shard_buffer(int device) {
  if (device < 0 || static_cast<size_t>(device) >= buffers_.size()) return nullptr;
  DeviceBuffer& b = buffers_[static_cast<size_t>(device)];
  return b.device() == nullptr ? nullptr : &b;
}

}  // namespace axe::runtime
