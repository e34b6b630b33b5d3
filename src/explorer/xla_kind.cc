// /api/xla: an XLA shape explained as `axe xla explain` and its tiling drawn
// (picture/xla_picture.h).
#include <string>

#include "absl/strings/ascii.h"
#include "axe/explorer/answer_json.h"
#include "axe/picture/xla_picture.h"
#include "axe/xla/text.h"
#include "kinds.h"

namespace axe::explorer {

KindAnswer AnswerXla(const Fields& fields) {
  KindAnswer known = CheckKnownFields(fields, {"shape"});
  if (!known.error.ok()) return known;
  const std::string text = FieldOr(fields, "shape");
  if (absl::StripAsciiWhitespace(text).empty()) {
    return FieldError(
        "shape", absl::InvalidArgumentError("type an XLA shape, e.g. bf16[8,1,1280,16384]{3,2,0,1:"
                                            "T(8,128)(2,1)}"));
  }
  absl::StatusOr<xla::Shape> shape = xla::ParseShape(text);
  if (!shape.ok()) return FieldError("shape", shape.status());
  absl::StatusOr<std::string> answer = XlaShapeJson(*shape);
  if (!answer.ok()) return FieldError("shape", answer.status());
  KindAnswer out;
  out.answer_json = *std::move(answer);
  absl::StatusOr<std::string> svg = picture::TiledArraySvg(*shape);
  if (svg.ok()) {
    out.svg = *std::move(svg);
  } else {
    out.svg_error = std::string(svg.status().message());
  }
  return out;
}

}  // namespace axe::explorer
