// axe serve: the layout explorer (docs/pictures.md) on a local web server. The requests are
// answered by the library (explorer/handler.h) through the server of serve_server.h; this
// file only reads the flags, keeps the server on the loopback interface unless told
// otherwise, and stops it on SIGINT/SIGTERM. Built only when Debian's cpp-httplib
// (libcpp-httplib-dev) is found (tools/axe/CMakeLists.txt).
#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "axe/explorer/handler.h"
#include "cli.h"
#include "serve_server.h"

namespace axe::cli {
namespace serve_cmd {
namespace {

struct ServeArgs {
  int port = 8080;
  std::string host = "127.0.0.1";
  bool allow_remote = false;
  int threads = 4;
};

// Blocks SIGINT and SIGTERM in this thread and every thread started after it; a waiter
// thread takes them with sigwait and stops the server.
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

absl::Status Serve(std::ostream& out, const ServeArgs& args) {
  std::string host = args.host;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (!explorer::IsLoopbackHost(host) && !args.allow_remote) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--host: ", args.host,
        " is not a loopback address; the explorer has no authentication, so anyone who can "
        "reach that address could use it: pass --allow-remote to serve it there anyway"));
  }
  serve::ExplorerServer server(args.threads, /*loopback_only=*/!args.allow_remote);
  const sigset_t stop_signals = BlockStopSignals();
  const int port = args.port == 0 ? server.bind_to_any_port(host)
                                  : (server.bind_to_port(host, args.port) ? args.port : -1);
  if (port < 0) {
    return absl::UnavailableError(absl::StrCat("--port: cannot listen on ", args.host, ":",
                                               args.port, " (in use, or no such address)"));
  }
  const bool v6 = host.find(':') != std::string::npos;
  out << "axe serve: the explorer is at http://" << (v6 ? "[" + host + "]" : host) << ":" << port
      << "/ (Ctrl-C stops it)" << std::endl;
  std::thread waiter([&server, stop_signals] {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    server.stop();
  });
  const bool listened = server.listen_after_bind();
  pthread_kill(waiter.native_handle(), SIGTERM);  // wakes the waiter when listen ended alone
  waiter.join();
  if (!listened) return absl::UnavailableError("the server stopped on an error");
  return absl::OkStatus();
}

void AddServeCommand(CLI::App& app, Selected& selected) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Start the layout explorer, a local web page that draws Axe layouts, XLA shapes, "
      "shardings and Pallas grids as you type (docs/pictures.md)");
  cmd->add_option("--port", args->port, "TCP port (default 8080; 0: any free port, printed)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--host", args->host,
                  "Address to listen on (default 127.0.0.1; a non-loopback address needs "
                  "--allow-remote)");
  cmd->add_flag("--allow-remote", args->allow_remote,
                "Allow a --host other than the loopback interface (the explorer has no "
                "authentication)");
  cmd->add_option("--threads", args->threads,
                  "Answers computed at once (default 4; connections are read by threads of "
                  "their own)")
      ->check(CLI::Range(1, 64));
  OnSelect(cmd, selected,
           [args, &selected]() -> absl::Status { return Serve(*selected.out, *args); });
}

AXE_CLI_COMMAND_GROUP(90, AddServeCommand);

}  // namespace
}  // namespace serve_cmd

}  // namespace axe::cli
