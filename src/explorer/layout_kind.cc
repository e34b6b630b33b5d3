// /api/layout: an Axe layout drawn (picture/layout_picture.h) and shown as `axe layout show`.
#include <array>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "axe/base/int_list.h"
#include "axe/explorer/answer_json.h"
#include "axe/layout/render.h"
#include "axe/picture/layout_picture.h"
#include "kinds.h"

namespace axe::explorer {
namespace {

absl::StatusOr<std::array<int64_t, 2>> ParseGridShape(absl::string_view text, const Layout& l) {
  if (absl::StripAsciiWhitespace(text).empty()) return DefaultGridShape(l);
  absl::StatusOr<std::vector<int64_t>> dims = ParseIntList(text);
  if (!dims.ok()) return dims.status();
  if (dims->size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("the drawing is 2-D: give ROWS,COLS, got ", dims->size(), " numbers"));
  }
  return std::array<int64_t, 2>{(*dims)[0], (*dims)[1]};
}

}  // namespace

KindAnswer AnswerLayout(const Fields& fields) {
  KindAnswer known =
      CheckKnownFields(fields, {"layout", "shape", "color", "zoom", "physical_zoom"});
  if (!known.error.ok()) return known;
  const std::string text = FieldOr(fields, "layout");
  if (absl::StripAsciiWhitespace(text).empty()) {
    return FieldError(
        "layout", absl::InvalidArgumentError("type an Axe layout, e.g. S[(8,2,4,2):(4@lane,1@warp,"
                                             "1@lane,1@reg)] + R[2:4@warp] + 5@warp"));
  }
  absl::StatusOr<Layout> layout = Layout::Parse(text);
  if (!layout.ok()) return FieldError("layout", layout.status());
  absl::StatusOr<std::array<int64_t, 2>> shape = ParseGridShape(FieldOr(fields, "shape"), *layout);
  if (!shape.ok()) return FieldError("shape", shape.status());
  picture::LayoutPictureOptions options{.shape = *shape};
  if (std::string colour = std::string(absl::StripAsciiWhitespace(FieldOr(fields, "color")));
      !colour.empty()) {
    for (Axis a : layout->axes()) {
      if (a.name() == colour) options.colour_axis = a;
    }
    if (!options.colour_axis) {
      return FieldError("color", absl::InvalidArgumentError(
                                     absl::StrCat("the layout ", layout->ToString(),
                                                  " does not use the axis '", colour, "'")));
    }
  }
  if (std::string zoom = std::string(absl::StripAsciiWhitespace(FieldOr(fields, "zoom")));
      !zoom.empty()) {
    absl::StatusOr<picture::GridZoom> window = picture::ParseGridZoom(zoom);
    if (!window.ok()) return FieldError("zoom", window.status());
    options.zoom = *window;
  }
  if (std::string zoom = std::string(absl::StripAsciiWhitespace(FieldOr(fields, "physical_zoom")));
      !zoom.empty()) {
    absl::StatusOr<picture::GridZoom> window = picture::ParseGridZoom(zoom);
    if (!window.ok()) return FieldError("physical_zoom", window.status());
    options.physical_zoom = *window;
  }
  KindAnswer out;
  absl::StatusOr<std::string> answer = LayoutShowJson(*layout, *shape, GridWindow{32, 16});
  if (!answer.ok()) return FieldError("shape", answer.status());
  out.answer_json = *std::move(answer);
  absl::StatusOr<std::string> svg = picture::LayoutSvg(*layout, options);
  if (svg.ok()) {
    out.svg = *std::move(svg);
  } else {
    out.svg_error = std::string(svg.status().message());
  }
  return out;
}

}  // namespace axe::explorer
