// One device of a Client: its own memory (every allocation accounted, so that the bytes in
// use and the peak can be measured) and its own worker thread with a task queue.
//
//   absl::StatusOr<DeviceBuffer> b = device.Allocate(1 << 20);   // accounted to `device`
//   device.bytes_in_use();   // 1 MiB until `b` is destroyed
//   device.peak_bytes();     // the most ever in use since the last ResetPeak()
#ifndef AXE_RUNTIME_DEVICE_H_
#define AXE_RUNTIME_DEVICE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/status/statusor.h"

namespace axe::runtime {

class Device;

// The bytes in use and the peak of one device's memory. Shared by the device and its
// buffers, so that a buffer released after its device is gone still unaccounts safely.
struct MemoryAccount {
  std::atomic<int64_t> in_use{0};
  std::atomic<int64_t> peak{0};
};

// Bytes in one device's memory, released (and unaccounted) when destroyed. Movable only.
// device() is valid while the client that owns the device lives; the buffer itself may be
// destroyed later.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  int64_t size() const { return size_; }
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  // The device that owns the bytes (nullptr for an empty buffer).
  Device* device() const { return device_; }

 private:
  friend class Device;
  void Release();

  Device* device_ = nullptr;
  std::shared_ptr<MemoryAccount> account_;
  std::unique_ptr<uint8_t[]> data_;
  int64_t size_ = 0;
};

class Device {
 public:
  // `memory_limit_bytes` 0: unlimited (bounded only by the host's memory).
  Device(int id, int64_t memory_limit_bytes);
  // Finishes the queued tasks, then stops the worker.
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  int id() const { return id_; }

  // `bytes` of this device's memory, uninitialized (zeroed with `zero`). Errors:
  // InvalidArgument for a negative size; ResourceExhausted past the device's memory limit
  // or when the host has no memory left (the message names the device and the sizes).
  absl::StatusOr<DeviceBuffer> Allocate(int64_t bytes, bool zero = false);

  int64_t bytes_in_use() const { return account_->in_use.load(); }
  int64_t peak_bytes() const { return account_->peak.load(); }
  int64_t memory_limit_bytes() const { return limit_; }
  // Starts a new peak measurement from the bytes in use now.
  void ResetPeak() { account_->peak.store(account_->in_use.load()); }

  // Queues `task` on this device's worker thread (tasks run one at a time, in order).
  void Enqueue(std::function<void()> task);
  // The device whose worker runs the calling thread, or nullptr.
  static Device* Current();

 private:
  void WorkerLoop();

  const int id_;
  const int64_t limit_;
  std::shared_ptr<MemoryAccount> account_ = std::make_shared<MemoryAccount>();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_DEVICE_H_
