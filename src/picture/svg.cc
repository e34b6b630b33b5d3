#include "axe/picture/svg.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "axe/picture/palette.h"

namespace axe::picture {
namespace {

absl::string_view AnchorName(TextAnchor anchor) {
  switch (anchor) {
    case TextAnchor::kStart: return "start";
    case TextAnchor::kMiddle: return "middle";
    case TextAnchor::kEnd: return "end";
  }
  return "start";
}

std::string FormatAttributes(Attributes attributes) {
  std::stable_sort(attributes.begin(), attributes.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& [name, value] : attributes)
    absl::StrAppend(&out, " ", name, "=\"", EscapeXml(value), "\"");
  return out;
}

}  // namespace

int64_t TextWidth(absl::string_view text) {
  int64_t chars = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++chars;
  }
  return chars * kCharWidth;
}

std::string EscapeXml(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

void Svg::Element(absl::string_view name, Attributes attributes, absl::string_view text) {
  absl::StrAppend(&body_, "<", name, FormatAttributes(std::move(attributes)));
  if (text.empty()) {
    absl::StrAppend(&body_, "/>\n");
  } else {
    absl::StrAppend(&body_, ">", EscapeXml(text), "</", name, ">\n");
  }
}

void Svg::Rect(const Box& box, absl::string_view fill, absl::string_view stroke, Attributes extra) {
  extra.insert(extra.end(), {{"x", absl::StrCat(box.x)},
                             {"y", absl::StrCat(box.y)},
                             {"width", absl::StrCat(box.width)},
                             {"height", absl::StrCat(box.height)},
                             {"fill", std::string(fill)},
                             {"stroke", std::string(stroke)}});
  Element("rect", std::move(extra));
}

void Svg::Text(int64_t x, int64_t y, absl::string_view text, absl::string_view fill,
               TextAnchor anchor, Attributes extra) {
  extra.insert(extra.end(), {{"x", absl::StrCat(x)},
                             {"y", absl::StrCat(y)},
                             {"fill", std::string(fill)},
                             {"text-anchor", std::string(AnchorName(anchor))}});
  Element("text", std::move(extra), text.empty() ? " " : text);
}

void Svg::Line(int64_t x1, int64_t y1, int64_t x2, int64_t y2, absl::string_view stroke,
               Attributes extra) {
  extra.insert(extra.end(), {{"x1", absl::StrCat(x1)},
                             {"y1", absl::StrCat(y1)},
                             {"x2", absl::StrCat(x2)},
                             {"y2", absl::StrCat(y2)},
                             {"stroke", std::string(stroke)}});
  Element("line", std::move(extra));
}

void Svg::OpenGroup(Attributes attributes) {
  absl::StrAppend(&body_, "<g", FormatAttributes(std::move(attributes)), ">\n");
  ++open_groups_;
}

void Svg::CloseGroup() {
  if (open_groups_ == 0) return;
  --open_groups_;
  body_ += "</g>\n";
}

std::string Svg::Finish(absl::string_view title, int64_t width, int64_t height) const {
  std::string out =
      absl::StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg",
                   FormatAttributes({{"xmlns", "http://www.w3.org/2000/svg"},
                                     {"width", absl::StrCat(width)},
                                     {"height", absl::StrCat(height)},
                                     {"viewBox", absl::StrCat("0 0 ", width, " ", height)},
                                     {"font-family", "monospace"},
                                     {"font-size", absl::StrCat(kFontSize)}}),
                   ">\n<title>", EscapeXml(title), "</title>\n<rect",
                   FormatAttributes({{"x", "0"},
                                     {"y", "0"},
                                     {"width", absl::StrCat(width)},
                                     {"height", absl::StrCat(height)},
                                     {"fill", std::string(kBackground)}}),
                   "/>\n", body_);
  for (int i = 0; i < open_groups_; ++i) out += "</g>\n";
  out += "</svg>\n";
  return out;
}

std::vector<std::string> WrapLine(absl::string_view line, int64_t max_width) {
  const int64_t max_chars = std::max<int64_t>(max_width / kCharWidth, 8);
  std::vector<std::string> out;
  std::string current;
  int64_t current_chars = 0;
  auto flush = [&] {
    out.push_back(std::move(current));
    current.clear();
    current_chars = 0;
  };
  for (absl::string_view word : absl::StrSplit(line, ' ')) {
    const int64_t chars = TextWidth(word) / kCharWidth;
    if (current_chars > 0 && current_chars + 1 + chars > max_chars) flush();
    if (current_chars > 0) {
      current += ' ';
      ++current_chars;
    }
    // A word longer than a line is cut at character (not byte) boundaries.
    for (size_t i = 0; i < word.size();) {
      if (current_chars == max_chars) flush();
      size_t next = i + 1;
      while (next < word.size() && (static_cast<unsigned char>(word[next]) & 0xC0) == 0x80) ++next;
      current.append(word.data() + i, next - i);
      ++current_chars;
      i = next;
    }
  }
  if (current_chars > 0 || out.empty()) flush();
  return out;
}

int64_t LegendLines(Svg& svg, int64_t x, int64_t y, const std::vector<std::string>& lines,
                    int64_t max_width) {
  for (const std::string& line : lines) {
    for (const std::string& part : WrapLine(line, max_width)) {
      svg.Text(x, y + kFontSize, part, kInk);
      y += kLineHeight;
    }
  }
  return y;
}

int64_t LinesWidth(const std::vector<std::string>& lines, int64_t max_width) {
  int64_t width = 0;
  for (const std::string& line : lines) {
    for (const std::string& part : WrapLine(line, max_width))
      width = std::max(width, TextWidth(part));
  }
  return width;
}

}  // namespace axe::picture
