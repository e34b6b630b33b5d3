// How a memory buffer stores a tensor: an Axe layout on one memory axis, over a logical
// domain that may be larger than the tensor (padding).
//
// The layout maps the domain's points (flattened row-major, prod(domain) == layout.size())
// to element offsets from the buffer's base pointer. The tensor's real elements are the box
// [0, shape) at the domain's origin; the other domain points are padding. With no domain
// the domain is the tensor's shape itself (a zero extent counting as 1, so that an empty
// tensor still has a layout).
//
//   // bf16[4095, 4095] stored row-major in tiles of 8x128, padded to 4096 x 4096:
//   BufferLayout tiled{*Layout::Parse("S[(512,4,2,32,128):(32768,256,1,1024,2)]"), {4096, 4096}};
#ifndef AXE_RELAYOUT_BUFFER_LAYOUT_H_
#define AXE_RELAYOUT_BUFFER_LAYOUT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/layout/layout.h"

namespace axe::relayout {

struct BufferLayout {
  // Implicit: a plain layout is a buffer layout whose domain is the tensor's shape.
  BufferLayout(Layout l) : layout(std::move(l)) {}  // NOLINT(google-explicit-constructor)
  BufferLayout(Layout l, std::vector<int64_t> d) : layout(std::move(l)), domain(std::move(d)) {}

  Layout layout;
  std::vector<int64_t> domain;  // empty: the tensor's shape

  // The domain for a tensor of `shape`: `domain`, or `shape` with zero extents as 1.
  std::vector<int64_t> DomainFor(absl::Span<const int64_t> shape) const;

  // Parses the text form: an Axe layout, optionally followed by `over` and the domain,
  // e.g. "S[(512,4,2,32,128):(32768,256,1,1024,2)] over (4096, 4096)". Errors give the
  // position (of the layout text, or of the domain).
  static absl::StatusOr<BufferLayout> Parse(absl::string_view text);

  // The text form: "S[...]" or "S[...] over (4096, 4096)"; Parse reads it back.
  std::string ToString() const;

  friend bool operator==(const BufferLayout&, const BufferLayout&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const BufferLayout& b) {
    return H::combine(std::move(h), b.layout, b.domain);
  }
};

// OK iff `buffer` can hold a tensor of `shape`: the domain has the shape's rank, every
// domain extent is >= the shape's (and >= 1), and prod(domain) == layout.size(). Errors
// name the side ("source"/"destination" via `what`), the dimension and print the layout.
absl::Status CheckBufferLayout(const BufferLayout& buffer, absl::Span<const int64_t> shape,
                               absl::string_view what);

}  // namespace axe::relayout

#endif  // AXE_RELAYOUT_BUFFER_LAYOUT_H_
