// End-to-end tests of `axe layout group|tile|tile-of|direct-sum|slice` and of swizzled
// layouts in canon/apply/inverse/info, run as a user would.
#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace algebra_cli_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::RunAxe;
using ::testing::StartsWith;

TEST(AlgebraCli, TileExample47) {
  auto r = RunAxe({"layout", "tile", "--outer", "S[(8,8):(8,1)]", "--outer-shape", "8,8", "--inner",
                   "S[(2,3):(3,1)]", "--inner-shape", "2,3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "S[(8,2,8,3):(48,3,6,1)]\n");
  r = RunAxe({"layout", "tile", "--outer", "S[(8,8):(8,1)]", "--outer-shape", "8,8", "--inner",
              "S[(2,3):(3,1)]", "--inner-shape", "2,3", "--json"});
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"layout": "S[(8,2,8,3):(48,3,6,1)]"})"));
  // Printed canonical (Example 45a), and paper semantics for offsets (Example 49a).
  r = RunAxe({"layout", "tile", "--outer", "S[(8,4):(4@laneid,1@laneid)]", "--outer-shape", "8,4",
              "--inner", "S[(1,2):(2,1)]", "--inner-shape", "1,2"});
  EXPECT_EQ(r.out, "S[(32,2):(1@laneid,1)]\n");
  r = RunAxe({"layout", "tile", "--outer", "S[2:1] + 1@m", "--outer-shape", "2", "--inner",
              "S[4:1] + 2@m", "--inner-shape", "4"});
  EXPECT_EQ(r.out, "S[8:1] + 6\n");
}

