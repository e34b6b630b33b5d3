// Test support: runs the axe binary with arguments (no shell) and captures its output.
#ifndef AXE_TESTS_CLI_RUN_AXE_H_
#define AXE_TESTS_CLI_RUN_AXE_H_

#include <string>
#include <vector>

namespace axe::testing {

struct RunResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs AXE_BINARY (a compile definition) with `args`; standard input is empty.
RunResult RunAxe(const std::vector<std::string>& args);
// The same with `input` on standard input.
RunResult RunAxeWithStdin(const std::vector<std::string>& args, const std::string& input);
// The same with standard input opened (read-only) from `path`, which may be a directory.
RunResult RunAxeWithStdinFrom(const std::vector<std::string>& args, const std::string& path);

}  // namespace axe::testing

#endif  // AXE_TESTS_CLI_RUN_AXE_H_
