// End-to-end tests of `axe ir check`, `axe ir transpose` and `axe ir comm` on the spec's
// shard_map vectors (the program text as JAX prints it).
#include <cstdio>
#include <fstream>
#include <string>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace ir_cli_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunAxe;
using testing::RunAxeWithStdin;

// JEP 17111's example 1 ([TR-4]): in P('x'), out P(), psum over x=4.
const char kExampleOne[] =
    "{ lambda ; a:f32[8]. let b:f32[2] = shard_map[check_vma=True in_specs=(P('x',),) "
    "jaxpr={ lambda ; c:f32[2]{V:x}. let d:f32[2] = psum_invariant[axes=('x',)] c in (d,) } "
    "mesh=Mesh('x': 4, axis_types=(Auto,)) newly_manual_axes=frozenset({'x'}) "
    "out_specs=(P(),)] a in (b,) }";

// The cursed identity: in P(), out P(), identity.
const char kCursed[] =
    "{ lambda ; a:f32[8]. let b:f32[8] = shard_map[check_vma=True in_specs=(P(),) "
    "jaxpr={ lambda ; c:f32[8]. let  in (c,) } mesh=Mesh('x': 4, axis_types=(Auto,)) "
    "newly_manual_axes=frozenset({'x'}) out_specs=(P(),)] a in (b,) }";

TEST(IrCli, CheckPrintsTheTypedJaxpr) {
  auto r = RunAxe({"ir", "check", kExampleOne});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("jaxpr={ lambda ; c:f32[2]{V:x}. let\n"));
  EXPECT_THAT(r.out, HasSubstr("d:f32[2] = psum_invariant[axes=('x',)] c\n"));
  auto j = RunAxeWithStdin({"ir", "check", "-", "--json"}, kExampleOne);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json out = nlohmann::json::parse(j.out);
  EXPECT_EQ(out["jaxpr"].get<std::string>() + "\n", r.out);
  EXPECT_EQ(out["in_avals"], nlohmann::json::parse(R"(["f32[8]"])"));
  EXPECT_EQ(out["out_avals"], nlohmann::json::parse(R"(["f32[2]"])"));
}

