// The explorer's requests (explorer/handler.h): the first line is "METHOD TARGET", the rest
// the body. Every answer is a documented status, and a JSON answer is valid JSON with "ok"
// true exactly on a 200 and an error message otherwise.
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "axe/explorer/handler.h"
#include "fuzz_check.h"
#include "nlohmann/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input = axe::fuzz::AsText(data, size);
  const size_t newline = input.find('\n');
  const absl::string_view line = input.substr(0, newline);
  const absl::string_view body =
      newline == absl::string_view::npos ? absl::string_view() : input.substr(newline + 1);
  const size_t space = line.find(' ');
  const absl::string_view method = line.substr(0, space);
  const absl::string_view target =
      space == absl::string_view::npos ? absl::string_view() : line.substr(space + 1);
  const axe::explorer::Response r = axe::explorer::HandleRequest(method, target, body);
  const int s = r.status;
  AXE_FUZZ_CHECK(s == 200 || s == 400 || s == 404 || s == 405 || s == 413 || s == 414,
                 "undocumented status " + std::to_string(s));
  if (r.content_type == "application/json") {
    const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
    AXE_FUZZ_CHECK(!j.is_discarded(), "invalid JSON: " + r.body.substr(0, 200));
    AXE_FUZZ_CHECK(j.contains("ok") && j["ok"] == (s == 200), "ok disagrees with the status");
    AXE_FUZZ_CHECK(s == 200 || (j["error"].is_string() && !j["error"].get<std::string>().empty()),
                   "a refusal without a message");
  }
  return 0;
}
