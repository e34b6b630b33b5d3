#include "axe/runtime/client.h"

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/threads_backend.h"

namespace axe::runtime {

namespace {

class InProcessClient final : public Client {
 public:
  InProcessClient(int num_devices, const ClientOptions& options) {
    devices_.reserve(static_cast<size_t>(num_devices));
    for (int i = 0; i < num_devices; ++i) {
      devices_.push_back(std::make_unique<Device>(i, options.memory_per_device_bytes));
      ids_.push_back(i);
    }
    SetOps(std::make_unique<internal::ThreadsBackend>(*this, options.timeout_seconds));
  }
  ~InProcessClient() override { ReleaseOps(); }  // before the devices its tasks run on

  absl::string_view backend() const override { return "threads"; }
  int num_devices() const override { return static_cast<int>(devices_.size()); }
  const std::vector<int>& addressable_devices() const override { return ids_; }
  bool IsAddressable(int device) const override { return device >= 0 && device < num_devices(); }
  Device& device(int id) override { return *devices_[static_cast<size_t>(id)]; }

 private:
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<int> ids_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Client>> Client::InProcess(int num_devices,
                                                          const ClientOptions& options) {
  if (num_devices < 1 || num_devices > kMaxInProcessDevices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an in-process client has 1 to ", kMaxInProcessDevices, " devices, not ", num_devices));
  }
  if (options.memory_per_device_bytes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("negative memory per device: ", options.memory_per_device_bytes, " bytes"));
  }
  if (!(options.timeout_seconds >= 0) || options.timeout_seconds > 1e6) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the in-process timeout must be 0 (none) or positive and at most 1000000 s, got ",
        options.timeout_seconds, " s"));
  }
  return std::unique_ptr<Client>(new InProcessClient(num_devices, options));
}

std::unique_ptr<Backend> Client::ExchangeOps(std::unique_ptr<Backend> ops) {
  std::swap(ops, ops_);
  return ops;
}

std::vector<int64_t> Client::BytesInUse() {
  std::vector<int64_t> out(static_cast<size_t>(num_devices()), 0);
  for (int d : addressable_devices()) out[static_cast<size_t>(d)] = device(d).bytes_in_use();
  return out;
}

std::vector<int64_t> Client::PeakBytes() {
  std::vector<int64_t> out(static_cast<size_t>(num_devices()), 0);
  for (int d : addressable_devices()) out[static_cast<size_t>(d)] = device(d).peak_bytes();
  return out;
}

void Client::ResetPeaks() {
  for (int d : addressable_devices()) device(d).ResetPeak();
}

}  // namespace axe::runtime
