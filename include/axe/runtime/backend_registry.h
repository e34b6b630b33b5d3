// The runtime backends a program has, by name: "threads" (the in-process backend) always,
// "mpi" when the MPI target (axe::runtime_mpi's registration) is linked. A backend registers
// itself the way the CLI's command groups do, with one static registration next to its
// class:
//
//   AXE_RUNTIME_BACKEND(MyBackendFactory);   // a function returning a BackendFactory
//
// A command asks for the backend its --backend option names and starts a run with it:
//
//   absl::StatusOr<const BackendFactory*> f = FindBackend("mpi");   // error names the known
//   std::unique_ptr<Client> client = *(*f)->start({.devices = 4, ...});
//   ... collectives, reshards, benchmarks on *client ...
//   client.reset();
//   (*f)->finish(timeout);                                            // MPI: MpiFinalize
#ifndef AXE_RUNTIME_BACKEND_REGISTRY_H_
#define AXE_RUNTIME_BACKEND_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/runtime/client.h"

namespace axe::runtime {

// What a run asks of the backend it starts.
struct BackendRunOptions {
  int64_t devices = 1;       // the devices the run needs: ids 0 .. devices - 1
  std::string devices_text;  // where that count comes from, for errors ("the mesh has 4 devices")
  // How long one wait on other devices may take before DeadlineExceeded (0: no limit, where
  // the backend allows it).
  double timeout_seconds = 0;
  // Where a reshard copies the elements a device keeps while its messages travel: "auto",
  // "worker" or "caller" (mpi_client.h's LocalCopyThread; other backends ignore it).
  std::string local_copies = "auto";
  // The options that set the two values above, named in errors ("--mesh: ...").
  std::string devices_option = "--mesh";
  std::string timeout_option = "--mpi-timeout";
};

struct BackendFactory {
  std::string name;         // what --backend takes: "threads", "mpi"
  std::string description;  // one line for --help
  // Whether each process holds one device (the run is started once per device, by a
  // launcher such as mpirun, and the process holding device 0 prints), rather than all.
  bool one_device_per_process = false;
  // Starts the backend (its communication layer, when it has one) and returns this
  // process's client. Errors: the backend's, naming the option at fault ("--mesh: ...").
  std::function<absl::StatusOr<std::unique_ptr<Client>>(const BackendRunOptions&)> start;
  // Ends a run once its client is destroyed (MPI: MPI_Finalize, bounded by the timeout).
  std::function<void(double timeout_seconds)> finish = [](double) {};
};

// The factory registered under `name`. Errors (InvalidArgument): "unknown backend 'gpu';
// this axe has threads, mpi".
absl::StatusOr<const BackendFactory*> FindBackend(absl::string_view name);
// The registered names, "threads" first, then in order of name.
std::vector<std::string> RegisteredBackends();

struct BackendRegistration {
  explicit BackendRegistration(BackendFactory (*make)());
};

#define AXE_RUNTIME_BACKEND_CONCAT_INNER_(a, b) a##b
#define AXE_RUNTIME_BACKEND_CONCAT_(a, b) AXE_RUNTIME_BACKEND_CONCAT_INNER_(a, b)
#define AXE_RUNTIME_BACKEND(make)                                               \
  static const ::axe::runtime::BackendRegistration AXE_RUNTIME_BACKEND_CONCAT_( \
      axe_runtime_backend_, __COUNTER__)(make)

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_BACKEND_REGISTRY_H_
