#include "axe/runtime/device_values.h"

#include <cstddef>
#include <cstring>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/element_type.h"

namespace axe::runtime {

using relayout::ElementBytes;

absl::StatusOr<DeviceValues> DeviceValues::Allocate(Client& client, std::vector<int64_t> shape,
                                                    DType dtype, bool zero) {
  AXE_ASSIGN_OR_RETURN(int element_bytes, ElementBytes(dtype));
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", i, " has negative size ", shape[i]));
    }
  }
  std::optional<int64_t> n = CheckedProduct(shape);
  if (!n || !CheckedMul(*n, element_bytes)) {
    return absl::InvalidArgumentError("the value's size overflows int64");
  }
  DeviceValues values(&client, std::move(shape), dtype, element_bytes, *n);
  values.buffers_.resize(static_cast<size_t>(client.num_devices()));
  for (int d : client.addressable_devices()) {
    AXE_ASSIGN_OR_RETURN(values.buffers_[static_cast<size_t>(d)],
                         client.device(d).Allocate(values.bytes(), zero));
  }
  return values;
}

absl::StatusOr<DeviceValues> DeviceValues::FromHost(
    Client& client, std::vector<int64_t> shape, DType dtype,
    const std::vector<std::vector<uint8_t>>& values) {
  AXE_ASSIGN_OR_RETURN(DeviceValues out, Allocate(client, std::move(shape), dtype));
  if (values.size() != static_cast<size_t>(client.num_devices())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "got values for ", values.size(), " devices; the client has ", client.num_devices()));
  }
  for (int d : client.addressable_devices()) {
    const std::vector<uint8_t>& v = values[static_cast<size_t>(d)];
    if (v.size() != static_cast<size_t>(out.bytes())) {
      return absl::InvalidArgumentError(
          absl::StrCat("device ", d, "'s value has ", v.size(), " bytes, not ", out.bytes()));
    }
    if (!v.empty()) std::memcpy(out.mutable_data(d), v.data(), v.size());
  }
  return out;
}

absl::StatusOr<std::vector<uint8_t>> DeviceValues::ToHost(int device) const {
  const uint8_t* p = data(device);
  if (p == nullptr) {
    return absl::NotFoundError(absl::StrCat("device ", device, " holds no value here"));
  }
  return std::vector<uint8_t>(p, p + bytes());
}

const uint8_t* DeviceValues::data(int device) const {
  if (device < 0 || static_cast<size_t>(device) >= buffers_.size()) return nullptr;
  const DeviceBuffer& b = buffers_[static_cast<size_t>(device)];
  return b.device() == nullptr ? nullptr : b.data();
}

uint8_t* DeviceValues::mutable_data(int device) {
  if (device < 0 || static_cast<size_t>(device) >= buffers_.size()) return nullptr;
  DeviceBuffer& b = buffers_[static_cast<size_t>(device)];
  return b.device() == nullptr ? nullptr : b.data();
}

}  // namespace axe::runtime
