// A distributed array: a global shape and element type, a format (a NamedSharding and the
// local layout every shard is stored in), and one buffer per addressable device of the
// sharding's mesh, in that device's memory.
//
//   ArrayFormat format{*NamedSharding::Create(*Mesh::Parse("x=2,y=2"),
//                                             *PartitionSpec::Parse("P('x', None)")),
//                      std::nullopt};                                  // row-major shards
//   Array a = *Array::DevicePut(*client, host_bytes, {8, 8}, DType::kF32, format);
//   std::vector<uint8_t> back = *a.ToHost();                           // row-major again
//   Array t = *a.Relayout(xla::Layout({0, 1}));                        // column-major shards
//
// Every scatter, gather and local relayout is a relayout plan per shard (box_copy.h), run
// on the device's own worker. Until axe::sharding has JAX's Format, ArrayFormat stands for
// it: the same two fields (sharding and local layout).
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
#include "axe/sharding/named_sharding.h"
#include "axe/xla/layout.h"

namespace axe::runtime {

// A sharding and the XLA layout of every shard (none: row-major, XLA's {n-1,...,0}).
struct ArrayFormat {
  sharding::NamedSharding sharding;
  std::optional<xla::Layout> local_layout;

  // "NamedSharding(mesh=..., spec=...), local layout {1,0}" ("row-major" when none).
  std::string ToString() const;
  friend bool operator==(const ArrayFormat&, const ArrayFormat&) = default;
};

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

// The storage of the shards of a `shape` array of `dtype` in `format`. Errors: the
// sharding's CheckShape (JAX's texts: rank, divisibility naming the dimension and the mesh
// axes); an element type the engine cannot move (sub-byte, non-array); a local layout of
// the wrong rank or that xla::ToAxe refuses.
absl::StatusOr<ShardStorage> MakeShardStorage(absl::Span<const int64_t> shape, DType dtype,
                                              const ArrayFormat& format);

class Array {
 public:
  // An array whose shard buffers are allocated but not initialized. Errors:
  // MakeShardStorage's; a mesh with more devices than the client; allocation failures.
  static absl::StatusOr<Array> Allocate(Client& client, absl::Span<const int64_t> shape,
                                        DType dtype, ArrayFormat format);

  // Scatters host data stored with `host_layout` (a buffer layout of the global shape) to
  // the devices: every device's box of the sharding is copied into its shard in the local
  // layout. `host` must cover every offset the host layout addresses. The result is
  // committed unless `committed` is false. Errors: Allocate's; a host layout that does not
  // fit the shape; host bytes too few for the layout (naming both sizes).
  static absl::StatusOr<Array> DevicePut(Client& client, absl::Span<const uint8_t> host,
                                         const relayout::BufferLayout& host_layout,
                                         absl::Span<const int64_t> shape, DType dtype,
                                         ArrayFormat format, bool committed = true);
  // The same from row-major host data (exactly prod(shape) elements).
  static absl::StatusOr<Array> DevicePut(Client& client, absl::Span<const uint8_t> host,
                                         absl::Span<const int64_t> shape, DType dtype,
                                         ArrayFormat format, bool committed = true);

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
  absl::StatusOr<Array> Relayout(const std::optional<xla::Layout>& local_layout) const;

  Client& client() const { return *client_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int element_bytes() const { return storage_.element_bytes; }
  const ArrayFormat& format() const { return format_; }
  const sharding::NamedSharding& sharding() const { return format_.sharding; }
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
  Array(Client* client, std::vector<int64_t> shape, DType dtype, ArrayFormat format,
        ShardStorage storage)
      : client_(client),
        shape_(std::move(shape)),
        dtype_(dtype),
        format_(std::move(format)),
        storage_(std::move(storage)) {}

  Client* client_;
  std::vector<int64_t> shape_;
  DType dtype_;
  ArrayFormat format_;
  ShardStorage storage_;
  std::vector<sharding::DeviceShard> map_;
  std::vector<DeviceBuffer> buffers_;  // index: device id (empty where it holds no shard)
  bool committed_ = true;
};

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_ARRAY_H_
