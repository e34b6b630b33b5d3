// End-to-end checks of the progress line: the commands that may show one print exactly the
// same with and without --quiet when stderr is not a terminal (here: a pipe), and nothing on
// stderr. The line's drawing itself is tested in progress_line_test.cc with a fake terminal.
#include <string>
#include <vector>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe {
namespace progress_cli_test {
namespace {

using ::testing::HasSubstr;
using testing::RunAxe;

const std::string kJaxprs = std::string("@") + AXE_SOURCE_DIR + "/tests/ir/testdata/jax/";
const std::string kModules =
    std::string("@") + AXE_SOURCE_DIR + "/tests/sharding/testdata/hlo_modules/";

// `args` with --quiet inserted after the first (the command's) word.
std::vector<std::string> Quiet(std::vector<std::string> args) {
  args.insert(args.begin() + 1, "--quiet");
  return args;
}

TEST(ProgressCli, OutputUnchangedWhenStderrIsNotATerminal) {
  const std::vector<std::vector<std::string>> commands = {
      {"ir", "run", kJaxprs + "shmap_psum.txt", "--mesh", "x=4", "--arg", "f32[8]=iota"},
      {"hlo", "summary", kModules + "matmul_2d.hlo"},
  };
  for (const std::vector<std::string>& args : commands) {
    auto plain = RunAxe(args);
    auto quiet = RunAxe(Quiet(args));
    ASSERT_EQ(plain.exit_code, 0) << args[0] << ": " << plain.err;
    EXPECT_EQ(plain.err, "") << args[0];
    EXPECT_EQ(quiet.exit_code, 0) << args[0] << ": " << quiet.err;
    EXPECT_EQ(quiet.out, plain.out) << args[0];
    EXPECT_EQ(quiet.err, "") << args[0];
  }
}

TEST(ProgressCli, TimedCommandsPrintNothingOnAPipedStderr) {
  const std::vector<std::vector<std::string>> commands = {
      {"relayout", "--shape", "256,256", "--from", "S[(256,256):(256,1)]", "--to",
       "S[(256,256):(1,256)]", "--repeat", "20"},
      {"reshard", "--shape", "64,64", "--mesh", "x=2,y=2", "--from", "P('x', 'y')", "--to",
       "P('y', 'x')", "--repeat", "20"},
      {"collective", "--op", "all_reduce", "--mesh", "x=4", "--axes", "x", "--shape", "256",
       "--repeat", "20"},
  };
  for (const std::vector<std::string>& args : commands) {
    auto r = RunAxe(args);
    ASSERT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err, "") << args[0];
    EXPECT_THAT(r.out, HasSubstr("GB/s")) << args[0];
  }
}

TEST(ProgressCli, QuietIsAGlobalFlag) {
  auto before = RunAxe({"--quiet", "hlo", "summary", kModules + "matmul_2d.hlo"});
  EXPECT_EQ(before.exit_code, 0) << before.err;
  auto after = RunAxe({"hlo", "summary", kModules + "matmul_2d.hlo", "--quiet"});
  EXPECT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(before.out, after.out);
}

}  // namespace
}  // namespace progress_cli_test
}  // namespace axe
