// Runs a fuzz target without libFuzzer, so that every compiler (g++ included) and every
// `make test` run checks it:
//
//   axe_replay_<t> <corpus files or dirs>...          replay every file (one input each)
//   axe_replay_<t> --mutate-seconds=S [--seed=N] [--dict=FILE] [--max-len=B] [--runs=R]
//                  [--hang-seconds=H] <corpus>...     then run random mutations of the corpus
//                                                     (mutator.h) for S seconds
//   axe_replay_<t> --seed=N --input-index=I [--dict=FILE] <corpus>...
//                                                     print and run mutated input I only
//
// The seed comes from --seed, else from the clock; AXE_TEST_SEED overrides both (as in the
// unit tests). The input of each execution depends only on the seed, its index and the
// corpus, so a failure is reproduced from the seed and index that the crash report prints.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "crash_report.h"
#include "dictionary.h"
#include "mutator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

struct Options {
  double mutate_seconds = 0;
  std::optional<uint64_t> seed;
  std::optional<uint64_t> input_index;
  std::string dict_path;
  uint64_t max_bytes = 4096;
  uint64_t runs = 0;  // 0: until the time is up
  uint64_t hang_seconds = 60;
  std::vector<std::string> paths;
};

constexpr char kUsage[] =
    "usage: %s [--mutate-seconds=S] [--seed=N] [--input-index=I] [--dict=FILE] "
    "[--max-len=BYTES] [--runs=N] [--hang-seconds=H] <corpus files or dirs>...\n";

// Parses `--name=value` options; false (after a message) on a bad one.
bool ParseOptions(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (!absl::StartsWith(arg, "--")) {
      options.paths.emplace_back(arg);
      continue;
    }
    const size_t equals = arg.find('=');
    const absl::string_view name = arg.substr(0, equals);
    const absl::string_view value =
        equals == absl::string_view::npos ? absl::string_view() : arg.substr(equals + 1);
    uint64_t number = 0;
    const bool is_number = absl::SimpleAtoi(value, &number);
    bool ok = is_number;
    if (name == "--dict") {
      options.dict_path = std::string(value);
      ok = !value.empty();
    } else if (name == "--mutate-seconds") {
      ok = absl::SimpleAtod(value, &options.mutate_seconds) && options.mutate_seconds >= 0 &&
           options.mutate_seconds <= 86400;
    } else if (name == "--seed") {
      options.seed = number;
    } else if (name == "--input-index") {
      options.input_index = number;
    } else if (name == "--max-len") {
      options.max_bytes = number;
      ok = is_number && number > 0 && number <= (1u << 20);
    } else if (name == "--runs") {
      options.runs = number;
    } else if (name == "--hang-seconds") {
      options.hang_seconds = number;
      ok = is_number && number <= 86400;
    } else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "bad value in %s\n", argv[i]);
      return false;
    }
  }
  return true;
}

std::optional<std::string> ReadFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Every file named by `paths` (directories recursively), sorted, so that the corpus, and with
// it every mutated input, is the same from run to run.
std::vector<std::filesystem::path> CorpusFiles(const std::vector<std::string>& paths) {
  std::vector<std::filesystem::path> files;
  for (const std::string& path : paths) {
    if (!std::filesystem::is_directory(path)) {
      files.emplace_back(path);
      continue;
    }
    std::vector<std::filesystem::path> in_directory;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
      if (entry.is_regular_file()) in_directory.push_back(entry.path());
    }
    std::sort(in_directory.begin(), in_directory.end());
    files.insert(files.end(), in_directory.begin(), in_directory.end());
  }
  return files;
}

