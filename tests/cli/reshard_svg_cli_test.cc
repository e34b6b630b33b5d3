// End-to-end tests of --svg on `axe reshard` (the plan's picture, picture::ReshardSvg) and
// `axe relayout` (the two layouts side by side, picture::RelayoutSvg): the file is written
// next to the usual output, is the library's picture (the golden for the tour's 2x2
// reshard), and errors are one line, exit 2.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe {
namespace reshard_svg_cli_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunAxe;
using testing::RunResult;
using ::testing::StartsWith;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string TempPath(const std::string& name) {
  const std::string path = ::testing::TempDir() + "/reshard_svg_cli_" + name;
  std::remove(path.c_str());
  return path;
}

const std::vector<std::string> kTourReshard = {
    "reshard",      "--shape", "8,8",          "--mesh",   "x=2,y=2", "--from",
    "P('x', None)", "--to",    "P(None, 'y')", "--repeat", "1"};

TEST(ReshardSvgCli, WritesTheTourGoldenAndStillPrintsThePlan) {
  const std::string path = TempPath("tour.svg");
  std::vector<std::string> args = kTourReshard;
  args.insert(args.end(), {"--svg", path});
  RunResult r = RunAxe(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("V_min 256 bytes"));
  EXPECT_EQ(ReadFile(path), ReadFile(std::string(AXE_SOURCE_DIR) +
                                     "/tests/picture/golden/reshard_2x2_rows_to_columns.svg"));
}

TEST(ReshardSvgCli, JsonIsUnchangedBySvg) {
  std::vector<std::string> args = kTourReshard;
  args.push_back("--json");
  RunResult plain = RunAxe(args);
  args.insert(args.end(), {"--svg", TempPath("json.svg")});
  RunResult with_svg = RunAxe(args);
  ASSERT_EQ(with_svg.exit_code, 0) << with_svg.err;
  EXPECT_THAT(with_svg.out, StartsWith("{"));
  EXPECT_THAT(with_svg.out, Not(HasSubstr("<svg")));
  EXPECT_EQ(plain.exit_code, 0);
}

TEST(ReshardSvgCli, UnwritableFileIsOneLineExit2) {
  std::vector<std::string> args = kTourReshard;
  args.insert(args.end(), {"--svg", "/nonexistent-dir/r.svg"});
  RunResult r = RunAxe(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--svg: cannot write '/nonexistent-dir/r.svg'"));
}

TEST(RelayoutSvgCli, DrawsBothLayouts) {
  const std::string path = TempPath("transpose.svg");
  RunResult r = RunAxe({"relayout", "--shape", "8,8", "--from", "S[(8,8):(8,1)]", "--to",
                        "S[(8,8):(1,8)]", "--repeat", "1", "--svg", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("relayout (8, 8)"));
  const std::string svg = ReadFile(path);
  EXPECT_THAT(svg, StartsWith("<?xml"));
  EXPECT_THAT(svg, HasSubstr("relayout S[(8,8):(8,1)] -&gt; S[(8,8):(1,8)]"));
  EXPECT_THAT(svg, HasSubstr("</svg>"));
}

TEST(RelayoutSvgCli, XlaShapesWithTheSameDomainDraw) {
  const std::string path = TempPath("tiled.svg");
  RunResult r = RunAxe({"relayout", "--from", "bf16[16,256]{1,0}", "--to",
                        "bf16[16,256]{1,0:T(8,128)(2,1)}", "--repeat", "1", "--svg", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ReadFile(path), HasSubstr("</svg>"));
}

TEST(RelayoutSvgCli, PaddedDestinationIsRefusedBeforeRunning) {
  const std::string path = TempPath("padded.svg");
  RunResult r = RunAxe(
      {"relayout", "--from", "f32[10,10]{1,0}", "--to", "f32[10,10]{1,0:T(8,128)}", "--svg", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--svg: the source S[(10,10):(10,1)] has 100 elements"));
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(ReadFile(path), "");
}

}  // namespace
}  // namespace reshard_svg_cli_test
}  // namespace axe
