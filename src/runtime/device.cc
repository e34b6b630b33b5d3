#include "axe/runtime/device.h"

#include <cstring>
#include <new>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace axe::runtime {

namespace {
thread_local Device* current_device = nullptr;
}  // namespace

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      account_(std::move(other.account_)),
      data_(std::move(other.data_)),
      size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    device_ = std::exchange(other.device_, nullptr);
    account_ = std::move(other.account_);
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { Release(); }

void DeviceBuffer::Release() {
  if (account_ != nullptr) account_->in_use.fetch_sub(size_);
  account_.reset();
  device_ = nullptr;
  data_.reset();
  size_ = 0;
}

Device::Device(int id, int64_t memory_limit_bytes)
    : id_(id), limit_(memory_limit_bytes), worker_([this] { WorkerLoop(); }) {}

Device::~Device() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

absl::StatusOr<DeviceBuffer> Device::Allocate(int64_t bytes, bool zero) {
  if (bytes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", id_, ": cannot allocate a negative size (", bytes, " bytes)"));
  }
  MemoryAccount& account = *account_;
  int64_t before = account.in_use.fetch_add(bytes);
  if (limit_ > 0 && (before > limit_ || bytes > limit_ - before)) {
    account.in_use.fetch_sub(bytes);
    return absl::ResourceExhaustedError(absl::StrCat("device ", id_, ": out of memory allocating ",
                                                     bytes, " bytes (", before, " of ", limit_,
                                                     " bytes in use)"));
  }
  DeviceBuffer buffer;
  // One byte at least, so that data() is a valid pointer even for an empty buffer.
  buffer.data_.reset(new (std::nothrow) uint8_t[bytes > 0 ? bytes : 1]);
  if (buffer.data_ == nullptr) {
    account.in_use.fetch_sub(bytes);
    return absl::ResourceExhaustedError(
        absl::StrCat("device ", id_, ": the host has no memory left for ", bytes, " bytes"));
  }
  if (zero && bytes > 0) std::memset(buffer.data_.get(), 0, static_cast<size_t>(bytes));
  buffer.device_ = this;
  buffer.account_ = account_;
  buffer.size_ = bytes;
  int64_t now = before + bytes;
  int64_t peak = account.peak.load();
  while (now > peak && !account.peak.compare_exchange_weak(peak, now)) {
  }
  return buffer;
}

void Device::Enqueue(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

Device* Device::Current() { return current_device; }

void Device::WorkerLoop() {
  current_device = this;
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stop_ and nothing left
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace axe::runtime
