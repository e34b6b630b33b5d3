// The progress line of long commands (relayout, reshard, collective, ir run, hlo summary):
// after about a second of work, a line on stderr saying what runs, for how long, and how far
// it got where the work reports it (timed runs done of --repeat), rewritten in place with \r
// and cleared when the work ends:
//
//   axe relayout: run 3 of 10, 4.2 s, about 9.8 s left
//
// It shows only when stderr is a terminal, and never under --json, --quiet or
// AXE_NO_PROGRESS=1, so piped and captured output is exactly what it would be without it.
// It gives way to output: the first write to the command's output or error stream
// (Selected::out and err; std::cout and std::cerr in the binary) while it shows clears it for
// good, so that no result or message is printed behind it.
//
//   ProgressLine progress("relayout", selected);   // for the action's lifetime
//   options.on_run = [&](int64_t done) { ReportProgress(done, runs); };
#ifndef AXE_TOOLS_AXE_PROGRESS_H_
#define AXE_TOOLS_AXE_PROGRESS_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/string_view.h"
#include "cli.h"

namespace axe::cli {

// The environment variable that turns the progress line off (any value but "" and "0").
inline constexpr char kNoProgressEnv[] = "AXE_NO_PROGRESS";

// Whether a progress line may show: stderr is a terminal, neither --json nor --quiet was
// given, and `no_progress_env` (AXE_NO_PROGRESS's value, null when unset) is unset, "" or "0".
bool ProgressWanted(bool stderr_is_tty, bool json, bool quiet, const char* no_progress_env);

// The line's text after `elapsed` seconds of `what`, with `done` of `total` steps when total
// > 0, and the estimate `left` (seconds) when known and steps remain:
// "axe relayout: run 3 of 10, 4.2 s, about 9.8 s left".
std::string ProgressText(absl::string_view what, double elapsed, int64_t done, int64_t total,
                         std::optional<double> left = std::nullopt);

// The time left for `total - done` more steps at the pace since the first report (`first_done`
// steps at `first_time`), or at elapsed / done while there is only one report; nullopt when
// no step is done or none remains.
std::optional<double> ProgressTimeLeft(double now, double start, double first_time,
                                       int64_t first_done, int64_t done, int64_t total);

// Adds the global flag --quiet (no progress line) to `app`, bound to `selected.quiet`.
void AddQuietFlag(CLI::App& app, Selected& selected);

class ProgressLine {
 public:
  struct Options {
    bool show = false;                  // the ProgressWanted decision
    double delay_seconds = 1.0;         // nothing shows before
    double interval_seconds = 0.25;     // between two redraws (the ticker thread's period)
    std::function<double()> clock;      // seconds; empty: a steady clock
    std::ostream* out = nullptr;        // where the line goes; null: `err` (given way to)
    std::ostream* output = &std::cout;  // with `out` null: the streams it gives way to
    std::ostream* err = &std::cerr;
    bool ticker = true;  // start the thread that calls Tick (tests call it)
  };

  // The command's line: shown as ProgressWanted decides for stderr, --json and --quiet, and
  // only when the command's error stream is std::cerr; it gives way to selected.out and err.
  ProgressLine(std::string what, const Selected& selected);
  ProgressLine(std::string what, Options options);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  // Stop().
  ~ProgressLine();

  // Records that `done` of `total` steps are done (total 0: unknown). Thread-safe.
  void Report(int64_t done, int64_t total);
  // Draws the line if it shows and the delay has passed; returns whether it drew.
  bool Tick();
  // Stops the ticker and clears the line if it was drawn. Idempotent.
  void Stop();

 private:
  double Now() const;
  // With `out` null: options_.output and err write through StopOnWrite buffers (progress.cc),
  // and the line goes to err's own buffer.
  void GiveWayToOutput();

  const std::string what_;
  Options options_;
  double start_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool drawn_ = false;
  int64_t done_ = 0, total_ = 0;
  // The first report (the steps before it include the work's setup).
  std::optional<std::pair<double, int64_t>> first_report_;
  std::unique_ptr<std::streambuf> cout_guard_, cerr_guard_;
  std::streambuf* cout_buffer_ = nullptr;  // output's and err's own, restored at the end
  std::streambuf* cerr_buffer_ = nullptr;
  std::unique_ptr<std::ostream> terminal_;  // on cerr_buffer_
  std::thread ticker_;
};

// Reports steps to the ProgressLine alive now, if any: the library's progress
// callbacks call this, so that commands pass no ProgressLine around.
void ReportProgress(int64_t done, int64_t total);

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_PROGRESS_H_
