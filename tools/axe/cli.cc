#include "cli.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "axe/base/int_list.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/base/utf8.h"
#include "axe/picture/tikz.h"

namespace axe::cli {

void AddJsonFlag(CLI::App* cmd, Selected& selected) {
  cmd->add_flag("--json", selected.json, "Print machine-readable JSON (stable field names)");
}

void AddMemoryLimitOption(CLI::App& app, Selected& selected) {
  app.add_option("--memory-limit", selected.memory_limit,
                 "Memory the command may use, e.g. 64M or 4G (default: AXE_MEMORY_LIMIT, else "
                 "the cgroup limit or MemAvailable, whichever is less)");
  app.fallthrough();
}

absl::Status ResolveBudget(Selected& selected) {
  AXE_ASSIGN_OR_RETURN(selected.budget, ResolveMemoryBudget(selected.memory_limit));
  if (selected.memory_limit && setenv(kMemoryLimitEnv, selected.memory_limit->c_str(), 1) != 0) {
    return absl::InternalError("cannot set AXE_MEMORY_LIMIT");
  }
  return absl::OkStatus();
}

void OnSelect(CLI::App* cmd, Selected& selected, std::function<absl::Status()> action) {
  cmd->callback([&selected, action = std::move(action)] { selected.action = action; });
}

absl::Status InOption(absl::string_view option, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(option, ": ", status.message()));
}

absl::StatusOr<std::vector<int64_t>> ParseIntListOption(const std::string& arg,
                                                        const std::string& option) {
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(arg, option));
  absl::StatusOr<std::vector<int64_t>> v = ParseIntList(text);
  if (!v.ok()) return InOption(option, v.status());
  return v;
}

absl::Status WriteOutputFile(const std::string& path, const std::string& text,
                             const std::string& what) {
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": empty file name"));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out.flush()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": cannot write '", path, "'"));
  }
  return absl::OkStatus();
}

absl::Status WritePictureFiles(const std::string& svg_path, const std::string& latex_path,
                               const std::string& svg) {
  if (!svg_path.empty()) AXE_RETURN_IF_ERROR(WriteOutputFile(svg_path, svg, "--svg"));
  if (latex_path.empty()) return absl::OkStatus();
  absl::StatusOr<std::string> tikz = picture::SvgToTikz(svg);
  if (!tikz.ok()) return InOption("--latex", tikz.status());
  return WriteOutputFile(latex_path, *tikz, "--latex");
}

void AddLatexOption(CLI::App* cmd, std::string& latex) {
  cmd->add_option("--latex", latex,
                  "Also write the picture as a standalone LaTeX (TikZ) document into FILE")
      ->check(OutputFileName());
}

namespace {

// Refuses, before reading, a source that is a directory (standard input redirected from one
// reads as empty text) or a path the file system rejects (too long, a symlink loop).
absl::Status CheckReadable(const std::string& arg, const std::string& what,
                           const std::string& source) {
  const auto refuse = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": cannot read ", source, ": ", why));
  };
  if (arg == "-") {
    struct stat st {};
    if (fstat(STDIN_FILENO, &st) == 0 && S_ISDIR(st.st_mode)) return refuse("it is a directory");
    return absl::OkStatus();
  }
  std::error_code error;
  const std::filesystem::file_status file = std::filesystem::status(arg.substr(1), error);
  if (std::filesystem::is_directory(file)) return refuse("it is a directory");
  if (error && error != std::errc::no_such_file_or_directory) return refuse(error.message());
  return absl::OkStatus();
}

}  // namespace

namespace {
StandardInputScope*& CurrentStandardInput() {
  static StandardInputScope* current = nullptr;
  return current;
}
}  // namespace

StandardInputScope::StandardInputScope(std::istream& in) : in_(in), outer_(CurrentStandardInput()) {
  CurrentStandardInput() = this;
}

StandardInputScope::~StandardInputScope() { CurrentStandardInput() = outer_; }

