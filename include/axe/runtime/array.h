// A distributed array: a global shape and element type, a format (JAX's Format: a concrete
// sharding and the local layout every shard is stored in), and one buffer per addressable
// device of the sharding's devices, in that device's memory.
//
//   Format format = *MakeArrayFormat(*NamedSharding::Create(*Mesh::Parse("x=2,y=2"),
//                                                           *PartitionSpec::Parse("P('x',
//                                                           None)")));
//   Array a = *Array::DevicePut(*client, host_bytes, {8, 8}, DType::kF32, format);
//   std::vector<uint8_t> back = *a.ToHost();                           // row-major again
//   Array t = *a.Relayout(*LocalLayout::Create({1, 0}));               // column-major shards
//   Array d = *Array::DevicePut(*client, host_bytes, {8, 8}, DType::kF32,
//       *MakeArrayFormat(*SingleDeviceSharding::Create(3)));           // all of it on device 3
//
// Every scatter, gather and local relayout is a relayout plan per shard (box_copy.h), run
// on the device's own worker.
#ifndef AXE_RUNTIME_ARRAY_H_
#define AXE_RUNTIME_ARRAY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"
#include "axe/relayout/buffer_layout.h"
#include "axe/runtime/client.h"
#include "axe/runtime/device.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/format.h"
#include "axe/sharding/named_sharding.h"
#include "axe/sharding/sharding.h"
#include "axe/xla/layout.h"

namespace axe::runtime {

// The formats a runtime array can be stored in: a sharding::Format with a concrete sharding
// (a NamedSharding, or a SingleDeviceSharding on any device) and a concrete layout or None
// (row-major, XLA's {n-1,...,0}). Every entry point of the runtime checks its Format once
// with ArraySharding and ArrayLocalLayout.

// The Format of an array stored with `sharding` and every shard in the XLA layout
// `local_layout` (none: layout=None, row-major). Errors (InvalidArgument): a tile with a
// combined (*) dimension, which a JAX Layout cannot hold.
absl::StatusOr<sharding::Format> MakeArrayFormat(
    sharding::Sharding sharding, const std::optional<xla::Layout>& local_layout = std::nullopt);

// The NamedSharding the runtime places shards with: the NamedSharding itself, or for
// SingleDeviceSharding(device=k) a mesh with no axes on device k. Errors: a device id beyond
// the mesh bounds.
absl::StatusOr<sharding::NamedSharding> ArraySharding(const sharding::Sharding& sharding);
// The same for a Format. Errors (InvalidArgument): a Format without a sharding or with an
// AUTO layout, which no array is stored in:
//   a runtime array needs a concrete sharding (NamedSharding or SingleDeviceSharding); got
//   Format(layout=None, sharding=None)
absl::StatusOr<sharding::NamedSharding> ArraySharding(const sharding::Format& format);

// The XLA layout every shard of a `dtype` array of `shape` stored in `format` has (none:
// row-major). Errors, after "local layout Layout(...): ": the rank (JAX's "Length of
// major_to_minor and the rank of the value should match" text); LocalLayout::ToXla's (not
// a permutation, a bad tile).
absl::StatusOr<std::optional<xla::Layout>> ArrayLocalLayout(const sharding::Format& format,
                                                            absl::Span<const int64_t> shape,
                                                            DType dtype);

// How every shard of an array is stored: the shard's shape, its buffer layout (the local
// layout's Axe form, over the tiles' padded domain when tiled), and the elements its buffer
// holds: up to the last element of the shard (padding between elements included, padding
// after the last one not).
struct ShardStorage {
  std::vector<int64_t> shape;
  relayout::BufferLayout layout;
  int64_t buffer_elements = 0;
  int element_bytes = 0;
};

// The storage of the shards of a `shape` array of `dtype` in `format`. Errors: ArraySharding's
// and ArrayLocalLayout's; the sharding's CheckShape (JAX's texts: rank, divisibility naming
// the dimension and the mesh axes); an element type the engine cannot move (sub-byte,
// non-array); a local layout that xla::ToAxe refuses.
absl::StatusOr<ShardStorage> MakeShardStorage(absl::Span<const int64_t> shape, DType dtype,
                                              const sharding::Format& format);

class Array {
 public:
  // An array whose shard buffers are allocated but not initialized. Errors:
  // MakeShardStorage's; a mesh with more devices than the client; allocation failures.
  static absl::StatusOr<Array> Allocate(Client& client, absl::Span<const int64_t> shape,
                                        DType dtype, sharding::Format format);

