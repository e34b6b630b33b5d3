// `axe completion`: the generated script completes commands and options in a real bash, and
// integer options show their meaning in --help.
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe {
namespace completion_cli_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunAxe;

// What bash's completion of the words typed so far (`line`, the last word being completed)
// offers, via the script `axe completion bash` prints.
std::string Complete(const std::string& line) {
  const std::string script = ::testing::TempDir() + "/axe_completion.bash";
  auto r = RunAxe({"completion", "bash"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  FILE* f = std::fopen(script.c_str(), "w");
  EXPECT_NE(f, nullptr);
  std::fputs(r.out.c_str(), f);
  std::fclose(f);
  const std::string out = ::testing::TempDir() + "/axe_completion.out";
  const std::string command = "bash -c 'source " + script + "; COMP_WORDS=(" + line +
                              "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _axe; echo "
                              "\"${COMPREPLY[*]}\"' > " +
                              out;
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  FILE* in = std::fopen(out.c_str(), "r");
  std::string text;
  char buf[4096];
  while (in != nullptr && std::fgets(buf, sizeof buf, in) != nullptr) text += buf;
  if (in != nullptr) std::fclose(in);
  return text;
}

TEST(CompletionCli, BashCompletesCommandsAndOptionsFromTheTree) {
  if (std::system("command -v bash > /dev/null") != 0) GTEST_SKIP() << "no bash";
  EXPECT_EQ(Complete("axe lay"), "layout\n");
  EXPECT_THAT(Complete("axe layout \"\""), HasSubstr("apply"));
  EXPECT_THAT(Complete("axe relayout --thr"), HasSubstr("--threads"));
  // Options of an inner command, after an option of the outer one.
  EXPECT_THAT(Complete("axe --memory-limit 1G ir run --"), HasSubstr("--json"));
  EXPECT_THAT(Complete("axe ir \"\""), Not(HasSubstr("--threads")));
}

TEST(CompletionCli, ZshAndBadShells) {
  auto zsh = RunAxe({"completion", "zsh"});
  EXPECT_EQ(zsh.exit_code, 0);
  EXPECT_THAT(zsh.out, HasSubstr("#compdef axe\n"));
  EXPECT_THAT(zsh.out, HasSubstr("bashcompinit"));
  auto bad = RunAxe({"completion", "fish"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("fish"));
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1) << bad.err;
}

TEST(CompletionCli, IntegerOptionsShowWhatTheyMean) {
  auto r = RunAxe({"relayout", "--help"});
  EXPECT_THAT(r.out, HasSubstr("--threads THREADS"));
  EXPECT_THAT(r.out, HasSubstr("--repeat REPEAT"));
  EXPECT_THAT(r.out, Not(HasSubstr("INT:INT")));
}

}  // namespace
}  // namespace completion_cli_test
}  // namespace axe
