#include "axe/picture/tikz.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "axe/layout/layout.h"
#include "axe/picture/layout_picture.h"
#include "axe/picture/svg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::picture {
namespace tikz_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

// "" when every brace of `tex` (outside \{ and \}) is balanced, else where it is not.
std::string CheckBraces(const std::string& tex) {
  int depth = 0;
  for (size_t i = 0; i < tex.size(); ++i) {
    if (tex[i] == '\\' && i + 1 < tex.size()) {
      ++i;  // \{ \} \\ are characters, not groups
      continue;
    }
    if (tex[i] == '{') ++depth;
    if (tex[i] == '}' && --depth < 0) return "unbalanced } at " + std::to_string(i);
  }
  return depth == 0 ? "" : "unclosed { (" + std::to_string(depth) + ")";
}

std::string LayoutTikz(const std::string& text) {
  absl::StatusOr<Layout> l = Layout::Parse(text);
  EXPECT_TRUE(l.ok()) << l.status();
  absl::StatusOr<std::string> svg = LayoutSvg(*l, {});
  EXPECT_TRUE(svg.ok()) << svg.status();
  absl::StatusOr<std::string> tex = SvgToTikz(*svg);
  EXPECT_TRUE(tex.ok()) << tex.status();
  return tex.ok() ? *tex : "";
}

TEST(SvgToTikz, IsAStandaloneDocumentWithTheLabels) {
  const std::string tex = LayoutTikz("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp]");
  EXPECT_EQ(CheckBraces(tex), "");
  EXPECT_THAT(tex, HasSubstr("\\documentclass[tikz,border=2pt]{standalone}"));
  EXPECT_THAT(tex, HasSubstr("\\begin{tikzpicture}"));
  EXPECT_TRUE(absl::EndsWith(tex, "\\end{tikzpicture}\n\\end{document}\n"));
  // The cell labels (lane:warp:reg) and the legend, as nodes.
  EXPECT_THAT(tex, HasSubstr("{0:0:0};"));
  EXPECT_THAT(tex, HasSubstr("{warp = 1};"));
  EXPECT_THAT(tex, HasSubstr("rectangle ++("));
  EXPECT_THAT(tex, HasSubstr("\\definecolor{axe0}{HTML}{"));
  // The replica dots and the legend's bullet.
  EXPECT_THAT(tex, HasSubstr("circle[radius=1.50pt]"));
  EXPECT_THAT(tex, HasSubstr("\\textbullet{}"));
  EXPECT_THAT(tex, Not(HasSubstr("•")));
}

TEST(SvgToTikz, EveryColourUsedIsDefined) {
  const std::string tex = LayoutTikz("S[(4,4):(1@lane,4@lane)]");
  for (absl::string_view line : absl::StrSplit(tex, '\n')) {
    for (absl::string_view key : {"fill=", "draw=", "text="}) {
      size_t at = line.find(key);
      if (at == absl::string_view::npos) continue;
      const size_t end = line.find_first_of(",]", at);
      const std::string name(line.substr(at + key.size(), end - at - key.size()));
      EXPECT_THAT(tex, HasSubstr("\\definecolor{" + name + "}")) << line;
    }
  }
}

TEST(SvgToTikz, EscapesLatexSpecialCharacters) {
  Svg svg;
  svg.Text(1, 2, "a_b {c} 50% #1 $x & ~ ^ \\ … → ×", "#1a1a1a");
  absl::StatusOr<std::string> tex = SvgToTikz(svg.Finish("t % x", 10, 10));
  ASSERT_TRUE(tex.ok()) << tex.status();
  EXPECT_EQ(CheckBraces(*tex), "");
  EXPECT_THAT(*tex, HasSubstr("{a\\_b \\{c\\} 50\\% \\#1 \\$x \\& \\textasciitilde{} \\^{} "
                              "\\textbackslash{} \\ldots{} -> x};"));
  EXPECT_EQ(EscapeLatex("é"), "?");
}

TEST(SvgToTikz, RefusesWhatThePictureModuleDidNotWrite) {
  EXPECT_THAT(SvgToTikz("<svg>\n<rect x=\"1\"\n</svg>\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a picture SVG line")));
  EXPECT_THAT(
      SvgToTikz("<ellipse cx=\"1\"/>\n"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no TikZ form for <ellipse>")));
  EXPECT_THAT(SvgToTikz("<rect x=\"a\" y=\"1\" width=\"1\" height=\"1\" fill=\"#000000\"/>\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'x'")));
}

}  // namespace
}  // namespace tikz_test
}  // namespace axe::picture
