// Bad input across the command groups: bytes that are not UTF-8, characters of several bytes,
// unusable paths and standard inputs, empty output file names, malformed jaxprs. Each is one
// line on stderr and exit code 2 (never an abort or an internal error), and --json prints
// well-formed JSON.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace bad_input_cli_test {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunAxe;
using testing::RunAxeWithStdinFrom;
using testing::RunResult;
using ::testing::StartsWith;

const std::string kFffd = "\xEF\xBF\xBD";  // U+FFFD, what an ill-formed byte becomes

// One line on stderr, "axe: error: ...", exit code 2.
void ExpectOneLineError(const RunResult& r) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, StartsWith("axe: error: "));
  EXPECT_THAT(r.err, EndsWith("\n"));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

// The "error" of the JSON on stdout; fails when stdout is not one well-formed JSON object
// (nlohmann's parser refuses ill-formed UTF-8).
std::string JsonError(const RunResult& r) {
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("error")) {
    ADD_FAILURE() << "not a JSON error: " << r.out;
    return "";
  }
  return j["error"].get<std::string>();
}

TEST(BadInputCli, IllFormedUtf8InJsonBecomesReplacementCharacters) {
  const std::string ff = "\xFF";
  const std::vector<std::vector<std::string>> commands = {
      {"layout", "canon", "S[" + ff + "]"},
      {"shard", "explain", "--shape", "8,8", "--mesh", "x=2", "--spec", "P('" + ff + "')"},
      {"xla", "explain", "f32[3" + ff + "]"},
      {"grid", "show", "--shape", "8" + ff, "--block", "2", "--grid", "4", "--index-map", "i -> i"},
      {"relayout", "--from", "S[" + ff + "]", "--to", "S[4:1]", "--shape", "4"},
      {"collective", "--op", ff, "--mesh", "x=2", "--axes", "x", "--shape", "8"},
  };
  for (std::vector<std::string> args : commands) {
    args.push_back("--json");
    RunResult r = RunAxe(args);
    SCOPED_TRACE(args[0] + " " + args[1]);
    ExpectOneLineError(r);
    const std::string error = JsonError(r);
    EXPECT_THAT(error, HasSubstr(kFffd));
    EXPECT_THAT(error, Not(HasSubstr(ff)));
    // stderr says the same, repaired the same way.
    EXPECT_EQ(r.err, "axe: error: " + error + "\n");
  }
}

TEST(BadInputCli, ParserErrorsQuoteWholeCharacters) {
  RunResult ir = RunAxe({"ir", "check", "{\xC3\xA9}", "--json"});
  ExpectOneLineError(ir);
  EXPECT_EQ(JsonError(ir), "line 1, column 2: expected 'lambda', found '\xC3\xA9'");
  RunResult layout = RunAxe({"layout", "canon", "S[\xE2\x82\xAC]", "--json"});
  ExpectOneLineError(layout);
  EXPECT_EQ(JsonError(layout),
            "layout: position 2: expected an integer, found '\xE2\x82\xAC' in \"S[\xE2\x82\xAC]\"");
  // Columns count characters: the '?' after two 2-byte characters is character 47, byte 49.
  RunResult column = RunAxe(
      {"ir", "check", "{ lambda ; a:f32[]. let b:f32[] = add[x='\xC3\xA9\xC3\xA9'] ? in (b,) }"});
  ExpectOneLineError(column);
  EXPECT_EQ(column.err,
            "axe: error: line 1, column 47: expected a variable or a literal, found '?'\n");
}

TEST(BadInputCli, LongLiteralsAreNotEchoedWhole) {
  const std::string digits(100000, '1');
  RunResult r = RunAxe(
      {"ir", "check", "{ lambda ; a:i32[]. let b:i32[] = add a " + digits + ":i32[] in (b,) }"});
  ExpectOneLineError(r);
  EXPECT_LT(r.err.size(), 200u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("'11111111111111111111...11111111111111111111' is not an integer "
                               "fitting int64"));
  // The same for a value of `ir run --arg` and an unknown word of an option.
  RunResult arg = RunAxe({"ir", "run", "{ lambda ; a:f32[]. let b:f32[] = add a a in (b,) }",
                          "--arg", "f32[]=" + digits + "x"});
  ExpectOneLineError(arg);
  EXPECT_LT(arg.err.size(), 200u) << arg.err;
  EXPECT_THAT(arg.err, HasSubstr("'11111111111111111111...1111111111111111111x' is not a number"));
  RunResult op = RunAxe({"collective", "--op", std::string(100000, 'z'), "--mesh", "x=2", "--axes",
                         "x", "--shape", "8"});
  ExpectOneLineError(op);
  EXPECT_LT(op.err.size(), 300u) << op.err;
}

TEST(BadInputCli, NegativeCollectiveShapeIsAnInputError) {
  RunResult r =
      RunAxe({"collective", "--op", "all_reduce", "--mesh", "x=2", "--axes", "x", "--shape", "-1"});
  ExpectOneLineError(r);
  EXPECT_EQ(r.err, "axe: error: --shape: dimension 0 has the negative size -1\n");
}

