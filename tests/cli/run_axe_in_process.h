// Test support: runs the axe command line inside the test's process (tools/axe/run_cli.h),
// on string streams, and returns what it wrote, as RunAxe (run_axe.h) does for the binary.
// Commands that run over MPI are tested end to end only (mpirun).
#ifndef AXE_TESTS_CLI_RUN_AXE_IN_PROCESS_H_
#define AXE_TESTS_CLI_RUN_AXE_IN_PROCESS_H_

#include <string>
#include <vector>

#include "cli/run_axe.h"

namespace axe::testing {

// Runs `args` (without the program's name) with `input` on standard input.
RunResult RunAxeInProcess(const std::vector<std::string>& args, const std::string& input = "");

}  // namespace axe::testing

#endif  // AXE_TESTS_CLI_RUN_AXE_IN_PROCESS_H_
