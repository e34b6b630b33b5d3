#include "axe/runtime/backend_registry.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace axe::runtime {
namespace {

// The in-process backend, always there: every device a worker thread of this process.
BackendFactory ThreadsFactory() {
  BackendFactory f;
  f.name = "threads";
  f.description = "in-process devices, one worker thread each";
  f.start = [](const BackendRunOptions& o) -> absl::StatusOr<std::unique_ptr<Client>> {
    if (o.devices > Client::kMaxInProcessDevices) {
      return absl::InvalidArgumentError(
          absl::StrCat(o.devices_option, ": the threads backend runs at most ",
                       Client::kMaxInProcessDevices, " devices, not ", o.devices));
    }
    return Client::InProcess(static_cast<int>(o.devices));
  };
  return f;
}

struct Registry {
  std::mutex mu;
  std::map<std::string, BackendFactory> factories;
};

Registry& TheRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry;
    BackendFactory threads = ThreadsFactory();
    r->factories.emplace(threads.name, std::move(threads));
    return r;
  }();
  return *registry;
}

}  // namespace

BackendRegistration::BackendRegistration(BackendFactory (*make)()) {
  BackendFactory f = make();
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories.insert_or_assign(f.name, std::move(f));
}

std::vector<std::string> RegisteredBackends() {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names = {"threads"};
  for (const auto& [name, factory] : r.factories) {
    if (name != "threads") names.push_back(name);
  }
  return names;
}

absl::StatusOr<const BackendFactory*> FindBackend(absl::string_view name) {
  Registry& r = TheRegistry();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.factories.find(std::string(name));
    if (it != r.factories.end()) return &it->second;  // entries are never removed
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown backend '", name, "'; this axe has ",
                                                 absl::StrJoin(RegisteredBackends(), ", ")));
}

}  // namespace axe::runtime
