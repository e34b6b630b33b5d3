// ExplorerServer: cpp-httplib's request parsing and answer writing, with axe's connection
// loop, limits and JSON refusals around it.
#include "serve_server.h"

#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "axe/base/utf8.h"
#include "axe/explorer/handler.h"
#include "nlohmann/json.hpp"

namespace axe::cli::serve {
namespace {

using httplib::Request;
using httplib::Response;
using HandlerResponse = httplib::Server::HandlerResponse;

constexpr size_t kConnectionThreadStack = size_t{16} << 20;

// What the handlers of one request need to know of its connection. Each connection is
// served on one thread from start to end, so the handlers find it in `current_exchange`.
struct Exchange {
  BoundedStream* stream = nullptr;
  bool answered = false;  // the explorer answered it, having read the request whole
  bool close = false;     // input may be left unread: close the connection after the answer
};
thread_local Exchange* current_exchange = nullptr;

std::string RefusalJson(int status, absl::string_view why) {
  nlohmann::ordered_json j = {{"kind", nullptr},
                              {"ok", false},
                              {"field", nullptr},
                              {"error", absl::StrCat("HTTP ", status, ": ", why)}};
  return DumpJson(j);
}

void SetRefusal(Response& res, int status, absl::string_view why) {
  res.status = status;
  res.set_content(RefusalJson(status, why), "application/json");
}

std::string BodyTooLong() {
  return absl::StrCat("the request body is over ", explorer::kMaxBodyBytes, " bytes (",
                      explorer::kMaxBodyBytes / 1024, " KiB)");
}

std::string HeadersTooLong() {
  return absl::StrCat("the request line and headers are over ", explorer::kMaxHeaderBytes,
                      " bytes (", explorer::kMaxHeaderBytes / 1024, " KiB)");
}

std::string TooSlow() {
  return absl::StrCat("the request did not arrive whole within ", explorer::kRequestDeadlineSeconds,
                      " s");
}

// Refuses a request the stream stopped reading (false when it did not stop).
bool RefuseForLimit(StreamLimit limit, Response& res) {
  switch (limit) {
    case StreamLimit::kHeaderBytes: SetRefusal(res, 431, HeadersTooLong()); return true;
    case StreamLimit::kBodyBytes:
      SetRefusal(res, 413,
                 absl::StrCat("the request body with its chunked encoding is over ",
                              explorer::kMaxBodyWireBytes, " bytes on the wire (",
                              explorer::kMaxBodyWireBytes / 1024, " KiB)"));
      return true;
    case StreamLimit::kDeadline: SetRefusal(res, 408, TooSlow()); return true;
    case StreamLimit::kNone: return false;
  }
  return false;
}

// A JSON message for the errors cpp-httplib answers itself, which reach no handler. The
// answer is sent as it is (no byte ranges, no compression), so the handler returns Unhandled
// and gives the length itself.
HandlerResponse FillEmptyError(const Request&, Response& res) {
  if (!res.body.empty()) return HandlerResponse::Unhandled;
  const StreamLimit limit =
      current_exchange != nullptr ? current_exchange->stream->limit() : StreamLimit::kNone;
  if (!RefuseForLimit(limit, res)) {
    std::string why =
        "the request could not be read (a malformed request line or header, or "
        "a header line over 8192 bytes)";
    if (res.status == 413) {
      why = BodyTooLong();
    } else if (res.status == 414) {
      why = absl::StrCat("the URL is over ", explorer::kMaxTargetBytes,
                         " bytes (send long inputs as a POST body)");
    } else if (res.status == 416) {
      why = "the Range header could not be read (the explorer ignores byte ranges)";
    } else if (res.status != 400) {
      why = "the request could not be answered";
    }
    SetRefusal(res, res.status, why);
  }
  res.set_header("Content-Length", std::to_string(res.body.size()));
  return HandlerResponse::Unhandled;
}

// Every answer: a connection whose request was not read whole by the explorer is closed
// after it (what is left of its input would be read as the next request).
void CloseUnlessAnswered(const Request&, Response& res) {
  Exchange* exchange = current_exchange;
  if (exchange == nullptr || (exchange->answered && !exchange->close)) return;
  exchange->close = true;
  res.headers.erase("Keep-Alive");
  res.headers.erase("Connection");
  res.set_header("Connection", "close");
}

// Before routing, once the headers are read: what follows is the body, answers are whole
// (no ranges), and the body is read by the explorer whatever its Content-Type (the library
// would otherwise cap form bodies at 8 KiB and parse multipart ones).
void PrepareRequest(Request& req, Exchange& exchange) {
  exchange.stream->StartBody();
  req.ranges.clear();
  req.headers.erase("Content-Type");
  const bool chunked = absl::EqualsIgnoreCase(req.get_header_value("Transfer-Encoding"), "chunked");
  if (req.has_header("Transfer-Encoding") && !chunked) exchange.close = true;
  if (!req.has_header("Content-Length") && !chunked) {
    req.set_header("Content-Length", "0");  // HTTP/1.1: no length, no body
  }
  const bool has_body = chunked || req.get_header_value("Content-Length") != "0";
  if (has_body && (req.method == "GET" || req.method == "HEAD" || req.method == "OPTIONS")) {
    exchange.close = true;  // the library does not read a GET's body
  }
}

int Expect100Continue(const Request& req, Response& res) {
  uint64_t length = 0;
  if (absl::SimpleAtoi(req.get_header_value("Content-Length"), &length) &&
      length > static_cast<uint64_t>(explorer::kMaxBodyBytes)) {
    res.status = 413;
    return 413;
  }
  return 100;
}

HandlerResponse RefuseOtherHosts(const Request& req, Response& res) {
  if (explorer::IsLoopbackHostHeader(req.get_header_value("Host"))) {
    return HandlerResponse::Unhandled;
  }
  SetRefusal(res, 403,
             "the Host header does not name a loopback host (start axe serve with "
             "--allow-remote to serve other names)");
  return HandlerResponse::Handled;
}

// A whole answer written by hand, for a connection the library gives no answer: refused
// before its request is read, or a request line past the header budget or the deadline.
void WriteRefusal(BoundedStream& strm, int status, absl::string_view reason,
                  absl::string_view why) {
  const std::string body = RefusalJson(status, why);
  const std::string text =
      absl::StrCat("HTTP/1.1 ", status, " ", reason,
                   "\r\nContent-Type: application/json\r\nContent-Length: ", body.size(),
                   "\r\nConnection: close\r\n\r\n", body);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t sent = strm.write(text.data() + done, text.size() - done);
    if (sent <= 0) return;
    done += static_cast<size_t>(sent);
  }
}

// Before closing a connection whose input may not all have been read: stops sending, then
// reads and drops input for up to `wait` (until the client closes), so that the client reads
// the last answer before unread input makes the close a reset.
void Drain(int sock, std::chrono::milliseconds wait) {
  ::shutdown(sock, SHUT_WR);
  char sink[4096];
  int64_t dropped = 0;
  const auto until = Clock::now() + wait;
  while (dropped < explorer::kMaxBodyWireBytes) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
    pollfd p{sock, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count()))) <= 0) return;
    const ssize_t got = ::recv(sock, sink, sizeof(sink), 0);
    if (got <= 0) return;
    dropped += got;
  }
}

