// Golden tests of `axe layout ...` and `axe tour`, run as a user would.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace layout_cli_test {
namespace {

using ::testing::HasSubstr;
using testing::RunAxe;
using testing::RunAxeWithStdin;
using ::testing::StartsWith;

constexpr char kLA[] = "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp";

TEST(LayoutCli, Canon) {
  auto r = RunAxe({"layout", "canon", "S[(8,8,8,4,2):(512,64,8,2,1)]"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "S[4096:1]\n");
  r = RunAxe({"layout", "canon", "S[(8,8,8,4,2):(512,64,8,2,1)]", "--json"});
  EXPECT_EQ(nlohmann::json::parse(r.out), nlohmann::json::parse(R"({"layout": "S[4096:1]"})"));
  r = RunAxe({"layout", "canon", "S[(2,2,8,4):(2@warpid,1@warpid,4@laneid,1@laneid)]",
              "--fuse-thread-scopes"});
  EXPECT_EQ(r.out, "S[128:1@tx]\n");
}

TEST(LayoutCli, Apply) {
  auto r = RunAxe({"layout", "apply", kLA, "--shape", "8,16", "--coord", "2,9"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{lane:8, reg:1, warp:6}\n{lane:8, reg:1, warp:10}\n");
  r = RunAxe({"layout", "apply", kLA, "--shape", "8,16", "--coord", "2,9", "--json"});
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["points"].size(), 2u);
  EXPECT_EQ(j["points"][0], nlohmann::json::parse(R"({"warp": 6, "lane": 8, "reg": 1})"));
  EXPECT_EQ(j["points"][1], nlohmann::json::parse(R"({"warp": 10, "lane": 8, "reg": 1})"));
  EXPECT_EQ(j["base"], nlohmann::json::parse(R"({"warp": 6, "lane": 8, "reg": 1})"));
  r = RunAxe({"layout", "apply", kLA, "--flat", "41"});
  EXPECT_EQ(r.out, "{lane:8, reg:1, warp:6}\n{lane:8, reg:1, warp:10}\n");
}

TEST(LayoutCli, Inverse) {
  auto r = RunAxe({"layout", "inverse", kLA, "--shape", "8,16", "--point", "warp=6,lane=8,reg=1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "(2, 9)\n");
  r = RunAxe(
      {"layout", "inverse", kLA, "--shape", "8,16", "--point", "warp=6,lane=8,reg=1", "--json"});
  EXPECT_EQ(nlohmann::json::parse(r.out), nlohmann::json::parse(R"({"coords": [[2, 9]]})"));
  r = RunAxe(
      {"layout", "inverse", kLA, "--shape", "8,16", "--point", "warp=7,lane=8,reg=1", "--json"});
  EXPECT_EQ(nlohmann::json::parse(r.out), nlohmann::json::parse(R"({"coords": []})"));
  r = RunAxe({"layout", "inverse", "S[(2,2):(1,1)]", "--point", "m=1"});
  EXPECT_EQ(r.out, "(1)\n(2)\n");
}

TEST(LayoutCli, Info) {
  auto r = RunAxe({"layout", "info", kLA, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["size"], 128);
  EXPECT_EQ(j["injective"], true);
  EXPECT_EQ(j["storage"], "S[2:1@reg]");
  EXPECT_EQ(j["axes"]["warp"],
            nlohmann::json::parse(R"({"kind": "thread", "size": 2, "span": 6})"));
  EXPECT_EQ(j["axes"]["reg"]["kind"], "memory");
  r = RunAxe({"layout", "info", "S[(2,2):(1,1)]"});
  EXPECT_THAT(r.out, HasSubstr("injective  no"));
  r = RunAxe({"layout", "info", "S[4:1@x]", "--axis", "x=device", "--json"});
  EXPECT_EQ(nlohmann::json::parse(r.out)["axes"]["x"]["kind"], "device");
}

TEST(LayoutCli, Show) {
  auto r = RunAxe({"layout", "show", "S[(2,2):(1,2)]", "--shape", "2,2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "each cell: m\n  0 1\n0 0 2\n1 1 3\n");
}

TEST(LayoutCli, BadInputExitsWithTwoAndOneLine) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"layout", "apply", kLA, "--shape", "8,15", "--coord", "2,9"},
           {"layout", "apply", "S[(8,2]", "--coord", "1"},
           {"layout", "apply", kLA, "--shape", "8,16", "--coord", "2,16"},
           {"layout", "apply", kLA},
           {"layout", "inverse", kLA, "--point", "warp6"},
           {"layout", "canon"},
           {"layout", "canon", kLA, "--bogus"},
           {"layout", "info", kLA, "--axis", "x=gpu"},
           {"layout"},
           {"frobnicate"},
       }) {
    auto r = RunAxe(args);
    EXPECT_EQ(r.exit_code, 2) << args[1];
    EXPECT_THAT(r.err, StartsWith("axe: error: "));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  auto r = RunAxe({"layout", "apply", kLA, "--shape", "8,15", "--coord", "2,9"});
  EXPECT_THAT(r.err, HasSubstr("shape (8, 15) has 120 elements"));
  r = RunAxe({"layout", "apply", "S[(8,2]", "--coord", "1"});
  EXPECT_THAT(r.err, HasSubstr("position 6: expected ')' or ','"));
  r = RunAxe({"layout", "apply", kLA, "--shape", "8,16", "--coord", "2,16", "--json"});
  EXPECT_THAT(nlohmann::json::parse(r.out)["error"].get<std::string>(), HasSubstr("dimension 1"));
}

TEST(LayoutCli, EverySubcommandHasHelp) {
  for (const char* sub : {"canon", "apply", "inverse", "info", "show"}) {
    auto r = RunAxe({"layout", sub, "--help"});
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_THAT(r.out, HasSubstr("--json")) << sub;
  }
}

TEST(LayoutCli, TextFromStdinAndFiles) {
  auto r = RunAxeWithStdin({"layout", "canon", "-"}, "S[(8,8,8,4,2):\n(512,64,8,2,1)]\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "S[4096:1]\n");
  char path[] = "/tmp/axe-layout-cli-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text = "S[(2,4):(1@x,1)] where x:device";
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  r = RunAxe({"layout", "canon", std::string("@") + path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "S[(2,4):(1@x,1)] where x:device\n");
  unlink(path);
  r = RunAxe({"layout", "canon", "@/nonexistent/axe-layout"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "axe: error: layout: cannot read file '/nonexistent/axe-layout'\n");
}

TEST(LayoutCli, AxisKindsFromTheCommandLine) {
  auto r = RunAxe({"layout", "canon", "S[(2,4):(1@x,1)]", "--axis", "x=device"});
  EXPECT_EQ(r.out, "S[(2,4):(1@x,1)] where x:device\n");
  r = RunAxe({"layout", "info", "S[(2,4):(1@x,1)]", "--axis", "x=device", "--json"});
  EXPECT_THAT(r.out, HasSubstr(R"("kind":"device")"));
  r = RunAxe({"layout", "canon", "S[4:1]", "--axis", "x=gpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--axis 'x=gpu': unknown axis kind 'gpu'"));
  // A point's names take the kinds they have in the layout.
  r = RunAxe({"layout", "inverse", "S[(2,4):(1@x,1)] where x:device", "--point", "x=1,m=2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "(6)\n");
}

TEST(LayoutCli, UserErrorsAreOneLineAndQuoteWhatWasTyped) {
  auto r = RunAxe({"layout", "canon", "S[(8,2]\n + R[2:1@w]"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  r = RunAxe({"layout", "apply", "S[8:1]", "--flat", ""});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--flat: expected an integer, got an empty value"));
  r = RunAxe({"layout", "apply", "S[8:1]", "--flat", "9223372036854775808"});
  EXPECT_THAT(r.err, HasSubstr("got '9223372036854775808'"));
  r = RunAxe({"layout", "apply", "S[8:1]", "--flat", "-9223372036854775809"});
  EXPECT_THAT(r.err, HasSubstr("got '-9223372036854775809'"));
  r = RunAxe({"bogus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown command 'bogus' for 'axe'; expected one of: layout"));
  r = RunAxe({"layout", "bogus"});
  EXPECT_THAT(r.err, HasSubstr("unknown command 'bogus' for 'axe layout'; expected one of: canon"));
  r = RunAxe({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, StartsWith("axe 0."));
  r = RunAxe({"layout", "group", "Swizzled(3,3,3, S[512:1])", "--shape", "512"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("this command takes a plain layout S[...], not a Swizzled(...)"));
}

TEST(LayoutCli, ShowDrawsLargeLayoutsReadably) {
  // Figure 2 without --shape: drawn 8 x 16 (its trailing extents), not refused.
  auto r = RunAxe({"layout", "show", kLA});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("R[2:4@warp]"));
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 10);  // legend, header, 8 rows
  r = RunAxe({"layout", "show", "S[(1024,1024):(1024,1)]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("showing rows 0-31 of 1024 and columns 0-15 of 1024"));
  EXPECT_LT(r.out.size(), 4000u);
  r = RunAxe({"layout", "show", kLA, "--json"});
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["replica"], "R[2:4@warp]");
  EXPECT_EQ(j["shape"], nlohmann::json::parse("[8, 16]"));
  EXPECT_EQ(j["grid"].size(), 8u);
  EXPECT_EQ(j["grid"][2][9], nlohmann::json::parse(R"({"lane": 8, "warp": 6, "reg": 1})"));
}

TEST(Tour, RunsAndShowsTheSeedExamples) {
  auto r = RunAxe({"tour"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("{lane:8, reg:1, warp:6}  {lane:8, reg:1, warp:10}"));
  EXPECT_THAT(r.out, HasSubstr("-> S[4096:1]"));
  EXPECT_THAT(r.out, HasSubstr("(600,3) -> {Bank:1, F:88, P:3}"));
  EXPECT_EQ(RunAxe({"tour", "--part", "nope"}).exit_code, 2);
}

}  // namespace
}  // namespace layout_cli_test
}  // namespace axe
