// The limits `axe serve` puts on connections, and the count of open connections per client
// that enforces one of them. The server (tools/axe) reads a request under these limits; the
// explorer's own limits on what it answers (target and body size, grid size) are in handler.h.
//
//   ClientConnections open(kMaxConnectionsPerClient);
//   if (ClientConnections::Slot slot = open.TryOpen("127.0.0.1")) { ... serve ... }
//   else { ... answer 503 and close ... }
#ifndef AXE_EXPLORER_CONNECTIONS_H_
#define AXE_EXPLORER_CONNECTIONS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"

namespace axe::explorer {

// The request line and header lines of one request, together, in bytes.
inline constexpr int64_t kMaxHeaderBytes = 32 * 1024;
// The bytes on the wire after the headers of one request: the body with its chunk framing
// (the body itself is held to kMaxBodyBytes once decoded).
inline constexpr int64_t kMaxBodyWireBytes = 256 * 1024;
// A request must arrive whole (request line, headers and body) within this many seconds of
// its first byte being awaited, however slowly its bytes trickle in; writing the answer gets
// as long again.
inline constexpr int kRequestDeadlineSeconds = 10;
// Connections open at once from one client address; more are answered 503 and closed.
inline constexpr int kMaxConnectionsPerClient = 16;
// Connections served at once (one thread each). Four times the per-client limit, so that
// slow clients at up to three addresses cannot hold every thread.
inline constexpr int kConnectionThreads = 4 * kMaxConnectionsPerClient;
// An idle kept-alive connection is closed after this many seconds.
inline constexpr int kKeepAliveSeconds = 2;

// Counts the open connections of each client address (thread-safe).
class ClientConnections {
 public:
  // One open connection: closes it in the count when destroyed. False when refused.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&& other) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot();
    explicit operator bool() const { return owner_ != nullptr; }

   private:
    friend class ClientConnections;
    Slot(ClientConnections* owner, std::string client)
        : owner_(owner), client_(std::move(client)) {}
    ClientConnections* owner_ = nullptr;
    std::string client_;
  };

  explicit ClientConnections(int max_per_client) : max_per_client_(max_per_client) {}

  // A slot for one more connection from `client`, or an empty one when it already has
  // max_per_client open.
  Slot TryOpen(absl::string_view client);
  // The connections `client` has open now.
  int OpenCount(absl::string_view client) const;
  int max_per_client() const { return max_per_client_; }

 private:
  void Close(const std::string& client);

  const int max_per_client_;
  mutable std::mutex mutex_;
  std::map<std::string, int, std::less<>> open_;
};

}  // namespace axe::explorer

#endif  // AXE_EXPLORER_CONNECTIONS_H_
