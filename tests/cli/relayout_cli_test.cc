// End-to-end tests of `axe relayout` (small shapes only).
#include <fstream>
#include <string>
#include <utility>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace relayout_cli_test {
namespace {

using ::testing::HasSubstr;
using testing::RunAxe;
using testing::RunAxeWithStdin;

TEST(RelayoutCli, TransposeJsonWithCheck) {
  auto r = RunAxe({"relayout", "--shape", "64,48", "--dtype", "f32", "--from", "S[(64,48):(48,1)]",
                   "--to", "S[(64,48):(1,64)]", "--check", "--json", "--repeat", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  for (const char* key : {"gbps", "seconds", "bytes", "memcpy_gbps", "threads", "plan", "check"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["check"], "passed");
  EXPECT_EQ(j["bytes"], 2 * 64 * 48 * 4);
  EXPECT_EQ(j["threads"], 1);
  EXPECT_GT(j["gbps"].get<double>(), 0);
  EXPECT_GT(j["memcpy_gbps"].get<double>(), 0);
  EXPECT_THAT(j["plan"].get<std::string>(), HasSubstr("kernel transpose"));
}

TEST(RelayoutCli, JsonPlanParts) {
  auto r = RunAxe({"relayout", "--shape", "64,48", "--from", "S[(64,48):(48,1)]", "--to",
                   "S[(64,48):(1,64)]", "--json", "--repeat", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["runs"], 2);
  EXPECT_EQ(j["stopped_by_time_limit"], false);
  const nlohmann::json& plan = j["plan_parts"];
  EXPECT_EQ(plan["shape"], nlohmann::json::array({64, 48}));
  EXPECT_EQ(plan["element_bytes"], 4);
  EXPECT_EQ(plan["from"], "S[(64,48):(48,1)]");
  EXPECT_EQ(plan["to"], "S[(64,48):(1,64)]");
  EXPECT_EQ(plan["generic"], false);
  EXPECT_EQ(plan["threads"], j["threads"]);
  ASSERT_EQ(plan["pieces"].size(), 1u);
  const nlohmann::json& piece = plan["pieces"][0];
  EXPECT_EQ(piece["kind"], "copy");
  EXPECT_EQ(piece["loops"][0],
            nlohmann::json({{"extent", 48}, {"src_stride", 1}, {"dst_stride", 64}}));
  EXPECT_EQ(piece["loops"][1],
            nlohmann::json({{"extent", 64}, {"src_stride", 48}, {"dst_stride", 1}}));
  EXPECT_THAT(piece["kernel"].get<std::string>(), HasSubstr("transpose"));
  EXPECT_EQ(piece["block"].size(), 2u);
  for (const char* key : {"loop_order", "staged", "streaming_stores"}) {
    EXPECT_TRUE(piece.contains(key)) << key;
  }
  for (const char* key : {"kernels", "chunks", "simd_target", "note", "generic_reason"}) {
    EXPECT_TRUE(plan.contains(key)) << key;
  }
  // The text form is still there, and names the same kernel and loop order.
  EXPECT_THAT(j["plan"].get<std::string>(), HasSubstr(piece["loop_order"].get<std::string>()));
}

TEST(RelayoutCli, RepeatIsBoundedAndValidated) {
  for (const char* bad : {"0", "-1", "1000001", "1000000000"}) {
    auto r = RunAxe({"relayout", "--shape", "8,8", "--from", "S[(8,8):(8,1)]", "--to",
                     "S[(8,8):(1,8)]", "--repeat", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_THAT(r.err,
                HasSubstr(std::string("--repeat: must be between 1 and 1000000, got ") + bad));
  }
  auto r = RunAxe({"relayout", "--shape", "8,8", "--from", "S[(8,8):(8,1)]", "--to",
                   "S[(8,8):(1,8)]", "--repeat", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("best of 5 timed runs"));
}

TEST(RelayoutCli, LayoutsFromFiles) {
  const std::string dir = ::testing::TempDir();
  const std::string from = dir + "/relayout_from.txt", to = dir + "/relayout_to.txt";
  std::ofstream(from) << "bf16[60,250]{1,0}\n";
  std::ofstream(to) << "S[(8,4,2,2,128):(2048,256,1,1024,2)]\n  over (64, 256)\n";
  auto r = RunAxe(
      {"relayout", "--from", "@" + from, "--to", "@" + to, "--check", "--json", "--repeat", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["check"], "passed");
  EXPECT_EQ(j["plan_parts"]["element_bytes"], 2);
  // Standard input, and the shape and dtype from a file too.
  const std::string shape = dir + "/relayout_shape.txt";
  std::ofstream(shape) << "8, 8\n";
  r = RunAxeWithStdin({"relayout", "--shape", "@" + shape, "--dtype", "bfloat16", "--from", "-",
                       "--to", "S[(8,8):(1,8)]", "--check", "--json", "--repeat", "1"},
                      "S[(8,8):\n(8,1)]\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["check"], "passed");
  EXPECT_EQ(j["plan_parts"]["element_bytes"], 2);
  r = RunAxe({"relayout", "--from", "@" + dir + "/no_such_file", "--to", "S[4:1]"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--from: cannot read file"));
}

TEST(RelayoutCli, TextOutputAndThreads) {
  auto r = RunAxe({"relayout", "--shape", "4,8,16", "--dtype", "bf16", "--from",
                   "S[(4,8,16):(128,16,1)]", "--to", "S[(4,8,16):(1,64,4)]", "--threads", "2",
                   "--check", "--repeat", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("relayout (4, 8, 16) x 2 B"));
  EXPECT_THAT(r.out, HasSubstr("bandwidth"));
  EXPECT_THAT(r.out, HasSubstr("memcpy"));
  EXPECT_THAT(r.out, HasSubstr("check     passed"));
}

TEST(RelayoutCli, PaddedTiledDestinationWithFill) {
  auto r = RunAxe({"relayout", "--shape", "5,6", "--dtype", "s32", "--from", "S[(5,6):(6,1)]",
                   "--to", "S[(3,2,2,4):(16,4,8,1)] over (6,8)", "--fill", "-1", "--check",
                   "--json", "--repeat", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["check"], "passed");
  EXPECT_EQ(j["bytes"], (30 + 48) * 4);  // read the tensor, write it and the padding
}

// --fill values the type cannot hold are errors (they were wrapped or truncated before);
// the conversion is relayout::ParseElementValue's, tested in tests/runtime.
TEST(RelayoutCli, FillValueChecked) {
  auto fill = [](const char* dtype, const char* value) {
    return RunAxe({"relayout", "--shape", "5,6", "--dtype", dtype, "--from", "S[(5,6):(6,1)]",
                   "--to", "S[(3,2,2,4):(16,4,8,1)] over (6,8)", "--fill", value, "--check",
                   "--json", "--repeat", "1"});
  };
  auto r = fill("u8", "300");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--fill: '300' is out of range for u8 (0 to 255)"));
  r = fill("s32", "1.5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--fill: '1.5' is not an integer"));
  r = fill("pred", "2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--fill: '2' is not a pred value"));
  r = fill("f16", "1e5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--fill: '1e5' is out of range for f16"));
  for (auto [dtype, value] : {std::pair{"s64", "9007199254740993"},
                              {"bf16", "0.1"},
                              {"f16", "-2.5"},
                              {"pred", "true"},
                              {"u8", "255"}}) {
    r = fill(dtype, value);
    ASSERT_EQ(r.exit_code, 0) << dtype << ": " << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["check"], "passed") << dtype;
  }
}

TEST(RelayoutCli, EveryElementSize) {
  for (const char* dtype : {"u8", "f16", "f32", "f64", "c128"}) {
    auto r =
        RunAxe({"relayout", "--shape", "17,33", "--dtype", dtype, "--from", "S[(17,33):(33,1)]",
                "--to", "S[(17,33):(1,17)]", "--check", "--json", "--repeat", "1"});
    ASSERT_EQ(r.exit_code, 0) << dtype << ": " << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["check"], "passed") << dtype;
  }
}

TEST(RelayoutCli, Errors) {
  auto r = RunAxe({"relayout", "--shape", "8,8", "--dtype", "s4", "--from", "S[(8,8):(8,1)]",
                   "--to", "S[(8,8):(1,8)]"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("sub-byte packed type 's4'"));
  r = RunAxe({"relayout", "--shape", "8,8", "--from", "S[(8,8):(8,1)", "--to", "S[(8,8):(1,8)]"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--from: position"));
  r = RunAxe({"relayout", "--shape", "8,9", "--from", "S[(8,8):(8,1)]", "--to", "S[(8,8):(1,8)]"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("has 72 elements but the layout"));
  r = RunAxe({"relayout", "--shape", "8,8", "--from", "S[(8,8):(8,1)]", "--to", "S[(8,8):(1,1)]"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("not injective"));
  r = RunAxe({"relayout", "--shape", "8,8", "--from", "f32[8,9]{1,0}", "--to", "S[(8,8):(1,8)]"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--from: the shape's dims (8, 9) differ from (8, 8)"));
  r = RunAxe({"relayout", "--from", "bf16[8,8]{1,0}", "--to", "f32[8,8]{0,1}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--to: element type f32 differs from bf16"));
  r = RunAxe({"relayout", "--from", "s4[8,8]{1,0}", "--to", "s4[8,8]{0,1}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("sub-byte packed type 's4'"));
  r = RunAxe({"relayout", "--from", "S[64:1]", "--to", "S[64:1]"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("a shape is required unless --from or --to is an XLA shape"));
  r = RunAxe({"relayout", "--shape", "8,8", "--from", "S[(8,8):(8,1)]", "--to", "S[(8,8):(1,8)]",
              "--json", "--dtype", "q7"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(nlohmann::json::parse(r.out)["error"].get<std::string>(),
              HasSubstr("--dtype: unknown element type 'q7'"));
}

TEST(RelayoutCli, XlaShapeStrings) {
  // The TPU tiling both ways, shape and dtype from the shape strings; padded (60 x 250 in
  // 8 x 128 tiles) with the padding filled.
  auto r = RunAxe({"relayout", "--from", "bf16[64,256]{1,0}", "--to",
                   "bf16[64,256]{1,0:T(8,128)(2,1)}", "--check", "--json", "--repeat", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["check"], "passed");
  EXPECT_EQ(j["bytes"], 2 * 64 * 256 * 2);
  EXPECT_THAT(j["plan"].get<std::string>(), HasSubstr("kernel interleave 2"));
  r = RunAxe({"relayout", "--from", "bf16[60,250]{1,0:T(8,128)(2,1)}", "--to", "bf16[60,250]{0,1}",
              "--check", "--repeat", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("over (64, 256)"));
  EXPECT_THAT(r.out, HasSubstr("check     passed"));
  r = RunAxe({"relayout", "--shape", "60,250", "--from", "f32[60,250]{1,0}", "--to",
              "f32[60,250]{1,0:T(8,128)}", "--fill", "0", "--check", "--json", "--repeat", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["check"], "passed");
}

TEST(RelayoutCli, RefusesWhatDoesNotFitInMemory) {
  // 10^12 f32 elements: 16 TB of buffers. A clear error instead of a failed allocation.
  auto r = RunAxe({"relayout", "--shape", "1000000,1000000", "--from",
                   "S[(1000000,1000000):(1000000,1)]", "--to", "S[(1000000,1000000):(1,1000000)]"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("the relayout (source, destination, memcpy baseline) "
                               "needs about 14.6 TiB"));
  // The global budget option: a 64 MiB run refused under a 16 MiB budget, before allocating.
  r = RunAxe({"--memory-limit", "16M", "relayout", "--shape", "4096,4096", "--from",
              "f32[4096,4096]{1,0}", "--to", "f32[4096,4096]{0,1}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("the memory budget is 16.0 MiB (16777216 bytes), from "
                               "--memory-limit"));
  // The same after the command's name, and from the environment variable's bad value.
  r = RunAxe({"relayout", "--shape", "4096,4096", "--from", "f32[4096,4096]{1,0}", "--to",
              "f32[4096,4096]{0,1}", "--memory-limit", "16M"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("from --memory-limit"));
  r = RunAxe({"--memory-limit", "lots", "relayout", "--shape", "8", "--from", "f32[8]{0}", "--to",
              "f32[8]{0}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--memory-limit: expected a positive byte count"));
}

TEST(RelayoutCli, Help) {
  auto r = RunAxe({"relayout", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("--check"));
  EXPECT_THAT(r.out, HasSubstr("--threads"));
}

}  // namespace
}  // namespace relayout_cli_test
}  // namespace axe
