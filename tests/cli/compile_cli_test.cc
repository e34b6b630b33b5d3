// End-to-end tests of `axe compile`.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace compile_cli_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::RunAxe;
using testing::RunAxeWithStdin;

// [LN-1], the layout notebook's apply_fn as jax.make_jaxpr prints it.
const std::string kApplyFn = "@" AXE_SOURCE_DIR "/tests/jit/testdata/apply_fn.jaxpr";

TEST(CompileCli, AutoLayoutsOfTheLayoutNotebook) {
  auto r = RunAxe({"compile", "--jaxpr", kApplyFn, "--in", "Format(Layout.AUTO)", "--in",
                   "Format(Layout.AUTO)", "--out", "Format(Layout.AUTO)", "--out",
                   "Format(Layout.AUTO)", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["input_formats"][0]["layout"]["major_to_minor"], json::parse("[0,1]"));
  EXPECT_EQ(j["input_formats"][1]["layout"]["major_to_minor"], json::parse("[1,0]"));
  EXPECT_EQ(j["input_formats"][1]["sharding"], nullptr);
  EXPECT_EQ(j["explain"].size(), 4u);
  EXPECT_EQ(j["explain"][1]["candidates"][1],
            json::parse(R"({"major_to_minor":[1,0],"bytes":2048,)"
                        R"("reason":"slice reads 32 lines of 64 B","chosen":true})"));

  // The same file from standard input.
  std::ifstream file(kApplyFn.substr(1));
  std::stringstream text;
  text << file.rdbuf();
  r = RunAxeWithStdin({"compile", "--jaxpr", "-", "--in", "Format(Layout.AUTO)", "--in",
                       "Format(Layout.AUTO)", "--explain"},
                      text.str());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  args[1] f32[512,1024]  Format(layout=Layout(major_to_minor=(1, "
                               "0), tiling=(), sub_byte_element_size_in_bits=0), sharding="
                               "None)\n"));
  EXPECT_THAT(r.out, HasSubstr("  * major_to_minor=(1, 0)"));
}

TEST(CompileCli, BadInput) {
  auto r = RunAxe({"compile", "--jaxpr", "{ lambda ; a:f32[4]. let in (a,) }", "--in",
                   "Format(Layout((1, 0)), SingleDeviceSharding(device=0))"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("is incompatible with its layout annotation"));
  r = RunAxe({"compile", "--jaxpr", "{ lambda ; a:f32[4]. let in (a,) }", "--in", "Format(3)"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--in 0: "));
  r = RunAxe({"compile", "--jaxpr", "{ lambda ; a:f32[4]. let b = sin in (a,) }"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--jaxpr: "));
}

}  // namespace
}  // namespace compile_cli_test
}  // namespace axe

namespace axe {
namespace compile_cli_test {
namespace {

TEST(CompileCli, DonationWithAutoOnOneSideIsJaxsError) {
  const std::string jaxpr = "{ lambda ; a:f32[8]. let b:f32[8] = mul a 2.0:f32[] in (b,) }";
  auto bad =
      testing::RunAxe({"compile", "--jaxpr", jaxpr, "--in", "Format(Layout.AUTO)", "--out",
                       "Format(Layout((0,)), SingleDeviceSharding(device=0))", "--donate", "0"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, ::testing::HasSubstr("Input layout being donated was AUTO while output "
                                            "layout was Layout(major_to_minor=(0,)"));
  auto ok = testing::RunAxe({"compile", "--jaxpr", jaxpr, "--in", "Format(Layout.AUTO)", "--out",
                             "Format(Layout.AUTO)", "--donate", "0"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_THAT(ok.out, ::testing::HasSubstr("donated: args[0] aliases output [0]\n"));
}

}  // namespace
}  // namespace compile_cli_test
}  // namespace axe
