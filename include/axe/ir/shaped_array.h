// The abstract value of a jaxpr variable (spec ir-and-shard-map.md §2): a shape, an element
// type, JAX's weak-type flag and, inside a shard_map body, the variance set V (§4): the manual
// mesh axes along which the value may differ between instances.
//
//   ShapedArray a({2, 2}, DType::kF32);                 // f32[2,2]
//   a.ShortString();   // "f32[2,2]"                     (jaxpr binders; no weak marker)
//   a.Str();           // "float32[2,2]", "~float32[2,2]" when weak
//   a.Repr();          // "ShapedArray(float32[2,2])", "ShapedArray(float32[2,2], weak_type=True)"
//   a.WithVma({"x", "y"}).ShortString();                // "f32[2,2]{V:(x,y)}"
//
// The variance set is kept in the order given; the producers (the shard_map typing rules, the
// parser reading printed text) keep it in mesh-axis order, which is also the printed order.
// Values are immutable, compare with == (weak type and V included; the printed explicit
// sharding f32[8@x,2] not) and hash.
#ifndef AXE_IR_SHAPED_ARRAY_H_
#define AXE_IR_SHAPED_ARRAY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/base/dtype.h"

namespace axe::ir {

class ShapedArray {
 public:
  // Bounds on a value: rank and the variance set's size; the parser enforces them too.
  static constexpr size_t kMaxRank = 64;
  static constexpr size_t kMaxVmaAxes = 32;

  // f32[] (a float32 scalar).
  ShapedArray() = default;
  // Unchecked: the caller passes dims >= 0 and an array dtype. Create() validates.
  ShapedArray(std::vector<int64_t> shape, DType dtype, bool weak_type = false,
              std::vector<std::string> vma = {})
      : shape_(std::move(shape)), dtype_(dtype), weak_type_(weak_type), vma_(std::move(vma)) {}

  // InvalidArgument naming the offending dimension or axis: negative dimension, more than
  // kMaxRank dimensions, a non-array dtype, a variance axis that is not an identifier or is
  // repeated.
  static absl::StatusOr<ShapedArray> Create(std::vector<int64_t> shape, DType dtype,
                                            bool weak_type = false,
                                            std::vector<std::string> vma = {});
  // Reads the short form "f32[8,2]", "i32[]", "bool[3]{V:x}", "f32[2]{V:(x,y)}". Errors
  // name the 0-based character position.
  static absl::StatusOr<ShapedArray> ParseShort(absl::string_view text);

  const std::vector<int64_t>& shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  DType dtype() const { return dtype_; }
  bool weak_type() const { return weak_type_; }
  const std::vector<std::string>& vma() const { return vma_; }
  // JAX's explicit sharding of each dimension, as printed after its '@' ("x", "(x,y)"; ""
  // for none), or empty: what JAX prints under an explicit-axes mesh (f32[8@x,2]). A printing
  // annotation only (axe's values carry no sharding): types differing only in it are equal.
  const std::vector<std::string>& dim_shardings() const { return dim_shardings_; }
  bool IsVaryingOver(absl::string_view axis) const;
  // The number of elements; nullopt when the product overflows int64.
  std::optional<int64_t> NumElements() const;

  ShapedArray WithShape(std::vector<int64_t> shape) const;
  ShapedArray WithDType(DType dtype) const;
  ShapedArray WithWeakType(bool weak_type) const;
  ShapedArray WithVma(std::vector<std::string> vma) const;
  // The annotation dropped or replaced (one entry per dimension, or empty).
  ShapedArray WithDimShardings(std::vector<std::string> dim_shardings) const;

  // "f32[8]{V:x}": jaxpr short dtype name, dims joined by ',', the variance suffix.
  std::string ShortString() const;
  // "float32[8]{V:x}", prefixed '~' when weak (Python's str).
  std::string Str() const;
  // "ShapedArray(float32[8]{V:x})", with ", weak_type=True" when weak (Python's repr).
  std::string Repr() const;
  // The variance suffix alone: "", "{V:x}" or "{V:(x,y)}".
  std::string VmaSuffix() const;

  friend bool operator==(const ShapedArray& a, const ShapedArray& b) {
    return a.shape_ == b.shape_ && a.dtype_ == b.dtype_ && a.weak_type_ == b.weak_type_ &&
           a.vma_ == b.vma_;
  }
  template <typename H>
  friend H AbslHashValue(H h, const ShapedArray& a) {
    return H::combine(std::move(h), a.shape_, a.dtype_, a.weak_type_, a.vma_);
  }
  friend std::ostream& operator<<(std::ostream& os, const ShapedArray& a) {
    return os << a.ShortString();
  }

 private:
  std::vector<int64_t> shape_;
  DType dtype_ = DType::kF32;
  bool weak_type_ = false;
  std::vector<std::string> vma_;
  std::vector<std::string> dim_shardings_;
};

// True when the two have the same shape, dtype and variance set (weak types may differ): the
// comparison check_jaxpr uses between a binder and the type its equation produces.
bool TypesMatch(const ShapedArray& a, const ShapedArray& b);

}  // namespace axe::ir

#endif  // AXE_IR_SHAPED_ARRAY_H_