TEST(IrCli, CheckReportsTheExactErrorOnOneLine) {
  // psum of an invariant value: JAX's variant->invariant error, in the equation.
  std::string bad = kExampleOne;
  bad.replace(bad.find("c:f32[2]{V:x}"), 13, "c:f32[2]");
  auto r = RunAxe({"ir", "check", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("psum is a variant->invariant collective."));
  EXPECT_THAT(r.err, HasSubstr("in equation:"));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  auto parse = RunAxe({"ir", "check", "{ lambda ; a:f32[3]. let b:f32[3] = frob a in (b,) }"});
  EXPECT_EQ(parse.exit_code, 2);
  EXPECT_THAT(parse.err, HasSubstr("unknown primitive 'frob'"));
}

TEST(IrCli, TransposeBothWays) {
  auto typed = RunAxe({"ir", "transpose", kExampleOne});
  ASSERT_EQ(typed.exit_code, 0) << typed.err;
  EXPECT_THAT(typed.out, HasSubstr("pvary[axes=('x',)]"));
  EXPECT_THAT(typed.out, Not(HasSubstr("psum")));
  auto naive = RunAxe({"ir", "transpose", "--no-check-vma", kExampleOne, "--json"});
  ASSERT_EQ(naive.exit_code, 0) << naive.err;
  nlohmann::json j = nlohmann::json::parse(naive.out);
  EXPECT_THAT(j["jaxpr"].get<std::string>(), HasSubstr("div a 4.0:f32[]"));
  EXPECT_THAT(j["jaxpr"].get<std::string>(), HasSubstr("psum[axes=('x',)"));
  EXPECT_EQ(j["check_vma"], false);
  EXPECT_EQ(j["wrt"], nlohmann::json::parse("[0]"));
  EXPECT_EQ(j["out_avals"], nlohmann::json::parse(R"(["f32[8]"])"));
}

TEST(IrCli, TransposeErrors) {
  auto wrt = RunAxe({"ir", "transpose", "--wrt", "1", kExampleOne});
  EXPECT_EQ(wrt.exit_code, 2);
  EXPECT_THAT(wrt.err, HasSubstr("--wrt: input 1 is out of range for a jaxpr with 1 inputs"));
  auto sin = RunAxe({"ir", "transpose", "{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }"});
  EXPECT_EQ(sin.exit_code, 2);
  EXPECT_THAT(sin.err, HasSubstr("Transpose rule (for reverse-mode differentiation) for 'sin' "
                                 "not implemented"));
}

// Example 1's transposes: 0 bytes under variance typing, one 12-byte all-reduce naively; the
// naive cursed identity all-reduces its f32[8] (48 bytes).
TEST(IrCli, CommCountsTheTransposesBothWays) {
  auto typed = RunAxe({"ir", "transpose", kExampleOne});
  auto naive = RunAxe({"ir", "transpose", "--no-check-vma", kExampleOne});
  ASSERT_EQ(typed.exit_code, 0);
  ASSERT_EQ(naive.exit_code, 0);
  auto c_typed = RunAxeWithStdin({"ir", "comm", "-", "--json"}, typed.out);
  ASSERT_EQ(c_typed.exit_code, 0) << c_typed.err;
  nlohmann::json t = nlohmann::json::parse(c_typed.out);
  EXPECT_EQ(t["total_bytes_per_device"], 0);
  ASSERT_EQ(t["collectives"].size(), 1u);
  EXPECT_EQ(t["collectives"][0]["primitive"], "pvary");
  auto c_naive = RunAxeWithStdin({"ir", "comm", "-", "--json"}, naive.out);
  ASSERT_EQ(c_naive.exit_code, 0) << c_naive.err;
  nlohmann::json n = nlohmann::json::parse(c_naive.out);
  EXPECT_EQ(n["total_bytes_per_device"], 12);
  EXPECT_EQ(n["collectives"][0]["primitive"], "psum");
  EXPECT_EQ(n["collectives"][0]["axes"], nlohmann::json::parse(R"(["x"])"));
  EXPECT_EQ(n["collectives"][0]["bytes_per_device"], 12);
  EXPECT_EQ(n["collectives"][0]["group_size"], 4);

  auto cursed = RunAxe({"ir", "transpose", "--no-check-vma", kCursed});
  ASSERT_EQ(cursed.exit_code, 0) << cursed.err;
  std::string path = ::testing::TempDir() + "/ir_cli_cursed.txt";
  std::ofstream(path) << cursed.out;
  auto table = RunAxe({"ir", "comm", "@" + path});
  std::remove(path.c_str());
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("psum "));
  EXPECT_THAT(table.out, HasSubstr("all-reduce"));
  EXPECT_THAT(table.out, HasSubstr("total bytes per device: 48\n"));
}

TEST(IrCli, CommOfAnEmptyProgramAndAMissingFile) {
  auto r = RunAxe({"ir", "comm", kCursed, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out),
            nlohmann::json::parse(R"({"collectives": [], "total_bytes_per_device": 0})"));
  auto missing = RunAxe({"ir", "comm", "@/nonexistent/axe_ir.txt"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("JAXPR"));
}

TEST(IrCli, TourShowsBothTransposesWithTheirCounts) {
  auto r = RunAxe({"tour", "--part", "ir"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("The cursed identity"));
  EXPECT_THAT(r.out, HasSubstr("psum over x (all-reduce)"));
  EXPECT_THAT(r.out, HasSubstr("pvary over x (none)"));
  EXPECT_THAT(r.out, HasSubstr("bytes per device         0"));
  EXPECT_THAT(r.out, HasSubstr("48\n"));
  EXPECT_THAT(r.out, HasSubstr("12\n"));
}

}  // namespace
}  // namespace ir_cli_test
}  // namespace axe
