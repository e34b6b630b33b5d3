// Buffer layouts from the texts people paste: an Axe layout on memory, optionally over a
// padded domain ("S[(512,4,2,32,128):(32768,256,1,1024,2)] over (4096, 4096)"), or an XLA
// shape string ("bf16[4095,4095]{1,0:T(8,128)(2,1)}"), which xla::ToAxe turns into its Axe
// layout over the padded (tiled) domain and which also names the tensor's dims and element
// type. ResolveRelayout puts two of them and the optional shape and type a user gave
// together into one relayout request.
//
//   absl::StatusOr<TensorBuffer> t = ParseTensorBuffer("bf16[60,250]{1,0:T(8,128)(2,1)}");
//   t->buffer.domain;   // (64, 256): the tiles' padded domain
//   *t->shape;          // (60, 250)
//   *t->element_type;   // DType::kBF16
#ifndef AXE_RUNTIME_TENSOR_BUFFER_H_
#define AXE_RUNTIME_TENSOR_BUFFER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/base/dtype.h"
#include "axe/relayout/buffer_layout.h"
#include "axe/xla/shape.h"

namespace axe::runtime {

// A buffer layout and what its text says about the tensor it holds.
struct TensorBuffer {
  relayout::BufferLayout buffer;
  std::optional<std::vector<int64_t>> shape;  // the tensor's dims (XLA shapes)
  std::optional<DType> element_type;          // (XLA shapes)
};

// True for text that looks like an XLA shape ("f32[...]...", "bf16[...]..."), not like an
// Axe layout ("S[...]").
bool LooksLikeXlaShape(absl::string_view text);

// The buffer layout of an XLA array shape with a layout: its Axe layout over the padded
// domain, its dims and element type. Errors (InvalidArgument unless said otherwise): no
// layout (the message suggests one); Unimplemented for packed elements (E(n)) and for '*'
// tiles that fold several dims into one padded domain dim; ToAxe's errors.
absl::StatusOr<TensorBuffer> BufferLayoutFromXla(const xla::Shape& shape);
// Parses `shape_text` (xla::ParseShape) first; its errors give the text position.
absl::StatusOr<TensorBuffer> BufferLayoutFromXla(absl::string_view shape_text);

// Either form: XLA shape text (LooksLikeXlaShape) or BufferLayout::Parse's.
absl::StatusOr<TensorBuffer> ParseTensorBuffer(absl::string_view text);

// A relayout's layouts, the tensor's shape and its element type.
struct RelayoutRequest {
  relayout::BufferLayout src, dst;
  std::vector<int64_t> shape;
  DType element_type = DType::kF32;
};

// Names of the two sides in ResolveRelayout's errors (e.g. the CLI's option names).
struct SideNames {
  absl::string_view src = "source";
  absl::string_view dst = "destination";
};

// Combines both sides with the shape and element type given separately (each optional):
// every given shape and type must agree; the element type defaults to f32. Errors
// (InvalidArgument) name the side: "<side>: the shape's dims (8, 9) differ from (8, 8)",
// "<side>: element type f32 differs from bf16", or that no shape was given at all.
absl::StatusOr<RelayoutRequest> ResolveRelayout(const TensorBuffer& src, const TensorBuffer& dst,
                                                std::optional<std::vector<int64_t>> shape,
                                                std::optional<DType> element_type,
                                                const SideNames& names = {});

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_TENSOR_BUFFER_H_