TEST(BadInputCli, UnusablePathsAreInputErrors) {
  RunResult long_name = RunAxe({"layout", "canon", "@" + std::string(300, 'a')});
  ExpectOneLineError(long_name);
  EXPECT_THAT(long_name.err, HasSubstr("layout: cannot read file 'aaaa"));
  EXPECT_THAT(long_name.err, HasSubstr("aaa...aaa"));  // the path is elided
  EXPECT_THAT(long_name.err, EndsWith("': File name too long\n"));

  char dir[] = "/tmp/axe-cli-loop-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::filesystem::path a = std::filesystem::path(dir) / "a";
  const std::filesystem::path b = std::filesystem::path(dir) / "b";
  std::filesystem::create_symlink(b, a);
  std::filesystem::create_symlink(a, b);
  RunResult loop = RunAxe({"layout", "canon", "@" + a.string()});
  RunResult jaxpr_loop = RunAxe({"compile", "--jaxpr", a.string()});
  RunResult directory = RunAxe({"layout", "canon", std::string("@") + dir});
  std::filesystem::remove_all(dir);
  ExpectOneLineError(loop);
  EXPECT_THAT(loop.err, HasSubstr("layout: cannot read file '" + a.string() + "': "));
  ExpectOneLineError(jaxpr_loop);  // read as jaxpr text: it does not parse
  EXPECT_THAT(jaxpr_loop.err, HasSubstr("--jaxpr: line 1, column 1"));
  ExpectOneLineError(directory);
  EXPECT_THAT(directory.err, HasSubstr("': it is a directory"));

  // A jaxpr text too long for a file name is text, not a path.
  RunResult long_text = RunAxe({"compile", "--jaxpr", std::string(5000, 'x')});
  ExpectOneLineError(long_text);
  EXPECT_THAT(long_text.err, HasSubstr("--jaxpr: line 1, column 1"));
}

TEST(BadInputCli, DirectoryOnStandardInputIsRefused) {
  RunResult r = RunAxeWithStdinFrom({"layout", "canon", "-"}, "/");
  ExpectOneLineError(r);
  EXPECT_EQ(r.err, "axe: error: layout: cannot read standard input: it is a directory\n");
  RunResult grid = RunAxeWithStdinFrom(
      {"grid", "show", "--shape", "8", "--block", "2", "--grid", "4", "--index-map", "-"}, "/");
  ExpectOneLineError(grid);
  EXPECT_THAT(grid.err, HasSubstr("--index-map: cannot read standard input: it is a directory"));
}

TEST(BadInputCli, EmptySvgFileNameIsRefused) {
  RunResult r = RunAxe({"layout", "show", "S[4:1]", "--shape", "2,2", "--svg", ""});
  ExpectOneLineError(r);
  EXPECT_THAT(r.err, HasSubstr("--svg: expected a file name, got an empty value"));
  EXPECT_EQ(r.out, "");
  RunResult xla = RunAxe({"xla", "explain", "f32[4]", "--svg", ""});
  ExpectOneLineError(xla);
}

TEST(BadInputCli, CompileAndCallNameAMissingParameter) {
  const std::string jaxpr = "{ lambda ; a:f32[2,3]. let b:f32[3,2] = transpose a in (b,) }";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"compile", "--jaxpr", jaxpr},
        std::vector<std::string>{"call", "--jaxpr", jaxpr, "--arg", "uncommitted"}}) {
    RunResult r = RunAxe(args);
    SCOPED_TRACE(args[0]);
    ExpectOneLineError(r);
    EXPECT_THAT(r.err, HasSubstr("--jaxpr: primitive 'transpose' needs the parameter "
                                 "'permutation'"));
  }
}

std::string Scan(const std::string& length, const std::string& out_type) {
  return "{ lambda ; a:f32[3]. let b:" + out_type +
         " = scan[jaxpr={ lambda ; c:f32[3]. let d:f32[3] = add c c in (d,) } length=" + length +
         " linear=(False,) num_carry=1 num_consts=0 reverse=False unroll=1 jaxpr_shared=False "
         "_split_transpose=False] a in (b,) }";
}

TEST(BadInputCli, ScanLengthsAreNamed) {
  RunResult negative = RunAxe({"ir", "check", Scan("-5", "f32[3]")});
  ExpectOneLineError(negative);
  EXPECT_THAT(negative.err,
              HasSubstr("invalid scan param length of type int, non-negative int required: -5"));
  RunResult huge = RunAxe({"ir", "run", Scan("1000000000000", "f32[3]"), "--arg", "f32[3]=iota"});
  ExpectOneLineError(huge);
  // The whole program's work is refused (it used to say "a loop of 1 iterations").
  EXPECT_THAT(huge.err, HasSubstr("the program needs about"));
  EXPECT_THAT(huge.err, Not(HasSubstr("a loop of 1 iterations")));
}

}  // namespace
}  // namespace bad_input_cli_test
}  // namespace axe
