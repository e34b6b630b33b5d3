// End-to-end tests of `axe ir run`: JAX-printed programs run on in-process devices, text and
// --json outputs, argument fills, and one-line errors with exit code 2.
#include <string>

#include "cli/run_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace axe {
namespace ir_run_cli_test {
namespace {

using ::testing::HasSubstr;
using testing::RunAxe;
using testing::RunAxeWithStdin;

std::string Data(const std::string& name) {
  return std::string("@") + AXE_SOURCE_DIR + "/tests/ir/testdata/jax/" + name + ".txt";
}

TEST(IrRunCli, PsumOnFourDevices) {
  auto r = RunAxe({"ir", "run", Data("shmap_psum"), "--mesh", "x=4", "--arg", "f32[8]=iota"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "f32[2] [12.0, 16.0]\n");
}

// A shard_map body calling jax.nn.relu (a custom_jvp_call whose body holds a pvary) runs on
// the mesh; JAX printed f32[8] [2, 4, 2, 4, 2, 6, 6, 10] for these arguments.
TEST(IrRunCli, ShardMapBodyCallingRelu) {
  auto r =
      RunAxe({"ir", "run",
              std::string("@") + AXE_SOURCE_DIR + "/tests/ir/testdata/jax_kinks/shmap_relu.txt",
              "--mesh", "x=4", "--arg", "f32[]=2", "--arg", "f32[8]=-4,-3,-2,-1,0,1,2,3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "f32[8] [2.0, 4.0, 2.0, 4.0, 2.0, 6.0, 6.0, 10.0]\n");
}

TEST(IrRunCli, EveryCollectiveText) {
  auto r = RunAxe({"ir", "run", Data("shmap_collectives"), "--arg", "f32[16]=iota"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "f32[4] [12.0, 13.0, 14.0, 15.0]\n"
            "f32[4] [0.0, 1.0, 2.0, 3.0]\n"
            "f32[4] [24.0, 28.0, 32.0, 36.0]\n"
            "f32[16] [12.0, 13.0, 14.0, 15.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, "
            "10.0, 11.0]\n"
            "f32[16] [0.0, 4.0, 8.0, 12.0, 1.0, 5.0, 9.0, 13.0, 2.0, 6.0, 10.0, 14.0, 3.0, 7.0, "
            "11.0, 15.0]\n"
            "i32[4] [0, 1, 2, 3]\n");
}

TEST(IrRunCli, JsonCarriesAvalsAndValues) {
  auto r = RunAxeWithStdin(
      {"ir", "run", "-", "--arg", "f32[2,3]=iota", "--arg", "f32[3,4]=0.5", "--json"},
      "{ lambda ; a:f32[2,3] b:f32[3,4]. let c:f32[2,4] = dot_general["
      "dimension_numbers=(([1], [0]), ([], [])) precision=None "
      "preferred_element_type=float32] a b; d:bool[2,4] = gt c 2.0:f32[] "
      "in (c, d) }");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["devices"], 1);
  ASSERT_EQ(j["outputs"].size(), 2u);
  EXPECT_EQ(j["outputs"][0]["aval"], "f32[2,4]");
  EXPECT_EQ(j["outputs"][0]["values"],
            nlohmann::json::parse("[1.5, 1.5, 1.5, 1.5, 6.0, 6.0, 6.0, 6.0]"));
  EXPECT_EQ(j["outputs"][1]["values"],
            nlohmann::json::parse("[false, false, false, false, true, true, true, true]"));
  auto ints = RunAxe({"ir", "run", Data("shmap_collectives"), "--arg", "f32[16]=iota", "--json"});
  ASSERT_EQ(ints.exit_code, 0) << ints.err;
  EXPECT_EQ(nlohmann::json::parse(ints.out)["outputs"][5]["values"].dump(), "[0,1,2,3]");
}

TEST(IrRunCli, ExplicitValuesRoundToTheType) {
  auto r =
      RunAxeWithStdin({"ir", "run", "-", "--arg", "f32[2]=0.1,1e40", "--arg", "i8[2]=100,-100"},
                      "{ lambda ; a:f32[2] b:i8[2]. let c:i8[2] = add b b in (a, c) }");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "f32[2] [0.1, inf]\ni8[2] [-56, 56]\n");
}

TEST(IrRunCli, ErrorsAreOneLineWithExitTwo) {
  auto wrong_type = RunAxe({"ir", "run", Data("shmap_psum"), "--arg", "f32[4]=iota"});
  EXPECT_EQ(wrong_type.exit_code, 2);
  EXPECT_THAT(wrong_type.err, HasSubstr("argument 0 has type f32[4] but the jaxpr's input 0 is "
                                        "f32[8]"));
  auto count = RunAxe({"ir", "run", Data("shmap_psum")});
  EXPECT_EQ(count.exit_code, 2);
  EXPECT_THAT(count.err, HasSubstr("the jaxpr takes 1 arguments, got 0"));
  auto bad_fill = RunAxe({"ir", "run", Data("shmap_psum"), "--arg", "f32[8]=1,2,x,4,5,6,7,8"});
  EXPECT_EQ(bad_fill.exit_code, 2);
  EXPECT_THAT(bad_fill.err, HasSubstr("--arg"));
  EXPECT_THAT(bad_fill.err, HasSubstr("at position 11: 'x' is not a number"));
  auto few = RunAxe({"ir", "run", Data("shmap_psum"), "--arg", "f32[8]=1,2"});
  EXPECT_EQ(few.exit_code, 2);
  EXPECT_THAT(few.err, HasSubstr("2 values for f32[8], which has 8 elements"));
  auto small_mesh =
      RunAxe({"ir", "run", Data("shmap_psum"), "--mesh", "x=2", "--arg", "f32[8]=iota"});
  EXPECT_EQ(small_mesh.exit_code, 2);
  EXPECT_THAT(small_mesh.err, HasSubstr("has 4 devices but the client has 2"));
  // The MPI backend is registered in the binary only.
  auto mpi = testing::RunAxeBinary(
      {"ir", "run", Data("shmap_psum"), "--backend", "mpi", "--arg", "f32[8]=iota"});
  EXPECT_EQ(mpi.exit_code, 2);
  EXPECT_THAT(mpi.err, HasSubstr("MPI ranks run; use mpirun -n 4"));
  for (const auto* r : {&wrong_type, &count, &bad_fill, &few, &small_mesh, &mpi}) {
    EXPECT_EQ(r->err.find('\n'), r->err.size() - 1) << r->err;
  }
}

// The wrong answers of the double-valued evaluator, now right on the executor: integer
// products wrap on their bits (JAX: -1757895751), f32 sums are pairwise (409.60007, not
// 409.61578), round to even keeps the sign of zero, and an i64 argument past 2^53 keeps every
// bit.
TEST(IrRunCli, IntegersFloatSumsAndSignedZerosAsJaxGivesThem) {
  auto mul = RunAxe({"ir", "run",
                     "{ lambda ; a:i32[1] b:u32[1] c:u32[1]. let d:i32[1] = mul a a; "
                     "e:u32[1] = mul b c in (d, e) }",
                     "--arg", "i32[1]=123456789", "--arg", "u32[1]=4000000000", "--arg",
                     "u32[1]=2654435761"});
  ASSERT_EQ(mul.exit_code, 0) << mul.err;
  EXPECT_EQ(mul.out, "i32[1] [-1757895751]\nu32[1] [369010688]\n");
  auto sum = RunAxe({"ir", "run",
                     "{ lambda ; a:f32[4096]. let b:f32[] = reduce_sum[axes=(0,) "
                     "out_sharding=None] a in (b,) }",
                     "--arg", "f32[4096]=0.1"});
  ASSERT_EQ(sum.exit_code, 0) << sum.err;
  EXPECT_EQ(sum.out, "f32[] 409.60007\n");
  auto round = RunAxe({"ir", "run",
                       "{ lambda ; a:f32[2]. let b:f32[2] = round[rounding_method=1] a in (b,) }",
                       "--arg", "f32[2]=-0.3,2.5"});
  ASSERT_EQ(round.exit_code, 0) << round.err;
  EXPECT_EQ(round.out, "f32[2] [-0.0, 2.0]\n");
  auto big =
      RunAxe({"ir", "run", "{ lambda ; a:i64[2] b:u64[1]. let c:i64[2] = add a a in (c, b) }",
              "--arg", "i64[2]=9007199254740993,4611686018427387905", "--arg",
              "u64[1]=18446744073709551615", "--json"});
  ASSERT_EQ(big.exit_code, 0) << big.err;
  EXPECT_EQ(big.out,
            "{\"devices\":1,\"outputs\":[{\"aval\":\"i64[2]\",\"values\":[18014398509481986,"
            "-9223372036854775806]},{\"aval\":\"u64[1]\",\"values\":[18446744073709551615]}]}\n");
  // On several devices too: the executor runs there (shard_map positions on threads).
  auto mesh = RunAxe({"ir", "run", "{ lambda ; a:i64[1]. let  in (a,) }", "--arg",
                      "i64[1]=9007199254740993", "--mesh", "x=2"});
  ASSERT_EQ(mesh.exit_code, 0) << mesh.err;
  EXPECT_EQ(mesh.out, "i64[1] [9007199254740993]\n");
}

// Three values of 2^20 elements, a chain the executor fuses into one pass (the interpreter held
// them as 8 MiB of doubles each).
constexpr char kThreeBigValues[] =
    "{ lambda ; a:f32[]. let b:f32[1048576] = broadcast_in_dim[broadcast_dimensions=() "
    "shape=(1048576,) sharding=None] a; c:f32[1048576] = add b b; d:f32[1048576] = mul c c; "
    "e:f32[] = reduce_sum[axes=(0,) out_sharding=None] d in (e) }";

TEST(IrRunCli, LiveValuesCountAgainstTheMemoryBudget) {
  // --mesh: the executor too (shard_map positions on threads): the chain fuses into one pass,
  // so that 1 MiB holds it (the interpreter held three 8 MiB values of doubles); three 4 MiB
  // results do not fit in 16 MiB.
  auto ok = RunAxeWithStdin(
      {"--memory-limit", "1M", "ir", "run", "-", "--mesh", "x=1", "--arg", "f32[]=0.5"},
      kThreeBigValues);
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "f32[] 1048576.0\n");
  auto refused = RunAxeWithStdin(
      {"--memory-limit", "16M", "ir", "run", "-", "--mesh", "x=1", "--arg", "f32[]=0.5"},
      "{ lambda ; a:f32[]. let b:f32[1048576] = broadcast_in_dim[broadcast_dimensions=() "
      "shape=(1048576,) sharding=None] a; c:f32[1048576] = add b b; d:f32[1048576] = mul c c "
      "in (b, c, d) }");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("the program's values at their peak"));
  EXPECT_THAT(refused.err, HasSubstr("the memory budget is 16.0 MiB (16777216 bytes), from "
                                     "--memory-limit"));
  EXPECT_EQ(refused.err.find('\n'), refused.err.size() - 1) << refused.err;
}

TEST(IrRunCli, TheExecutorsPeakCountsAgainstTheMemoryBudget) {
  // One device: the executor. Three 4 MiB results (8 MiB each as doubles once printed).
  const std::string three_results =
      "{ lambda ; a:f32[]. let b:f32[1048576] = broadcast_in_dim[broadcast_dimensions=() "
      "shape=(1048576,) sharding=None] a; c:f32[1048576] = add b b; d:f32[1048576] = mul c c "
      "in (b, c, d) }";
  auto refused = RunAxeWithStdin(
      {"--memory-limit", "16M", "ir", "run", "-", "--arg", "f32[]=0.5", "--json"}, three_results);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("the program's values at their peak"));
  EXPECT_THAT(refused.err, HasSubstr("the memory budget is 16.0 MiB (16777216 bytes), from "
                                     "--memory-limit"));
  auto ok = RunAxeWithStdin({"--memory-limit", "64M", "ir", "run", "-", "--arg", "f32[]=0.5"},
                            kThreeBigValues);
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "f32[] 1048576.0\n");
}