// Holds one of the `answering` places while the explorer computes an answer.
class AnsweringPlace {
 public:
  explicit AnsweringPlace(std::counting_semaphore<64>& places) : places_(places) {
    places_.acquire();
  }
  ~AnsweringPlace() { places_.release(); }
  AnsweringPlace(const AnsweringPlace&) = delete;
  AnsweringPlace& operator=(const AnsweringPlace&) = delete;

 private:
  std::counting_semaphore<64>& places_;
};

}  // namespace

ExplorerServer::ExplorerServer(int answering, bool loopback_only)
    : connections_(explorer::kMaxConnectionsPerClient), answering_(answering) {
  new_task_queue = [] {
    // The library matches a Range header (up to a 8 KiB line) with std::regex, which recurses
    // per byte: about 4 MB of stack at the longest. The connection threads get 16 MB,
    // whatever `ulimit -s` says (address space only until used).
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, kConnectionThreadStack);
    pthread_setattr_default_np(&attributes);
    pthread_attr_destroy(&attributes);
    return new httplib::ThreadPool(explorer::kConnectionThreads);
  };
  set_payload_max_length(static_cast<size_t>(explorer::kMaxBodyBytes));
  set_keep_alive_timeout(explorer::kKeepAliveSeconds);
  // Every path and method reaches HandleRequest, which answers 404 and 405 itself.
  const std::string any = ".*";
  const Handler without_body = [this](const Request& req, Response& res) { Answer(req, "", res); };
  const HandlerWithContentReader with_body = [this](const Request& req, Response& res,
                                                    const httplib::ContentReader& reader) {
    AnswerWithBody(req, res, reader);
  };
  Get(any, without_body).Options(any, without_body);
  Post(any, with_body).Put(any, with_body).Patch(any, with_body).Delete(any, with_body);
  set_error_handler(HandlerWithResponse(FillEmptyError));
  set_post_routing_handler(CloseUnlessAnswered);
  set_expect_100_continue_handler(Expect100Continue);
  // On the loopback interface, only requests that name a loopback host (DNS rebinding).
  if (loopback_only) set_pre_routing_handler(RefuseOtherHosts);
}