TEST(AlgebraCli, TileOfASwizzleAtom) {
  auto r = RunAxe({"layout", "tile", "--outer", "S[(8,4):(1,8)]", "--outer-shape", "8,4", "--inner",
                   "Swizzled(3,3,3, S[512])", "--inner-shape", "8,64", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["layout"], "Swizzled(3,3,3, S[(64,4,64):(64,4096,1)])");
}

TEST(AlgebraCli, GroupExample37And38) {
  auto r = RunAxe({"layout", "group", "S[(32,2):(1@laneid,1)]", "--shape", "8,8"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "S[(8,4,2):(4@laneid,1@laneid,1)]\nseps [0, 1, 3]\n");
  r = RunAxe({"layout", "group", "S[(32,2):(1@laneid,1)]", "--shape", "8,8", "--json"});
  EXPECT_EQ(json::parse(r.out),
            json::parse(R"({"layout": "S[(8,4,2):(4@laneid,1@laneid,1)]", "seps": [0, 1, 3]})"));
  r = RunAxe({"layout", "group", "S[30:1]", "--shape", "6,5", "--shape", "2,15", "--json"});
  EXPECT_EQ(json::parse(r.out),
            json::parse(R"({"layout": "S[(2,3,5):(15,5,1)]", "meet": [2, 3, 5],)"
                        R"( "seps": [[0, 2, 3], [0, 1, 3]]})"));
  // Replicas and offsets are shown canonical.
  r = RunAxe({"layout", "group", "S[16:1] + R[4:-2@warp]", "--shape", "4,4"});
  EXPECT_EQ(r.out, "S[(4,4):(4,1)] + R[4:2@warp] + (-6)@warp\nseps [0, 1, 2]\n");
  r = RunAxe({"layout", "group", "S[(6,2):(1,6)]", "--shape", "4,3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot form shape entry 0 (= 4)"));
}

TEST(AlgebraCli, TileOfBothDirectionsAndNoAnswer) {
  auto r = RunAxe({"layout", "tile-of", "S[(8,2,32):(64,1,2)]", "--shape", "16,32", "--inner",
                   "S[(2,4):(1,2)]", "--inner-shape", "2,4"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "S[64:1]\n");  // S[(8,8):(8,1)], printed canonical
  r = RunAxe({"layout", "tile-of", "S[(8,2,8,3):(48,3,6,1)]", "--shape", "16,24", "--outer",
              "S[(8,8):(8,1)]", "--outer-shape", "8,8", "--json"});
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"layout": "S[6:1]"})"));
  // Example 51: an answer that says there is none, exit code 0.
  r = RunAxe({"layout", "tile-of", "S[16:1]", "--shape", "4,4", "--inner", "S[(2,2):(4,1)]",
              "--inner-shape", "2,2", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_TRUE(j["layout"].is_null());
  EXPECT_THAT(j["reason"].get<std::string>(), HasSubstr("span 6"));
  r = RunAxe({"layout", "tile-of", "S[16:1]", "--shape", "4,4", "--inner", "S[(2,2):(4,1)]",
              "--inner-shape", "2,2"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, StartsWith("no answer: "));
}

TEST(AlgebraCli, DirectSumExample51) {
  auto r = RunAxe({"layout", "direct-sum", "--left", "S[(2,2):(8,2)]", "--left-shape", "2,2",
                   "--right", "S[(2,2):(4,1)]", "--right-shape", "2,2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "S[16:1]\n");
  r = RunAxe({"layout", "direct-sum", "--outer", "S[(2,2):(8,2)]", "--outer-shape", "2,2",
              "--inner", "S[(2,2):(4,1)]", "--inner-shape", "2,2", "--json"});
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"layout": "S[16:1]"})"));
}

TEST(AlgebraCli, SliceExamples) {
  auto r = RunAxe(
      {"layout", "slice", "S[(2,8,3,8):(192,8,64,1)]", "--shape", "16,24", "--region", "0:8,8:24"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "S[(8,2,8):(8,64,1)] + 64\n");
  // The same box as every box prints.
  r = RunAxe({"layout", "slice", "S[(2,8,3,8):(192,8,64,1)]", "--shape", "16,24", "--region",
              "[[0, 8], [8, 24]]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "S[(8,2,8):(8,64,1)] + 64\n");
  r = RunAxe({"layout", "slice", "S[(4,4,4,4):(64,4,16,1)]", "--shape", "16,16", "--region",
              "2:3,6:10", "--json"});
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"layout": "S[(2,2):(14,1)] + 26"})"));
  r = RunAxe({"layout", "slice", "S[(8,8):(8,1)]", "--shape", "64", "--region", "5:8"});
  EXPECT_EQ(r.out, "S[3:1] + 5\n");
  r = RunAxe({"layout", "slice", "S[(4,4):(1,4)]", "--shape", "16", "--region", "3:6", "--json"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(json::parse(r.out)["layout"].is_null());
  // A swizzled layout slices its inner layout and keeps the swizzle.
  r = RunAxe({"layout", "slice", "Swizzled(3,3,3, S[(8,64):(64,1)])", "--shape", "8,64", "--region",
              "0:8,0:8"});
  EXPECT_EQ(r.out, "Swizzled(3,3,3, S[(8,8):(64,1)])\n");
}

TEST(AlgebraCli, SwizzledLayoutsInCanonApplyInverseInfo) {
  const char* kSw = "Swizzled(3,3,3, S[(8,64):(64,1)])";
  auto r = RunAxe({"layout", "canon", "ComposeLayout(3,3,3,S[(8,64):(64,1)])"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Swizzled(3,3,3, S[512:1])\n");
  r = RunAxe({"layout", "canon", "Swizzled(3,3,3, S[(8,64):(64,1)], inner=false)", "--json"});
  EXPECT_EQ(json::parse(r.out)["layout"], "Swizzled(3,3,3, S[512:1], inner=false)");
  r = RunAxe({"layout", "apply", kSw, "--shape", "8,64", "--coord", "3,21"});  // Example 60
  EXPECT_EQ(r.out, "{m:205}\n");
  r = RunAxe({"layout", "apply", kSw, "--shape", "8,64", "--coord", "1,0", "--json"});
  EXPECT_EQ(json::parse(r.out)["base"], json::parse(R"({"m": 72})"));
  r = RunAxe({"layout", "inverse", kSw, "--shape", "8,64", "--point", "m=205"});
  EXPECT_EQ(r.out, "(3, 21)\n");
  r = RunAxe({"layout", "info", kSw, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["layout"], kSw);
  EXPECT_EQ(j["canonical"], "Swizzled(3,3,3, S[512:1])");
  EXPECT_EQ(j["injective"], true);
  EXPECT_EQ(j["swizzle"],
            json::parse(R"({"per_element": 3, "swizzle_len": 3, "atom_len": 3, "inner": true,
                                          "period": 512})"));
  r = RunAxe({"layout", "info", kSw});
  EXPECT_THAT(r.out, HasSubstr("(M,B,S) = (3,3,3), repeats every 512 elements"));
}

TEST(AlgebraCli, BadInputExitsWithTwoAndOneLine) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"layout", "tile", "--outer", "S[(8,8):(8,1)]", "--outer-shape", "8,8", "--inner",
            "S[6:1]", "--inner-shape", "6"},
           {"layout", "tile", "--outer", "S[(8,8):(8,1)]", "--outer-shape", "8,8", "--inner",
            "S[6:1"},
           {"layout", "tile", "--outer", "Swizzled(3,3,3, S[512])", "--outer-shape", "512",
            "--inner", "S[2:1]", "--inner-shape", "2"},
           {"layout", "tile", "--outer", "S[2:1]", "--outer-shape", "2", "--inner",
            "Swizzled(3,3,3, S[256])", "--inner-shape", "256"},
           {"layout", "group", "S[16:1]", "--shape", "4,5"},
           {"layout", "group", "S[16:1]"},
           {"layout", "tile-of", "S[16:1]", "--shape", "4,4"},
           {"layout", "tile-of", "S[16:1]", "--shape", "4,4", "--inner", "S[4:1]"},
           {"layout", "tile-of", "S[16:1]", "--shape", "4,4", "--inner", "S[4:1]", "--inner-shape",
            "4"},
           {"layout", "direct-sum", "--left", "S[4:1]", "--left-shape", "4", "--right", "S[4:1]",
            "--right-shape", "2,2"},
           {"layout", "slice", "S[16:1]", "--shape", "4,4", "--region", "0:5,0:1"},
           {"layout", "slice", "S[16:1]", "--shape", "4,4", "--region", "0:2;0:1"},
           {"layout", "canon", "Swizzled(3,3,2, S[512])"},
           {"layout", "apply", "Swizzled(3,3,3, S[(8,4):(4@laneid,1)])", "--flat", "0"},
       }) {
    auto r = RunAxe(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << " " << r.out;
    EXPECT_THAT(r.err, StartsWith("axe: error: ")) << args[1];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  auto r =
      RunAxe({"layout", "slice", "S[16:1]", "--shape", "4,4", "--region", "0:5,0:1", "--json"});
  EXPECT_THAT(json::parse(r.out)["error"].get<std::string>(), HasSubstr("dimension 0"));
  r = RunAxe({"layout", "tile", "--outer", "S[2:1]", "--outer-shape", "2", "--inner",
              "Swizzled(3,3,3, S[256])", "--inner-shape", "256"});
  EXPECT_THAT(r.err, HasSubstr("swizzle period 512"));
}

TEST(AlgebraCli, EverySubcommandHasHelp) {
  for (const char* sub : {"group", "tile", "tile-of", "direct-sum", "slice"}) {
    auto r = RunAxe({"layout", sub, "--help"});
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_THAT(r.out, HasSubstr("--json")) << sub;
  }
}

TEST(AlgebraCli, TourShowsTilingIntoACtaAndAMesh) {
  auto r = RunAxe({"tour", "--part", "algebra"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]"));
  EXPECT_THAT(r.out, HasSubstr("warpid"));
  EXPECT_THAT(r.out, HasSubstr("S[(2,4,2,4):(1@gpuid,4,2@gpuid,1)]"));
  // Alpa's S0R, built by tiling with a replicated mesh part: both copies of (5, 2).
  EXPECT_THAT(r.out, HasSubstr("  S[(2,4,8):(1@gpuid,8,1)] + R[2:2@gpuid]\n"
                               "  (5, 2) -> {gpuid:1, m:10} {gpuid:3, m:10}\n"));
  EXPECT_THAT(r.out, HasSubstr("Swizzled(3,3,3, S[(64,4,64):(64,4096,1)])"));
}

}  // namespace
}  // namespace algebra_cli_test
}  // namespace axe
