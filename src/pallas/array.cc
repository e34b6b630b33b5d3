#include "axe/pallas/array.h"

#include <cmath>
#include <cstring>
#include <new>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/pallas/numpy_format.h"

namespace axe::pallas {
namespace {

constexpr std::align_val_t kAlignment{64};

}  // namespace

absl::Status ValidateShape(absl::Span<const int64_t> shape, absl::string_view what) {
  if (shape.size() > static_cast<size_t>(kMaxRank)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " has rank ", shape.size(), "; at most ",
                                                   kMaxRank, " dimensions are supported"));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(what, " ", FormatTuple(shape, true),
                                                     " has a negative size ", shape[d],
                                                     " in dimension ", d));
    }
  }
  if (!CheckedProduct(shape).has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", FormatTuple(shape, true), " has more elements than fit in int64"));
  }
  return absl::OkStatus();
}

absl::Status CheckStridesFit(DType dtype, absl::Span<const int64_t> shape) {
  std::optional<int64_t> span_bytes = ByteWidth(dtype);
  for (int64_t n : shape) {
    if (n != 0 && span_bytes) span_bytes = CheckedMul(*span_bytes, n);
  }
  if (span_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat("an array of ", NumpyName(dtype), FormatTuple(shape, true),
                   " is too large to allocate: its nonzero dimensions times the element size "
                   "pass 2^63 bytes (NumPy: array is too big)"));
}

std::string ShapeDType::ToString() const {
  return absl::StrCat(NumpyName(dtype), "[", absl::StrJoin(shape, ","), "]");
}

absl::StatusOr<ShapeDType> ShapeDType::Parse(absl::string_view text) {
  Scanner s(text);
  std::optional<absl::string_view> name = s.TryIdent();
  if (!name.has_value()) return s.Error("a dtype name");
  absl::StatusOr<DType> dtype = ParseDType(*name);
  if (!dtype.ok()) return s.MessageAt(s.pos() - name->size(), dtype.status().message());
  AXE_RETURN_IF_ERROR(s.Expect('['));
  ShapeDType r{*dtype, {}};
  if (!s.TryConsume(']')) {
    do {
      AXE_ASSIGN_OR_RETURN(int64_t d, s.ReadNonNegativeInt());
      r.shape.push_back(d);
    } while (s.TryConsume(','));
    AXE_RETURN_IF_ERROR(s.Expect(']'));
  }
  if (!s.AtEnd()) return s.Error("end of input");
  AXE_RETURN_IF_ERROR(ValidateShape(r.shape, "shape"));
  return r;
}

void AnyArray::Free::operator()(std::byte* p) const { ::operator delete[](p, kAlignment); }

AnyArray::AnyArray() = default;

absl::StatusOr<AnyArray> AnyArray::Allocate(DType dtype, absl::Span<const int64_t> shape) {
  if (!IsStorable(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "arrays of ", NumpyName(dtype), " are not supported (it is known only by its bit width)"));
  }
  AXE_RETURN_IF_ERROR(ValidateShape(shape, "array shape"));
  AXE_RETURN_IF_ERROR(CheckStridesFit(dtype, shape));
  AnyArray a;
  a.dtype_ = dtype;
  a.shape_.assign(shape.begin(), shape.end());
  a.strides_.assign(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
    a.strides_[static_cast<size_t>(d)] = a.strides_[static_cast<size_t>(d) + 1] *
                                         std::max<int64_t>(shape[static_cast<size_t>(d) + 1], 1);
  }
  a.size_ = *CheckedProduct(shape);
  a.element_size_ = static_cast<size_t>(ByteWidth(dtype));
  std::optional<int64_t> bytes = CheckedMul(a.size_, static_cast<int64_t>(a.element_size_));
  if (!bytes.has_value() || *bytes > (int64_t{1} << 46)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "an array of ", NumpyName(dtype), FormatTuple(shape, true), " is too large to allocate"));
  }
  if (*bytes > 0) {
    std::byte* p = static_cast<std::byte*>(
        ::operator new[](static_cast<size_t>(*bytes), kAlignment, std::nothrow));
    if (p == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", *bytes,
                                                       " bytes for an array of ", NumpyName(dtype),
                                                       FormatTuple(shape, true)));
    }
    a.data_.reset(p);
  }
  return a;
}

absl::StatusOr<AnyArray> AnyArray::Zeros(DType dtype, absl::Span<const int64_t> shape) {
  AXE_ASSIGN_OR_RETURN(AnyArray a, Allocate(dtype, shape));
  if (a.size_ > 0) std::memset(a.data_.get(), 0, static_cast<size_t>(a.size_) * a.element_size_);
  return a;
}

absl::StatusOr<AnyArray> AnyArray::Uninitialized(DType dtype, absl::Span<const int64_t> shape) {
  AXE_ASSIGN_OR_RETURN(AnyArray a, Allocate(dtype, shape));
  VisitDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::fill_n(static_cast<T*>(a.data()), a.size_, UninitializedValue<T>());
  });
  return a;
}

AnyArray::AnyArray(const AnyArray& other)
    : dtype_(other.dtype_),
      shape_(other.shape_),
      strides_(other.strides_),
      size_(other.size_),
      element_size_(other.element_size_) {
  size_t bytes = static_cast<size_t>(size_) * element_size_;
  if (bytes > 0) {
    data_.reset(static_cast<std::byte*>(::operator new[](bytes, kAlignment)));
    std::memcpy(data_.get(), other.data_.get(), bytes);
  }
}

AnyArray::AnyArray(AnyArray&& other) noexcept { *this = std::move(other); }

AnyArray& AnyArray::operator=(AnyArray&& other) noexcept {
  if (this != &other) {
    dtype_ = other.dtype_;
    shape_ = std::move(other.shape_);
    strides_ = std::move(other.strides_);
    size_ = other.size_;
    element_size_ = other.element_size_;
    data_ = std::move(other.data_);
    other.dtype_ = DType::kS32;
    other.shape_ = {0};
    other.strides_ = {1};
    other.size_ = 0;
    other.element_size_ = 4;
  }
  return *this;
}

AnyArray& AnyArray::operator=(const AnyArray& other) {
  if (this != &other) *this = AnyArray(other);
  return *this;
}

bool operator==(const AnyArray& a, const AnyArray& b) {
  if (a.dtype_ != b.dtype_ || a.shape_ != b.shape_) return false;
  return VisitDType(a.dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = a.data_as<T>();
    const T* y = b.data_as<T>();
    for (int64_t i = 0; i < a.size_; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(x[i]) && std::isnan(y[i])) continue;
      }
      if (x[i] != y[i]) return false;
    }
    return true;
  });
}

std::ostream& operator<<(std::ostream& os, const AnyArray& a) { return os << FormatNumpy(a); }

}  // namespace axe::pallas
