#include "crash_report.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

// Present when a sanitizer runtime is linked (ASan, UBSan); null otherwise.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

// g++ links ASan and UBSan as two runtimes, and the death callback reaches ASan's only: make
// a UBSan error abort (the SIGABRT handler then reports), whatever UBSAN_OPTIONS says about
// halting. Clang's combined runtime reads this too; abort_on_error=1 does no harm there.
extern "C" const char* __ubsan_default_options() { return "abort_on_error=1"; }

namespace axe::fuzz {
namespace {

// Set once by ArmCrashReport, then only read; never freed (the handlers may run at exit).
const CrashReportSetup* g_setup = nullptr;
std::atomic<uint64_t> g_index{0};
std::atomic<const std::string*> g_input{nullptr};
std::atomic<bool> g_reported{false};

// Async-signal-safe output helpers: write(2) only.
void Write(int fd, const char* text, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, text, size);
    if (n <= 0) return;
    text += n;
    size -= static_cast<size_t>(n);
  }
}
void Write(int fd, const char* text) { Write(fd, text, std::strlen(text)); }
void Write(int fd, const std::string& text) { Write(fd, text.data(), text.size()); }

void WriteDecimal(int fd, uint64_t value) {
  char digits[24];
  size_t at = sizeof(digits);
  do {
    digits[--at] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  Write(fd, digits + at, sizeof(digits) - at);
}

// The input as a C string literal: printable ASCII as is, the rest as \xHH.
void WriteEscaped(int fd, const std::string& input) {
  static const char kHex[] = "0123456789abcdef";
  for (unsigned char c : input) {
    char buffer[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    if (c == '\\' || c == '"') {
      buffer[1] = static_cast<char>(c);
      Write(fd, buffer, 2);
    } else if (c >= 0x20 && c < 0x7f) {
      Write(fd, reinterpret_cast<const char*>(&c), 1);
    } else {
      Write(fd, buffer, 4);
    }
  }
}

void WriteInputFile(uint64_t index, const std::string& input) {
  char path[4096];
  const std::string& prefix = g_setup->file_prefix;
  if (prefix.size() + 24 > sizeof(path)) return;
  std::memcpy(path, prefix.data(), prefix.size());
  size_t length = prefix.size();
  char digits[24];
  size_t at = sizeof(digits);
  do {
    digits[--at] = static_cast<char>('0' + index % 10);
    index /= 10;
  } while (index != 0);
  std::memcpy(path + length, digits + at, sizeof(digits) - at);
  path[length + sizeof(digits) - at] = '\0';
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  Write(fd, input);
  close(fd);
  Write(2, "axe_replay: input written to ");
  Write(2, path);
  Write(2, "\n");
}

// Prints the report once (the sanitizer's callback and the SIGABRT it raises both land here).
void Report(const char* what) {
  if (g_setup == nullptr || g_reported.exchange(true)) return;
  const std::string* input = g_input.load();
  if (input == nullptr) {
    Write(2, "axe_replay: ");
    Write(2, what);
    Write(2, " outside the mutated executions\n");
    return;
  }
  const uint64_t index = g_index.load();
  Write(2, "axe_replay: ");
  Write(2, what);
  Write(2, " in mutated execution ");
  WriteDecimal(2, index);
  Write(2, "; reproduce with:\n  ");
  Write(2, g_setup->command_head);
  WriteDecimal(2, index);
  Write(2, g_setup->command_tail);
  Write(2, "\naxe_replay: the input (");
  WriteDecimal(2, input->size());
  Write(2, " bytes): \"");
  WriteEscaped(2, *input);
  Write(2, "\"\n");
  WriteInputFile(index, *input);
}

void OnSanitizerDeath() { Report("sanitizer error"); }

void OnSignal(int signal_number) {
  Report(signal_number == SIGABRT ? "abort" : "fatal signal");
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

void InstallSignalHandler(int signal_number) {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = OnSignal;
  action.sa_flags = SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(signal_number, &action, nullptr);
}

// Reports and aborts when the running execution makes no progress for `seconds`.
void WatchForHangs(int seconds) {
  std::thread([seconds] {
    uint64_t last_index = g_index.load();
    int still = 0;
    for (;;) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      const uint64_t index = g_index.load();
      still = (index == last_index && g_input.load() != nullptr) ? still + 1 : 0;
      last_index = index;
      if (still >= seconds) {
        Report("no progress (a hang?)");
        std::abort();
      }
    }
  }).detach();
}

}  // namespace

void ArmCrashReport(const CrashReportSetup& setup) {
  if (g_setup != nullptr) return;
  g_setup = new CrashReportSetup(setup);
  if (__sanitizer_set_death_callback != nullptr) {
    __sanitizer_set_death_callback(OnSanitizerDeath);
  } else {
    // Without a sanitizer, report faults ourselves (on an alternate stack, so that a stack
    // overflow is reported too). With one, its own handlers report them and call us back.
    static char alternate_stack[1 << 16];
    stack_t stack;
    std::memset(&stack, 0, sizeof(stack));
    stack.ss_sp = alternate_stack;
    stack.ss_size = sizeof(alternate_stack);
    sigaltstack(&stack, nullptr);
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) InstallSignalHandler(s);
  }
  InstallSignalHandler(SIGABRT);
  if (setup.hang_seconds > 0) WatchForHangs(setup.hang_seconds);
}

void SetCurrentExecution(uint64_t index, const std::string& input) {
  g_input.store(&input);
  g_index.store(index);
}

void ClearCurrentExecution() { g_input.store(nullptr); }

}  // namespace axe::fuzz
