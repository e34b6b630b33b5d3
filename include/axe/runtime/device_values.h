// One value per device, all of the same shape and element type, stored row-major in each
// device's memory: what every device holds inside a shard_map body, and what the
// collectives (collectives.h) take and return.
//
//   DeviceValues v = *DeviceValues::FromHost(*client, {4, 8}, DType::kF32, per_device_bytes);
//   std::vector<uint8_t> on_2 = *v.ToHost(2);
#ifndef AXE_RUNTIME_DEVICE_VALUES_H_
#define AXE_RUNTIME_DEVICE_VALUES_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"
#include "axe/runtime/client.h"
#include "axe/runtime/device.h"

namespace axe::runtime {

class DeviceValues {
 public:
  // A value on every addressable device of `client`, uninitialized (zeroed with `zero`).
  // Errors: an element type the runtime cannot hold (sub-byte, non-array), a negative
  // dimension, a size that overflows, allocation failures.
  static absl::StatusOr<DeviceValues> Allocate(Client& client, std::vector<int64_t> shape,
                                               DType dtype, bool zero = false);
  // From row-major host bytes, one vector per device id (all devices of the client).
  // Errors: Allocate's; a count of vectors other than num_devices; a vector of the wrong
  // size (naming the device and both sizes).
  static absl::StatusOr<DeviceValues> FromHost(Client& client, std::vector<int64_t> shape,
                                               DType dtype,
                                               const std::vector<std::vector<uint8_t>>& values);

  // Row-major bytes of `device`'s value. Errors: a device without a value here.
  absl::StatusOr<std::vector<uint8_t>> ToHost(int device) const;

  Client& client() const { return *client_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int element_bytes() const { return element_bytes_; }
  int64_t elements() const { return elements_; }
  int64_t bytes() const { return elements_ * element_bytes_; }
  // nullptr where the device holds no value (not addressable).
  const uint8_t* data(int device) const;
  uint8_t* mutable_data(int device);

 private:
  DeviceValues(Client* client, std::vector<int64_t> shape, DType dtype, int element_bytes,
               int64_t elements)
      : client_(client),
        shape_(std::move(shape)),
        dtype_(dtype),
        element_bytes_(element_bytes),
        elements_(elements) {}

  Client* client_;
  std::vector<int64_t> shape_;
  DType dtype_;
  int element_bytes_;
  int64_t elements_;
  std::vector<DeviceBuffer> buffers_;  // index: device id
};

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_DEVICE_VALUES_H_
