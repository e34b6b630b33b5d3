// Owning N-d arrays for Pallas operands: AnyArray (element type chosen at run time) and its
// typed face Array<T>. Elements are dense and row-major (last dimension fastest); copies are
// deep. == compares dtype, shape and elements, with NaN equal to NaN (so interpret-mode
// results, which contain NaN for unwritten floats, can be compared).
//
//   absl::StatusOr<Array<float>> x = Array<float>::FromValues({2, 3}, {0, 1, 2, 3, 4, 5});
//   (*x)(1, 2);                                       // 5
//   Array<int32_t> o = *Array<int32_t>::Uninitialized({4});   // [MIN MIN MIN MIN]
//
// ShapeDType describes an operand without data ("int32[8,6]", JAX's ShapeDtypeStruct);
// OutShape<T> is its typed form for PallasCall's out_shape.
#ifndef AXE_PALLAS_ARRAY_H_
#define AXE_PALLAS_ARRAY_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/base/check.h"
#include "axe/pallas/dtype.h"
#include "axe/pallas/ref.h"

namespace axe::pallas {

using Shape = absl::InlinedVector<int64_t, 6>;

// Checks a shape: rank <= kMaxRank, dims >= 0, element count fits int64. `what` names the
// shape in the error ("out_shape[0]").
absl::Status ValidateShape(absl::Span<const int64_t> shape, absl::string_view what);

// NumPy's rule for an array of `dtype` and `shape`: its nonzero dimensions times the element
// size fit int64, even when the array is empty, so that every byte stride does.
// ResourceExhausted otherwise ("array is too big" in NumPy). Needs a valid shape.
absl::Status CheckStridesFit(DType dtype, absl::Span<const int64_t> shape);

// An operand's dtype and shape without data. Text form "int32[8,6]" (a scalar: "int32[]").
struct ShapeDType {
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;

  std::string ToString() const;
  static absl::StatusOr<ShapeDType> Parse(absl::string_view text);
  friend bool operator==(const ShapeDType&, const ShapeDType&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const ShapeDType& s) {
    return H::combine(std::move(h), s.dtype, s.shape);
  }
  friend std::ostream& operator<<(std::ostream& os, const ShapeDType& s) {
    return os << s.ToString();
  }
};

// The typed out_shape of PallasCall (JAX: jax.ShapeDtypeStruct(shape, dtype)).
template <typename T>
struct OutShape {
  std::vector<int64_t> shape;
  ShapeDType shape_dtype() const { return {DTypeOf<T>, shape}; }
};

class AnyArray {
 public:
  // An empty int32 array of shape (0,).
  AnyArray();
  // Zero-filled (false, 0, +0.0). Errors: invalid shape, non-storable dtype (bfloat16,
  // float16), or an allocation that fails (ResourceExhausted).
  static absl::StatusOr<AnyArray> Zeros(DType dtype, absl::Span<const int64_t> shape);
  // Filled with UninitializedValue (NaN, the integer minimum, false).
  static absl::StatusOr<AnyArray> Uninitialized(DType dtype, absl::Span<const int64_t> shape);

  AnyArray(const AnyArray& other);
  AnyArray& operator=(const AnyArray& other);
  // A moved-from array is the empty array.
  AnyArray(AnyArray&& other) noexcept;
  AnyArray& operator=(AnyArray&& other) noexcept;
  ~AnyArray() = default;

  DType dtype() const { return dtype_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  absl::Span<const int64_t> shape() const { return shape_; }
  // Row-major strides in elements.
  absl::Span<const int64_t> strides() const { return strides_; }
  int64_t size() const { return size_; }
  size_t element_size() const { return element_size_; }
  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }
  ShapeDType shape_dtype() const { return {dtype_, {shape_.begin(), shape_.end()}}; }

  // Typed access; requires DTypeOf<T> == dtype() (checked).
  template <typename T>
  T* data_as() {
    AXE_CHECK(DTypeOf<T> == dtype_)
        << "AnyArray of " << NumpyName(dtype_) << " read as " << NumpyName(DTypeOf<T>);
    return static_cast<T*>(data());
  }
  template <typename T>
  const T* data_as() const {
    AXE_CHECK(DTypeOf<T> == dtype_)
        << "AnyArray of " << NumpyName(dtype_) << " read as " << NumpyName(DTypeOf<T>);
    return static_cast<const T*>(data());
  }

