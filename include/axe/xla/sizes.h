// The sizes of an XLA array, named so that nobody confuses them (docs/xla.md, "Sizes"):
//
//   ElementsIn            Π dims (1 for a scalar, 0 with a zero dim).
//   ByteSizeOf            ElementsIn × ByteWidth, or ceil(ElementsIn × E / 8) with E(n); IGNORES
//                         tiles, L, M and the memory space.
//   ArraySize             XLA's ShapeUtil::ArraySize, in bytes. Without tiles it is
//                         ByteSizeOf (XLA ignores L and split configs there). With tiles: the
//                         FIRST tile level's padding (sub-tiles assumed to add none) over
//                         split configs' largest pieces, rounded up to L. A `*` in the first
//                         tile makes XLA's formula 0 (RoundUpTo by kCombineDimension).
//   ArrayDataSize         bytes up to the last element under the first tile level (no tail
//                         padding).
//   NestedPaddedElements  the elements of the final expanded shape after ALL tile levels,
//                         rounded up to L: what a strict implementation of the tiling needs.
//
//   Shape s = *ParseShape("f32[3,5]{1,0:T(2,2)}");
//   ElementsIn(s);            // 15
//   ByteSizeOf(s);            // 60
//   ArraySize(s);             // 96 (24 elements)
//   ArrayDataSize(s);         // 84
//   NestedPaddedElements(s);  // 24
#ifndef AXE_XLA_SIZES_H_
#define AXE_XLA_SIZES_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "axe/xla/shape.h"

namespace axe::xla {

// Arrays (and a buffer's array); bounded dynamic dims count their bound. Errors: a tuple,
// token or opaque shape, an unbounded dim, or overflow.
absl::StatusOr<int64_t> ElementsIn(const Shape& shape);

// Arrays as above; buffer: its array; tuple: pointer_size × #elements; token: 0; opaque:
// pointer_size. Errors: pointer_size <= 0 where it is needed, unbounded dims, overflow.
absl::StatusOr<int64_t> ByteSizeOf(const Shape& shape, int64_t pointer_size = -1);

// The sum of ByteSizeOf over every array leaf.
absl::StatusOr<int64_t> ByteSizeOfElementsRecursive(const Shape& shape);

// XLA's ArraySize in bytes (arrays and buffers with a valid layout), exactly as XLA computes
// it: 0 when the first tile has a `*` (use NestedPaddedElements for the real need).
absl::StatusOr<int64_t> ArraySize(const Shape& shape);
// The element count ArraySize converts to bytes.
absl::StatusOr<int64_t> ArraySizeElements(const Shape& shape);

// (LayoutUtil::LinearIndex of the last element + 1) in bytes; 0 for an empty array.
absl::StatusOr<int64_t> ArrayDataSize(const Shape& shape);

// The nested padded size in elements (TilingMap::padded_elements).
absl::StatusOr<int64_t> NestedPaddedElements(const Shape& shape);

// Elements -> bytes with the shape's element size: ceil(n × E / 8) when E != 0, else
// n × ByteWidth. Errors on overflow.
absl::StatusOr<int64_t> ElementsToBytes(const Shape& shape, int64_t elements);

}  // namespace axe::xla

#endif  // AXE_XLA_SIZES_H_
