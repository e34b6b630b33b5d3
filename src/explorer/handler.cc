// HandleRequest: routing, limits, and the JSON envelope of the explorer's answers.
#include "axe/explorer/handler.h"

#include <exception>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "axe/base/utf8.h"
#include "axe/explorer/page.h"
#include "axe/explorer/url.h"
#include "kinds.h"
#include "nlohmann/json.hpp"

namespace axe::explorer {
namespace {

using Json = nlohmann::ordered_json;

constexpr absl::string_view kJson = "application/json";

// ":8080": a colon and 1 to 5 digits.
bool IsPort(absl::string_view text) {
  if (text.size() < 2 || text.size() > 6 || text[0] != ':') return false;
  for (char c : text.substr(1)) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

Response JsonError(int status, absl::string_view kind, absl::string_view field,
                   absl::string_view message) {
  Json j = {{"kind", kind.empty() ? Json(nullptr) : Json(kind)},
            {"ok", false},
            {"field", field.empty() ? Json(nullptr) : Json(field)},
            {"error", message}};
  return {status, std::string(kJson), DumpJson(j)};
}

Response Envelope(absl::string_view kind, const KindAnswer& a) {
  if (!a.error.ok()) {
    const int status = a.error.code() == absl::StatusCode::kInternal ? 500 : 400;
    return JsonError(status, kind, a.error_field, a.error.message());
  }
  Json head = {{"kind", kind}, {"ok", true}};
  std::string body = DumpJson(head);
  body.pop_back();  // the closing '}': the answer goes in as the CLI's JSON text
  absl::StrAppend(&body, ",\"answer\":", a.answer_json,
                  ",\"svg\":", a.svg ? DumpJson(Json(*a.svg)) : "null",
                  ",\"svg_error\":", a.svg ? "null" : DumpJson(Json(a.svg_error)), "}");
  return {200, std::string(kJson), std::move(body)};
}

// The fields of the query string and (POST) the form body, together.
absl::StatusOr<Fields> RequestFields(absl::string_view query, absl::string_view body) {
  absl::StatusOr<Fields> fields = ParseQuery(query);
  if (!fields.ok()) return fields.status();
  absl::StatusOr<Fields> form = ParseQuery(body);
  if (!form.ok()) return form.status();
  for (auto& [name, value] : *form) {
    if (!fields->emplace(name, value).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("field '", name, "' is given in both the URL and the body"));
    }
  }
  return fields;
}

Response Api(absl::string_view kind, absl::string_view query, absl::string_view body) {
  absl::StatusOr<Fields> fields = RequestFields(query, body);
  if (!fields.ok()) return JsonError(400, kind, "", fields.status().message());
  if (kind == "layout") return Envelope(kind, AnswerLayout(*fields));
  if (kind == "xla") return Envelope(kind, AnswerXla(*fields));
  if (kind == "sharding") return Envelope(kind, AnswerSharding(*fields));
  return Envelope(kind, AnswerGrid(*fields));
}

Response Route(absl::string_view method, absl::string_view target, absl::string_view body) {
  if (static_cast<int64_t>(target.size()) > kMaxTargetBytes) {
    return JsonError(414, "", "",
                     absl::StrCat("the URL is ", target.size(), " bytes; at most ", kMaxTargetBytes,
                                  " (send long inputs as a POST body)"));
  }
  if (static_cast<int64_t>(body.size()) > kMaxBodyBytes) {
    return JsonError(
        413, "", "",
        absl::StrCat("the request body is ", body.size(), " bytes; at most ", kMaxBodyBytes));
  }
  if (method != "GET" && method != "POST") {
    return JsonError(405, "", "", absl::StrCat("method ", method, " not allowed (GET or POST)"));
  }
  const size_t question = target.find('?');
  const absl::string_view path = target.substr(0, question);
  const absl::string_view query =
      question == absl::string_view::npos ? absl::string_view() : target.substr(question + 1);
  if (method == "GET" && !body.empty()) {
    return JsonError(400, "", "", "a GET request with a body (send the fields in the URL)");
  }
  if (path == "/" || path == "/index.html") {
    if (method != "GET") return JsonError(405, "", "", "the page is read with GET");
    return {200, "text/html; charset=utf-8", std::string(ExplorerPage())};
  }
  if (path == "/healthz") return {200, "text/plain; charset=utf-8", "ok\n"};
  for (absl::string_view kind : {"layout", "xla", "sharding", "grid"}) {
    if (path == absl::StrCat("/api/", kind)) return Api(kind, query, body);
  }
  return JsonError(404, "", "",
                   absl::StrCat("no such page '", path.substr(0, 200),
                                "' (the explorer answers /, /api/layout, /api/xla, "
                                "/api/sharding and /api/grid)"));
}

}  // namespace

Response HandleRequest(absl::string_view method, absl::string_view target, absl::string_view body) {
  try {
    return Route(method, target, body);
  } catch (const std::exception& e) {
    return JsonError(500, "", "", absl::StrCat("internal error: ", e.what()));
  }
}

bool IsLoopbackHost(absl::string_view host) {
  if (absl::EqualsIgnoreCase(host, "localhost") || host == "::1" || host == "[::1]") return true;
  std::vector<absl::string_view> parts = absl::StrSplit(host, '.');
  if (parts.size() != 4) return false;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].empty() || parts[i].size() > 3) return false;
    int value = 0;
    for (char c : parts[i]) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
      value = value * 10 + (c - '0');
    }
    if (value > 255) return false;
    if (i == 0 && value != 127) return false;
  }
  return true;
}

bool IsLoopbackHostHeader(absl::string_view host_header) {
  absl::string_view host = host_header;
  if (absl::StartsWith(host, "[")) {
    const size_t close = host.find(']');
    if (close == absl::string_view::npos) return false;
    const absl::string_view rest = host.substr(close + 1);
    if (!rest.empty() && !IsPort(rest)) return false;
    return IsLoopbackHost(host.substr(0, close + 1));
  }
  const size_t colon = host.rfind(':');
  if (colon != absl::string_view::npos) {
    if (!IsPort(host.substr(colon))) return false;
    host = host.substr(0, colon);
  }
  return IsLoopbackHost(host);
}

}  // namespace axe::explorer
