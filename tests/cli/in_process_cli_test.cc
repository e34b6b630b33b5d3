// The command line run in process (RunAxeInProcess: tools/axe/run_cli.h on string streams)
// against the binary (RunAxe): for a representative command line of every command group,
// successes and errors alike, both give the same exit code, standard output and standard
// error. Runs in one process start clean: no option, standard input or memory limit of one
// run is seen by the next.
#include <stdlib.h>

#include <string>
#include <utility>
#include <vector>

#include "cli/run_axe.h"
#include "cli/run_axe_in_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe {
namespace in_process_cli_test {
namespace {

using ::testing::HasSubstr;
using testing::RunAxeBinary;
using testing::RunAxeInProcess;
using testing::RunResult;

struct CommandLine {
  CommandLine(std::vector<std::string> args, std::string input = "")
      : args(std::move(args)), input(std::move(input)) {}
  std::vector<std::string> args;
  std::string input;  // standard input
};

const char kExampleOne[] =
    "{ lambda ; a:f32[8]. let b:f32[2] = shard_map[check_vma=True in_specs=(P('x',),) "
    "jaxpr={ lambda ; c:f32[2]{V:x}. let d:f32[2] = psum_invariant[axes=('x',)] c in (d,) } "
    "mesh=Mesh('x': 4, axis_types=(Auto,)) newly_manual_axes=frozenset({'x'}) "
    "out_specs=(P(),)] a in (b,) }";

const char kSinMulSum[] =
    "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = sin a; d:f32[3] = mul c b; "
    "e:f32[] = reduce_sum[axes=(0,) out_sharding=None] d in (e,) }";

const std::string kApplyFn = "@" AXE_SOURCE_DIR "/tests/jit/testdata/apply_fn.jaxpr";
const std::string kHloModule =
    "@" AXE_SOURCE_DIR "/tests/sharding/testdata/hlo_modules/matmul_1d.hlo";

// One or more command lines per command group: results, --json, standard input, the
// one-line errors (exit code 2) and the parser's own (help, version, unknown commands).
std::vector<CommandLine> RepresentativeCommandLines() {
  const std::string la = "S[(8,16):(16,1)]";
  return {
      {{"layout", "canon", "S[(8,8,8,4,2):(512,64,8,2,1)]"}},
      {{"layout", "canon", "-", "--json"}, "S[(8,8,8,4,2):\n(512,64,8,2,1)]\n"},
      {{"layout", "apply", la, "--shape", "8,16", "--coord", "2,9"}},
      {{"layout", "info", la, "--json"}},
      {{"layout", "show", "S[(2,2):(1,2)]", "--shape", "2,2"}},
      {{"layout", "apply", "S[(8,2]", "--coord", "1"}},
      {{"layout", "apply", "S[8:1]", "--flat", "9223372036854775808"}},
      {{"layout", "group", "Swizzled(3,3,3, S[512:1])", "--shape", "512"}},
      {{"xla", "explain", "f32[3,5]{1,0:T(2,2)}", "--index", "2,3", "--json"}},
      {{"xla", "explain", "(f32[2], (token[], s4[8]{0:E(4)}))"}},
      {{"xla", "offset", "f32[3,5]{1,0:T(2,2)}", "--linear", "17"}},
      {{"xla", "check", "f32[2,3]{0,0}"}},
      {{"xla", "check", "f32[2]{0:T(-2)}", "--json"}},
      {{"shard", "explain", "--shape", "8,8", "--mesh", "x=2,y=2", "--spec", "P('x', 'y')"}},
      {{"shard", "explain", "--hlo", "{devices=[2]0,1}"}},
      {{"grid", "show", "--shape", "8", "--block", "2", "--grid", "4", "--index-map",
        "i -> i - 1"}},
      {{"grid", "check", "--backend", "tpu", "--shape", "9,128", "--block", "9,64", "--json"}},
      {{"hlo", "summary", kHloModule}},
      {{"hlo", "summary", "-", "--json"}, "HloModule m\n"},
      {{"ir", "check", "-", "--json"}, kExampleOne},
      {{"ir", "transpose", "--wrt", "0", kExampleOne}},
      {{"ir", "comm", kExampleOne, "--json"}},
      {{"ir", "grad", kSinMulSum}},
      {{"ir", "vmap", kSinMulSum, "--size", "2"}},
      {{"ir", "run", "-", "--mesh", "x=4", "--arg", "f32[8]=iota"}, kExampleOne},
      {{"ir", "run", "-", "--arg", "f32[8]=1,2"}, kExampleOne},
      {{"compile", "--jaxpr", kApplyFn, "--in", "Format(Layout.AUTO)", "--in",
        "Format(Layout.AUTO)", "--explain"}},
      {{"call", "--jaxpr", kApplyFn, "--in", "Format(Layout.AUTO)", "--in", "Format(Layout.AUTO)",
        "--arg", "uncommitted", "--arg", "uncommitted"}},
      {{"relayout", "--from", "S[(64,64):(64,1)]", "--to", "S[(64,64):(1,64)]", "--bogus"}},
      {{"reshard", "--shape", "x"}},
      {{"collective", "--op", "psum", "--mesh", "x=2", "--axes", "x", "--shape", "0,-1"}},
      {{"completion", "zsh"}},
      {{"completion", "fish"}},
      {{"grid", "show", "--shape", "-", "--block", "-", "--grid", "4"}, "8"},
      {{"tour", "--part", "xla"}},
      {{"tour", "--part", "nope"}},
      {{"layout", "--help"}},
      {{"--version"}},
      {{"layout", "bogus"}},
      {{}},
      {{"--memory-limit", "1K", "layout", "canon", "S[8:1]"}},
  };
}

TEST(InProcessCli, MatchesTheBinaryOnEveryCommandGroup) {
  for (const CommandLine& c : RepresentativeCommandLines()) {
    SCOPED_TRACE(::testing::PrintToString(c.args));
    const RunResult binary = RunAxeBinary(c.args, c.input);
    const RunResult in_process = RunAxeInProcess(c.args, c.input);
    EXPECT_EQ(in_process.exit_code, binary.exit_code);
    EXPECT_EQ(in_process.out, binary.out);
    EXPECT_EQ(in_process.err, binary.err);
  }
}

TEST(InProcessCli, CoversSuccessesAndErrors) {
  // The comparison above is only as good as its command lines: they succeed and fail.
  int succeeded = 0, refused = 0;
  for (const CommandLine& c : RepresentativeCommandLines()) {
    const RunResult r = RunAxeInProcess(c.args, c.input);
    if (r.exit_code == 0 && !r.out.empty()) ++succeeded;
    if (r.exit_code == 2 && r.err.rfind("axe: error: ", 0) == 0) ++refused;
  }
  EXPECT_GE(succeeded, 20);
  EXPECT_GE(refused, 10);
}

TEST(InProcessCli, ErrorsAreOneLineOnTheErrorStream) {
  const RunResult r = RunAxeInProcess({"layout", "apply", "S[(8,2]", "--coord", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, ::testing::StartsWith("axe: error: "));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);
  const RunResult j = RunAxeInProcess({"xla", "check", "f32[2]{0:T(-2)}", "--json"});
  EXPECT_EQ(j.exit_code, 2);
  EXPECT_THAT(j.out, ::testing::StartsWith("{\"error\":"));
  EXPECT_THAT(j.err, ::testing::StartsWith("axe: error: "));
}

TEST(InProcessCli, EachRunReadsItsOwnStandardInput) {
  // One run reads standard input once; the next run has its own.
  for (int run = 0; run < 2; ++run) {
    const RunResult r = RunAxeInProcess({"ir", "check", "-"}, kSinMulSum);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("reduce_sum[axes=(0,) out_sharding=None] d"));
  }
  // Within a run, standard input is read once.
  const RunResult twice =
      RunAxeInProcess({"grid", "show", "--shape", "-", "--block", "-", "--grid", "4"}, "8");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(twice.err,
            "axe: error: --block: standard input was already read for --shape; use @FILE for "
            "one of them\n");
}

TEST(InProcessCli, OptionsOfOneRunAreNotSeenByTheNext) {
  const RunResult json = RunAxeInProcess({"layout", "canon", "S[(2,4):(4,1)]", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, ::testing::StartsWith("{\"layout\":"));
  const RunResult text = RunAxeInProcess({"layout", "canon", "S[(2,4):(4,1)]"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.find('{'), std::string::npos) << text.out;
  // A failed command (no action) after a successful one: no action is left over.
  const RunResult none = RunAxeInProcess({});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("(see --help)"));
}

TEST(InProcessCli, AMemoryLimitHoldsForItsRunOnly) {
  unsetenv("AXE_MEMORY_LIMIT");
  const char kBig[] =
      "{ lambda ; a:f32[]. let b:f32[1048576] = broadcast_in_dim[broadcast_dimensions=() "
      "shape=(1048576,) sharding=None] a in (b,) }";
  const RunResult refused =
      RunAxeInProcess({"--memory-limit", "1M", "ir", "run", "-", "--arg", "f32[]=0.5"}, kBig);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("--memory-limit"));
  EXPECT_EQ(getenv("AXE_MEMORY_LIMIT"), nullptr);
  const RunResult fits = RunAxeInProcess({"ir", "check", "-"}, kBig);
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
}

}  // namespace
}  // namespace in_process_cli_test
}  // namespace axe
