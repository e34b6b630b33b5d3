// A typed array in its dtype's own encoding: what the executor computes on.
//
//   exec::Value v = *exec::Value::Zeros(ir::ShapedArray({2, 3}, DType::kF32));
//   float* p = v.data<float>();            // 6 floats, row-major
//   exec::Value w = *exec::FromHostArray(host);   // from the interpreter's doubles
//
// Elements are stored as the dtype stores them: f32 as float, f64 as double, the integer types
// in their own width (i64 and u64 exactly, past 2^53 too), bool as one byte 0/1, f16 and bf16 as
// their 16 bits. Storage is 64-byte aligned and row-major. A Value shares its storage when
// copied; kernels write only into values they allocated, so a shared value never changes.
#ifndef AXE_EXEC_VALUE_H_
#define AXE_EXEC_VALUE_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "axe/base/npy.h"
#include "axe/ir/host_array.h"
#include "axe/ir/shaped_array.h"

namespace axe::exec {

class Value {
 public:
  Value() = default;

  // A value of `aval` (its vma dropped) with zeroed storage. ResourceExhausted when the size
  // overflows; InvalidArgument for a dtype the executor cannot hold (ElementBytes).
  static absl::StatusOr<Value> Zeros(const ir::ShapedArray& aval);
  // Uninitialized storage (the caller writes every element).
  static absl::StatusOr<Value> Uninitialized(const ir::ShapedArray& aval);
  // A value over `data` (row-major, in the dtype's encoding), which the caller owns and keeps
  // alive and unchanged while this value or anything computed from it may read it: nothing
  // is copied, and no kernel ever writes it.
  static absl::StatusOr<Value> Borrow(const ir::ShapedArray& aval, const void* data);

  const ir::ShapedArray& aval() const { return aval_ != nullptr ? *aval_ : EmptyAval(); }
  int64_t num_elements() const { return num_elements_; }
  size_t num_bytes() const { return num_bytes_; }

  const std::byte* bytes() const { return data_; }
  std::byte* mutable_bytes() { return data_; }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(data_);
  }
  template <typename T>
  T* mutable_data() {
    return reinterpret_cast<T*>(data_);
  }

  // The same storage under another type of the same byte size (a reshape is a relabel).
  Value Relabeled(const ir::ShapedArray& aval) const;
  // Whether this value is the only holder of its whole storage (nothing else can see a write).
  bool sole_owner() const {
    return !borrowed_ && storage_.use_count() == 1 && data_ == storage_.get();
  }
  // Whether the storage is the caller's (Borrow).
  bool borrowed() const { return borrowed_; }
  // The elements of `aval` starting `byte_offset` bytes in, sharing this value's storage (a
  // row of a stacked value). The caller keeps the view within this value's bytes.
  Value View(const ir::ShapedArray& aval, size_t byte_offset) const;
  // The same view under a type the caller made once (its vma dropped): nothing is allocated,
  // so a loop can step through rows cheaply.
  Value View(std::shared_ptr<const ir::ShapedArray> aval, size_t byte_offset) const;

 private:
  // A value of `aval` with its sizes and no storage yet (ResourceExhausted when too large).
  static absl::StatusOr<Value> Described(const ir::ShapedArray& aval);
  static absl::StatusOr<Value> Allocate(const ir::ShapedArray& aval, bool zero);

  static const ir::ShapedArray& EmptyAval();

  std::shared_ptr<const ir::ShapedArray> aval_;  // shared: copying a value allocates nothing
  int64_t num_elements_ = 0;
  size_t num_bytes_ = 0;
  std::shared_ptr<std::byte> storage_;
  std::byte* data_ = nullptr;
  bool borrowed_ = false;
};

// Bytes of one element of `dtype` as the executor stores it; InvalidArgument (naming the
// dtype) for types it cannot hold yet: complex, the f8 family, sub-byte integers and tokens.
absl::StatusOr<size_t> ElementBytes(DType dtype);

// The interpreter's doubles as a typed value (integers through their 64-bit bits, floats
// rounded to the dtype), and back (64-bit integers past 2^53 become the nearest double).
absl::StatusOr<Value> FromHostArray(const ir::HostArray& array);
ir::HostArray ToHostArray(const Value& value);

// A .npy array (axe/base/npy.h) as a typed value (its bytes copied), and a value as a .npy
// file's bytes.
absl::StatusOr<Value> FromNpy(const NpyArray& array);
absl::StatusOr<std::string> ToNpy(const Value& value);

}  // namespace axe::exec

#endif  // AXE_EXEC_VALUE_H_
