// How a failed command reports its error: one line on stderr, "axe: error: <message>", written
// by a single write(2) so that the lines of several processes (the ranks of an mpirun job)
// never interleave mid-line. Bytes that are not UTF-8 read as U+FFFD, as in --json output.
//
// Under a launcher that runs several ranks, an error that every rank returns alike
// (runtime::IsSameOnEveryRank: the ranks' arguments differ) is printed by rank 0 alone, and
// every other error is the rank's own: "axe: error: rank <r>: <message>".
#ifndef AXE_TOOLS_AXE_ERROR_LINE_H_
#define AXE_TOOLS_AXE_ERROR_LINE_H_

#include <ostream>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace axe::cli {

// Prints the error line of `status` (not OK) on `err`, or nothing on a rank other than 0 when
// the error is the same on every rank. std::cerr is written as above (one write(2) to the
// process's stderr); any other stream (the in-process test runner's) gets the line and a flush.
void PrintErrorLine(std::ostream& err, const absl::Status& status);
// Prints `message` (one line) on `err` as this process's own error.
void PrintErrorLine(std::ostream& err, absl::string_view message);

// `status` marked as already printed (PrintErrorLine ran for it), and the test for the mark:
// an MPI run prints a job-wide error before MPI shuts down, while every rank is still there,
// since a rank that leaves first with a failure code makes the launcher end the others.
absl::Status MarkPrinted(absl::Status status);
bool WasPrinted(const absl::Status& status);

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_ERROR_LINE_H_
