// ClientConnections: the per-client count of open connections behind `axe serve`'s limit.
#include "axe/explorer/connections.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace axe::explorer {

ClientConnections::Slot::Slot(Slot&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), client_(std::move(other.client_)) {}

ClientConnections::Slot& ClientConnections::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    if (owner_ != nullptr) owner_->Close(client_);
    owner_ = std::exchange(other.owner_, nullptr);
    client_ = std::move(other.client_);
  }
  return *this;
}

ClientConnections::Slot::~Slot() {
  if (owner_ != nullptr) owner_->Close(client_);
}

ClientConnections::Slot ClientConnections::TryOpen(absl::string_view client) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = open_.find(client);
  if (it == open_.end()) it = open_.emplace(std::string(client), 0).first;
  if (it->second >= max_per_client_) return Slot();
  ++it->second;
  return Slot(this, it->first);
}

int ClientConnections::OpenCount(absl::string_view client) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = open_.find(client);
  return it == open_.end() ? 0 : it->second;
}

void ClientConnections::Close(const std::string& client) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = open_.find(client);
  if (it == open_.end() || it->second <= 0) {
    std::fprintf(stderr, "ClientConnections: closing a connection of %s that is not open\n",
                 client.c_str());
    std::abort();
  }
  if (--it->second == 0) open_.erase(it);
}

}  // namespace axe::explorer
