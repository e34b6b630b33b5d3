// End-to-end tests of `axe xla ...`, run as a user would.
#include <cstdio>
#include <fstream>
#include <string>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace xla_cli_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::RunAxe;
using testing::RunAxeWithStdin;
using ::testing::StartsWith;

TEST(XlaCli, ExplainJsonFigureOne) {
  auto r = RunAxe({"xla", "explain", "f32[3,5]{1,0:T(2,2)}", "--index", "2,3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["shape"], "f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(j["element_type"], "f32");
  EXPECT_EQ(j["bit_width"], 32);
  EXPECT_EQ(j["elements_in"], 15);
  EXPECT_EQ(j["byte_size_of"], 60);
  EXPECT_EQ(j["array_size_bytes"], 96);
  EXPECT_EQ(j["padded_elements"], 24);
  EXPECT_EQ(j["memory_space"], 0);
  EXPECT_EQ(j["memory_space_name"], "default");
  EXPECT_EQ(j["axe"], "S[(2,2,3,2):(12,2,4,1)]");
  EXPECT_EQ(j["axe_domain"], json::parse("[4,6]"));
  EXPECT_EQ(j["linear_index"], 17);
  EXPECT_EQ(j["tile_position"][0]["tile_index"], json::parse("[1,1]"));
  r = RunAxe({"xla", "explain", "f32[3,5]{1,0:T(2,2)}", "--json"});
  EXPECT_FALSE(json::parse(r.out).contains("linear_index"));
}

TEST(XlaCli, ExplainTextNamesThePhysicalOrderInWords) {
  auto r =
      RunAxe({"xla", "explain", "bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}", "--index", "1,9,300"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("shape           bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}\n"));
  EXPECT_THAT(r.out, HasSubstr("bf16: float, 16 bits"));
  EXPECT_THAT(r.out, HasSubstr("major to minor: dim 0 (size 32), dim 1 (size 32), dim 2 (size "
                               "4096); dim 2 varies fastest"));
  EXPECT_THAT(r.out, HasSubstr("memory space    1: fast memory: VMEM"));
  EXPECT_THAT(r.out, HasSubstr("elements_in     4194304\n"));
  EXPECT_THAT(r.out, HasSubstr("byte_size_of    8388608 bytes"));
  EXPECT_THAT(
      r.out,
      HasSubstr("level 2: (2,1) covers the minor dims (8, 128): (4, 128) tiles of (2, 1)\n"));
  EXPECT_THAT(r.out, HasSubstr("(1, 9, 300) -> linear offset 165977 (elements); byte 331954\n"));
  EXPECT_THAT(r.out, HasSubstr("level 1: tile (1, 2), position (1, 44) inside it"));
}

TEST(XlaCli, ExplainTupleOneLinePerLeaf) {
  auto r = RunAxe({"xla", "explain", "(f32[2], (token[], s4[8]{0:E(4)}))"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "tuple           (f32[2]{0}, (token[], s4[8]{0:E(4)}))\n"
            "{0} f32[2]{0}: 2 elements, byte_size_of 8, array_size 8, padded_elements 2, memory "
            "space 0 (default), "
            "axe S[2:1] over (2)\n"
            "{1,0} token[]: token\n"
            "{1,1} s4[8]{0:E(4)}: 8 elements, byte_size_of 4, array_size 4, padded_elements 8, "
            "memory space 0 "
            "(default), axe S[8:1] over (8)\n");
  r = RunAxe({"xla", "explain", "(f32[2], (token[], u8[3]{0:S(5)}))", "--json"});
  json j = json::parse(r.out);
  EXPECT_EQ(j["shape"], "(f32[2]{0}, (token[], u8[3]{0:S(5)}))");
  ASSERT_EQ(j["tuple"].size(), 2u);
  EXPECT_EQ(j["tuple"][0]["elements_in"], 2);
  EXPECT_EQ(j["tuple"][1]["shape"], "(token[], u8[3]{0:S(5)})");
  EXPECT_EQ(j["tuple"][1]["tuple"][0]["element_type"], "token");
  EXPECT_EQ(j["tuple"][1]["tuple"][1]["memory_space_name"], "pinned_host");
}

TEST(XlaCli, ExplainNotExpressible) {
  auto r = RunAxe({"xla", "explain", "f32[8,128]{1,0:T(8,128)(3,1)}", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_TRUE(j["axe"].is_null());
  EXPECT_TRUE(j["axe_domain"].is_null());
  EXPECT_EQ(j["padded_elements"], 1152);
  EXPECT_EQ(j["array_size_bytes"], 4096);
  EXPECT_THAT(j["axe_error"].get<std::string>(), HasSubstr("not expressible"));
}

TEST(XlaCli, Offset) {
  auto r = RunAxe({"xla", "offset", "f32[3,5]{1,0:T(2,2)}", "--linear", "17"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "(2, 3)\n");
  r = RunAxe({"xla", "offset", "f32[3,5]{1,0:T(2,2)}", "--linear", "17", "--json"});
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"index": [2, 3]})"));
  r = RunAxe({"xla", "offset", "f32[3,5]{1,0:T(2,2)}", "--linear", "9"});
  EXPECT_EQ(r.out, "padding\n");
  r = RunAxe({"xla", "offset", "f32[3,5]{1,0:T(2,2)}", "--linear", "9", "--json"});
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"index": null, "padding": true})"));
  r = RunAxe({"xla", "offset", "f32[4,8]{1,0:T(2,4)(2,1)}", "--linear", "19"});
  EXPECT_EQ(r.out, "(3, 1)\n");
}

TEST(XlaCli, Check) {
  auto r = RunAxe({"xla", "check", "bf16[2,3,1004]{2,1,0:T(2,*,128)}"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "ok\n");
  r = RunAxe({"xla", "check", "f32[2]", "--json"});
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"ok": true, "shape": "f32[2]{0}"})"));
  r = RunAxe({"xla", "check", "f32[2,3]{0,0}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("duplicate values"));
  EXPECT_EQ(RunAxe({"xla", "check", "f32[2,3]{0,0}", "--lenient"}).exit_code, 0);
}

TEST(XlaCli, BadInputExitsWithTwoAndOneLine) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"xla", "check", "f32[2]{0:T(-2)}"},
           {"xla", "check", "f32[2]{0:L(0)}"},
           {"xla", "check", "token[1]"},
           {"xla", "check", "f32[2]{}"},
           {"xla", "explain", "F32[3,5]"},
           {"xla", "explain", "f32[3,5]", "--index", "3,0"},
           {"xla", "explain", "f32[3,5]", "--index", "1"},
           {"xla", "explain", "(f32[3])", "--index", "1"},
           {"xla", "offset", "f32[3,5]{1,0:T(2,2)}", "--linear", "24"},
           {"xla", "offset", "f32[3,5]{1,0:T(2,2)}", "--linear", "-1"},
           {"xla", "offset", "(f32[3])", "--linear", "0"},
           {"xla", "offset", "f32[3]"},
           {"xla"},
       }) {
    auto r = RunAxe(args);
    EXPECT_EQ(r.exit_code, 2) << args.back();
    EXPECT_THAT(r.err, StartsWith("axe: error: ")) << args.back();
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  auto r = RunAxe({"xla", "check", "f32[2]{0:T(-2)}", "--json"});
  EXPECT_THAT(json::parse(r.out)["error"].get<std::string>(), HasSubstr("position 11"));
}

TEST(XlaCli, EverySubcommandHasHelp) {
  for (const char* sub : {"explain", "offset", "check"}) {
    auto r = RunAxe({"xla", sub, "--help"});
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_THAT(r.out, HasSubstr("--json")) << sub;
  }
}

TEST(XlaTour, ExplainsTheTwoShapes) {
  auto r = testing::RunAxe({"tour", "--part", "xla"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("dim 1 (1), dim 0 (8), dim 2 (1280), dim 3 (16384)"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("gives {m:63177873}, the same offset"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("(0, 0, 0)->0 (0, 1, 0)->1 (0, 0, 1)->2"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("    12  13  16  17  20"));
  EXPECT_THAT(r.out,
              ::testing::HasSubstr(
                  "f32[8,128]{1,0:T(8,128)(3,1)}          1024       4096      4096         1152"));
}

// check, explain and offset apply one rule: a tile ending with '*' is invalid.
TEST(XlaCli, TileEndingWithCombineIsRejectedByEveryCommand) {
  for (const char* text : {"f32[4,8]{1,0:T(2,*)}", "f32[4]{0:T(*)}", "f32[4,8]{1,0:T(*,*)}"}) {
    for (std::vector<std::string> args : {std::vector<std::string>{"xla", "check", text},
                                          {"xla", "explain", text},
                                          {"xla", "offset", text, "--linear", "0"}}) {
      auto r = RunAxe(args);
      EXPECT_EQ(r.exit_code, 2) << args[1] << " " << text;
      EXPECT_THAT(r.err, HasSubstr("layout has invalid tiles")) << args[1] << " " << text;
    }
  }
}

TEST(XlaCli, ExplainJsonCarriesWhatTheTextShows) {
  auto r = RunAxe({"xla", "explain", "s4[8,256]{0,1:T(2,128)L(4)E(4)S(1)SC(0:100)M(8)}", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["minor_to_major"], json::parse("[0,1]"));
  EXPECT_EQ(j["major_to_minor"], json::parse("[1,0]"));
  EXPECT_EQ(j["tile_levels"][0]["tile"], "(2,128)");
  EXPECT_EQ(j["tile_levels"][0]["covered"], json::parse("[256,8]"));
  EXPECT_EQ(j["tile_levels"][0]["tiles"], json::parse("[128,1]"));
  EXPECT_EQ(j["expanded_shape"], json::parse("[128,1,2,128]"));
  EXPECT_EQ(j["element_size_in_bits"], 4);
  EXPECT_EQ(j["tail_padding_alignment"], 4);
  EXPECT_EQ(j["metadata_prefix_bytes"], 8);
  EXPECT_EQ(j["split_configs"], json::parse(R"j(["(0:100)"])j"));
  EXPECT_EQ(j["memory_space"], 1);
  EXPECT_TRUE(j["invalid"].is_null());
  EXPECT_THAT(j["physical_order"].get<std::string>(), HasSubstr("dim 0 varies fastest"));
  // Under --lenient an invalid shape says why, as the text does.
  r = RunAxe({"xla", "explain", "f32[2,3]{0,0}", "--lenient", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(json::parse(r.out)["invalid"].get<std::string>(), HasSubstr("duplicate values"));
  r = RunAxe({"xla", "explain", "f32[2,3]{0,0}", "--lenient"});
  EXPECT_THAT(r.out, HasSubstr("invalid         layout minor_to_major field has duplicate values"));
}

TEST(XlaCli, ExplainTupleLeafAndPackedOffsets) {
  auto r = RunAxe(
      {"xla", "explain", "(f32[2], (token[], s4[8]{0:E(4)}))", "--leaf", "1,1", "--index", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("leaf            {1,1} of (f32[2]{0}, (token[], s4[8]{0:E(4)}))\n"));
  EXPECT_THAT(r.out, HasSubstr("shape           s4[8]{0:E(4)}\n"));
  EXPECT_THAT(
      r.out,
      HasSubstr("(5) -> linear offset 5 (elements); byte 2, bit 4 of that byte (bit offset 20)"));
  r = RunAxe({"xla", "explain", "(f32[2], (token[], s4[8]{0:E(4)}))", "--leaf", "1,1", "--index",
              "5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["leaf"], json::parse("[1,1]"));
  EXPECT_EQ(j["linear_index"], 5);
  EXPECT_EQ(j["element_position"]["byte_offset"], 2);
  EXPECT_EQ(j["element_position"]["bit_in_byte"], 4);
  r = RunAxe({"xla", "explain", "(f32[2], token[])", "--leaf", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err,
              HasSubstr("--leaf: leaf index (2): position 0 is 2, but that tuple has 2 elements"));
  r = RunAxe({"xla", "explain", "(f32[2], token[])", "--index", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("pick a tuple leaf with --leaf"));
}

TEST(XlaCli, EveryCommandReadsAFile) {
  const std::string path = ::testing::TempDir() + "/axe_xla_cli_shape.txt";
  {
    std::ofstream f(path);
    f << "f32[3,5]{1,0:T(2,2)}\n";
  }
  auto r = RunAxe({"xla", "check", "@" + path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok\n");
  r = RunAxe({"xla", "offset", "@" + path, "--linear", "17"});
  EXPECT_EQ(r.out, "(2, 3)\n");
  r = RunAxe({"xla", "explain", "@" + path, "--index", "2,3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["linear_index"], 17);
  r = RunAxe({"xla", "check", "@" + path + ".missing"});
  EXPECT_EQ(r.exit_code, 2);
  std::remove(path.c_str());
}

// Every leaf of --json has the same keys, token and opaque ones included (null where a field
// does not apply); they used to lack invalid, minor_to_major, tile_levels and more.
TEST(XlaCli, ExplainJsonLeavesShareTheirKeys) {
  auto r = RunAxe({"xla", "explain", "(f32[2], token[], opaque[], b(s8[4]{0}))", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["tuple"].size(), 4u);
  std::vector<std::string> keys;
  for (const auto& [key, value] : j["tuple"][0].items()) keys.push_back(key);
  EXPECT_GT(keys.size(), 25u);
  for (size_t k = 1; k < 4; ++k) {
    std::vector<std::string> leaf_keys;
    for (const auto& [key, value] : j["tuple"][k].items()) leaf_keys.push_back(key);
    EXPECT_EQ(leaf_keys, keys) << "leaf " << k;
  }
  const json& token = j["tuple"][1];
  EXPECT_EQ(token["kind"], "token");
  EXPECT_EQ(token["byte_size_of"], 0);
  EXPECT_TRUE(token["bit_width"].is_null());
  EXPECT_TRUE(token["minor_to_major"].is_null());
  EXPECT_TRUE(token["memory_space"].is_null());
  EXPECT_EQ(j["tuple"][2]["kind"], "opaque");
  EXPECT_TRUE(j["tuple"][2]["byte_size_of"].is_null());
  EXPECT_EQ(j["tuple"][3]["kind"], "buffer");
  EXPECT_EQ(j["tuple"][3]["elements_in"], 4);
  r = RunAxe({"xla", "explain", "token[]"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "shape           token[]\n"
            "kind            token (an ordering token: no data, 0 bytes)\n");
}

// --leaf and --index take '@FILE' like the shape.
TEST(XlaCli, LeafAndIndexReadFiles) {
  const std::string leaf_path = ::testing::TempDir() + "/axe_xla_cli_leaf.txt";
  const std::string index_path = ::testing::TempDir() + "/axe_xla_cli_index.txt";
  std::ofstream(leaf_path) << "1,1\n";
  std::ofstream(index_path) << "5\n";
  auto r = RunAxe({"xla", "explain", "(f32[2], (token[], s4[8]{0:E(4)}))", "--leaf",
                   "@" + leaf_path, "--index", "@" + index_path, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["leaf"], json({1, 1}));
  EXPECT_EQ(j["linear_index"], 5);
  std::remove(leaf_path.c_str());
  std::remove(index_path.c_str());
}

TEST(XlaCli, ErrorsNameTheElementTypeAndStayShort) {
  auto r = RunAxe({"xla", "check", "f128[4]"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("position 0: unknown element type 'f128'"));
  r = RunAxe({"xla", "check", "f32[8,8]{1,0:T(2,-2)}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("layout has invalid tiles"));
}

constexpr char kFusion[] =
    "%fusion.3 = bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)} "
    "fusion(bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)} "
    "%fusion.32), kind=kCustom, calls=%fused_computation.3";

TEST(XlaCli, ExplainsAnHloInstructionLine) {
  auto r = RunAxe({"xla", "explain", kFusion});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(
      r.out,
      HasSubstr(
          "== result %fusion.3\nshape           bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}\n"));
  EXPECT_THAT(r.out, HasSubstr("== operand 0 %fusion.32\nshape           bf16[32,32,8192]"));
  EXPECT_THAT(r.out, HasSubstr("array_size      16777216 bytes"));
  EXPECT_THAT(r.out, HasSubstr("memory space    1: fast memory"));
  r = RunAxe({"xla", "explain", kFusion, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["instructions"][0]["name"], "%fusion.3");
  EXPECT_EQ(j["instructions"][0]["operands"][0]["shape"]["array_size_bytes"], 16777216);
  EXPECT_EQ(j["memory_space_totals"][0]["memory_space"], 1);
  EXPECT_EQ(j["memory_space_totals"][0]["array_size_bytes"], 8388608);
}

TEST(XlaCli, ExplainsAnHloModuleFromAFile) {
  const std::string path = ::testing::TempDir() + "/axe_xla_cli_module.hlo";
  {
    std::ofstream f(path);
    f << "HloModule m, entry_computation_layout={(f32[8]{0})->f32[8]{0:S(1)}}\n\n"
         "ENTRY %main (p: f32[8]) -> f32[8] {\n"
         "  %p = f32[8]{0} parameter(0)\n"
         "  ROOT %n = f32[8]{0:S(1)} negate(f32[8]{0} %p)\n"
         "}\n";
  }
  auto r = RunAxe({"xla", "explain", "@" + path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("module          m\n"));
  EXPECT_THAT(r.out, HasSubstr("entry layout    (f32[8]{0})->f32[8]{0:S(1)}\n"));
  EXPECT_THAT(r.out, HasSubstr("computation     %main\n"));
  EXPECT_THAT(r.out, HasSubstr("line 5: ROOT %n = negate\n"));
  EXPECT_THAT(r.out, HasSubstr("  S(0) default: 1 buffers, 32 bytes\n"));
  EXPECT_THAT(r.out, HasSubstr("  S(1) fast: 1 buffers, 32 bytes\n"));
  r = RunAxe({"xla", "explain", "@" + path, "--index", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--index and --leaf take a single shape"));
  std::remove(path.c_str());
  r = RunAxe({"xla", "explain", "%a = f32[2] negate(f32[2] %b"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("HLO: line 1:"));
}

// A module of `n` instructions, each with a tiled operand and result.
std::string BigModule(int n) {
  std::string text = "HloModule big\n\nENTRY %main (p: f32[8,128]) -> f32[8,128] {\n";
  text += "  %i0 = f32[8,128]{1,0:T(8,128)} parameter(0)\n";
  for (int i = 1; i < n; ++i) {
    text += "  %i" + std::to_string(i) +
            " = f32[8,128]{1,0:T(8,128)} negate(f32[8,128]{1,0:T(8,128)} %i" +
            std::to_string(i - 1) + ")\n";
  }
  return text + "  ROOT %r = f32[8,128]{1,0} copy(f32[8,128]{1,0:T(8,128)} %i" +
         std::to_string(n - 1) + ")\n}\n";
}

TEST(XlaCli, ExplainHloJsonStreamsAndIsBudgeted) {
  const std::string module = BigModule(2000);
  auto r = RunAxeWithStdin({"xla", "explain", "-", "--json"}, module);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["module"], "big");
  ASSERT_EQ(j["instructions"].size(), 2001u);
  EXPECT_EQ(j["instructions"][2000]["opcode"], "copy");
  EXPECT_TRUE(j["instructions"][2000]["root"]);
  EXPECT_EQ(j["memory_space_totals"].size(), 1u);
  // Under a budget below 20 bytes per byte of text: refused before scanning.
  r = RunAxeWithStdin({"--memory-limit", "1M", "xla", "explain", "-", "--json"}, module);
  EXPECT_EQ(r.exit_code, 2);
  // (The final newline is not part of the text.)
  EXPECT_THAT(r.err, HasSubstr("explaining " + std::to_string(module.size() - 1) +
                               " bytes of HLO needs about"));
  EXPECT_THAT(r.err, HasSubstr("from --memory-limit"));
}

}  // namespace
}  // namespace xla_cli_test
}  // namespace axe
