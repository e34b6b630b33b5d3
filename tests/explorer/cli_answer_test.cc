// The explorer answers what the CLI prints: for each kind, the "answer" of HandleRequest is
// the --json line of the matching command. And `axe serve` stays on the loopback interface
// unless told otherwise.
#include <string>
#include <vector>

#include "axe/explorer/handler.h"
#include "axe/explorer/url.h"
#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe::explorer {
namespace cli_answer_test {
namespace {

using ::axe::testing::RunAxe;
using ::axe::testing::RunResult;
using ::testing::HasSubstr;
using Json = nlohmann::ordered_json;

// The "answer" of GET /api/<kind>?<fields> as compact JSON text.
std::string Answer(const std::string& kind,
                   const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string target = "/api/" + kind + "?";
  for (const auto& [name, value] : fields) target += name + "=" + PercentEncode(value) + "&";
  Response r = HandleRequest("GET", target, "");
  EXPECT_EQ(r.status, 200) << r.body.substr(0, 300);
  return Json::parse(r.body)["answer"].dump();
}

std::string CliJson(const std::vector<std::string>& args) {
  RunResult r = RunAxe(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return Json::parse(r.out).dump();
}

TEST(CliAnswerTest, LayoutShow) {
  const std::string fig2 = "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp";
  EXPECT_EQ(Answer("layout", {{"layout", fig2}}), CliJson({"layout", "show", fig2, "--json"}));
  EXPECT_EQ(Answer("layout", {{"layout", "S[(4,8):(8,1)]"}, {"shape", "4,8"}}),
            CliJson({"layout", "show", "S[(4,8):(8,1)]", "--shape", "4,8", "--json"}));
}

TEST(CliAnswerTest, XlaExplain) {
  for (const char* shape : {"bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}", "f32[3,5]{0,1}",
                            "(f32[2]{0}, s8[4]{0:T(4)})"}) {
    EXPECT_EQ(Answer("xla", {{"shape", shape}}), CliJson({"xla", "explain", shape, "--json"}))
        << shape;
  }
}

// The CLI adds notes on how it read its flags (an assumed device order names --devices); the
// explorer's answer carries the explanation's own notes. Everything else is the same.
std::string WithoutNotes(const std::string& json) {
  Json j = Json::parse(json);
  j.erase("notes");
  return j.dump();
}

TEST(CliAnswerTest, ShardExplain) {
  EXPECT_EQ(
      WithoutNotes(Answer("sharding", {{"shape", "8,8"}, {"mesh", "x=2,y=2"}, {"spec", "P('x')"}})),
      WithoutNotes(CliJson({"shard", "explain", "--shape", "8,8", "--mesh", "x=2,y=2", "--spec",
                            "P('x')", "--json"})));
  EXPECT_EQ(Answer("sharding", {{"shape", "f32[8,8]{0,1}"}, {"hlo", "{devices=[2,2]0,2,1,3}"}}),
            CliJson({"shard", "explain", "--shape", "f32[8,8]{0,1}", "--hlo",
                     "{devices=[2,2]0,2,1,3}", "--json"}));
}

TEST(CliAnswerTest, GridShow) {
  EXPECT_EQ(
      Answer("grid", {{"shape", "8,6"}, {"block", "2,3"}, {"grid", "4,2"}}),
      CliJson({"grid", "show", "--shape", "8,6", "--block", "2,3", "--grid", "4,2", "--json"}));
  EXPECT_EQ(
      Answer("grid", {{"shape", "8"}, {"block", "4"}, {"grid", "3"}, {"index_map", "(i)->i"}}),
      CliJson({"grid", "show", "--shape", "8", "--block", "4", "--grid", "3", "--index-map",
               "(i)->i", "--json"}));
}

TEST(ServeCliTest, RefusesANonLoopbackHostWithoutAllowRemote) {
  if (RunAxe({"serve", "--help"}).exit_code != 0) {
    GTEST_SKIP() << "axe was built without cpp-httplib (libcpp-httplib-dev): no axe serve";
  }
  RunResult r = RunAxe({"serve", "--host", "0.0.0.0", "--port", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--host: 0.0.0.0 is not a loopback address"));
  EXPECT_THAT(r.err, HasSubstr("pass --allow-remote"));
  EXPECT_EQ(r.out, "");
  r = RunAxe({"serve", "--port", "70000"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--port"));
}

}  // namespace
}  // namespace cli_answer_test
}  // namespace axe::explorer
