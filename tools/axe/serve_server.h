// The explorer's HTTP server behind `axe serve`: cpp-httplib's Server, answering every request
// with explorer::HandleRequest, with each connection read through a BoundedStream and held to
// the limits of axe/explorer/connections.h (header and body bytes, one deadline per request,
// connections per client). Byte ranges are ignored (answers are whole), so a Range header of
// thousands of ranges cannot make the library build a huge multipart answer.
#ifndef AXE_TOOLS_AXE_SERVE_SERVER_H_
#define AXE_TOOLS_AXE_SERVE_SERVER_H_

#include <httplib.h>

#include <semaphore>
#include <string>

#include "absl/strings/string_view.h"
#include "axe/explorer/connections.h"
#include "serve_stream.h"

namespace axe::cli::serve {

class ExplorerServer final : public httplib::Server {
 public:
  // `answering`: requests computed at once (1 to 64; connections are read by threads of
  // their own). `loopback_only`: refuse requests whose Host header names another host.
  ExplorerServer(int answering, bool loopback_only);

 private:
  // Replaces the library's connection loop: the same keep-alive loop over a BoundedStream.
  bool process_and_close_socket(int sock) override;
  // Serves one connection's requests; true when it is to be closed with input perhaps left
  // unread (drained first, so that the client reads the last answer).
  bool ServeConnection(BoundedStream& strm);
  void Answer(const httplib::Request& req, absl::string_view body, httplib::Response& res);
  void AnswerWithBody(const httplib::Request& req, httplib::Response& res,
                      const httplib::ContentReader& reader);

  explorer::ClientConnections connections_;
  std::counting_semaphore<64> answering_;
};

}  // namespace axe::cli::serve

#endif  // AXE_TOOLS_AXE_SERVE_SERVER_H_
