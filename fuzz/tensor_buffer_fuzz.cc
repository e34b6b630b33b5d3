// The buffer texts of `axe relayout --src/--dst` (runtime::ParseTensorBuffer: an Axe layout
// with an optional padded domain, or an XLA shape with a layout). Laws: the buffer layout
// reads back from its print; an XLA shape's dims and element type are the shape's, and its
// buffer is BufferLayoutFromXla of the parsed shape; the buffer passes CheckBufferLayout
// for the tensor's dims.
#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "axe/runtime/tensor_buffer.h"
#include "axe/xla/text.h"
#include "fuzz_check.h"

namespace rt = axe::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input = axe::fuzz::AsText(data, size);
  absl::StatusOr<rt::TensorBuffer> t = rt::ParseTensorBuffer(input);
  if (!t.ok()) return 0;
  const std::string text = t->buffer.ToString();
  absl::StatusOr<axe::relayout::BufferLayout> again = axe::relayout::BufferLayout::Parse(text);
  AXE_FUZZ_CHECK(again.ok() && *again == t->buffer, "parse(print(b)) == b for " + text);
  AXE_FUZZ_CHECK(t->shape.has_value() == t->element_type.has_value(),
                 "shape and element type come together: " + text);
  if (!t->shape) return 0;
  AXE_FUZZ_CHECK(rt::LooksLikeXlaShape(input), "only XLA shapes name dims: " + text);
  // ParseTensorBuffer strips ASCII whitespace (\f, \v too); XLA's shape lexer does not.
  absl::StatusOr<axe::xla::Shape> shape = axe::xla::ParseShape(absl::StripAsciiWhitespace(input));
  AXE_FUZZ_CHECK(shape.ok(), "the XLA shape parses alone: " + text);
  absl::StatusOr<rt::TensorBuffer> from = rt::BufferLayoutFromXla(*shape);
  AXE_FUZZ_CHECK(from.ok() && from->buffer == t->buffer && from->shape == t->shape &&
                     from->element_type == t->element_type,
                 "BufferLayoutFromXla(ParseShape(s)) agrees for " + text);
  const absl::Status fits = axe::relayout::CheckBufferLayout(t->buffer, *t->shape, "buffer");
  AXE_FUZZ_CHECK(fits.ok(), "the buffer holds its tensor: " + text + ": " + fits.ToString());
  return 0;
}
