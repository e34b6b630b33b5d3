#include "axe/exec/value.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/exec/testing/storage_count.h"
#include "axe/ir/eval.h"
#include "exec/dtype_switch.h"

namespace axe::exec {
namespace {

constexpr size_t kAlignment = 64;
constexpr int64_t kMaxValueBytes = int64_t{1} << 46;

// exec::testing's counts of allocated storage.
std::atomic<int64_t> storage_in_use{0};
std::atomic<int64_t> storage_peak{0};

void CountAllocation(int64_t bytes) {
  const int64_t now = storage_in_use.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = storage_peak.load(std::memory_order_relaxed);
  while (now > peak && !storage_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

struct FreeDeleter {
  int64_t bytes = 0;
  void operator()(std::byte* p) const {
    storage_in_use.fetch_sub(bytes, std::memory_order_relaxed);
    std::free(p);
  }
};

}  // namespace

namespace testing {

int64_t StorageBytesInUse() { return storage_in_use.load(std::memory_order_relaxed); }
int64_t PeakStorageBytes() { return storage_peak.load(std::memory_order_relaxed); }
void ResetPeakStorageBytes() { storage_peak.store(StorageBytesInUse(), std::memory_order_relaxed); }

}  // namespace testing

const ir::ShapedArray& Value::EmptyAval() {
  static const auto* empty = new ir::ShapedArray();
  return *empty;
}

absl::StatusOr<size_t> ElementBytes(DType dtype) {
  switch (dtype) {
    case DType::kPred:
    case DType::kS8:
    case DType::kU8: return 1;
    case DType::kS16:
    case DType::kU16:
    case DType::kF16:
    case DType::kBF16: return 2;
    case DType::kS32:
    case DType::kU32:
    case DType::kF32: return 4;
    case DType::kS64:
    case DType::kU64:
    case DType::kF64:
    case DType::kKeyFry: return 8;
    default: break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("the executor cannot hold values of type ", JaxprName(dtype)));
}

absl::StatusOr<Value> Value::Described(const ir::ShapedArray& aval) {
  AXE_ASSIGN_OR_RETURN(size_t element, ElementBytes(aval.dtype()));
  std::optional<int64_t> n = aval.NumElements();
  std::optional<int64_t> bytes =
      n ? CheckedMul(*n, static_cast<int64_t>(element)) : std::optional<int64_t>();
  if (!bytes || *bytes > kMaxValueBytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("a value of type ", aval.ShortString(), " is too large"));
  }
  Value v;
  v.aval_ = std::make_shared<const ir::ShapedArray>(aval.WithVma({}));
  v.num_elements_ = *n;
  v.num_bytes_ = static_cast<size_t>(*bytes);
  return v;
}

absl::StatusOr<Value> Value::Allocate(const ir::ShapedArray& aval, bool zero) {
  AXE_ASSIGN_OR_RETURN(Value v, Described(aval));
  size_t rounded = (std::max<size_t>(v.num_bytes_, 1) + kAlignment - 1) / kAlignment * kAlignment;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kAlignment, rounded));
  if (p == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("out of memory allocating ", v.num_bytes_, " bytes for ", aval.ShortString()));
  }
  if (zero) std::memset(p, 0, rounded);
  CountAllocation(static_cast<int64_t>(v.num_bytes_));
  v.storage_ = std::shared_ptr<std::byte>(p, FreeDeleter{static_cast<int64_t>(v.num_bytes_)});
  v.data_ = p;
  return v;
}

absl::StatusOr<Value> Value::Borrow(const ir::ShapedArray& aval, const void* data) {
  AXE_ASSIGN_OR_RETURN(Value v, Described(aval));
  v.data_ = const_cast<std::byte*>(static_cast<const std::byte*>(data));
  v.borrowed_ = true;
  return v;
}

absl::StatusOr<Value> Value::Zeros(const ir::ShapedArray& aval) { return Allocate(aval, true); }

absl::StatusOr<Value> Value::Uninitialized(const ir::ShapedArray& aval) {
  return Allocate(aval, false);
}

Value Value::Relabeled(const ir::ShapedArray& aval) const {
  Value v = *this;
  v.aval_ = std::make_shared<const ir::ShapedArray>(aval.WithVma({}));
  v.num_elements_ = aval.NumElements().value_or(0);
  AXE_CHECK(static_cast<size_t>(v.num_elements_) * ElementBytes(aval.dtype()).value_or(0) ==
            num_bytes_)
      << "relabeling " << aval_->ShortString() << " as " << aval.ShortString();
  return v;
}

Value Value::View(const ir::ShapedArray& aval, size_t byte_offset) const {
  return View(std::make_shared<const ir::ShapedArray>(aval.WithVma({})), byte_offset);
}

Value Value::View(std::shared_ptr<const ir::ShapedArray> aval, size_t byte_offset) const {
  Value v = *this;
  v.num_elements_ = aval->NumElements().value_or(0);
  v.num_bytes_ = static_cast<size_t>(v.num_elements_) * ElementBytes(aval->dtype()).value_or(0);
  v.aval_ = std::move(aval);
  AXE_CHECK(byte_offset + v.num_bytes_ <= num_bytes_) << "a view past the end of its value";
  v.data_ = data_ + byte_offset;
  return v;
}

absl::StatusOr<Value> FromHostArray(const ir::HostArray& array) {
  AXE_ASSIGN_OR_RETURN(Value v, Value::Uninitialized(array.aval));
  if (static_cast<int64_t>(array.values.size()) != v.num_elements()) {
    return absl::InvalidArgumentError(absl::StrCat("a value of type ", array.aval.ShortString(),
                                                   " holds ", array.values.size(), " elements"));
  }
  if (IsKeyType(v.aval().dtype())) {  // the interpreter holds a key's 8 bytes in a double
    std::memcpy(v.mutable_data<std::byte>(), array.values.data(), v.num_bytes());
    return v;
  }
  DispatchDType(v.aval().dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = v.mutable_data<T>();
    for (size_t i = 0; i < array.values.size(); ++i) {
      out[i] = FromDouble<T>(ir::RoundToDType(array.values[i], v.aval().dtype()));
    }
  });
  return v;
}

ir::HostArray ToHostArray(const Value& value) {
  ir::HostArray out{value.aval(), std::vector<double>(static_cast<size_t>(value.num_elements()))};
  if (IsKeyType(value.aval().dtype())) {
    std::memcpy(out.values.data(), value.data<std::byte>(), value.num_bytes());
    return out;
  }
  DispatchDType(value.aval().dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = value.data<T>();
    for (size_t i = 0; i < out.values.size(); ++i) out.values[i] = ToDouble(in[i]);
  });
  return out;
}

absl::StatusOr<Value> FromNpy(const NpyArray& array) {
  AXE_ASSIGN_OR_RETURN(Value v, Value::Uninitialized(ir::ShapedArray(array.shape, array.dtype)));
  if (v.num_bytes() != array.data.size()) {
    return absl::InvalidArgumentError(absl::StrCat("a .npy array of type ", v.aval().ShortString(),
                                                   " holds ", array.data.size(), " bytes"));
  }
  if (!array.data.empty()) std::memcpy(v.mutable_bytes(), array.data.data(), array.data.size());
  return v;
}

absl::StatusOr<std::string> ToNpy(const Value& value) {
  return WriteNpy(
      value.aval().dtype(), value.aval().shape(),
      absl::string_view(reinterpret_cast<const char*>(value.bytes()), value.num_bytes()));
}

}  // namespace axe::exec
