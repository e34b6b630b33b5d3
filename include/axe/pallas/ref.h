// Ref<T>: what a kernel receives for one operand in one program — a non-owning strided view
// of its block (Squeezed block dimensions removed). Inputs arrive as Ref<const T>, outputs
// as Ref<T>. A Ref is valid only during the kernel call that received it.
//
//   void Kernel(Ref<const float> x, Ref<float> o) {   // blocks of shape (8, 128)
//     for (int64_t i = 0; i < o.shape(0); ++i)
//       for (int64_t j = 0; j < o.shape(1); ++j) o(i, j) = 2 * x(i, j);
//   }
//
// operator() and at() check their indices (a bad index aborts with a message). For fast
// loops use the raw view: data(), shape(d) and stride(d) (in elements, possibly not
// contiguous when the block is a window of a larger array).
#ifndef AXE_PALLAS_REF_H_
#define AXE_PALLAS_REF_H_

#include <cstdint>
#include <type_traits>

#include "absl/types/span.h"
#include "axe/base/check.h"

namespace axe::pallas {

// The largest rank of an array, block or grid axe::pallas accepts.
inline constexpr int kMaxRank = 32;

namespace internal {
// Calls fn(offset) for the element offset of every index of (rank, shape, strides), in
// row-major order.
template <typename Fn>
void ForEachOffset(int rank, const int64_t* shape, const int64_t* strides, Fn&& fn) {
  for (int d = 0; d < rank; ++d) {
    if (shape[d] == 0) return;
  }
  if (rank == 0) {
    fn(int64_t{0});
    return;
  }
  AXE_CHECK(rank <= kMaxRank) << "rank " << rank << " exceeds " << kMaxRank;
  int64_t idx[kMaxRank] = {};
  int64_t offset = 0;
  const int last = rank - 1;
  while (true) {
    for (int64_t i = 0, o = offset; i < shape[last]; ++i, o += strides[last]) fn(o);
    int d = last - 1;
    while (d >= 0) {
      offset += strides[d];
      if (++idx[d] < shape[d]) break;
      offset -= strides[d] * shape[d];
      idx[d] = 0;
      --d;
    }
    if (d < 0) return;
  }
}
}  // namespace internal

template <typename T>
class Ref {
 public:
  // A view of `data` with `rank` dims; `shape` and `strides` (in elements) must outlive it.
  Ref(T* data, int rank, const int64_t* shape, const int64_t* strides)
      : data_(data), rank_(rank), shape_(shape), strides_(strides) {}
  // Ref<T> converts to Ref<const T>.
  template <typename U,
            typename = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  Ref(const Ref<U>& other)  // NOLINT(google-explicit-constructor)
      : Ref(other.data(), other.rank(), other.shape().data(), other.strides().data()) {}

  int rank() const { return rank_; }
  absl::Span<const int64_t> shape() const { return {shape_, static_cast<size_t>(rank_)}; }
  int64_t shape(int d) const {
    AXE_CHECK(d >= 0 && d < rank_) << "Ref::shape(" << d << ") on a rank-" << rank_ << " ref";
    return shape_[d];
  }
  absl::Span<const int64_t> strides() const { return {strides_, static_cast<size_t>(rank_)}; }
  int64_t stride(int d) const {
    AXE_CHECK(d >= 0 && d < rank_) << "Ref::stride(" << d << ") on a rank-" << rank_ << " ref";
    return strides_[d];
  }
  int64_t size() const {
    int64_t n = 1;
    for (int d = 0; d < rank_; ++d) n *= shape_[d];
    return n;
  }
  // True when the elements are dense and row-major (stride(d) = product of later dims).
  bool contiguous() const {
    int64_t expect = 1;
    for (int d = rank_ - 1; d >= 0; --d) {
      if (shape_[d] != 1 && strides_[d] != expect) return false;
      expect *= shape_[d];
    }
    return true;
  }
  T* data() const { return data_; }

  // The element at (i0, i1, ...): one index per dimension, each in [0, shape(d)).
  template <typename... I>
  T& operator()(I... idx) const {
    static_assert((std::is_integral_v<I> && ...), "Ref indices must be integers");
    const int64_t list[] = {static_cast<int64_t>(idx)..., 0};
    return at(absl::Span<const int64_t>(list, sizeof...(I)));
  }
  T& at(absl::Span<const int64_t> idx) const {
    AXE_CHECK(static_cast<int>(idx.size()) == rank_)
        << "a rank-" << rank_ << " ref indexed with " << idx.size() << " indices";
    int64_t offset = 0;
    for (int d = 0; d < rank_; ++d) {
      AXE_CHECK(idx[d] >= 0 && idx[d] < shape_[d])
          << "index " << idx[d] << " out of range [0, " << shape_[d] << ") in dimension " << d;
      offset += idx[d] * strides_[d];
    }
    return data_[offset];
  }

  // Sets every element to v (outputs only).
  template <typename U = T, typename = std::enable_if_t<!std::is_const_v<U>>>
  void Fill(const U& v) const {
    internal::ForEachOffset(rank_, shape_, strides_, [&](int64_t o) { data_[o] = v; });
  }

 private:
  T* data_;
  int rank_;
  const int64_t* shape_;
  const int64_t* strides_;
};

}  // namespace axe::pallas

#endif  // AXE_PALLAS_REF_H_
