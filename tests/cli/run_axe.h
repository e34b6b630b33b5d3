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

// With the environment variable AXE_CLI_IN_PROCESS set (not "" or "0"), RunAxe and
// RunAxeWithStdin run the command line in process instead (RunAxeInProcess), so that the
// whole suite runs both ways: AXE_CLI_IN_PROCESS=1 build/release/tests/cli/axe_cli_test.
inline constexpr char kInProcessEnv[] = "AXE_CLI_IN_PROCESS";
bool RunsInProcess();

// Runs AXE_BINARY (a compile definition) with `args`; standard input is empty.
RunResult RunAxe(const std::vector<std::string>& args);
// The same with `input` on standard input.
RunResult RunAxeWithStdin(const std::vector<std::string>& args, const std::string& input);
// The binary, whatever AXE_CLI_IN_PROCESS says (MPI runs, comparisons with the in-process run).
RunResult RunAxeBinary(const std::vector<std::string>& args, const std::string& input = "");
// The same with standard input opened (read-only) from `path`, which may be a directory
// (always the binary).
RunResult RunAxeWithStdinFrom(const std::vector<std::string>& args, const std::string& path);

}  // namespace axe::testing

#endif  // AXE_TESTS_CLI_RUN_AXE_H_
