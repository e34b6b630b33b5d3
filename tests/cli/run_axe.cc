#include "cli/run_axe.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "cli/run_axe_in_process.h"

namespace axe::testing {

namespace {

// Runs the binary with `in_fd` as standard input (closed here).
RunResult RunAxeWithStdinFd(const std::vector<std::string>& args, int in_fd) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) std::abort();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in_fd, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    std::vector<char*> argv;
    std::string binary = AXE_BINARY;
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(in_fd);
  close(out_pipe[1]);
  close(err_pipe[1]);
  RunResult r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[4096];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace

bool RunsInProcess() {
  const char* value = std::getenv(kInProcessEnv);
  return value != nullptr && *value != '\0' && std::string(value) != "0";
}

RunResult RunAxe(const std::vector<std::string>& args) { return RunAxeWithStdin(args, ""); }

RunResult RunAxeWithStdin(const std::vector<std::string>& args, const std::string& input) {
  return RunsInProcess() ? RunAxeInProcess(args, input) : RunAxeBinary(args, input);
}

RunResult RunAxeBinary(const std::vector<std::string>& args, const std::string& input) {
  // Standard input comes from an unlinked temporary file: no pipe to keep fed.
  char path[] = "/tmp/axe-cli-stdin-XXXXXX";
  int in_fd = mkstemp(path);
  if (in_fd < 0) std::abort();
  unlink(path);
  if (write(in_fd, input.data(), input.size()) != static_cast<ssize_t>(input.size())) std::abort();
  if (lseek(in_fd, 0, SEEK_SET) != 0) std::abort();
  return RunAxeWithStdinFd(args, in_fd);
}

RunResult RunAxeWithStdinFrom(const std::vector<std::string>& args, const std::string& path) {
  int in_fd = open(path.c_str(), O_RDONLY);
  if (in_fd < 0) std::abort();
  return RunAxeWithStdinFd(args, in_fd);
}

}  // namespace axe::testing