void RunOne(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

uint64_t ChooseSeed(const Options& options) {
  uint64_t seed = options.seed.value_or(static_cast<uint64_t>(
      std::chrono::system_clock::now().time_since_epoch().count() % 1000000007));
  if (const char* env = std::getenv("AXE_TEST_SEED"); env != nullptr && *env != '\0') {
    if (!absl::SimpleAtoi(env, &seed)) {
      std::fprintf(stderr, "AXE_TEST_SEED='%s' is not a non-negative decimal number\n", env);
      std::exit(2);
    }
  }
  return seed;
}

// The command line that runs mutated input <index> again (the index goes between the two).
axe::fuzz::CrashReportSetup ReportSetup(const char* argv0, const Options& options, uint64_t seed) {
  axe::fuzz::CrashReportSetup setup;
  setup.command_head = absl::StrCat(argv0, " --seed=", seed, " --input-index=");
  if (!options.dict_path.empty())
    absl::StrAppend(&setup.command_tail, " --dict=", options.dict_path);
  absl::StrAppend(&setup.command_tail, " --max-len=", options.max_bytes);
  for (const std::string& path : options.paths) absl::StrAppend(&setup.command_tail, " ", path);
  const std::string target = std::filesystem::path(argv0).filename().string();
  setup.file_prefix = absl::StrCat("fuzz-crash-", target, "-", seed, "-");
  setup.hang_seconds = static_cast<int>(options.hang_seconds);
  return setup;
}

// Mutation mode: random mutations for options.mutate_seconds (or options.runs executions).
void Mutate(const char* argv0, const Options& options, axe::fuzz::Mutator& mutator) {
  const uint64_t seed = ChooseSeed(options);
  std::printf("mutating for %g s, seed %llu (replay with --seed=%llu or AXE_TEST_SEED=%llu)\n",
              options.mutate_seconds, static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
  std::fflush(stdout);
  axe::fuzz::ArmCrashReport(ReportSetup(argv0, options, seed));
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(options.mutate_seconds);
  uint64_t index = 0;
  for (; options.runs == 0 || index < options.runs; ++index) {
    if (std::chrono::steady_clock::now() >= deadline) break;
    const std::string input = mutator.Input(seed, index);
    axe::fuzz::SetCurrentExecution(index, input);
    RunOne(input);
    axe::fuzz::ClearCurrentExecution();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%llu mutated executions in %.1f s (seed %llu)\n",
              static_cast<unsigned long long>(index), seconds,
              static_cast<unsigned long long>(seed));
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOptions(argc, argv, options)) {
    std::fprintf(stderr, kUsage, argv[0]);
    return 2;
  }
  std::vector<std::string> corpus;
  for (const std::filesystem::path& file : CorpusFiles(options.paths)) {
    std::optional<std::string> bytes = ReadFile(file);
    if (!bytes) {
      std::fprintf(stderr, "cannot read %s\n", file.c_str());
      return 1;
    }
    corpus.push_back(*std::move(bytes));
  }
  std::vector<std::string> tokens;
  if (!options.dict_path.empty()) {
    std::optional<std::string> text = ReadFile(options.dict_path);
    absl::StatusOr<std::vector<std::string>> parsed =
        text ? axe::fuzz::ParseDictionary(*text)
             : absl::NotFoundError(absl::StrCat("cannot read ", options.dict_path));
    if (!parsed.ok()) {
      std::fprintf(stderr, "%s: %s\n", options.dict_path.c_str(),
                   std::string(parsed.status().message()).c_str());
      return 2;
    }
    tokens = *std::move(parsed);
  }
  axe::fuzz::Mutator mutator(corpus, tokens, options.max_bytes);
  if (options.input_index) {
    if (!options.seed && std::getenv("AXE_TEST_SEED") == nullptr) {
      std::fprintf(stderr, "--input-index needs the run's --seed\n");
      return 2;
    }
    const uint64_t seed = ChooseSeed(options);
    const std::string input = mutator.Input(seed, *options.input_index);
    std::printf("input %llu of seed %llu (%zu bytes):\n",
                static_cast<unsigned long long>(*options.input_index),
                static_cast<unsigned long long>(seed), input.size());
    std::fwrite(input.data(), 1, input.size(), stdout);
    std::printf("\n");
    std::fflush(stdout);
    RunOne(input);
    return 0;
  }
  for (const std::string& input : corpus) RunOne(input);
  std::printf("%zu inputs replayed\n", corpus.size());
  if (options.mutate_seconds > 0) Mutate(argv[0], options, mutator);
  return corpus.empty() ? 1 : 0;
}
