// End-to-end tests of `axe call`.
#include <string>
#include <vector>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace call_cli_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::RunAxe;
using testing::RunAxeWithStdin;

const std::string kApplyFn = "@" AXE_SOURCE_DIR "/tests/jit/testdata/apply_fn.jaxpr";

std::vector<std::string> Call(std::vector<std::string> args) {
  std::vector<std::string> out = {
      "call", "--jaxpr", kApplyFn, "--in", "Format(Layout.AUTO)", "--in", "Format(Layout.AUTO)"};
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

TEST(CallCli, UncommittedArgumentsAreReLaidOutAndReported) {
  auto r = RunAxe(Call({"--arg", "uncommitted", "--arg", "uncommitted"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("re-laid-out before the call: args[1] major_to_minor (0, 1) -> "
                               "(1, 0)\n"));
  EXPECT_THAT(r.out, HasSubstr("  [1] f32[512]  Format(layout=Layout(major_to_minor=(0,), "));
  // y[:, 0] of 0, 1, 2, ... row-major: 0, 1024, 2048, ...
  EXPECT_THAT(r.out, HasSubstr("values [0.0, 1024.0, 2048.0,"));

  auto j = RunAxe(Call({"--arg", "uncommitted", "--arg", "uncommitted Layout((1, 0))", "--json"}));
  ASSERT_EQ(j.exit_code, 0) << j.err;
  json out = json::parse(j.out);
  EXPECT_EQ(out["relayouts"], json::array());
  EXPECT_EQ(out["outputs"][0]["aval"], "f32[1024]");
  EXPECT_EQ(out["outputs"][0]["committed"], true);
  EXPECT_EQ(out["outputs"][0]["elements"], 1024);
  EXPECT_EQ(out["outputs"][0]["sum"], 523776.0);
  EXPECT_EQ(out["input_formats"][1]["layout"]["major_to_minor"], json::parse("[1,0]"));
}

TEST(CallCli, CommittedArgumentsInAnotherLayoutAreJaxsError) {
  auto r = RunAxe(Call({"--arg", "committed Layout((0, 1))", "--arg", "committed Layout((0, 1))"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("axe: error: Compiled object called with input layout(s) does not "
                               "match the layout(s) the computation was compiled with."));
  EXPECT_THAT(r.err, HasSubstr("Argument args[1] with shape f32[512,1024]:"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // Committed in the compiled layouts: called.
  auto ok =
      RunAxe(Call({"--arg", "committed Layout((0, 1))", "--arg", "committed Layout((1, 0))"}));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("re-laid-out before the call: nothing"));
}

TEST(CallCli, BadArgumentsAreOneLineErrors) {
  auto r = RunAxe(Call({"--arg", "uncommitted", "--arg", "sometimes"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "axe: error: --arg 1: position 0: an argument starts with 'committed' or "
            "'uncommitted', got 'sometimes'\n");
  auto count = RunAxe(Call({"--arg", "uncommitted"}));
  EXPECT_EQ(count.exit_code, 2);
  EXPECT_THAT(count.err, HasSubstr("the program takes 2 arguments, got 1"));
  auto automatic = RunAxe(Call({"--arg", "uncommitted", "--arg", "committed Format(Layout.AUTO)"}));
  EXPECT_EQ(automatic.exit_code, 2);
  EXPECT_THAT(automatic.err, HasSubstr("should be concrete"));
  auto rank = RunAxe(Call({"--arg", "uncommitted Layout((0,))", "--arg", "uncommitted"}));
  EXPECT_EQ(rank.exit_code, 2);
  EXPECT_THAT(rank.err, HasSubstr("Length of major_to_minor and the rank of the value"));
  // The argument text from standard input.
  auto stdin_arg = RunAxeWithStdin(Call({"--arg", "-", "--arg", "uncommitted"}), "uncommitted");
  EXPECT_EQ(stdin_arg.exit_code, 0) << stdin_arg.err;
  auto help = RunAxe({"call", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("Usage: axe call [OPTIONS]"));
}

TEST(CallCli, TheExecutorsPeakCountsAgainstTheMemoryBudget) {
  // Two f32[512,1024] arguments, 2 MiB each, run on the executor (no shard_map): its values at
  // their peak are about 4 MiB. --memory-limit reaches it as AXE_MEMORY_LIMIT.
  auto r = RunAxe([] {
    std::vector<std::string> a = {"--memory-limit", "3M"};
    for (const std::string& s : Call({"--arg", "uncommitted", "--arg", "uncommitted"})) {
      a.push_back(s);
    }
    return a;
  }());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("the program's values at their peak needs about 4.0 MiB"));
  EXPECT_THAT(r.err, HasSubstr("the memory budget is 3.0 MiB (3145728 bytes), from "
                               "AXE_MEMORY_LIMIT"));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

}  // namespace
}  // namespace call_cli_test
}  // namespace axe

namespace axe {
namespace call_cli_test {
namespace {

TEST(CallCli, ArgumentsTooLargeToEvaluateAreRefused) {
  auto r = testing::RunAxe({"call", "--jaxpr", "{ lambda ; a:f32[100000,100000]. let  in (a,) }",
                            "--arg", "uncommitted"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("an argument of type f32[100000,100000] has more than "
                                          "16777216 elements"));
}

}  // namespace
}  // namespace call_cli_test
}  // namespace axe

namespace axe {
namespace call_cli_test {
namespace {

const char kAdd[] = "{ lambda ; a:f32[8] b:f32[8]. let c:f32[8] = add a b in (c,) }";

TEST(CallCli, TheClientIsSizedFromTheFormatsToo) {
  // A mesh on devices 4-7 given only by --in: the client has the 8 devices it needs.
  auto r = testing::RunAxe(
      {"call", "--jaxpr", kAdd, "--in",
       "Format(Layout((0,)), NamedSharding(Mesh('x': 4, devices=[4, 5, 6, 7]), P('x')))", "--arg",
       "uncommitted", "--arg", "uncommitted", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  EXPECT_EQ(out["outputs"][0]["sum"], 56.0);
  EXPECT_EQ(out["relayouts"].size(), 2u);  // both moved onto devices 4-7
}

TEST(CallCli, ACommittedArgumentsShardingIsCompiledForWhenInGivesNone) {
  auto r = testing::RunAxe(
      {"call", "--jaxpr", kAdd, "--arg",
       "committed Format(Layout((0,)), NamedSharding(Mesh('x': 2, devices=[2, 3]), P('x')))",
       "--arg", "uncommitted"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  args[0] f32[8]  Format(layout=Layout(major_to_minor=(0,), "
                               "tiling=(), sub_byte_element_size_in_bits=0), "
                               "sharding=NamedSharding(mesh=Mesh('x': 2, devices=[2, 3]), "
                               "spec=P('x',)))\n"));
  EXPECT_THAT(r.out, HasSubstr("re-laid-out before the call: args[1] major_to_minor (0,) -> (0,) "
                               "(resharded)\n"));
}

TEST(CallCli, CommittedArgumentsOnDifferentDevicesAreJaxsOneLineError) {
  auto r = testing::RunAxe(
      {"call", "--jaxpr", kAdd, "--arg",
       "committed Format(Layout((0,)), NamedSharding(Mesh('x': 2, devices=[2, 3]), P('x')))",
       "--arg", "committed Format(Layout((0,)), SingleDeviceSharding(device=5))"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "axe: error: Received incompatible devices for jitted computation. Got argument "
            "args[0] of the program with shape float32[8] and with device ids [2, 3] on platform "
            "CPU and argument args[1] of the program with shape float32[8] and with device ids "
            "[5] on platform CPU\n");
  // An explicit output sharding elsewhere than the inputs'.
  auto out = testing::RunAxe({"call", "--jaxpr", kAdd, "--in",
                              "Format(Layout((0,)), SingleDeviceSharding(device=1))", "--out",
                              "Format(Layout((0,)), SingleDeviceSharding(device=6))", "--arg",
                              "uncommitted", "--arg", "uncommitted"});
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_THAT(out.err, HasSubstr("Got ARG_SHARDING with device ids [1] on platform CPU and "
                                 "explicit output sharding with device ids [6] on platform CPU"));
}

TEST(CallCli, SingleDeviceShardingOnAnyDevice) {
  auto r = testing::RunAxe({"call", "--jaxpr", kAdd, "--out",
                            "Format(Layout((0,)), SingleDeviceSharding(device=6))", "--arg",
                            "committed Format(Layout((0,)), SingleDeviceSharding(device=6))",
                            "--arg", "uncommitted", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  EXPECT_EQ(out["outputs"][0]["sum"], 56.0);
  EXPECT_THAT(out["outputs"][0]["format"].get<std::string>(),
              HasSubstr("sharding=SingleDeviceSharding(device=6)"));
}

}  // namespace
}  // namespace call_cli_test
}  // namespace axe
