#include "axe/runtime/client.h"

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace axe::runtime {

namespace {

class InProcessClient final : public Client {
 public:
  InProcessClient(int num_devices, int64_t memory_per_device) {
    devices_.reserve(static_cast<size_t>(num_devices));
    for (int i = 0; i < num_devices; ++i) {
      devices_.push_back(std::make_unique<Device>(i, memory_per_device));
      ids_.push_back(i);
    }
  }

  absl::string_view backend() const override { return "threads"; }
  int num_devices() const override { return static_cast<int>(devices_.size()); }
  const std::vector<int>& addressable_devices() const override { return ids_; }
  bool IsAddressable(int device) const override { return device >= 0 && device < num_devices(); }
  Device& device(int id) override { return *devices_[static_cast<size_t>(id)]; }

  absl::Status RunOnDevices(const std::function<absl::Status(int)>& fn) override;

 private:
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<int> ids_;
};

absl::Status InProcessClient::RunOnDevices(const std::function<absl::Status(int)>& fn) {
  if (Device::Current() != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("RunOnDevices called from the worker of device ", Device::Current()->id(),
                     ": a device cannot wait for itself"));
  }
  std::vector<absl::Status> results(devices_.size());
  std::mutex mu;
  std::condition_variable done_cv;
  size_t remaining = devices_.size();
  for (size_t i = 0; i < devices_.size(); ++i) {
    devices_[i]->Enqueue([&, i] {
      absl::Status s = fn(static_cast<int>(i));
      std::lock_guard<std::mutex> lock(mu);
      results[i] = std::move(s);
      if (--remaining == 0) done_cv.notify_all();
    });
  }
  std::unique_lock<std::mutex> lock(mu);
  done_cv.wait(lock, [&] { return remaining == 0; });
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) {
      return absl::Status(results[i].code(),
                          absl::StrCat("device ", i, ": ", results[i].message()));
    }
  }
  return absl::OkStatus();
}

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
  return std::unique_ptr<Client>(new InProcessClient(num_devices, options.memory_per_device_bytes));
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
