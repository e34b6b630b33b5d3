#include "axe/explorer/handler.h"

#include <string>

#include "axe/explorer/handler.h"
#include "axe/explorer/page.h"
#include "axe/explorer/url.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe::explorer {
namespace handler_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using Json = nlohmann::json;

constexpr char kFigure2[] = "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp";

// The JSON body of `r`, after checking its content type.
Json Body(const Response& r) {
  EXPECT_EQ(r.content_type, "application/json") << r.body;
  return Json::parse(r.body);
}

// GET /api/<kind>?<fields>, each value percent-encoded.
Response Get(const std::string& kind, const std::vector<std::pair<std::string, std::string>>& fs) {
  std::string target = "/api/" + kind + "?";
  for (const auto& [name, value] : fs) target += name + "=" + PercentEncode(value) + "&";
  return HandleRequest("GET", target, "");
}

// A 400 about `field` whose message holds `message`.
void ExpectFieldError(const Response& r, const std::string& field, const std::string& message) {
  EXPECT_EQ(r.status, 400) << r.body;
  Json j = Body(r);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["field"], field) << r.body;
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr(message));
}

TEST(HandlerTest, ServesThePage) {
  Response r = HandleRequest("GET", "/", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  EXPECT_THAT(r.body, StartsWith("<!DOCTYPE html>"));
  EXPECT_EQ(r.body, std::string(ExplorerPage()));
  // Every kind has its form, and the page fetches the API relative to itself.
  for (const char* id : {"f-layout-layout", "f-xla-shape", "f-sharding-mesh", "f-grid-grid"}) {
    EXPECT_THAT(r.body, HasSubstr(id));
  }
  EXPECT_THAT(r.body, HasSubstr("fetch(`api/${kind}`"));
  EXPECT_EQ(HandleRequest("GET", "/healthz", "").body, "ok\n");
}

TEST(HandlerTest, LayoutAnswerIsTheCliJsonAndTheDrawing) {
  Response r = Get("layout", {{"layout", kFigure2}});
  ASSERT_EQ(r.status, 200) << r.body;
  Json j = Body(r);
  EXPECT_EQ(j["kind"], "layout");
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["answer"]["shape"], Json::parse("[8,16]"));
  EXPECT_EQ(j["answer"]["axes"], Json::parse(R"(["lane","warp","reg"])"));
  EXPECT_EQ(j["answer"]["replica"], "R[2:4@warp]");
  EXPECT_EQ(j["answer"]["grid"][0][1], Json::parse(R"({"lane":0,"warp":5,"reg":1})"));
  EXPECT_THAT(j["svg"].get<std::string>(), HasSubstr("<svg"));
  EXPECT_TRUE(j["svg_error"].is_null());
}

