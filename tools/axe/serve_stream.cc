// BoundedStream: a connection's bytes under a per-request deadline and byte budgets.
#include "serve_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "axe/explorer/connections.h"

namespace axe::cli::serve {
namespace {

// The address and port of a socket's peer (`peer`) or its own end.
void SocketAddress(int sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  sockaddr* generic = reinterpret_cast<sockaddr*>(&address);
  const int got = peer ? getpeername(sock, generic, &length) : getsockname(sock, generic, &length);
  ip.clear();
  port = 0;
  if (got != 0) return;
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
    port = ntohs(v4->sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

}  // namespace

BoundedStream::BoundedStream(int sock, std::function<bool()> stopping)
    : sock_(sock), stopping_(std::move(stopping)) {
  SocketAddress(sock_, /*peer=*/true, remote_ip_, remote_port_);
}

int BoundedStream::PollUntil(short events, Clock::time_point until) const {
  constexpr int64_t kSliceMs = 100;
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
    const int64_t slice = std::clamp<int64_t>(left.count(), 0, kSliceMs);
    pollfd p{sock_, events, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(slice));
    if (ready < 0 && errno == EINTR) continue;
    if (ready != 0) return ready;
    if (left.count() <= kSliceMs) return 0;
    if (stopping_()) return -1;
  }
}

bool BoundedStream::WaitForRequest(Clock::time_point until) {
  if (begin_ < end_) return true;
  if (PollUntil(POLLIN, until) <= 0) return false;
  char first = 0;
  return ::recv(sock_, &first, 1, MSG_PEEK) > 0;
}

void BoundedStream::StartRequest(Clock::time_point deadline) {
  read_deadline_ = deadline;
  in_body_ = false;
  part_bytes_ = 0;
  read_any_ = false;
  written_ = 0;
  limit_ = StreamLimit::kNone;
}

void BoundedStream::StartBody() {
  in_body_ = true;
  part_bytes_ = 0;
}

ssize_t BoundedStream::Fill() {
  begin_ = end_ = 0;
  const int ready = PollUntil(POLLIN, read_deadline_);
  if (ready == 0) limit_ = StreamLimit::kDeadline;
  if (ready <= 0) return -1;
  ssize_t got = 0;
  do {
    got = ::recv(sock_, buffer_, sizeof(buffer_), 0);
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return got < 0 ? -1 : 0;
  end_ = static_cast<size_t>(got);
  return got;
}

ssize_t BoundedStream::read(char* ptr, size_t size) {
  if (limit_ != StreamLimit::kNone) return -1;
  const int64_t budget = in_body_ ? explorer::kMaxBodyWireBytes : explorer::kMaxHeaderBytes;
  if (part_bytes_ >= budget) {
    limit_ = in_body_ ? StreamLimit::kBodyBytes : StreamLimit::kHeaderBytes;
    return -1;
  }
  if (begin_ == end_) {
    const ssize_t got = Fill();
    if (got <= 0) return got;
  }
  const size_t n = std::min({size, end_ - begin_, static_cast<size_t>(budget - part_bytes_)});
  std::memcpy(ptr, buffer_ + begin_, n);
  begin_ += n;
  part_bytes_ += static_cast<int64_t>(n);
  read_any_ = true;
  return static_cast<ssize_t>(n);
}

ssize_t BoundedStream::write(const char* ptr, size_t size) {
  if (written_ == 0) {
    write_deadline_ = Clock::now() + std::chrono::seconds(explorer::kRequestDeadlineSeconds);
  }
  for (;;) {
    if (PollUntil(POLLOUT, write_deadline_) <= 0) return -1;
    const ssize_t sent = ::send(sock_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent >= 0) {
      written_ += sent;
      return sent;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
  }
}

bool BoundedStream::is_readable() const {
  return begin_ < end_ || PollUntil(POLLIN, read_deadline_) > 0;
}

bool BoundedStream::is_writable() const {
  const Clock::time_point until =
      written_ > 0 ? write_deadline_
                   : Clock::now() + std::chrono::seconds(explorer::kRequestDeadlineSeconds);
  return PollUntil(POLLOUT, until) > 0;
}

void BoundedStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = remote_ip_;
  port = remote_port_;
}

void BoundedStream::get_local_ip_and_port(std::string& ip, int& port) const {
  SocketAddress(sock_, /*peer=*/false, ip, port);
}

}  // namespace axe::cli::serve
