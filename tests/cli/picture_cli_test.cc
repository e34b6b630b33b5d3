// End-to-end tests of the --svg pictures of `axe layout show`, `axe xla explain`,
// `axe shard explain` and `axe grid show`: the file is written, is the library's picture
// (the same bytes as the golden for the seed examples) and errors are one line, exit 2.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe {
namespace picture_cli_test {
namespace {

using ::testing::HasSubstr;
using testing::RunAxe;
using testing::RunResult;
using ::testing::StartsWith;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Golden(const std::string& name) {
  return ReadFile(std::string(AXE_SOURCE_DIR) + "/tests/picture/golden/" + name);
}

// Runs `args` + --svg FILE; returns the file's text (empty on failure).
std::string Svg(std::vector<std::string> args, const std::string& name) {
  const std::string path = ::testing::TempDir() + "/picture_cli_" + name;
  std::remove(path.c_str());
  args.insert(args.end(), {"--svg", path});
  RunResult r = RunAxe(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return ReadFile(path);
}

TEST(PictureCli, LayoutShowWritesTheFigure2Golden) {
  const std::string svg =
      Svg({"layout", "show", "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp",
           "--shape", "8,16", "--color-by", "warp"},
          "fig2.svg");
  EXPECT_THAT(svg, StartsWith("<?xml"));
  EXPECT_EQ(svg, Golden("figure2_layout.svg"));
}

TEST(PictureCli, LayoutShowStillPrintsItsText) {
  const std::string path = ::testing::TempDir() + "/picture_cli_text.svg";
  RunResult r = RunAxe({"layout", "show", "S[(4,4):(4,1)]", "--svg", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("each cell: m"));
  EXPECT_THAT(ReadFile(path), HasSubstr("Axe layout S[(4,4):(4,1)]"));
}

TEST(PictureCli, LayoutShowColorByUnknownAxis) {
  RunResult r = RunAxe({"layout", "show", "S[(8,4):(4@lane,1)]", "--svg",
                        ::testing::TempDir() + "/x.svg", "--color-by", "warp"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--color-by: the layout S[(8,4):(4@lane,1)] does not use the "
                               "axis 'warp'"));
}

TEST(PictureCli, XlaExplainWritesTheTilingGolden) {
  const std::string svg =
      Svg({"xla", "explain", "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"}, "tpu.svg");
  EXPECT_EQ(svg, Golden("xla_bf16_tiled.svg"));
}

TEST(PictureCli, XlaExplainSvgErrors) {
  RunResult r = RunAxe(
      {"xla", "explain", "f32[4,6,8]{2,1,0:T(2,*,4)}", "--svg", ::testing::TempDir() + "/x.svg"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--svg: the picture does not draw tiles that combine"));
  r = RunAxe({"xla", "explain", "HloModule m\nENTRY e { ROOT p = f32[4]{0} parameter(0) }", "--svg",
              ::testing::TempDir() + "/x.svg"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--svg and --latex take a single shape, not HLO text"));
  r = RunAxe({"xla", "explain", "f32[4]{0}", "--svg", "/nonexistent-dir/x.svg"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--svg: cannot write '/nonexistent-dir/x.svg'"));
}

TEST(PictureCli, ShardExplainWritesTheMeshGoldens) {
  EXPECT_EQ(Svg({"shard", "explain", "--shape", "8,8", "--mesh", "x=2,y=2", "--spec", "P('x','y')"},
                "xy.svg"),
            Golden("sharding_2x2_xy.svg"));
  EXPECT_EQ(
      Svg({"shard", "explain", "--shape", "8,8", "--mesh", "x=2,y=2", "--spec", "P('x')"}, "x.svg"),
      Golden("sharding_2x2_x.svg"));
}

TEST(PictureCli, ShardExplainWithoutAMeshDrawsTheDevices) {
  const std::string svg =
      Svg({"shard", "explain", "--shape", "8,8", "--hlo", "{devices=[2,1]0,1}"}, "hlo.svg");
  EXPECT_THAT(svg, HasSubstr(">devices</text>"));
}

TEST(PictureCli, GridShowWritesTheGoldens) {
  EXPECT_EQ(Svg({"grid", "show", "--shape", "8,6", "--block", "2,3", "--grid", "4,2"}, "grid.svg"),
            Golden("grid_8x6_block_2x3.svg"));
  EXPECT_EQ(Svg({"grid", "show", "--shape", "12", "--block", "4", "--grid", "3", "--index-map",
                 "(i)->(4*i)"},
                "clamped.svg"),
            Golden("grid_clamped.svg"));
}

TEST(PictureCli, GridShowSvgRefusesHugeGrids) {
  RunResult r = RunAxe({"grid", "show", "--shape", "8", "--block", "2", "--grid", "5000",
                        "--index-map", "(i)->(0)", "--svg", ::testing::TempDir() + "/g.svg"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--svg: the grid (5000,) has 5000 programs"));
}

// Runs `args` + --latex FILE; returns the file's text (empty on failure).
std::string Latex(std::vector<std::string> args, const std::string& name) {
  const std::string path = ::testing::TempDir() + "/picture_cli_" + name;
  std::remove(path.c_str());
  args.insert(args.end(), {"--latex", path});
  RunResult r = RunAxe(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return ReadFile(path);
}

void ExpectStandaloneTikz(const std::string& tex) {
  EXPECT_THAT(tex, HasSubstr("\\documentclass[tikz,border=2pt]{standalone}"));
  EXPECT_THAT(tex, HasSubstr("\\begin{tikzpicture}"));
  EXPECT_THAT(tex, HasSubstr("\\end{tikzpicture}\n\\end{document}\n"));
}

TEST(PictureCli, LatexBesideSvgForLayoutsShardingsAndXlaShapes) {
  std::string tex = Latex({"layout", "show", "S[(4,4):(1@lane,4@lane)]"}, "l.tex");
  ExpectStandaloneTikz(tex);
  EXPECT_THAT(tex, HasSubstr("{Axe layout S[(4,4):(1@lane,4@lane)]};"));
  tex = Latex({"shard", "explain", "--shape", "8,8", "--mesh", "x=2,y=2", "--spec", "P('x')"},
              "s.tex");
  ExpectStandaloneTikz(tex);
  EXPECT_THAT(tex, HasSubstr("{0,1};"));
  tex = Latex({"grid", "show", "--shape", "8,6", "--block", "2,3", "--grid", "4,2"}, "g.tex");
  ExpectStandaloneTikz(tex);
  tex = Latex({"reshard", "--shape", "8,8", "--mesh", "x=2,y=2", "--from", "P('x', None)", "--to",
               "P(None, 'y')", "--repeat", "1"},
              "r.tex");
  ExpectStandaloneTikz(tex);
  tex = Latex({"relayout", "--from", "S[(4,4):(4,1)]", "--to", "S[(4,4):(1,4)]", "--shape", "4,4",
               "--repeat", "1"},
              "rl.tex");
  ExpectStandaloneTikz(tex);
  tex = Latex({"xla", "explain", "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"}, "x.tex");
  ExpectStandaloneTikz(tex);
  EXPECT_THAT(tex, HasSubstr("{\\#0};"));
  // Both files from one run are the same picture.
  const std::string svg_path = ::testing::TempDir() + "/picture_cli_both.svg";
  const std::string tex_path = ::testing::TempDir() + "/picture_cli_both.tex";
  RunResult r =
      RunAxe({"layout", "show", "S[(4,4):(4,1)]", "--svg", svg_path, "--latex", tex_path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ReadFile(svg_path), HasSubstr(">Axe layout S[(4,4):(4,1)]</text>"));
  EXPECT_THAT(ReadFile(tex_path), HasSubstr("{Axe layout S[(4,4):(4,1)]};"));
}

// The docs' 64 x 128 array on 2 x 2 devices: the picture is a summary with every device, and
// --zoom draws a window element by element.
TEST(PictureCli, LayoutShowSummarizesAndZooms) {
  const std::vector<std::string> show = {
      "layout", "show", "S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]", "--shape", "64,128"};
  const std::string whole = Svg(show, "whole.svg");
  EXPECT_THAT(whole, HasSubstr("gpuid = 3"));
  EXPECT_THAT(whole, HasSubstr("summary: each cell stands for a block of 2 x 4"));
  std::vector<std::string> zoomed = show;
  zoomed.insert(zoomed.end(), {"--zoom", "0:4,64:68"});
  EXPECT_THAT(Svg(zoomed, "zoom.svg"), HasSubstr(">2:65</text>"));
  // The physical half: all 2048 offsets of each device in blocks of 64, or a window of them.
  EXPECT_THAT(whole, HasSubstr("physical summary: each cell stands for a block of 1 gpuid x 64 m"));
  std::vector<std::string> physical = show;
  physical.insert(physical.end(), {"--physical-zoom", "1:3,64:96"});
  const std::string part = Svg(physical, "physical.svg");
  EXPECT_THAT(part, HasSubstr("physical zoom: gpuid 1:3, m 64:96"));
  EXPECT_THAT(part, HasSubstr(">33,0</text>"));
}

TEST(PictureCli, PhysicalZoomErrors) {
  const std::string layout = "S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]";
  RunResult r = RunAxe({"layout", "show", layout, "--physical-zoom", "0:2,0:2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "axe: error: --physical-zoom: it applies to the --svg or --latex picture\n");
  const std::string path = ::testing::TempDir() + "/picture_cli_pz.svg";
  r = RunAxe({"layout", "show", layout, "--svg", path, "--physical-zoom", "0:2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--physical-zoom: expected ROW0:ROW1,COL0:COL1, got '0:2'"));
  r = RunAxe({"layout", "show", layout, "--svg", path, "--physical-zoom", "9:12,0:4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "axe: error: --physical-zoom: the physical zoom window 9:12 holds no value of gpuid "
            "(the layout reaches 0..3)\n");
}

TEST(PictureCli, ZoomErrors) {
  RunResult r = RunAxe({"layout", "show", "S[(4,4):(4,1)]", "--zoom", "0:2,0:2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--zoom: it applies to the --svg or --latex picture"));
  const std::string path = ::testing::TempDir() + "/picture_cli_z.svg";
  r = RunAxe({"layout", "show", "S[(4,4):(4,1)]", "--svg", path, "--zoom", "0:2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--zoom: expected ROW0:ROW1,COL0:COL1, got '0:2'"));
  r = RunAxe(
      {"layout", "show", "S[(4,4):(4,1)]", "--shape", "4,4", "--svg", path, "--zoom", "0:2,3:9"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--zoom: the zoom window rows 0:2, columns 3:9 is empty or "
                               "outside the 4 x 4 grid"));
}

}  // namespace
}  // namespace picture_cli_test
}  // namespace axe
