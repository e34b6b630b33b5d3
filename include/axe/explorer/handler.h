// The explorer's request handling (`axe serve`), with no socket: a request's method, target
// (path and query string) and body in, a status, content type and body out. The server in
// the CLI only moves bytes between the socket and HandleRequest.
//
// Routes:
//   GET /                     the page (page.h): HTML and JavaScript, no external resources
//   GET|POST /api/layout      layout=TEXT [shape=R,C] [color=AXIS]
//   GET|POST /api/xla         shape=XLA-SHAPE
//   GET|POST /api/sharding    shape=DIMS|XLA-SHAPE [dtype=T] and mesh=M spec=P, or hlo=H
//   GET|POST /api/grid        shape=DIMS [block=B] [grid=G] [index_map=F] [dtype=T]
//   GET /healthz              "ok"
// The fields come from the query string or, for POST, a body of form-encoded fields
// (`a=1&b=x%2By`, whatever its Content-Type; the page sends text/plain). An answer is JSON:
//   {"kind": K, "ok": true, "answer": <the CLI's --json of that command>,
//    "svg": <the drawing> | null, "svg_error": null | "why there is no drawing"}
// and bad input is a 400 with {"kind": K, "ok": false, "field": F, "error": MESSAGE}, F
// naming the input field the error is about (the page shows it under that field).
//
//   Response r = HandleRequest("GET", "/api/layout?layout=S%5B(4,8):(8,1)%5D", "");
//   // r.status == 200, r.content_type == "application/json"
#ifndef AXE_EXPLORER_HANDLER_H_
#define AXE_EXPLORER_HANDLER_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace axe::explorer {

// The longest request target (path + query) and body accepted, and the largest grid the
// explorer runs: elements of its output array, and programs (each may report a clamped
// window, so the answer stays within a few megabytes).
inline constexpr int64_t kMaxTargetBytes = 8 * 1024;
inline constexpr int64_t kMaxBodyBytes = 64 * 1024;
inline constexpr int64_t kMaxGridElements = int64_t{1} << 16;
inline constexpr int64_t kMaxGridPrograms = 4096;

struct Response {
  int status = 200;
  std::string content_type;
  std::string body;
};

// Never fails: malformed or oversized requests get a 4xx with a JSON message (405 for a
// method other than GET/POST, 404 for an unknown path, 413/414 past the limits, 400 for bad
// encodings or input).
Response HandleRequest(absl::string_view method, absl::string_view target, absl::string_view body);

// Whether `host` names the loopback interface: "localhost", an IPv4 address in 127.0.0.0/8
// or "::1" (with or without brackets).
bool IsLoopbackHost(absl::string_view host);

// Whether an HTTP Host header ("127.0.0.1:8080", "localhost", "[::1]:8080") names a loopback
// host. A server on the loopback interface refuses other Host headers: a web page elsewhere
// that rebinds its own name to 127.0.0.1 (DNS rebinding) cannot then read the answers.
bool IsLoopbackHostHeader(absl::string_view host_header);

}  // namespace axe::explorer

#endif  // AXE_EXPLORER_HANDLER_H_
