#include "axe/picture/svg.h"

#include <string>

#include "axe/picture/palette.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "picture/golden.h"
#include "picture/xml_check.h"

namespace axe::picture {
namespace svg_test {
namespace {

using testing::CheckXml;
using ::testing::HasSubstr;

TEST(EscapeXml, ReplacesMarkupAndControlCharacters) {
  EXPECT_EQ(EscapeXml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(EscapeXml(std::string("x\x01y\tz", 5)), "x?y\tz");
  EXPECT_EQ(EscapeXml("…"), "…");
}

TEST(TextWidth, CountsCharactersNotBytes) {
  EXPECT_EQ(TextWidth("ab"), 2 * kCharWidth);
  EXPECT_EQ(TextWidth("…"), kCharWidth);
  EXPECT_EQ(TextWidth(""), 0);
}

TEST(Svg, WritesAttributesSortedAndEscaped) {
  Svg svg;
  svg.Element("rect", {{"y", "2"}, {"x", "1"}, {"fill", "a\"b"}});
  const std::string out = svg.Finish("t<", 10, 20);
  EXPECT_THAT(out, HasSubstr("<rect fill=\"a&quot;b\" x=\"1\" y=\"2\"/>"));
  EXPECT_THAT(out, HasSubstr("<title>t&lt;</title>"));
  EXPECT_THAT(out, HasSubstr("viewBox=\"0 0 10 20\""));
  EXPECT_EQ(CheckXml(out), "");
}

TEST(Svg, HasABackgroundRectOfTheWholePicture) {
  const std::string out = Svg().Finish("empty", 30, 40);
  EXPECT_THAT(out,
              HasSubstr("<rect fill=\"#ffffff\" height=\"40\" width=\"30\" x=\"0\" y=\"0\"/>"));
  EXPECT_EQ(CheckXml(out), "");
}

TEST(Svg, ClosesGroupsLeftOpenAndIgnoresExtraCloses) {
  Svg svg;
  svg.CloseGroup();
  svg.OpenGroup({{"id", "a"}});
  svg.Text(1, 2, "x & y", "#000000");
  EXPECT_EQ(CheckXml(svg.Finish("g", 5, 5)), "");
}

TEST(Svg, EmptyTextStaysAnElementWithContent) {
  Svg svg;
  svg.Text(0, 0, "", "#000000");
  EXPECT_THAT(svg.Finish("t", 1, 1), HasSubstr("text-anchor=\"start\" x=\"0\" y=\"0\"> </text>"));
}

TEST(Palette, TextContrastsWithTheFill) {
  EXPECT_EQ(ContrastingText("#000000"), "#ffffff");
  EXPECT_EQ(ContrastingText("#ffffff"), "#000000");
  EXPECT_EQ(ContrastingText("#edc948"), "#000000");  // yellow
  EXPECT_EQ(ContrastingText("#1f4e79"), "#ffffff");  // dark blue
  EXPECT_EQ(ContrastingText("bogus"), "#ffffff");
  EXPECT_EQ(ContrastingText("#zz0000"), "#ffffff");
}

TEST(Palette, WrapsAroundForAnyIndex) {
  EXPECT_EQ(PaletteSwatch(0).fill, PaletteSwatch(kPaletteSize).fill);
  EXPECT_EQ(PaletteSwatch(-1).fill, PaletteSwatch(kPaletteSize - 1).fill);
  EXPECT_NE(PaletteSwatch(0).fill, PaletteSwatch(1).fill);
  for (int64_t i = 0; i < kPaletteSize; ++i)
    EXPECT_EQ(PaletteSwatch(i).text, ContrastingText(PaletteSwatch(i).fill));
}

TEST(XmlCheck, RejectsMalformedDocuments) {
  EXPECT_EQ(CheckXml("<a><b/></a>"), "");
  EXPECT_THAT(CheckXml("<a><b></a>"), HasSubstr("does not close"));
  EXPECT_THAT(CheckXml("<a x=1/>"), HasSubstr("name=\"value\""));
  EXPECT_THAT(CheckXml("<a x=\"1\" x=\"2\"/>"), HasSubstr("duplicate"));
  EXPECT_THAT(CheckXml("<a>&nbsp;</a>"), HasSubstr("unknown entity"));
  EXPECT_THAT(CheckXml("<a/><b/>"), HasSubstr("second root"));
  EXPECT_THAT(CheckXml("<a>"), HasSubstr("never closed"));
  EXPECT_THAT(CheckXml("x<a/>"), HasSubstr("outside the root"));
}

}  // namespace
}  // namespace svg_test
}  // namespace axe::picture

namespace axe::picture {
namespace svg_test {
namespace {

using testing::CheckXml;

// docs/pictures holds copies of the goldens (AXE_UPDATE_GOLDEN=1 rewrites both).
TEST(Golden, DocsPicturesAreTheGoldens) {
  for (const char* name : {"figure2_layout.svg", "mma_m16n8k16_c.svg", "xla_bf16_tiled.svg",
                           "sharding_2x2_xy.svg", "sharding_2x2_x.svg", "grid_8x6_block_2x3.svg",
                           "grid_clamped.svg", "relayout_mma_to_smem.svg", "hlo_matmul_2d.svg"}) {
    const std::string golden = testing::ReadFileOrEmpty(testing::GoldenPath(name));
    EXPECT_FALSE(golden.empty()) << name;
    EXPECT_EQ(CheckXml(golden), "") << name;
    EXPECT_EQ(golden, testing::ReadFileOrEmpty(testing::DocsPicturePath(name))) << name;
  }
}

}  // namespace
}  // namespace svg_test
}  // namespace axe::picture