void ExplorerServer::Answer(const Request& req, absl::string_view body, Response& res) {
  explorer::Response r;
  {
    AnsweringPlace place(answering_);
    r = explorer::HandleRequest(req.method, req.target, body);
  }
  res.status = r.status;
  res.set_header("Cache-Control", "no-store");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_content(r.body, r.content_type.c_str());
  if (current_exchange != nullptr) current_exchange->answered = true;
}

void ExplorerServer::AnswerWithBody(const Request& req, Response& res,
                                    const httplib::ContentReader& reader) {
  std::string body;
  bool too_long = false;
  // The receiver sees the body decoded (chunks joined, gzip or brotli inflated), so the
  // limit holds for what the explorer would have to hold.
  const bool read = reader([&](const char* data, size_t size) {
    if (body.size() + size > static_cast<size_t>(explorer::kMaxBodyBytes)) {
      too_long = true;
      return false;
    }
    body.append(data, size);
    return true;
  });
  if (read) {
    Answer(req, body, res);
    return;
  }
  if (current_exchange != nullptr) current_exchange->close = true;
  if (too_long || res.status == 413) {
    SetRefusal(res, 413, BodyTooLong());
  } else if (current_exchange == nullptr ||
             !RefuseForLimit(current_exchange->stream->limit(), res)) {
    SetRefusal(res, 400,
               "the request body could not be read (a malformed chunked or content "
               "encoding, or the connection closed)");
  }
}

bool ExplorerServer::ServeConnection(BoundedStream& strm) {
  Exchange exchange{&strm};
  current_exchange = &exchange;
  const auto deadline = std::chrono::seconds(explorer::kRequestDeadlineSeconds);
  bool first = true;
  for (size_t left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    const Clock::time_point awaited = Clock::now();
    const auto wait = first ? deadline : std::chrono::seconds(explorer::kKeepAliveSeconds);
    if (!strm.WaitForRequest(awaited + wait)) break;
    first = false;
    strm.StartRequest(awaited + deadline);
    exchange.answered = exchange.close = false;
    bool connection_closed = false;
    const bool ok = process_request(strm, left == 1, connection_closed,
                                    [&exchange](Request& req) { PrepareRequest(req, exchange); });
    if (!ok && !strm.wrote_any() && strm.read_any()) {
      if (strm.limit() == StreamLimit::kHeaderBytes) {
        WriteRefusal(strm, 431, "Request Header Fields Too Large", HeadersTooLong());
      } else if (strm.limit() == StreamLimit::kDeadline) {
        WriteRefusal(strm, 408, "Request Timeout", TooSlow());
      }
      exchange.close = true;
    }
    if (!ok || connection_closed || exchange.close) break;
  }
  current_exchange = nullptr;
  return exchange.close;
}

bool ExplorerServer::process_and_close_socket(int sock) {
  // A refused connection drops only the input already there: waiting would let a client
  // that opens connections fast hold threads with refusals.
  std::chrono::milliseconds drain_wait(0);
  bool drain = false;
  {
    BoundedStream strm(sock, [this] { return svr_sock_ == INVALID_SOCKET; });
    explorer::ClientConnections::Slot slot = connections_.TryOpen(strm.remote_ip());
    if (slot) {
      drain = ServeConnection(strm);
      drain_wait = std::chrono::milliseconds(500);
    } else {
      strm.StartRequest(Clock::now() + std::chrono::seconds(1));
      WriteRefusal(strm, 503, "Service Unavailable",
                   absl::StrCat(strm.remote_ip(), " has ", explorer::kMaxConnectionsPerClient,
                                " connections open, the most one client may hold at once"));
      drain = true;
    }
  }
  if (drain) Drain(sock, drain_wait);
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return true;
}

}  // namespace axe::cli::serve
