// The socket stream under `axe serve`'s requests: cpp-httplib reads and writes a connection
// through it, and it holds each request to the limits of axe/explorer/connections.h that the
// library's own per-read timeouts and per-line limits cannot give: a byte budget for the
// request line and headers together and one for the body on the wire, and one deadline for
// the whole request (a client trickling a byte a second is cut off at the deadline, not kept
// forever by a timeout that restarts on every byte).
#ifndef AXE_TOOLS_AXE_SERVE_STREAM_H_
#define AXE_TOOLS_AXE_SERVE_STREAM_H_

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace axe::cli::serve {

using Clock = std::chrono::steady_clock;

// Why the stream refused to read further in the current request.
enum class StreamLimit {
  kNone,
  kHeaderBytes,  // the request line and headers passed kMaxHeaderBytes
  kBodyBytes,    // the body on the wire passed kMaxBodyWireBytes
  kDeadline,     // the request was not read whole by its deadline
};

class BoundedStream final : public httplib::Stream {
 public:
  // `stopping` says whether the server is stopping: every wait checks it 10 times a second
  // and gives up (as on a socket error), so that stopping the server is never held up.
  BoundedStream(int sock, std::function<bool()> stopping);

  // Waits (up to `until`) for the next request's first byte. False at `until` or on EOF.
  bool WaitForRequest(Clock::time_point until);
  // Starts reading a request that must be read whole by `deadline`, under the header budget.
  void StartRequest(Clock::time_point deadline);
  // The headers are read: what follows is the body, under the body budget.
  void StartBody();

  StreamLimit limit() const { return limit_; }
  // Whether the current request had a byte read, and whether its answer had one written.
  bool read_any() const { return read_any_; }
  bool wrote_any() const { return written_ > 0; }
  // The client's address, as the per-client connection limit counts it.
  const std::string& remote_ip() const { return remote_ip_; }

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  int socket() const override { return sock_; }

 private:
  // Receives into the empty buffer before the deadline. >0 bytes, 0 on EOF, -1 on an error
  // or the deadline (limit_ says which).
  ssize_t Fill();
  // poll() for `events` until `until`: >0 ready, 0 at `until`, -1 on an error or when the
  // server is stopping.
  int PollUntil(short events, Clock::time_point until) const;

  const int sock_;
  const std::function<bool()> stopping_;
  std::string remote_ip_;
  int remote_port_ = 0;
  char buffer_[4096];
  size_t begin_ = 0;
  size_t end_ = 0;
  bool in_body_ = false;
  int64_t part_bytes_ = 0;  // handed to the library in this request's headers, or body
  bool read_any_ = false;
  int64_t written_ = 0;
  Clock::time_point read_deadline_;
  Clock::time_point write_deadline_;
  StreamLimit limit_ = StreamLimit::kNone;
};

}  // namespace axe::cli::serve

#endif  // AXE_TOOLS_AXE_SERVE_STREAM_H_
