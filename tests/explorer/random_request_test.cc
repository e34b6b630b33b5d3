// Random requests never crash HandleRequest: every answer is one of the statuses it documents
// with a JSON body (or the page), whatever the bytes.
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "axe/explorer/handler.h"
#include "axe/explorer/url.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/test_seed.h"

namespace axe::explorer {
namespace random_request_test {
namespace {

// A field value: a piece of a valid input, cut or mixed with random bytes.
std::string RandomValue(std::mt19937_64& rng) {
  static const std::vector<std::string> kPieces = {"S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)]",
                                                   " + R[2:4@warp]",
                                                   " + 5@warp",
                                                   "8,8",
                                                   "4,2",
                                                   "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}",
                                                   "x=2,y=2",
                                                   "P('x', 'y')",
                                                   "{devices=[2,2]0,1,2,3}",
                                                   "(i,j)->(i,j)",
                                                   "None",
                                                   "2,3",
                                                   "-1",
                                                   "999999999999",
                                                   "(",
                                                   "]",
                                                   "%",
                                                   "\xff",
                                                   "@",
                                                   ":"};
  std::string out;
  const int pieces = static_cast<int>(rng() % 4);
  for (int i = 0; i < pieces; ++i) {
    std::string piece = kPieces[rng() % kPieces.size()];
    if (rng() % 3 == 0) piece = piece.substr(0, rng() % (piece.size() + 1));
    out += piece;
  }
  for (int i = static_cast<int>(rng() % 3); i > 0; --i) {
    out.insert(out.begin() + static_cast<int64_t>(rng() % (out.size() + 1)),
               static_cast<char>(rng() % 256));
  }
  return out;
}

std::string RandomFields(std::mt19937_64& rng) {
  static const std::vector<std::string> kNames = {
      "layout", "shape", "color",     "dtype", "mesh", "spec",    "hlo",
      "block",  "grid",  "index_map", "x",     "",     "layout%2"};
  std::string out;
  for (int i = static_cast<int>(rng() % 5); i > 0; --i) {
    std::string value = RandomValue(rng);
    out += kNames[rng() % kNames.size()] + "=" + (rng() % 4 ? PercentEncode(value) : value) + "&";
  }
  return out;
}

TEST(RandomRequestTest, EveryAnswerIsDocumented) {
  std::mt19937_64 rng(testing_support::TestSeed(15));
  static const std::vector<std::string> kMethods = {"GET", "POST", "PUT", "get", ""};
  static const std::vector<std::string> kPaths = {"/api/layout", "/api/xla", "/api/sharding",
                                                  "/api/grid",   "/",        "/api/",
                                                  "/healthz",    "api/grid", "/api/layout/x"};
  int answered = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string method = kMethods[rng() % 3 ? rng() % 2 : rng() % kMethods.size()];
    std::string target = kPaths[rng() % kPaths.size()];
    if (rng() % 2) target += "?" + RandomFields(rng);
    const std::string body = method == "POST" ? RandomFields(rng) : "";
    Response r = HandleRequest(method, target, body);
    SCOPED_TRACE(method + " " + target + " body " + body);
    EXPECT_THAT(r.status, ::testing::AnyOf(200, 400, 404, 405));
    (r.status == 200 ? answered : refused) += 1;
    if (r.content_type == "application/json") {
      nlohmann::json j = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
      ASSERT_FALSE(j.is_discarded()) << r.body.substr(0, 200);
      EXPECT_EQ(j["ok"], r.status == 200);
      if (r.status != 200) {
        EXPECT_FALSE(j["error"].get<std::string>().empty());
      }
    }
  }
  // Both kinds of answer were exercised.
  EXPECT_GT(answered, 100);
  EXPECT_GT(refused, 100);
  std::cout << answered << " answered, " << refused << " refused\n";
}

}  // namespace
}  // namespace random_request_test
}  // namespace axe::explorer
