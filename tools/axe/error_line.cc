#include "error_line.h"

#include <unistd.h>

#include <iostream>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "axe/base/utf8.h"
#include "axe/runtime/backend.h"
#include "axe/runtime/launcher.h"
#include "cli.h"

namespace axe::cli {
namespace {

// This process's rank when a launcher runs several ranks, else -1.
int LaunchedRankOfSeveral() {
  if (runtime::MpiLaunchedWorldSize() > 1) return runtime::MpiLaunchedWorldRank();
  return -1;
}

void WriteErrorLine(std::ostream& err, absl::string_view message, bool same_on_every_rank) {
  const int rank = LaunchedRankOfSeveral();
  if (same_on_every_rank && rank > 0) return;  // rank 0 prints it for the job
  const std::string line = absl::StrCat(
      "axe: error: ", rank >= 0 && !same_on_every_rank ? absl::StrCat("rank ", rank, ": ") : "",
      OneLine(ToValidUtf8(message)), "\n");
  if (&err != &std::cerr) {
    err << line << std::flush;
    return;
  }
  // One write: up to PIPE_BUF bytes (4 KiB) it reaches a pipe whole, between other writers'
  // lines; the rest of a longer line (rare) follows. Nothing to do if it fails.
  for (size_t done = 0; done < line.size();) {
    const ssize_t n = write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

void PrintErrorLine(std::ostream& err, const absl::Status& status) {
  WriteErrorLine(err, status.message(), runtime::IsSameOnEveryRank(status));
}

void PrintErrorLine(std::ostream& err, absl::string_view message) {
  WriteErrorLine(err, message, false);
}

namespace {
constexpr char kPrintedUrl[] = "axe/error-line-printed";
}  // namespace

absl::Status MarkPrinted(absl::Status status) {
  status.SetPayload(kPrintedUrl, absl::Cord("1"));
  return status;
}

bool WasPrinted(const absl::Status& status) { return status.GetPayload(kPrintedUrl).has_value(); }

}  // namespace axe::cli