absl::StatusOr<std::string> ReadInputText(const std::string& arg, const std::string& what) {
  constexpr size_t kMaxInputBytes = size_t{256} << 20;
  if (arg != "-" && (arg.empty() || arg[0] != '@')) return arg;
  const bool from_stdin = arg == "-";
  std::optional<StandardInputScope> no_run;  // a call outside RunCli reads std::cin
  if (CurrentStandardInput() == nullptr) no_run.emplace(std::cin);
  StandardInputScope& standard_input = *CurrentStandardInput();
  if (from_stdin && !standard_input.reader.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": standard input was already read for ",
                                                   standard_input.reader,
                                                   "; use @FILE for one of them"));
  }
  if (from_stdin) standard_input.reader = what;
  const bool process_stdin = from_stdin && standard_input.is_process_stdin();
  const std::string source =
      from_stdin ? "standard input" : absl::StrCat("file '", ElideForMessage(arg.substr(1)), "'");
  if (!from_stdin || process_stdin) AXE_RETURN_IF_ERROR(CheckReadable(arg, what, source));
  std::ifstream file;
  if (!from_stdin) file.open(arg.substr(1), std::ios::binary);
  std::istream& in = from_stdin ? standard_input.in() : file;
  std::string text;
  char chunk[1 << 16];
  while (in && (in.read(chunk, sizeof chunk), in.gcount() > 0)) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxInputBytes) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": ", source, " exceeds 256 MiB"));
    }
  }
  if (in.bad() || (!from_stdin && !file.is_open()) || !in.eof() ||
      (process_stdin && std::ferror(stdin))) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": cannot read ", source));
  }
  // A file's final newline (and any trailing blanks) is not part of the value.
  text.erase(text.find_last_not_of(" \t\r\n") + 1);
  return text;
}

const CLI::Validator& OutputFileName() {
  static const auto* validator = new CLI::Validator(
      [](std::string& value) -> std::string {
        return value.empty() ? "expected a file name, got an empty value" : "";
      },
      "FILE");
  return *validator;
}

std::string OneLine(absl::string_view message) {
  std::string out;
  out.reserve(message.size());
  bool space = false;
  for (char c : message) {
    const bool blank = c == '\n' || c == '\r' || c == '\t';
    if (blank) {
      space = true;
      continue;
    }
    if (space && !out.empty() && out.back() != ' ') out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

void PrintJson(std::ostream& out, const Json& j) { out << DumpJson(j) << "\n"; }

namespace {
std::vector<std::pair<int, CommandGroupAdder>>& Groups() {
  static auto* groups = new std::vector<std::pair<int, CommandGroupAdder>>();
  return *groups;
}
}  // namespace

CommandGroupRegistration::CommandGroupRegistration(int order, CommandGroupAdder adder) {
  Groups().emplace_back(order, adder);
}

void AddRegisteredCommandGroups(CLI::App& app, Selected& selected) {
  std::vector<std::pair<int, CommandGroupAdder>> groups = Groups();
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [order, adder] : groups) adder(app, selected);
}

void MakeIntegerOptionsStrict(CLI::App& app) {
  const CLI::Validator strict_integer(
      [](std::string& value) -> std::string {
        int64_t parsed = 0;
        if (absl::SimpleAtoi(value, &parsed)) return "";
        const std::string shown = ElideForMessage(value, 40);
        return value.empty()
                   ? "expected an integer, got an empty value"
                   : absl::StrCat("expected an integer in [-2^63, 2^63), got '", shown, "'");
      },
      "");
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_type_name() == "INT" || opt->get_type_name() == "UINT") {
      opt->check(strict_integer);
      // The help shows what the number is (--threads THREADS), not its C++ type.
      std::string meaning = opt->get_single_name();
      absl::AsciiStrToUpper(&meaning);
      absl::StrReplaceAll({{"-", "_"}}, &meaning);
      if (!meaning.empty()) opt->type_name(meaning);
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    MakeIntegerOptionsStrict(*sub);
  }
}

std::optional<std::string> UnknownCommand(CLI::App& app, int argc, const char* const* argv) {
  CLI::App* current = &app;
  std::string path = app.get_name();
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') return std::nullopt;  // options: the parser's business
    auto subs = current->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) return std::nullopt;  // positional arguments of a leaf command
    CLI::App* next = nullptr;
    for (CLI::App* sub : subs) {
      if (sub->check_name(word)) next = sub;
    }
    if (next == nullptr) {
      std::vector<std::string> names;
      for (CLI::App* sub : subs) names.push_back(sub->get_name());
      const std::string shown = ElideForMessage(word, 40);
      return absl::StrCat("unknown command '", shown, "' for '", path,
                          "'; expected one of: ", absl::StrJoin(names, ", "));
    }
    current = next;
    absl::StrAppend(&path, " ", word);
  }
  return std::nullopt;
}

}  // namespace axe::cli
