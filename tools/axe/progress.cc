#include "progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace axe::cli {
namespace {

// The line alive now (ReportProgress goes to it).
std::mutex active_progress_mutex;
ProgressLine* active_progress_line = nullptr;

double ProgressClockSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string ProgressSeconds(double s) {
  return s < 60 ? absl::StrFormat("%.1f s", s)
                : absl::StrFormat("%dm%02ds", int64_t(s) / 60, int64_t(s) % 60);
}

// Forwards to `target`, calling `before_first_write` once before the first character.
class StopOnWrite : public std::streambuf {
 public:
  StopOnWrite(std::streambuf* target, std::function<void()> before_first_write)
      : target_(target), before_first_write_(std::move(before_first_write)) {}

 protected:
  int overflow(int c) override {
    Fire();
    return c == traits_type::eof() ? traits_type::not_eof(c) : target_->sputc(char(c));
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    Fire();
    return target_->sputn(s, n);
  }
  int sync() override { return target_->pubsync(); }

 private:
  void Fire() { std::call_once(fired_, before_first_write_); }

  std::streambuf* target_;
  std::function<void()> before_first_write_;
  std::once_flag fired_;
};

ProgressLine::Options ProgressOptionsFor(const Selected& selected) {
  ProgressLine::Options options;
  const bool terminal = selected.err == &std::cerr && isatty(STDERR_FILENO) == 1;
  options.show =
      ProgressWanted(terminal, selected.json, selected.quiet, std::getenv(kNoProgressEnv));
  options.output = selected.out;
  options.err = selected.err;
  return options;
}

}  // namespace

bool ProgressWanted(bool stderr_is_tty, bool json, bool quiet, const char* no_progress_env) {
  const bool turned_off = no_progress_env != nullptr && *no_progress_env != '\0' &&
                          absl::string_view(no_progress_env) != "0";
  return stderr_is_tty && !json && !quiet && !turned_off;
}

std::string ProgressText(absl::string_view what, double elapsed, int64_t done, int64_t total,
                         std::optional<double> left) {
  std::string text = absl::StrCat("axe ", what, ": ");
  if (total > 0) absl::StrAppend(&text, "run ", done, " of ", total, ", ");
  absl::StrAppend(&text, ProgressSeconds(elapsed));
  if (left) absl::StrAppend(&text, ", about ", ProgressSeconds(*left), " left");
  return text;
}

std::optional<double> ProgressTimeLeft(double now, double start, double first_time,
                                       int64_t first_done, int64_t done, int64_t total) {
  if (total <= 0 || done <= 0 || done >= total) return std::nullopt;
  const double per_step = done > first_done
                              ? (now - first_time) / static_cast<double>(done - first_done)
                              : (now - start) / static_cast<double>(done);
  return per_step * static_cast<double>(total - done);
}

void AddQuietFlag(CLI::App& app, Selected& selected) {
  app.add_flag("--quiet", selected.quiet,
               "No progress line on stderr (also AXE_NO_PROGRESS=1; it shows only on a "
               "terminal, after about a second, never with --json)");
}

ProgressLine::ProgressLine(std::string what, const Selected& selected)
    : ProgressLine(std::move(what), ProgressOptionsFor(selected)) {}

ProgressLine::ProgressLine(std::string what, Options options)
    : what_(std::move(what)), options_(std::move(options)) {
  start_ = Now();
  {
    std::lock_guard<std::mutex> lock(active_progress_mutex);
    active_progress_line = this;
  }
  if (!options_.show) return;
  if (options_.out == nullptr) GiveWayToOutput();
  if (!options_.ticker) return;
  ticker_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto period = std::chrono::duration<double>(options_.interval_seconds);
    while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
      lock.unlock();
      Tick();
      lock.lock();
    }
  });
}

ProgressLine::~ProgressLine() {
  Stop();
  if (cout_guard_ != nullptr) {
    options_.output->rdbuf(cout_buffer_);
    options_.err->rdbuf(cerr_buffer_);
  }
  std::lock_guard<std::mutex> lock(active_progress_mutex);
  if (active_progress_line == this) active_progress_line = nullptr;
}

void ProgressLine::GiveWayToOutput() {
  cout_buffer_ = options_.output->rdbuf();
  cerr_buffer_ = options_.err->rdbuf();
  terminal_ = std::make_unique<std::ostream>(cerr_buffer_);
  options_.out = terminal_.get();
  // The guards stay installed (forwarding) until the destructor: a write may be under way
  // through them when they fire.
  cout_guard_ = std::make_unique<StopOnWrite>(cout_buffer_, [this] { Stop(); });
  cerr_guard_ = std::make_unique<StopOnWrite>(cerr_buffer_, [this] { Stop(); });
  options_.output->flush();
  options_.output->rdbuf(cout_guard_.get());
  options_.err->rdbuf(cerr_guard_.get());
}

double ProgressLine::Now() const {
  return options_.clock ? options_.clock() : ProgressClockSeconds();
}

void ProgressLine::Report(int64_t done, int64_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!first_report_) first_report_ = {Now(), done};
  done_ = done;
  total_ = total;
}

bool ProgressLine::Tick() {
  std::lock_guard<std::mutex> lock(mutex_);
  const double elapsed = Now() - start_;
  if (!options_.show || stopping_ || elapsed < options_.delay_seconds) return false;
  std::ostream& out = options_.out != nullptr ? *options_.out : *options_.err;
  // \r back to the line's start, \033[K erases what a longer earlier line left behind.
  const auto [first_time, first_done] = first_report_.value_or(std::pair{start_, int64_t{0}});
  const std::optional<double> left =
      ProgressTimeLeft(start_ + elapsed, start_, first_time, first_done, done_, total_);
  out << "\r" << ProgressText(what_, elapsed, done_, total_, left) << "\033[K" << std::flush;
  drawn_ = true;
  return true;
}

void ProgressLine::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  if (drawn_) {
    std::ostream& out = options_.out != nullptr ? *options_.out : *options_.err;
    out << "\r\033[K" << std::flush;
  }
}

void ReportProgress(int64_t done, int64_t total) {
  std::lock_guard<std::mutex> lock(active_progress_mutex);
  if (active_progress_line != nullptr) active_progress_line->Report(done, total);
}

}  // namespace axe::cli