  // Scatters host data stored with `host_layout` (a buffer layout of the global shape) to
  // the devices: every device's box of the sharding is copied into its shard in the local
  // layout. `host` must cover every offset the host layout addresses. The result is
  // committed unless `committed` is false. Errors: Allocate's; a host layout that does not
  // fit the shape; host bytes too few for the layout (naming both sizes).
  static absl::StatusOr<Array> DevicePut(Client& client, absl::Span<const uint8_t> host,
                                         const relayout::BufferLayout& host_layout,
                                         absl::Span<const int64_t> shape, DType dtype,
                                         sharding::Format format, bool committed = true);
  // The same from row-major host data (exactly prod(shape) elements).
  static absl::StatusOr<Array> DevicePut(Client& client, absl::Span<const uint8_t> host,
                                         absl::Span<const int64_t> shape, DType dtype,
                                         sharding::Format format, bool committed = true);

  // Gathers the array into `host`, stored with `host_layout` (one replica of each box is
  // read). Errors: a host layout that does not fit the shape or is not injective; `host`
  // too small.
  absl::Status ToHost(absl::Span<uint8_t> host, const relayout::BufferLayout& host_layout) const;
  // Row-major.
  absl::StatusOr<std::vector<uint8_t>> ToHost() const;
  // The shard of one device, row-major (what that device holds, replicas included).
  // Errors: a device that holds no shard.
  absl::StatusOr<std::vector<uint8_t>> ShardToHost(int device) const;

  // A copy with every shard stored in `local_layout` (none: row-major), same sharding.
  // Errors: MakeShardStorage's.
  absl::StatusOr<Array> Relayout(const std::optional<sharding::LocalLayout>& local_layout) const;

  Client& client() const { return *client_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int element_bytes() const { return storage_.element_bytes; }
  // The Format the array was made with (its layout None when row-major was asked for).
  const sharding::Format& format() const { return format_; }
  // The sharding as the runtime places the shards (ArraySharding of the format's).
  const sharding::NamedSharding& sharding() const { return sharding_; }
  // The XLA layout of every shard (none: row-major).
  const std::optional<xla::Layout>& local_layout() const { return local_layout_; }
  const ShardStorage& storage() const { return storage_; }
  // Which device holds which box (sharding::DevicesIndicesMap), one entry per mesh device.
  const std::vector<sharding::DeviceShard>& device_map() const { return map_; }
  bool committed() const { return committed_; }
  void set_committed(bool committed) { committed_ = committed; }
  // Bytes of one shard's buffer (padding included).
  int64_t shard_bytes() const;
  // The buffer of `device`'s shard, or nullptr when it holds none here.
  const DeviceBuffer* shard_buffer(int device) const;
  DeviceBuffer* mutable_shard_buffer(int device);

 private:
  Array(Client* client, std::vector<int64_t> shape, DType dtype, sharding::Format format,
        sharding::NamedSharding sharding, std::optional<xla::Layout> local_layout,
        ShardStorage storage)
      : client_(client),
        shape_(std::move(shape)),
        dtype_(dtype),
        format_(std::move(format)),
        sharding_(std::move(sharding)),
        local_layout_(std::move(local_layout)),
        storage_(std::move(storage)) {}

  Client* client_;
  std::vector<int64_t> shape_;
  DType dtype_;
  sharding::Format format_;
  sharding::NamedSharding sharding_;  // the format's, as the runtime places shards
  std::optional<xla::Layout> local_layout_;
  ShardStorage storage_;
  std::vector<sharding::DeviceShard> map_;
  std::vector<DeviceBuffer> buffers_;  // index: device id (empty where it holds no shard)
  bool committed_ = true;
};

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_ARRAY_H_