  friend bool operator==(const AnyArray& a, const AnyArray& b);
  // Prints the NumPy print() form (numpy_format.h).
  friend std::ostream& operator<<(std::ostream& os, const AnyArray& a);

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  static absl::StatusOr<AnyArray> Allocate(DType dtype, absl::Span<const int64_t> shape);

  DType dtype_ = DType::kS32;
  Shape shape_ = {0};
  Shape strides_ = {1};
  int64_t size_ = 0;
  size_t element_size_ = 4;
  std::unique_ptr<std::byte[], Free> data_;
};

template <typename T>
class Array {
 public:
  // An empty array of shape (0,).
  Array() : any_(*AnyArray::Zeros(DTypeOf<T>, {0})) {}

  static absl::StatusOr<Array> Zeros(absl::Span<const int64_t> shape) {
    absl::StatusOr<AnyArray> a = AnyArray::Zeros(DTypeOf<T>, shape);
    if (!a.ok()) return a.status();
    return Array(*std::move(a));
  }
  static absl::StatusOr<Array> Uninitialized(absl::Span<const int64_t> shape) {
    absl::StatusOr<AnyArray> a = AnyArray::Uninitialized(DTypeOf<T>, shape);
    if (!a.ok()) return a.status();
    return Array(*std::move(a));
  }
  static absl::StatusOr<Array> Full(absl::Span<const int64_t> shape, T value) {
    absl::StatusOr<Array> a = Zeros(shape);
    if (a.ok()) std::fill(a->data(), a->data() + a->size(), value);
    return a;
  }
  // `values` in row-major order; their count must be the shape's element count.
  static absl::StatusOr<Array> FromValues(absl::Span<const int64_t> shape,
                                          absl::Span<const T> values) {
    absl::StatusOr<Array> a = Zeros(shape);
    if (!a.ok()) return a;
    if (static_cast<int64_t>(values.size()) != a->size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FromValues: ", values.size(), " values for a shape with ", a->size(), " elements"));
    }
    std::copy(values.begin(), values.end(), a->data());
    return a;
  }
  static absl::StatusOr<Array> FromValues(absl::Span<const int64_t> shape,
                                          std::initializer_list<T> values) {
    return FromValues(shape, absl::Span<const T>(values.begin(), values.size()));
  }
  // 0, 1, 2, ... in row-major order.
  static absl::StatusOr<Array> Iota(absl::Span<const int64_t> shape) {
    absl::StatusOr<Array> a = Zeros(shape);
    if (a.ok()) {
      for (int64_t i = 0; i < a->size(); ++i) a->data()[i] = static_cast<T>(i);
    }
    return a;
  }
  // Takes an AnyArray of dtype DTypeOf<T>.
  static absl::StatusOr<Array> FromAny(AnyArray a) {
    if (a.dtype() != DTypeOf<T>) {
      return absl::InvalidArgumentError(absl::StrCat("expected an array of ", NumpyName(DTypeOf<T>),
                                                     ", got ", NumpyName(a.dtype())));
    }
    return Array(std::move(a));
  }

  int rank() const { return any_.rank(); }
  absl::Span<const int64_t> shape() const { return any_.shape(); }
  absl::Span<const int64_t> strides() const { return any_.strides(); }
  int64_t size() const { return any_.size(); }
  T* data() { return static_cast<T*>(any_.data()); }
  const T* data() const { return static_cast<const T*>(any_.data()); }
  std::vector<T> values() const { return std::vector<T>(data(), data() + size()); }

  template <typename... I>
  T& operator()(I... idx) {
    return ref()(idx...);
  }
  template <typename... I>
  const T& operator()(I... idx) const {
    return ref()(idx...);
  }

  // A view of the whole array (valid while the array is alive and not moved).
  Ref<T> ref() { return Ref<T>(data(), rank(), shape().data(), strides().data()); }
  Ref<const T> ref() const {
    return Ref<const T>(data(), rank(), shape().data(), strides().data());
  }

  const AnyArray& any() const& { return any_; }
  AnyArray any() && { return std::move(any_); }

  friend bool operator==(const Array& a, const Array& b) { return a.any_ == b.any_; }
  friend std::ostream& operator<<(std::ostream& os, const Array& a) { return os << a.any_; }

 private:
  explicit Array(AnyArray a) : any_(std::move(a)) {}
  AnyArray any_;
};

}  // namespace axe::pallas

#endif  // AXE_PALLAS_ARRAY_H_
