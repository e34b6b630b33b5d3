#include "axe/runtime/tensor_buffer.h"

#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/xla/text.h"
#include "axe/xla/to_axe.h"

namespace axe::runtime {

using relayout::BufferLayout;

bool LooksLikeXlaShape(absl::string_view text) {
  text = absl::StripLeadingAsciiWhitespace(text);
  if (absl::StartsWith(text, "(")) return true;  // a tuple shape; no Axe layout starts so
  const size_t bracket = text.find('[');
  if (bracket == 0 || bracket == absl::string_view::npos) return false;
  for (char c : text.substr(0, bracket)) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c))) return false;
  }
  return text[0] != 'S' || bracket != 1;
}

absl::StatusOr<TensorBuffer> BufferLayoutFromXla(const xla::Shape& shape) {
  // Shapes come from files of up to 256 MiB: messages quote them elided.
  const std::string full_text = shape.ToString(/*print_layout=*/true);
  const std::string text = ElideForMessage(full_text);
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "XLA shape '", text, "' is not an array; the relayout engine moves one array"));
  }
  if (!shape.has_layout()) {
    std::vector<int64_t> minor_to_major(shape.dimensions().size());
    for (size_t k = 0; k < minor_to_major.size(); ++k) {
      minor_to_major[k] = static_cast<int64_t>(minor_to_major.size() - 1 - k);
    }
    // A long shape is quoted once, elided, and the example names only the layout.
    const std::string layout =
        absl::StrCat("{", ElideForMessage(absl::StrJoin(minor_to_major, ",")), "}");
    const bool elided = text.size() != full_text.size();
    return absl::InvalidArgumentError(absl::StrCat(
        "XLA shape '", text, "' has no layout: give one, e.g. '", elided ? "" : text, layout, "'"));
  }
  if (shape.layout().element_size_in_bits() != 0) {
    return absl::UnimplementedError(
        absl::StrCat("XLA shape '", text,
                     "': packed elements (E(n)) are not supported by the relayout engine yet"));
  }
  AXE_ASSIGN_OR_RETURN(xla::AxeForm form, xla::ToAxe(shape));
  for (const xla::DomainDim& d : form.domain_dims) {
    if (d.first_dim != d.last_dim) {
      return absl::UnimplementedError(absl::StrCat(
          "XLA shape '", text, "': dims ", d.first_dim, " to ", d.last_dim,
          " are folded into one padded domain dim ('*' tiles), which the relayout engine does "
          "not take yet"));
    }
  }
  return TensorBuffer{BufferLayout(std::move(form.layout), std::move(form.domain)),
                      std::move(form.real_dims), shape.element_type()};
}

absl::StatusOr<TensorBuffer> BufferLayoutFromXla(absl::string_view shape_text) {
  AXE_ASSIGN_OR_RETURN(xla::Shape shape, xla::ParseShape(shape_text));
  return BufferLayoutFromXla(shape);
}

absl::StatusOr<TensorBuffer> ParseTensorBuffer(absl::string_view text) {
  text = absl::StripTrailingAsciiWhitespace(text);  // e.g. the newline of a file
  if (LooksLikeXlaShape(text)) return BufferLayoutFromXla(text);
  AXE_ASSIGN_OR_RETURN(BufferLayout buffer, BufferLayout::Parse(text));
  return TensorBuffer{std::move(buffer), std::nullopt, std::nullopt};
}

absl::StatusOr<RelayoutRequest> ResolveRelayout(const TensorBuffer& src, const TensorBuffer& dst,
                                                std::optional<std::vector<int64_t>> shape,
                                                std::optional<DType> element_type,
                                                const SideNames& names) {
  for (const auto& [side, name] :
       {std::pair<const TensorBuffer*, absl::string_view>{&src, names.src}, {&dst, names.dst}}) {
    if (side->shape) {
      if (shape && *shape != *side->shape) {
        return absl::InvalidArgumentError(absl::StrCat(name, ": the shape's dims ",
                                                       FormatTuple(*side->shape), " differ from ",
                                                       FormatTuple(*shape)));
      }
      shape = side->shape;
    }
    if (side->element_type) {
      if (element_type && *element_type != *side->element_type) {
        return absl::InvalidArgumentError(absl::StrCat(name, ": element type ",
                                                       XlaName(*side->element_type),
                                                       " differs from ", XlaName(*element_type)));
      }
      element_type = side->element_type;
    }
  }
  if (!shape) {
    return absl::InvalidArgumentError(absl::StrCat("a shape is required unless ", names.src, " or ",
                                                   names.dst, " is an XLA shape"));
  }
  return RelayoutRequest{src.buffer, dst.buffer, *std::move(shape),
                         element_type.value_or(DType::kF32)};
}

}  // namespace axe::runtime
