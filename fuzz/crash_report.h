// What the replay driver says when an execution of its mutation mode dies: a sanitizer
// report, an abort (a broken law: AXE_FUZZ_CHECK), a fatal signal, or no progress for too
// long. The handler prints the execution's index and the command that generates and runs that
// input again, prints the input (escaped), and writes it to a file in the working directory,
// so a CI log is enough to reproduce the failure.
#ifndef AXE_FUZZ_CRASH_REPORT_H_
#define AXE_FUZZ_CRASH_REPORT_H_

#include <cstdint>
#include <string>

namespace axe::fuzz {

struct CrashReportSetup {
  // The reproduction command is `command_head` + index + `command_tail`.
  std::string command_head;
  std::string command_tail;
  // The input is written to `file_prefix` + index.
  std::string file_prefix;
  // An execution running longer than this is reported as a hang (0: never).
  int hang_seconds = 0;
};

// Installs the handlers (once per process; later calls are ignored).
void ArmCrashReport(const CrashReportSetup& setup);

// The execution now running: its index and input, which must outlive the execution.
void SetCurrentExecution(uint64_t index, const std::string& input);
// No execution is running (a later death is not blamed on an input).
void ClearCurrentExecution();

}  // namespace axe::fuzz

#endif  // AXE_FUZZ_CRASH_REPORT_H_
