// A tiny deterministic SVG writer: every coordinate is an integer (no floating-point text, so
// no locale or rounding differences), attributes are written sorted by name, text is escaped,
// and the same calls give the same bytes.
//
//   Svg svg;
//   svg.Rect({.x = 10, .y = 10, .width = 40, .height = 20}, "#4e79a7", "#333333");
//   svg.Text(30, 24, "0:1", "#ffffff", TextAnchor::kMiddle);
//   std::string text = svg.Finish("Figure 2", 60, 40);   // <svg ...> with a background rect
#ifndef AXE_PICTURE_SVG_H_
#define AXE_PICTURE_SVG_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace axe::picture {

// The blank space around every picture, in pixels.
inline constexpr int64_t kMargin = 10;

// Attribute name/value pairs; the writer sorts them by name and escapes the values.
using Attributes = std::vector<std::pair<std::string, std::string>>;

struct Box {
  int64_t x = 0, y = 0, width = 0, height = 0;
};

enum class TextAnchor { kStart, kMiddle, kEnd };

// The monospace font every picture uses and its size in pixels.
inline constexpr int64_t kFontSize = 12;
// The width of one character of that font, rounded up (pixels).
inline constexpr int64_t kCharWidth = 8;
// The height of one line of text (pixels).
inline constexpr int64_t kLineHeight = 16;

// The width in pixels of `text` in the picture font (UTF-8 continuation bytes do not count).
int64_t TextWidth(absl::string_view text);

// `text` with &, <, >, " and ' replaced by entities, and bytes that XML 1.0 forbids
// (control characters other than tab, newline, carriage return) by '?'.
std::string EscapeXml(absl::string_view text);

class Svg {
 public:
  // <name attributes/> or <name attributes>escaped text</name>.
  void Element(absl::string_view name, Attributes attributes, absl::string_view text = {});
  void Rect(const Box& box, absl::string_view fill, absl::string_view stroke = "none",
            Attributes extra = {});
  void Text(int64_t x, int64_t y, absl::string_view text, absl::string_view fill,
            TextAnchor anchor = TextAnchor::kStart, Attributes extra = {});
  void Line(int64_t x1, int64_t y1, int64_t x2, int64_t y2, absl::string_view stroke,
            Attributes extra = {});
  // Opens a <g> (closed by CloseGroup) with the attributes.
  void OpenGroup(Attributes attributes);
  void CloseGroup();

  // The document: the XML declaration, <svg> of width x height with a <title>, a background
  // rect of the picture background colour, the elements written so far, </svg>.
  std::string Finish(absl::string_view title, int64_t width, int64_t height) const;

 private:
  std::string body_;
  int open_groups_ = 0;
};

// The widest a legend or title line is drawn (pixels): longer lines wrap, so that a long
// layout or sharding never widens a picture beyond a screen.
inline constexpr int64_t kMaxLegendWidth = 720;

// `line` cut into lines of at most `max_width` pixels, at spaces where it can (a word longer
// than a line is cut inside).
std::vector<std::string> WrapLine(absl::string_view line, int64_t max_width);

// Writes `lines` of legend text from (x, y) (the top of the first line), each wrapped at
// `max_width` (a picture already wider than kMaxLegendWidth passes its width); returns the y
// below the last line.
int64_t LegendLines(Svg& svg, int64_t x, int64_t y, const std::vector<std::string>& lines,
                    int64_t max_width = kMaxLegendWidth);
// The width of the widest of `lines`, as LegendLines wraps them.
int64_t LinesWidth(const std::vector<std::string>& lines, int64_t max_width = kMaxLegendWidth);

}  // namespace axe::picture

#endif  // AXE_PICTURE_SVG_H_
