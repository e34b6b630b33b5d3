#include "axe/picture/tikz.h"

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace axe::picture {
namespace {

using AttributeMap = std::map<std::string, std::string>;

// One element line of our SVG: <name attributes/> or <name attributes>text</name>.
struct Element {
  std::string name;
  AttributeMap attributes;
  std::string text;
};

std::string UnescapeXml(absl::string_view text) {
  return absl::StrReplaceAll(
      text, {{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}});
}

std::optional<Element> ParseElement(absl::string_view line) {
  if (!absl::ConsumePrefix(&line, "<")) return std::nullopt;
  Element e;
  const size_t name_end = line.find_first_of(" />");
  if (name_end == absl::string_view::npos || name_end == 0) return std::nullopt;
  e.name = std::string(line.substr(0, name_end));
  line.remove_prefix(name_end);
  while (absl::ConsumePrefix(&line, " ")) {
    const size_t eq = line.find("=\"");
    if (eq == absl::string_view::npos) return std::nullopt;
    const size_t close = line.find('"', eq + 2);
    if (close == absl::string_view::npos) return std::nullopt;
    e.attributes[std::string(line.substr(0, eq))] =
        UnescapeXml(line.substr(eq + 2, close - eq - 2));
    line.remove_prefix(close + 1);
  }
  if (line == "/>" || line == ">") return e;
  if (!absl::ConsumePrefix(&line, ">") ||
      !absl::ConsumeSuffix(&line, absl::StrCat("</", e.name, ">"))) {
    return std::nullopt;
  }
  e.text = UnescapeXml(line);
  return e;
}

// Pixels to points, as a browser does (96 px = 72 pt).
std::string Points(absl::string_view pixels) {
  double value = 0;
  if (!absl::SimpleAtod(pixels, &value)) value = 1;
  return absl::StrFormat("%.2fpt", value * 0.75);
}

class TikzWriter {
 public:
  absl::Status Add(const Element& e, const AttributeMap& group);
  std::string Finish(absl::string_view title) const;

 private:
  // The \definecolor name of "#rrggbb" (defined once), or nullopt for "none".
  std::optional<std::string> Colour(absl::string_view svg_colour);
  std::string Options(const Element& e, const AttributeMap& group, bool text);
  absl::StatusOr<std::string> Number(const Element& e, const std::string& attribute) const;
  absl::StatusOr<std::string> Path(const Element& e) const;

  std::map<std::string, std::string> colours_;
  std::string body_;
};

std::optional<std::string> TikzWriter::Colour(absl::string_view svg_colour) {
  if (!absl::ConsumePrefix(&svg_colour, "#") || svg_colour.size() != 6) return std::nullopt;
  std::string hex = absl::AsciiStrToUpper(svg_colour);
  auto [it, added] = colours_.emplace(hex, absl::StrCat("axe", colours_.size()));
  return it->second;
}

std::string TikzWriter::Options(const Element& e, const AttributeMap& group, bool text) {
  auto get = [&](const std::string& name) -> std::string {
    auto it = e.attributes.find(name);
    if (it != e.attributes.end()) return it->second;
    auto g = group.find(name);
    return g == group.end() ? "none" : g->second;
  };
  std::vector<std::string> options;
  if (text) {
    const std::string anchor = get("text-anchor");
    options.push_back(anchor == "middle" ? "anchor=base"
                      : anchor == "end"  ? "anchor=base east"
                                         : "anchor=base west");
    options.push_back("inner sep=0pt");
    if (auto c = Colour(get("fill"))) options.push_back(absl::StrCat("text=", *c));
    return absl::StrJoin(options, ",");
  }
  if (auto c = Colour(get("fill"))) options.push_back(absl::StrCat("fill=", *c));
  if (auto c = Colour(get("stroke"))) options.push_back(absl::StrCat("draw=", *c));
  if (const std::string o = get("fill-opacity"); o != "none")
    options.push_back(absl::StrCat("fill opacity=", o));
  if (const std::string w = get("stroke-width"); w != "none")
    options.push_back(absl::StrCat("line width=", Points(w)));
  return absl::StrJoin(options, ",");
}

absl::StatusOr<std::string> TikzWriter::Number(const Element& e,
                                               const std::string& attribute) const {
  auto it = e.attributes.find(attribute);
  int64_t value = 0;
  if (it == e.attributes.end() || !absl::SimpleAtoi(it->second, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("<", e.name, ">: no integer attribute '", attribute, "'"));
  }
  return absl::StrCat(value);
}

// "(x1,y1) -- (x2,y2) -- ..." of a polyline's or polygon's points.
absl::StatusOr<std::string> TikzWriter::Path(const Element& e) const {
  auto it = e.attributes.find("points");
  if (it == e.attributes.end()) {
    return absl::InvalidArgumentError(absl::StrCat("<", e.name, ">: no points"));
  }
  std::vector<std::string> points;
  for (absl::string_view point : absl::StrSplit(it->second, ' ', absl::SkipEmpty())) {
    std::vector<absl::string_view> xy = absl::StrSplit(point, ',');
    int64_t x = 0, y = 0;
    if (xy.size() != 2 || !absl::SimpleAtoi(xy[0], &x) || !absl::SimpleAtoi(xy[1], &y)) {
      return absl::InvalidArgumentError(absl::StrCat("<", e.name, ">: bad point '", point, "'"));
    }
    points.push_back(absl::StrCat("(", x, ",", y, ")"));
  }
  return absl::StrJoin(points, " -- ");
}

absl::Status TikzWriter::Add(const Element& e, const AttributeMap& group) {
  if (e.name == "rect") {
    const std::string options = Options(e, group, false);
    if (options.empty()) return absl::OkStatus();
    std::vector<std::string> v;
    for (const char* a : {"x", "y", "width", "height"}) {
      absl::StatusOr<std::string> n = Number(e, a);
      if (!n.ok()) return n.status();
      v.push_back(*n);
    }
    absl::StrAppend(&body_, "\\path[", options, "] (", v[0], ",", v[1], ") rectangle ++(", v[2],
                    ",", v[3], ");\n");
  } else if (e.name == "text") {
    absl::StatusOr<std::string> x = Number(e, "x"), y = Number(e, "y");
    if (!x.ok()) return x.status();
    if (!y.ok()) return y.status();
    absl::StrAppend(&body_, "\\node[", Options(e, group, true), "] at (", *x, ",", *y, ") {",
                    EscapeLatex(e.text), "};\n");
  } else if (e.name == "line") {
    std::vector<std::string> v;
    for (const char* a : {"x1", "y1", "x2", "y2"}) {
      absl::StatusOr<std::string> n = Number(e, a);
      if (!n.ok()) return n.status();
      v.push_back(*n);
    }
    absl::StrAppend(&body_, "\\path[", Options(e, group, false), "] (", v[0], ",", v[1], ") -- (",
                    v[2], ",", v[3], ");\n");
  } else if (e.name == "circle") {
    absl::StatusOr<std::string> x = Number(e, "cx"), y = Number(e, "cy"), r = Number(e, "r");
    if (!x.ok() || !y.ok() || !r.ok()) return absl::InvalidArgumentError("<circle>: cx, cy, r");
    absl::StrAppend(&body_, "\\path[", Options(e, group, false), "] (", *x, ",", *y,
                    ") circle[radius=", Points(*r), "];\n");
  } else if (e.name == "polyline" || e.name == "polygon") {
    absl::StatusOr<std::string> path = Path(e);
    if (!path.ok()) return path.status();
    absl::StrAppend(&body_, "\\path[", Options(e, group, false), "] ", *path,
                    e.name == "polygon" ? " -- cycle" : "", ";\n");
  } else {
    return absl::InvalidArgumentError(absl::StrCat("no TikZ form for <", e.name, ">"));
  }
  return absl::OkStatus();
}

std::string TikzWriter::Finish(absl::string_view title) const {
  std::string out = absl::StrCat("% ", absl::StrReplaceAll(title, {{"\n", " "}, {"\r", " "}}),
                                 "\n\\documentclass[tikz,border=2pt]{standalone}\n"
                                 "\\usepackage[T1]{fontenc}\n");
  for (const auto& [hex, name] : colours_)
    absl::StrAppend(&out, "\\definecolor{", name, "}{HTML}{", hex, "}\n");
  absl::StrAppend(&out,
                  "\\begin{document}\n"
                  "\\begin{tikzpicture}[x=0.75pt,y=-0.75pt,"
                  "font=\\ttfamily\\fontsize{9}{11}\\selectfont]\n",
                  body_, "\\end{tikzpicture}\n\\end{document}\n");
  return out;
}

}  // namespace

std::string EscapeLatex(absl::string_view text) {
  static const auto* const kSymbols = new std::vector<std::pair<std::string, std::string>>{
      {"…", "\\ldots{}"}, {"•", "\\textbullet{}"},
      {"←", "<-"},        {"→", "->"},
      {"─", "-"},         {"│", "|"},
      {"┌", "+"},         {"┐", "+"},
      {"└", "+"},         {"┘", "+"},
      {"├", "+"},         {"┤", "+"},
      {"┬", "+"},         {"┴", "+"},
      {"┼", "+"},         {"×", "x"}};
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      bool known = false;
      for (const auto& [symbol, latex] : *kSymbols) {
        if (absl::StartsWith(text.substr(i), symbol)) {
          out += latex;
          i += symbol.size();
          known = true;
          break;
        }
      }
      if (known) continue;
      out += '?';
      ++i;
      while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
      continue;
    }
    switch (c) {
      case '\\': out += "\\textbackslash{}"; break;
      case '{': out += "\\{"; break;
      case '}': out += "\\}"; break;
      case '$': out += "\\$"; break;
      case '&': out += "\\&"; break;
      case '#': out += "\\#"; break;
      case '%': out += "\\%"; break;
      case '_': out += "\\_"; break;
      case '^': out += "\\^{}"; break;
      case '~': out += "\\textasciitilde{}"; break;
      default: out += (c < 0x20) ? ' ' : static_cast<char>(c);
    }
    ++i;
  }
  return out;
}

absl::StatusOr<std::string> SvgToTikz(absl::string_view svg) {
  TikzWriter writer;
  std::string title;
  std::vector<AttributeMap> groups = {{}};
  for (absl::string_view line : absl::StrSplit(svg, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "<?xml") || absl::StartsWith(line, "<svg") || line == "</svg>") {
      continue;
    }
    if (absl::ConsumePrefix(&line, "<title>") && absl::ConsumeSuffix(&line, "</title>")) {
      title = UnescapeXml(line);
      continue;
    }
    if (line == "</g>") {
      if (groups.size() > 1) groups.pop_back();
      continue;
    }
    std::optional<Element> e = ParseElement(line);
    if (!e) return absl::InvalidArgumentError(absl::StrCat("not a picture SVG line: ", line));
    if (e->name == "g") {
      AttributeMap merged = groups.back();
      for (const auto& [k, v] : e->attributes) merged[k] = v;
      groups.push_back(std::move(merged));
      continue;
    }
    if (absl::Status s = writer.Add(*e, groups.back()); !s.ok()) return s;
  }
  return writer.Finish(title);
}

}  // namespace axe::picture
