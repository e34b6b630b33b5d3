// End-to-end tests of `axe shard ...`, run as a user would.
#include <algorithm>
#include <string>
#include <vector>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace shard_cli_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunAxe;
using testing::RunAxeWithStdin;
using ::testing::StartsWith;

TEST(ShardCli, ExplainJsonHasTheStableFields) {
  auto r = RunAxe(
      {"shard", "explain", "--shape", "8,8", "--mesh", "x=2,y=2", "--spec", "P('x')", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["named"], "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',))");
  EXPECT_EQ(j["hlo"], "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(j["axe"], "S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]");
  EXPECT_EQ(j["shard_shape"], json::parse("[4,8]"));
  EXPECT_EQ(j["local_axe"], "S[(4,8):(8,1)]");
  EXPECT_EQ(j["fully_replicated"], false);
  ASSERT_EQ(j["devices"].size(), 4u);
  EXPECT_EQ(j["devices"][2], json::parse(R"({"id":2,"index":[[4,8],[0,8]],"replica_group":1})"));
  EXPECT_EQ(j["picture"].size(), 5u);
}

TEST(ShardCli, ExplainTextShowsEveryForm) {
  auto r =
      RunAxe({"shard", "explain", "--shape", "8,8", "--mesh", "x=2,y=2", "--spec", "P('x', 'y')"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("jax            NamedSharding(mesh=Mesh('x': 2, 'y': 2, "
                        "axis_types=(Auto, Auto)), spec=P('x', 'y'), memory_kind=device)\n"));
  EXPECT_THAT(r.out, HasSubstr("hlo            {devices=[2,2]<=[4]}\n"));
  EXPECT_THAT(r.out, HasSubstr("shard shape    (4, 4)\n"));
  EXPECT_THAT(r.out, HasSubstr("│         0          │         1          │\n"));
  EXPECT_THAT(r.out, HasSubstr("3       3              [[4, 8], [4, 8]]\n"));
}

// The jax line is what JAX 0.10.2 prints for the same NamedSharding: its mesh's axis types
// and the memory kind always; the --json "named" stays axe's own text.
TEST(ShardCli, ExplainJaxLineIsJaxsRepr) {
  auto r = RunAxe({"shard", "explain", "--shape", "8,8", "--sharding",
                   "NamedSharding(Mesh('x': 2, 'y': 4, axis_types=(Explicit, Auto)), P('x'))"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("jax            NamedSharding(mesh=Mesh('x': 2, 'y': 4, "
                               "axis_types=(Explicit, Auto)), spec=P('x',), "
                               "memory_kind=device)\n"));
  auto single =
      RunAxe({"shard", "explain", "--shape", "8", "--sharding", "SingleDeviceSharding(device=3)"});
  ASSERT_EQ(single.exit_code, 0) << single.err;
  EXPECT_THAT(single.out, HasSubstr("jax            SingleDeviceSharding(device=3)\n"));
}

TEST(ShardCli, ExplainHloWithXlaShapeAndLayout) {
  auto r = RunAxe(
      {"shard", "explain", "--shape", "f32[8,6]{0,1}", "--hlo", "{devices=[2,3]<=[6]}", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["named"], "NamedSharding(mesh=Mesh('x0': 2, 'x1': 3), spec=P('x0', 'x1'))");
  EXPECT_EQ(j["axe"], "S[(2,4,3,2):(3@gpuid,1,1@gpuid,4)]");
  EXPECT_EQ(j["local_shape"], "f32[4,2]{0,1}");
  // --layout gives the local layout as JAX's major_to_minor; --hlo can come from stdin.
  r = RunAxeWithStdin({"shard", "explain", "--shape", "8,6", "--layout", "(1, 0)", "--hlo", "-",
                       "--mesh", "a=2,b=3", "--json"},
                      "{devices=[2,3]<=[6]}\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["named"], "NamedSharding(mesh=Mesh('a': 2, 'b': 3), spec=P('a', 'b'))");
  EXPECT_EQ(j["local_shape"], "f32[4,2]{0,1}");
}

TEST(ShardCli, ShardyInAndOut) {
  auto r = RunAxe(
      {"shard", "explain", "--shape", "4,4", "--mesh", "sdy.mesh @mesh_full = <[\"devices\"=8]>",
       "--sdy", "#sdy.sharding<@mesh_full, [{\"devices\":(1)4}, {\"devices\":(4)2}]>", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["hlo"], "{devices=[4,2]<=[8]}");
  EXPECT_EQ(j["named"], nullptr);
  EXPECT_EQ(j["shardy_mesh"], "sdy.mesh @mesh_full = <[\"devices\"=8]>");
  r = RunAxe({"shard", "explain", "--shape", "8,8", "--mesh", "x=2,y=2", "--spec", "P('x')"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("shardy         #sdy.sharding<@mesh, [{\"x\"}, {}]>\n"
                               "               sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n"));
  r = RunAxe({"shard", "equivalent", "#sdy.sharding<@mesh, [{\"x\"}, {}]>",
              "{devices=[2,1,2]<=[4] last_tile_dim_replicate}", "--mesh",
              "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>", "--shape", "8,8", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["first"]["notation"], "shardy");
}

TEST(ShardCli, JaxReprsAndAxeLayoutsIn) {
  auto r =
      RunAxe({"shard", "explain", "--shape", "8,8", "--format",
              "Format(Layout((1, 0)), NamedSharding(Mesh('x': 2, 'y': 2), P('x')))", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["local_shape"], "f32[4,8]{0,1}");
  EXPECT_EQ(j["format"],
            "Format(layout=Layout(major_to_minor=(1, 0), tiling=(), "
            "sub_byte_element_size_in_bits=0), sharding=NamedSharding(mesh=Mesh('x': 2, 'y': 2), "
            "spec=P('x',)))");
  // The reverse: an Axe layout read back as a sharding on the given mesh.
  r = RunAxe({"shard", "explain", "--shape", "8,8", "--axe", "S[(2,32):(1@x,1)] + R[2:1@y]",
              "--mesh", "x=2,y=2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["named"], "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',))");
  EXPECT_EQ(j["axe"], "S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]");
  r = RunAxe({"shard", "explain", "--shape", "8", "--sharding", "SingleDeviceSharding(device=3)",
              "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["named"], "SingleDeviceSharding(device=3)");
  EXPECT_EQ(j["hlo"], "{maximal device=3}");
  EXPECT_EQ(j["axe"], "S[8:1] + 3@gpuid");
  r = RunAxe({"shard", "explain", "--shape", "8,8", "--mesh", "x=2", "--spec", "P('x')", "--layout",
              "Layout(major_to_minor=(1, 0), tiling=((2, 2),))", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["local_shape"], "f32[4,8]{0,1:T(2,2)}");
}

TEST(ShardCli, ExplainAnHloInstructionLine) {
  auto r = RunAxe({"shard", "explain", "--hlo",
                   "%add.1 = f32[8,6]{0,1} add(f32[8,6]{0,1} %a, f32[8,6]{0,1} %b), "
                   "sharding={devices=[2,3]<=[6]}",
                   "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["global_shape"], json::parse("[8,6]"));
  EXPECT_EQ(j["local_shape"], "f32[4,2]{0,1}");
  EXPECT_EQ(j["hlo"], "{devices=[2,3]<=[6]}");
  r = RunAxe({"shard", "explain", "--hlo", "{devices=[2]0,1}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--shape is required"));
}

TEST(ShardCli, ExplainSaysWhyAFormIsMissing) {
  auto r = RunAxe({"shard", "explain", "--shape", "8", "--hlo", "{maximal device=1}"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("jax            (none: not expressible as a NamedSharding: "
                               "{maximal device=1} is SingleDeviceSharding(device=1))"));
}

TEST(ShardCli, EquivalentAnswersWithExitCode) {
  auto r =
      RunAxe({"shard", "equivalent", "P('x')", "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
              "--shape", "8,8", "--mesh", "x=2,y=2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "equivalent\n");
  r = RunAxe({"shard", "equivalent", "P('y')", "S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]", "--shape",
              "8,8", "--mesh", "x=2,y=2", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["equivalent"], false);
  EXPECT_EQ(j["first"]["notation"], "named");
  EXPECT_EQ(j["second"]["notation"], "axe");
  EXPECT_EQ(j["difference"],
            json::parse(R"({"device":1,"first":"[[4, 8], [0, 8]]","second":"[[0, 4], [0, 8]]"})"));
}

TEST(ShardCli, BadInputIsOneLineAndExitTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"shard", "explain", "--shape", "8,8", "--mesh", "x=2,y=2", "--spec", "P('z')"},
            "Resource axis: z of P('z',) is not found in mesh: ('x', 'y')."},
           {{"shard", "explain", "--shape", "7,8", "--mesh", "x=2", "--spec", "P('x')"},
            "its dimension 0 should be divisible by 2 (mesh axes 'x'), but it is equal to 7"},
           {{"shard", "explain", "--shape", "8,8", "--hlo", "{devices=[2,2]0,1,2"}, "--hlo: "},
           {{"shard", "explain", "--shape", "8,8", "--spec", "P('x')"}, "--spec needs --mesh"},
           {{"shard", "explain", "--shape", "8,8"}, "give the sharding as one of --spec"},
           {{"shard", "explain", "--shape", "8,8", "--format", "Format(Layout.AUTO)"},
            "--format: the layout is AUTO"},
           {{"shard", "explain", "--shape", "8", "--format",
             "Format(Layout((1, 0)), NamedSharding(Mesh('x': 2), P('x')))"},
            "--format: Length of major_to_minor and the rank of the value should match"},
           {{"shard", "explain", "--shape", "8,8", "--axe", "S[(8,8):(1,8@gpuid)]"},
            "not expressible"},
           {{"shard", "explain", "--shape", "8,8", "--mesh", "sdy.mesh @m = <[\"x\"=2]>", "--sdy",
             "#sdy.sharding<@m, [{\"x\"}, {]>"},
            "--sdy: position 27: expected an axis name in double quotes"},
           {{"shard", "explain", "--shape", "8,8", "--mesh", "x=2", "--spec", "P('x')", "--mode",
             "diagonal"},
            "--mode: unknown mode 'diagonal'"},
           {{"shard", "explain", "--shape", "8,8", "--mesh", "x=2", "--spec", "P('x')", "--layout",
             "(0, 0)"},
            "--layout: major_to_minor (0, 0) is not a permutation of the 2 dimensions"},
           {{"shard", "equivalent", "P('x')", "{replicated}", "--shape", "8"},
            "first: the PartitionSpec P('x') needs a mesh (--mesh)"},
       }) {
    auto r = RunAxe(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_THAT(r.err, StartsWith("axe: error: "));
    EXPECT_THAT(r.err, HasSubstr(c.message));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// The compiled module of jnp.sin on f32[128,256] sharded 4 ways (jax_programs.json): shapes
// are per device, the sharding describes the whole array.
const char kCompiledSin[] =
    "HloModule jit_sin, is_scheduled=true, entry_computation_layout={(f32[128,64]{1,0})->"
    "f32[128,64]{1,0}}, num_partitions=4\n\n"
    "ENTRY %main.0_spmd (param: f32[128,64]) -> f32[128,64] {\n"
    "  %param = f32[128,64]{1,0} parameter(0), sharding={devices=[1,4]<=[4]}, "
    "metadata={op_name=\"x\"}\n"
    "  ROOT %wrapped_sine = f32[128,64]{1,0} fusion(%param), kind=kLoop, calls=%c\n"
    "}\n";
const char kCompiledSinLine[] =
    "%param = f32[128,64]{1,0} parameter(0), sharding={devices=[1,4]<=[4]}";

TEST(ShardCli, PartitionedModuleGivesTheGlobalShape) {
  auto r = RunAxeWithStdin({"shard", "explain", "--hlo", "-"}, kCompiledSin);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("module         num_partitions=4 and the entry computation "
                               "%main.0_spmd is the SPMD partitioner's: shapes are per device\n"));
  EXPECT_THAT(r.out, HasSubstr("global shape   f32[128,256]\n"));
  EXPECT_THAT(r.out, HasSubstr("shard shape    (128, 64)\n"));
  EXPECT_THAT(r.out, HasSubstr("3       3              [[0, 128], [192, 256]]\n"));
  r = RunAxeWithStdin({"shard", "explain", "--hlo", "-", "--json"}, kCompiledSin);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["module"]["partitioned"], true);
  ASSERT_EQ(j["shardings"].size(), 1u);
  EXPECT_EQ(j["shardings"][0]["explanation"]["global_shape"], json::parse("[128,256]"));
  // A whole module has no one --shape.
  r = RunAxeWithStdin({"shard", "explain", "--hlo", "-", "--shape", "4,4"}, kCompiledSin);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--hlo is a whole module"));
  // Errors name the line and the instruction.
  r = RunAxeWithStdin({"shard", "explain", "--hlo", "-"},
                      "HloModule m, num_partitions=2\nENTRY %e_spmd {\n"
                      "  %a = f32[3]{0} parameter(0), sharding={devices=[3]<=[3]}\n}\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "axe: error: --hlo: line 3 %a: device 2 > num_devices (2) in tile assignment\n");
  r = RunAxeWithStdin(
      {"shard", "explain", "--hlo", "-"},
      "HloModule m\nENTRY %e {\n  %a = f32[3]{0} parameter(0), sharding={manual}\n}\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("(line 3 %a: {manual} places no elements)"));
}

TEST(ShardCli, PartitionedLineNeedsToBeSaid) {
  // A lone line cannot say it is per device: taken as global, with a note saying so.
  auto r = RunAxe({"shard", "explain", "--hlo", kCompiledSinLine});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("global shape   f32[128,64]\n"));
  EXPECT_THAT(r.out, HasSubstr("note           the line's shape is taken as the whole array's"));
  r = RunAxe({"shard", "explain", "--hlo", kCompiledSinLine, "--partitioned"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("global shape   f32[128,256]\n"));
  EXPECT_THAT(r.out, HasSubstr("shard shape    (128, 64)\n"));
  r = RunAxe(
      {"shard", "explain", "--hlo", "{devices=[1,4]<=[4]}", "--shape", "8,8", "--partitioned"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--partitioned: says the shape of an --hlo instruction line"));
}

TEST(ShardCli, SpellingsOfOneShardingExplainAlike) {
  auto a = RunAxe({"shard", "explain", "--shape", "4,6", "--hlo", "{devices=[2,3]<=[2,3]T(1,0)}"});
  auto b = RunAxe({"shard", "explain", "--shape", "4,6", "--hlo", "{devices=[2,3]0,3,1,4,2,5}"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_THAT(a.out, HasSubstr("hlo            {devices=[2,3]<=[2,3]T(1,0)}\n"));
  auto r = RunAxe({"shard", "equivalent", "{devices=[2,3]<=[2,3]T(1,0)}",
                   "{devices=[2,3]0,3,1,4,2,5}", "--shape", "4,6"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(ShardCli, SingleDeviceShardingIsOneDevice) {
  auto r = RunAxe({"shard", "explain", "--shape", "4,4", "--sharding",
                   "SingleDeviceSharding(device=CpuDevice(id=3), memory_kind=device)"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("devices        1 (fully replicated)\n"));
  EXPECT_THAT(r.out, HasSubstr("shardy         #sdy.sharding<@empty_mesh, [{}, {}]>\n"
                               "               sdy.mesh @empty_mesh = <[]>\n"));
  EXPECT_THAT(r.out, HasSubstr("3       0              [[0, 4], [0, 4]]\n"));
  r = RunAxe({"shard", "explain", "--shape", "f32[]", "--axe", "S[1:1] + R[2:1@gpuid]"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("axe            S[1:1] + R[2:1@gpuid]\n"));
}

TEST(ShardCli, DeviceOrderIsNotedOrGiven) {
  const std::string repr =
      "NamedSharding(mesh=Mesh('x': 4, axis_types=(Auto,)), spec=P('x',), memory_kind=device)";
  auto r = RunAxe({"shard", "explain", "--shape", "8", "--sharding", repr});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("note           device order assumed: mesh position k is device k"));
  // JAX's mesh on devices 4..7 (jax_programs.json).
  r = RunAxe({"shard", "explain", "--shape", "8", "--sharding", repr, "--devices", "4,5,6,7"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("device order assumed")));
  EXPECT_THAT(r.out, HasSubstr("4       0              [[0, 2]]\n"));
  EXPECT_THAT(r.out, HasSubstr("7       3              [[6, 8]]\n"));
  r = RunAxe({"shard", "explain", "--shape", "6", "--mesh", "Mesh('x': 3, devices=[5, 6, 7])",
              "--spec", "P('x')"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("6       1              [[2, 4]]\n"));
  r = RunAxe(
      {"shard", "explain", "--shape", "8", "--format", "Format(Layout((0,)), " + repr + ")"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("note           device order assumed"));
  r = RunAxe({"shard", "explain", "--shape", "8", "--sharding", repr, "--devices", "4,5,6,6"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--devices"));
  EXPECT_THAT(r.err, HasSubstr("device id 6 appears twice"));
  r = RunAxe({"shard", "equivalent", "P('x')", "{devices=[4]<=[4]}", "--shape", "8", "--mesh",
              "x=4,devices=4,5,6,7"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
}

}  // namespace
}  // namespace shard_cli_test
}  // namespace axe