// JAX's PRNG: keys given and printed as their key data; JAX gave these bits and keys for
// jax.random.key(0) (tests/ir/testdata/jax_prng).
TEST(IrRunCli, PrngKeysInAndOut) {
  const std::string prng = std::string("@") + AXE_SOURCE_DIR + "/tests/ir/testdata/jax_prng/";
  auto bits = RunAxe({"ir", "run", prng + "bits.txt", "--arg", "key<fry>[]=0,0"});
  ASSERT_EQ(bits.exit_code, 0) << bits.err;
  EXPECT_EQ(bits.out, "u32[3] [4070199207, 4202968722, 1427181096]\n");
  auto split = RunAxe({"ir", "run", prng + "split.txt", "--arg", "key<fry>[]=0,0", "--json"});
  ASSERT_EQ(split.exit_code, 0) << split.err;
  EXPECT_THAT(split.out, HasSubstr("{\"aval\":\"key<fry>[2]\",\"values\":"
                                   "[[1797259609,2579123966],[928981903,3453687069]]}"));
  auto bad = RunAxe({"ir", "run", prng + "split.txt", "--arg", "key<fry>[]=1,2,3"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("3 values for u32[2], which has 2 elements"));
}

}  // namespace
}  // namespace ir_run_cli_test
}  // namespace axe
