// How a failed command reports its error: one line on stderr, "axe: error: <message>", written
// by a single write(2) so that the lines of several processes (the ranks of an mpirun job)
// never interleave mid-line. Bytes that are not UTF-8 read as U+FFFD, as in --json output.
//
// Under a launcher that runs several ranks, an error that every rank returns alike
// (runtime::IsSameOnEveryRank: the ranks' arguments differ) is printed by rank 0 alone, and
// every other error is the rank's own: "axe: error: rank <r>: <message>".
#ifndef AXE_TOOLS_AXE_ERROR_LINE_H_
#define AXE_TOOLS_AXE_ERROR_LINE_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace axe::cli {

// Prints the error line of `status` (not OK), or nothing on a rank other than 0 when the
// error is the same on every rank.
void PrintErrorLine(const absl::Status& status);
// Prints `message` (one line) as this process's own error.
void PrintErrorLine(absl::string_view message);

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_ERROR_LINE_H_
