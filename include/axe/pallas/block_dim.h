// One dimension of a BlockSpec's block shape. The kind says what the index map's value v
// means for that dimension:
//
//   kind           size  v is            window start            kept in the kernel's ref?
//   Blocked(n)     n     a block index   n * v                   yes
//   Element(n, (lo, hi))
//                  n     an element index into the array padded with lo in front and hi
//                        behind          v (padded coordinates)  yes
//   Squeezed()     1     an element index v                      no (the dim is removed)
//   BoundedSlice(n), Indirect(n): accepted by the model, rejected by the interpreter and the
//                  backends that do not support them.
//
// A plain integer is Blocked(n) and std::nullopt (Python's None) is Squeezed(), so a block
// shape can be written {8, 128} or {std::nullopt, 256}.
//
//   Element(3, {2, 0}).ToString();   // "Element(3, padding=(2, 0))"
//   Element(3, {2, 0}).Repr();       // "Element(block_size=3, padding=(2, 0))"
//   *BlockDim::Parse("Element(3,(2,0))") == Element(3, {2, 0});
#ifndef AXE_PALLAS_BLOCK_DIM_H_
#define AXE_PALLAS_BLOCK_DIM_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace axe::pallas {

class BlockDim {
 public:
  enum class Kind : uint8_t { kBlocked, kElement, kSqueezed, kBoundedSlice, kIndirect };

  // A plain integer: Blocked(size).
  BlockDim(int64_t size)
      : kind_(Kind::kBlocked), size_(size) {}  // NOLINT(google-explicit-constructor)
  // None: Squeezed().
  BlockDim(std::nullopt_t)
      : kind_(Kind::kSqueezed), size_(1) {}  // NOLINT(google-explicit-constructor)

  static BlockDim Blocked(int64_t size) { return BlockDim(Kind::kBlocked, size); }
  static BlockDim Element(int64_t size, std::pair<int64_t, int64_t> padding = {0, 0}) {
    BlockDim d(Kind::kElement, size);
    d.lo_ = padding.first;
    d.hi_ = padding.second;
    return d;
  }
  static BlockDim Squeezed() { return BlockDim(Kind::kSqueezed, 1); }
  static BlockDim BoundedSlice(int64_t size) { return BlockDim(Kind::kBoundedSlice, size); }
  static BlockDim Indirect(int64_t size) { return BlockDim(Kind::kIndirect, size); }

  // Parses an entry as users write it: "4", "Blocked(4)", "Element(4)", "Element(4,(1,0))",
  // "Element(4, padding=(1, 0))", "None", "Squeezed()", "BoundedSlice(4)", "Indirect(4)",
  // also with "block_size=" and a "pl." prefix. Errors name the position.
  static absl::StatusOr<BlockDim> Parse(absl::string_view text);

  Kind kind() const { return kind_; }
  // The window size along this dimension (1 for Squeezed).
  int64_t size() const { return size_; }
  int64_t padding_lo() const { return lo_; }
  int64_t padding_hi() const { return hi_; }
  bool squeezed() const { return kind_ == Kind::kSqueezed; }

  // Sizes >= 0 and paddings >= 0.
  absl::Status Validate() const;

  // Python's str(): "Blocked(4)", "Element(4)", "Element(4, padding=(1, 0))", "Squeezed()".
  std::string ToString() const;
  // The dataclass repr used inside tuples in error messages: "Blocked(block_size=4)",
  // "Element(block_size=4, padding=(0, 0))", "Squeezed()".
  std::string Repr() const;

  friend bool operator==(const BlockDim&, const BlockDim&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const BlockDim& d) {
    return H::combine(std::move(h), d.kind_, d.size_, d.lo_, d.hi_);
  }
  friend std::ostream& operator<<(std::ostream& os, const BlockDim& d) {
    return os << d.ToString();
  }

 private:
  BlockDim(Kind kind, int64_t size) : kind_(kind), size_(size) {}
  friend class BlockDimParser;

  Kind kind_;
  int64_t size_;
  int64_t lo_ = 0;
  int64_t hi_ = 0;
};

inline BlockDim Blocked(int64_t size) { return BlockDim::Blocked(size); }
inline BlockDim Element(int64_t size, std::pair<int64_t, int64_t> padding = {0, 0}) {
  return BlockDim::Element(size, padding);
}
inline BlockDim Squeezed() { return BlockDim::Squeezed(); }
inline BlockDim BoundedSlice(int64_t size) { return BlockDim::BoundedSlice(size); }
inline BlockDim Indirect(int64_t size) { return BlockDim::Indirect(size); }

// The block shape as a Python tuple of reprs, as error messages show it:
// "(Blocked(block_size=2), Squeezed())", "(Blocked(block_size=4),)".
std::string FormatBlockShape(absl::Span<const BlockDim> dims);
// The canonical text: a tuple of str() forms, "(Blocked(2), Element(3, padding=(2, 0)),
// Squeezed())". ParseBlockShape reads it back.
std::string BlockShapeToString(absl::Span<const BlockDim> dims);
// A comma-separated list of BlockDim entries, optionally in parentheses: "2,3",
// "(None, 2)", "Element(3,(2,0)),4", "()" (rank 0).
absl::StatusOr<std::vector<BlockDim>> ParseBlockShape(absl::string_view text);

}  // namespace axe::pallas

#endif  // AXE_PALLAS_BLOCK_DIM_H_