TEST(HandlerTest, LayoutOptionsAndTheirErrors) {
  Response r = Get("layout", {{"layout", "S[(4,8):(8,1)]"}, {"shape", "4,8"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["answer"]["grid"][1][0], Json::parse(R"({"m":8})"));
  ExpectFieldError(Get("layout", {{"layout", "S[(4,8"}}), "layout", "position 6");
  ExpectFieldError(Get("layout", {{"layout", "  "}}), "layout", "type an Axe layout");
  ExpectFieldError(Get("layout", {}), "layout", "type an Axe layout");
  ExpectFieldError(Get("layout", {{"layout", "S[(4,8):(8,1)]"}, {"shape", "4,8,1"}}), "shape",
                   "give ROWS,COLS, got 3 numbers");
  ExpectFieldError(Get("layout", {{"layout", "S[(4,8):(8,1)]"}, {"shape", "5,7"}}), "shape", "");
  ExpectFieldError(Get("layout", {{"layout", "S[(4,8):(8,1)]"}, {"color", "lane"}}), "color",
                   "does not use the axis 'lane'");
  ExpectFieldError(Get("layout", {{"layout", "S[4:1]"}, {"colour", "m"}}), "colour",
                   "unknown field 'colour'; expected one of: layout, shape, color, zoom, "
                   "physical_zoom");
  ExpectFieldError(Get("layout", {{"layout", "S[(4,8):(8,1)]"}, {"zoom", "0:2"}}), "zoom",
                   "expected ROW0:ROW1,COL0:COL1");
}

TEST(HandlerTest, LayoutZoomDrawsTheWindow) {
  Response r = Get("layout", {{"layout", "S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]"},
                              {"shape", "64,128"},
                              {"zoom", "0:4,64:68"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string svg = Body(r)["svg"].get<std::string>();
  EXPECT_THAT(svg, HasSubstr(">2:65</text>"));
  EXPECT_THAT(svg, HasSubstr("zoom: rows 0-3 and columns 64-67 of 64 x 128"));
  // Without a zoom the whole array is summarized: all four devices are drawn.
  Response whole =
      Get("layout", {{"layout", "S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]"}, {"shape", "64,128"}});
  ASSERT_EQ(whole.status, 200) << whole.body;
  EXPECT_THAT(Body(whole)["svg"].get<std::string>(), HasSubstr("gpuid = 3"));
}

TEST(HandlerTest, LayoutPhysicalZoomDrawsPartOfThePhysicalHalf) {
  const std::string big = "S[(2,64,2,64):(1@gpuid,64@m,2@gpuid,1@m)]";
  Response whole = Get("layout", {{"layout", big}, {"shape", "128,128"}});
  ASSERT_EQ(whole.status, 200) << whole.body;
  EXPECT_THAT(Body(whole)["svg"].get<std::string>(),
              HasSubstr("physical summary: each cell stands for a block of 1 gpuid x 128 m"));
  Response r =
      Get("layout", {{"layout", big}, {"shape", "128,128"}, {"physical_zoom", "1:3,64:96"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string svg = Body(r)["svg"].get<std::string>();
  EXPECT_THAT(svg, HasSubstr("physical zoom: gpuid 1:3, m 64:96"));
  EXPECT_THAT(svg, Not(HasSubstr("physical summary")));
  // Device 1 holds rows 64.. of columns 0..63: m = 64 is element (65, 0).
  EXPECT_THAT(svg, HasSubstr(">65,0</text>"));
  ExpectFieldError(Get("layout", {{"layout", big}, {"physical_zoom", "0:4"}}), "physical_zoom",
                   "expected ROW0:ROW1,COL0:COL1");
}

TEST(HandlerTest, XlaAnswer) {
  Response r = Get("xla", {{"shape", "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"}});
  ASSERT_EQ(r.status, 200) << r.body;
  Json j = Body(r);
  EXPECT_EQ(j["answer"]["element_type"], "bf16");
  EXPECT_EQ(j["answer"]["minor_to_major"], Json::parse("[3,2,0,1]"));
  EXPECT_EQ(j["answer"]["tile_levels"].size(), 2u);
  EXPECT_THAT(j["svg"].get<std::string>(), HasSubstr("T(8,128)(2,1)"));
  // A scalar: the facts, and why there is no drawing.
  r = Get("xla", {{"shape", "f32[]"}});
  ASSERT_EQ(r.status, 200) << r.body;
  j = Body(r);
  EXPECT_TRUE(j["svg"].is_null());
  EXPECT_FALSE(j["svg_error"].get<std::string>().empty());
  ExpectFieldError(Get("xla", {{"shape", "f32[8,128"}}), "shape", "position");
  ExpectFieldError(Get("xla", {}), "shape", "type an XLA shape");
}

TEST(HandlerTest, ShardingAnswerFromASpecAndFromHlo) {
  Response r = Get("sharding", {{"shape", "8,8"}, {"mesh", "x=2,y=2"}, {"spec", "P('x', 'y')"}});
  ASSERT_EQ(r.status, 200) << r.body;
  Json j = Body(r);
  EXPECT_EQ(j["answer"]["hlo"], "{devices=[2,2]<=[4]}");
  EXPECT_EQ(j["answer"]["shard_shape"], Json::parse("[4,4]"));
  EXPECT_EQ(j["answer"]["devices"].size(), 4u);
  EXPECT_THAT(j["svg"].get<std::string>(), HasSubstr("<svg"));
  r = Get("sharding", {{"shape", "f32[8,8]{0,1}"},
                       {"hlo",
                        "{devices=[2,1,2]0,1,2,3 "
                        "last_tile_dim_replicate}"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["answer"]["shard_shape"], Json::parse("[4,8]"));
}

TEST(HandlerTest, ShardingErrorsNameTheirField) {
  ExpectFieldError(Get("sharding", {{"mesh", "x=2"}}), "shape", "type the global shape");
  ExpectFieldError(Get("sharding", {{"shape", "8,8"}}), "mesh", "type a mesh");
  ExpectFieldError(Get("sharding", {{"shape", "8,8"}, {"mesh", "x=2"}, {"spec", "P('z')"}}), "spec",
                   "z");
  ExpectFieldError(Get("sharding", {{"shape", "7,8"}, {"mesh", "x=2"}, {"spec", "P('x')"}}), "spec",
                   "7");
  ExpectFieldError(Get("sharding", {{"shape", "8,8"}, {"dtype", "f33"}, {"mesh", "x=2"}}), "dtype",
                   "f33");
  ExpectFieldError(Get("sharding", {{"shape", "8,8"}, {"hlo", "{devices=[2"}}), "hlo", "");
  ExpectFieldError(
      Get("sharding",
          {{"shape", "8,8"}, {"mesh", "x=2"}, {"spec", "P()"}, {"hlo", "{replicated}"}}),
      "hlo", "not both");
}

TEST(HandlerTest, GridAnswer) {
  Response r = Get("grid", {{"shape", "8,6"}, {"block", "2,3"}, {"grid", "4,2"}});
  ASSERT_EQ(r.status, 200) << r.body;
  Json j = Body(r);
  EXPECT_EQ(j["answer"]["output"][7][5], 31);
  EXPECT_FALSE(j["answer"].contains("clamped"));
  EXPECT_THAT(j["svg"].get<std::string>(), HasSubstr("<svg"));
  r = Get("grid", {{"shape", "8"}, {"block", "4"}, {"grid", "3"}, {"index_map", "(i) -> i"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["answer"]["clamped"].size(), 1u);
}

TEST(HandlerTest, GridErrorsAndLimits) {
  ExpectFieldError(Get("grid", {{"shape", "8,x"}}), "shape", "");
  ExpectFieldError(Get("grid", {{"shape", "8,6"}, {"block", "2,(3"}}), "block", "");
  ExpectFieldError(Get("grid", {{"shape", "8,6"}, {"grid", "4,"}, {"block", "2,3"}}), "grid", "");
  ExpectFieldError(Get("grid", {{"shape", "8,6"}, {"grid", "4"}}), "index_map",
                   "needs one grid axis per array dimension");
  ExpectFieldError(Get("grid", {{"shape", "8,6"}, {"index_map", "(i,j)->(i"}}), "index_map", "");
  ExpectFieldError(Get("grid", {{"shape", "1024,1024"}}), "shape",
                   "the explorer runs at most 65536");
  ExpectFieldError(Get("grid", {{"shape", "4294967296,4294967296"}}), "shape",
                   "more elements than fit in int64");
  ExpectFieldError(Get("grid", {{"shape", "8"}, {"grid", "4097"}, {"index_map", "none"}}), "grid",
                   "the grid has 4097 programs; the explorer runs at most 4096");
  Response r = Get("grid", {{"shape", "8"}, {"grid", "4096"}, {"index_map", "none"}});
  EXPECT_EQ(r.status, 200) << r.body.substr(0, 300);
  // Found by the fuzz target: a huge block over a small array ran for minutes.
  ExpectFieldError(
      Get("grid",
          {{"shape", "8"}, {"block", "4294967295"}, {"grid", "3"}, {"index_map", "(i)->i"}}),
      "block", "the block has 4294967295 elements; the explorer runs at most 65536");
  ExpectFieldError(Get("grid", {{"shape", "8"}, {"block", "Element(4,(1099511627776,0))"}}),
                   "block", "the padded array has 1099511627784 elements");
  ExpectFieldError(Get("grid", {{"shape", "8"}, {"block", "Element(4,(9223372036854775807,1))"}}),
                   "block", "the padded array has more than 2^63 elements");
}

TEST(HandlerTest, PostFormBodies) {
  Response r =
      HandleRequest("POST", "/api/layout", "layout=" + PercentEncode(kFigure2) + "&shape=8%2C16");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["answer"]["shape"], Json::parse("[8,16]"));
  // A field in both the URL and the body is ambiguous.
  r = HandleRequest("POST", "/api/layout?layout=S%5B4%3A1%5D", "layout=S%5B4%3A1%5D");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(Body(r)["error"].get<std::string>(), HasSubstr("both the URL and the body"));
}

TEST(HandlerTest, MalformedRequests) {
  Response r = HandleRequest("DELETE", "/api/layout", "");
  EXPECT_EQ(r.status, 405);
  EXPECT_THAT(Body(r)["error"].get<std::string>(), HasSubstr("method DELETE not allowed"));
  r = HandleRequest("GET", "/nope", "");
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(Body(r)["error"].get<std::string>(), HasSubstr("no such page '/nope'"));
  r = HandleRequest("GET", "/api/layout?layout=%ZZ", "");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(Body(r)["error"].get<std::string>(), HasSubstr("'%' must be followed"));
  r = HandleRequest("GET", "/api/layout?layout=a%00", "");
  EXPECT_EQ(r.status, 400);
  r = HandleRequest("GET", "/api/layout", "layout=x");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(Body(r)["error"].get<std::string>(), HasSubstr("GET request with a body"));
  r = HandleRequest("POST", "/", "");
  EXPECT_EQ(r.status, 405);
  // Invalid UTF-8 in the input comes back as valid JSON.
  r = HandleRequest("GET", "/api/layout?layout=S%5B%FF", "");
  EXPECT_EQ(r.status, 400);
  EXPECT_NO_THROW(Json::parse(r.body));
}

TEST(HandlerTest, OversizedRequests) {
  Response r = HandleRequest("GET", "/api/layout?layout=" + std::string(kMaxTargetBytes, 'S'), "");
  EXPECT_EQ(r.status, 414);
  EXPECT_THAT(Body(r)["error"].get<std::string>(), HasSubstr("at most 8192"));
  r = HandleRequest("POST", "/api/layout", "layout=" + std::string(kMaxBodyBytes, 'S'));
  EXPECT_EQ(r.status, 413);
  EXPECT_THAT(Body(r)["error"].get<std::string>(), HasSubstr("at most 65536"));
  // Just under the limit: an answer (here an error about the text), not a refusal.
  r = HandleRequest("POST", "/api/layout", "layout=" + std::string(kMaxBodyBytes - 7, '('));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Body(r)["field"], "layout");
}

TEST(HandlerTest, LoopbackHosts) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]"}) {
    EXPECT_TRUE(IsLoopbackHost(host)) << host;
  }
  for (const char* host : {"0.0.0.0", "192.168.1.1", "::", "128.0.0.1", "127.0.0", "127.0.0.256",
                           "127.0.0.1 ", "127.0.0.+1", "127.0.0.1.", "example.com", ""}) {
    EXPECT_FALSE(IsLoopbackHost(host)) << host;
  }
}

TEST(HandlerTest, LoopbackHostHeaders) {
  for (const char* host :
       {"127.0.0.1:8080", "127.0.0.1", "localhost:1", "[::1]:8080", "[::1]", "LocalHost:65535"}) {
    EXPECT_TRUE(IsLoopbackHostHeader(host)) << host;
  }
  for (const char* host : {"evil.example:8080", "evil.example", "127.0.0.1.evil.example", "",
                           "127.0.0.1:", "127.0.0.1:80a", "[::1", "[::1]x", "[::2]:80",
                           "localhost:1234567", "192.168.0.1:8080"}) {
    EXPECT_FALSE(IsLoopbackHostHeader(host)) << host;
  }
}

}  // namespace
}  // namespace handler_test
}  // namespace axe::explorer
