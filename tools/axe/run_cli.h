// One run of the axe command line on given streams: main() runs it on std::cin, std::cout
// and std::cerr; the tests run it in process on string streams. Each run builds its own
// command tree and options, reads its own standard input, and leaves the process's
// AXE_MEMORY_LIMIT as it found it, so that runs in one process do not see each other.
#ifndef AXE_TOOLS_AXE_RUN_CLI_H_
#define AXE_TOOLS_AXE_RUN_CLI_H_

#include <istream>
#include <ostream>

namespace axe::cli {

// Parses `argv` (argv[0] is the program's name), runs the command and returns the exit code:
// 0 on success (or the command's own code, such as 1 for "the inputs differ"), 2 after one
// error line on `err` for bad input, 1 for an internal error.
int RunCli(int argc, const char* const* argv, std::istream& in, std::ostream& out,
           std::ostream& err);

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_RUN_CLI_H_
