// shard_map programs on the executor over MPI ranks (run under mpirun -n 4, one device per
// rank): every rank runs its own mesh position typed, the collectives go through the MPI
// backend, and every rank ends with the whole outputs, bit for bit those of the in-process
// run (threads), through exec::Executable and through jit::Execute; 64-bit integers stay
// exact; a shard_map whose mesh does not match the ranks is refused; a rank that never
// reaches a collective ends the others' run within the backend's timeout (the
// `stall_position` mode).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "axe/exec/executable.h"
#include "axe/exec/value_io.h"
#include "axe/ir/parser.h"
#include "axe/jit/compile.h"
#include "axe/jit/device_put.h"
#include "axe/jit/execute.h"
#include "axe/runtime/mpi_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/status_matchers.h"
#include "support/testdata.h"

namespace axe::exec {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::ReadFile;
using ::axe::testing_support::ReadJaxValues;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<runtime::MpiClient> Client() {
  absl::StatusOr<std::unique_ptr<runtime::MpiClient>> c =
      runtime::MpiClient::Create({.timeout_seconds = 60});
  EXPECT_THAT(c, IsOk());
  return c.ok() ? *std::move(c) : nullptr;
}

absl::StatusOr<std::vector<Value>> RunOn(const ir::ClosedJaxpr& j, absl::Span<const Value> args,
                                         runtime::Client* client) {
  ExecOptions options;
  options.client = client;
  absl::StatusOr<Executable> e = Executable::Compile(j, options);
  if (!e.ok()) return e.status();
  return e->Run(args);
}

// The arguments of a case (<name>.values.txt's "arg" lines).
std::vector<Value> CaseArgs(const std::filesystem::path& values) {
  return ReadJaxValues(values, ParseValue)["arg"];
}

void ExpectSameBits(const std::vector<Value>& got, const std::vector<Value>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(got[k].aval(), want[k].aval()) << "output " << k;
    ASSERT_EQ(got[k].num_bytes(), want[k].num_bytes()) << "output " << k;
    EXPECT_EQ(std::memcmp(got[k].bytes(), want[k].bytes(), want[k].num_bytes()), 0)
        << "output " << k << ": " << FormatValue(got[k]) << " vs " << FormatValue(want[k]);
  }
}

TEST(ShardMapMpiTest, JaxProgramsGiveTheThreadsBitsOnEveryRank) {
  ASSERT_EQ(runtime::MpiWorldSize(), 4) << "run under mpirun -n 4";
  std::unique_ptr<runtime::MpiClient> client = Client();
  ASSERT_NE(client, nullptr);
  const std::filesystem::path dir = std::filesystem::path(AXE_IR_TESTDATA_DIR) / "jax_shard_map";
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (!absl::EndsWith(file, ".values.txt")) continue;
    const std::string name = file.substr(0, file.size() - std::string(".values.txt").size());
    SCOPED_TRACE(name);
    absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(ReadFile(dir / (name + ".txt")));
    ASSERT_THAT(j, IsOk());
    const std::vector<Value> args = CaseArgs(entry.path());
    absl::StatusOr<std::vector<Value>> threads = RunOn(*j, args, nullptr);
    absl::StatusOr<std::vector<Value>> mpi = RunOn(*j, args, client.get());
    ASSERT_THAT(threads, IsOk());
    ASSERT_THAT(mpi, IsOk());
    ExpectSameBits(*mpi, *threads);
    ++cases;
  }
  EXPECT_GE(cases, 10);
}

constexpr const char* kI64Psum = R"({ lambda ; a:i64[8]. let
    b:i64[2] = shard_map[
      check_vma=True
      in_specs=(P('x',),)
      jaxpr={ lambda ; c:i64[2]{V:x}. let
          d:i64[2] = psum_invariant[axes=('x',)] c
        in (d,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P(),)
    ] a
  in (b,) })";

TEST(ShardMapMpiTest, I64PsumPastTwoToThe53IsExact) {
  std::unique_ptr<runtime::MpiClient> client = Client();
  ASSERT_NE(client, nullptr);
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(kI64Psum);
  ASSERT_THAT(j, IsOk());
  absl::StatusOr<Value> x = ParseValue("i64[8]=9007199254740993,9223372036854775807,2,1,0,0,0,0");
  ASSERT_THAT(x, IsOk());
  absl::StatusOr<std::vector<Value>> out = RunOn(*j, {*x}, client.get());
  ASSERT_THAT(out, IsOk());
  ASSERT_EQ(out->size(), 1u);
  // 2^53 + 3 (no double holds it), and i64's wrap past its largest value.
  EXPECT_THAT(FormatElements((*out)[0]), ElementsAre("9007199254740995", "-9223372036854775808"));
}

// jit on an MPI client runs the same executor: every rank's call returns the whole psum.
TEST(ShardMapMpiTest, JitOnAnMpiClientRunsTheExecutor) {
  std::unique_ptr<runtime::MpiClient> client = Client();
  ASSERT_NE(client, nullptr);
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(kI64Psum);
  ASSERT_THAT(j, IsOk());
  absl::StatusOr<jit::Compiled> compiled = jit::Compile(*j, {}, {});
  ASSERT_THAT(compiled, IsOk());
  const std::vector<int64_t> values = {9007199254740993, 9223372036854775807, 2, 1, 0, 0, 0, 0};
  std::vector<uint8_t> bytes(values.size() * sizeof(int64_t));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  absl::StatusOr<jit::Format> format =
      jit::Format::Parse("Format(Layout((0,)), NamedSharding(Mesh('x': 4), P()))");
  ASSERT_THAT(format, IsOk());
  absl::StatusOr<runtime::Array> x = jit::DevicePut(*client, bytes, {8}, DType::kS64, *format);
  ASSERT_THAT(x, IsOk());
  const runtime::Array* args[] = {&*x};
  absl::StatusOr<jit::CallResult> result = jit::Execute(*compiled, *client, args);
  ASSERT_THAT(result, IsOk());
  ASSERT_EQ(result->outputs.size(), 1u);
  absl::StatusOr<std::vector<uint8_t>> out = result->outputs[0].ToHost();
  ASSERT_THAT(out, IsOk());
  ASSERT_EQ(out->size(), 2 * sizeof(int64_t));
  int64_t got[2];
  std::memcpy(got, out->data(), sizeof(got));
  EXPECT_EQ(got[0], 9007199254740995);
  EXPECT_EQ(got[1], std::numeric_limits<int64_t>::min());
}

constexpr const char* kEightPositions = R"({ lambda ; a:f32[8]. let
    b:f32[1] = shard_map[
      check_vma=True
      in_specs=(P('x',),)
      jaxpr={ lambda ; c:f32[1]{V:x}. let
          d:f32[1] = psum_invariant[axes=('x',)] c
        in (d,) }
      mesh=Mesh('x': 8, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P(),)
    ] a
  in (b,) })";

TEST(ShardMapMpiTest, AMeshOfOtherThanTheRankCountIsRefused) {
  std::unique_ptr<runtime::MpiClient> client = Client();
  ASSERT_NE(client, nullptr);
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(kEightPositions);
  ASSERT_THAT(j, IsOk());
  absl::StatusOr<Value> x = ParseValue("f32[8]=1,2,3,4,5,6,7,8");
  ASSERT_THAT(x, IsOk());
  EXPECT_THAT(RunOn(*j, {*x}, client.get()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has 8 devices but 4 MPI ranks run; use mpirun -n 8")));
}

// A psum large enough that the threads fold it in shares, one per member, then exchange the
// shares; the ranks gather the members' whole operands into one buffer and each folds all of
// it. The fold is the same elementwise, in member order: the same bits.
constexpr const char* kLargePsum = R"({ lambda ; a:f32[262144]. let
    b:f32[65536] = shard_map[
      check_vma=True
      in_specs=(P('x',),)
      jaxpr={ lambda ; c:f32[65536]{V:x}. let
          d:f32[65536] = psum_invariant[axes=('x',)] c
        in (d,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P(),)
    ] a
  in (b,) })";

TEST(ShardMapMpiTest, ALargeF32PsumGivesTheThreadsBits) {
  std::unique_ptr<runtime::MpiClient> client = Client();
  ASSERT_NE(client, nullptr);
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(kLargePsum);
  ASSERT_THAT(j, IsOk());
  absl::StatusOr<Value> x = Value::Zeros(ir::ShapedArray({262144}, DType::kF32));
  ASSERT_THAT(x, IsOk());
  for (int64_t i = 0; i < 262144; ++i) {  // sums that round differently in other orders
    x->mutable_data<float>()[i] = 1.0f / static_cast<float>(i % 977 + 1) + (i % 3 == 0 ? 1e7f : 0);
  }
  absl::StatusOr<std::vector<Value>> threads = RunOn(*j, {*x}, nullptr);
  absl::StatusOr<std::vector<Value>> mpi = RunOn(*j, {*x}, client.get());
  ASSERT_THAT(threads, IsOk());
  ASSERT_THAT(mpi, IsOk());
  ExpectSameBits(*mpi, *threads);
}

constexpr const char* kDoubleBlocks = R"({ lambda ; a:f32[4096]. let
    b:f32[4096] = shard_map[
      check_vma=True
      in_specs=(P('x',),)
      jaxpr={ lambda ; c:f32[1024]{V:x}. let d:f32[1024]{V:x} = add c c in (d,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P('x',),)
    ] a
  in (b,) })";

// A rank runs one position: its peak is that position's blocks and body values and the whole
// result it assembles, the others' blocks gathered straight into it.
TEST(ShardMapMpiTest, ARanksPeakIsItsPositionAndTheWholeResult) {
  std::unique_ptr<runtime::MpiClient> client = Client();
  ASSERT_NE(client, nullptr);
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(kDoubleBlocks);
  ASSERT_THAT(j, IsOk());
  ExecOptions options;
  options.client = client.get();
  absl::StatusOr<Executable> e = Executable::Compile(*j, options);
  ASSERT_THAT(e, IsOk());
  EXPECT_EQ(e->stats().devices, 4);
  EXPECT_EQ(e->stats().device_peak_bytes, 4096 + 4096 + 16384) << e->Describe();
  absl::StatusOr<Value> x = ParseValue("f32[4096]=iota");
  ASSERT_THAT(x, IsOk());
  absl::StatusOr<std::vector<Value>> threads = RunOn(*j, {*x}, nullptr);
  absl::StatusOr<std::vector<Value>> mpi = e->Run({*x});
  ASSERT_THAT(threads, IsOk());
  ASSERT_THAT(mpi, IsOk());
  ExpectSameBits(*mpi, *threads);
}

// The shard_map programs of the everyday corpora (JAX's programs with their arguments, in
// python/tests/data/everyday*): on as many ranks as their mesh has devices, every rank ends
// with the threads' bits. Runs under `mpirun -n 8` (the corpora's meshes have 8 devices).
TEST(ShardMapMpiEverydayTest, CorpusProgramsGiveTheThreadsBits) {
  const int ranks = runtime::MpiWorldSize();
  if (ranks != 8) GTEST_SKIP() << "the corpora's meshes have 8 devices: run under mpirun -n 8";
  std::unique_ptr<runtime::MpiClient> client = Client();
  ASSERT_NE(client, nullptr);
  int cases = 0;
  for (const char* corpus : {"everyday", "everyday2"}) {
    const std::filesystem::path dir = std::filesystem::path(AXE_PYTHON_TEST_DATA_DIR) / corpus;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string file = entry.path().filename().string();
      if (absl::StartsWith(file, "shard_map") && absl::EndsWith(file, ".json")) {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());  // every rank runs them in the same order
    for (const std::filesystem::path& path : files) {
      SCOPED_TRACE(path.string());
      const nlohmann::json c = nlohmann::json::parse(ReadFile(path));
      absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(c.at("text").get<std::string>());
      ASSERT_THAT(j, IsOk());
      std::vector<Value> args;
      for (const nlohmann::json& a : c.at("args")) {
        const std::string dtype = a.at("dtype").get<std::string>();
        ASSERT_TRUE(dtype == "float32" || dtype == "int32") << dtype;
        absl::StatusOr<Value> v =
            Value::Zeros(ir::ShapedArray(a.at("shape").get<std::vector<int64_t>>(),
                                         dtype == "int32" ? DType::kS32 : DType::kF32));
        ASSERT_THAT(v, IsOk());
        const std::vector<double> data = a.at("data").get<std::vector<double>>();
        ASSERT_EQ(static_cast<int64_t>(data.size()), v->num_elements());
        for (size_t i = 0; i < data.size(); ++i) {
          if (dtype == "int32") {
            v->mutable_data<int32_t>()[i] = static_cast<int32_t>(data[i]);
          } else {
            v->mutable_data<float>()[i] = static_cast<float>(data[i]);
          }
        }
        args.push_back(*std::move(v));
      }
      absl::StatusOr<std::vector<Value>> threads = RunOn(*j, args, nullptr);
      absl::StatusOr<std::vector<Value>> mpi = RunOn(*j, args, client.get());
      ASSERT_THAT(threads, IsOk());
      ASSERT_THAT(mpi, IsOk());
      ExpectSameBits(*mpi, *threads);
      ++cases;
    }
  }
  EXPECT_GE(cases, 20);
}

// `stall_position`: rank 1 never reaches the shard_map's collective (it sleeps); the other
// ranks' run must end within the client's timeout of 2 s with DeadlineExceeded. Rank 0 prints
// "fault detected: rank 0 got <code> after <t> s: <message>" (what ctest looks for) and the
// survivors end the job with MPI_Abort (the stalled rank cannot finish).
int RunStalledPosition() {
  constexpr double kTimeout = 2;
  absl::StatusOr<std::unique_ptr<runtime::MpiClient>> client =
      runtime::MpiClient::Create({.timeout_seconds = kTimeout});
  if (!client.ok()) return 3;
  const int me = runtime::MpiWorldRank();
  if (me == 1) {
    std::this_thread::sleep_for(std::chrono::seconds(30));
    return 1;
  }
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(kI64Psum);
  absl::StatusOr<Value> x = ParseValue("i64[8]=1,2,3,4,5,6,7,8");
  if (!j.ok() || !x.ok()) return 3;
  const auto start = std::chrono::steady_clock::now();
  const absl::Status s = RunOn(*j, {*x}, client->get()).status();
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("rank %d: %s after %.2f s: %s\n", me, s.ok() ? "no error" : "error", took,
              std::string(s.message()).c_str());
  if (me == 0 && !s.ok() && took < 3 * kTimeout) {
    std::printf("fault detected: rank 0 got %s after %.2f s: %s\n",
                absl::StatusCodeToString(s.code()).c_str(), took, std::string(s.message()).c_str());
  }
  std::fflush(stdout);
  runtime::MpiAbort(1);
}

}  // namespace
}  // namespace axe::exec

int main(int argc, char** argv) {
  if (!axe::runtime::MpiInit(&argc, &argv).ok()) return 3;
  if (argc == 2 && std::strcmp(argv[1], "stall_position") == 0) {
    return axe::exec::RunStalledPosition();
  }
  testing::InitGoogleTest(&argc, argv);
  if (axe::runtime::MpiWorldRank() != 0) {  // rank 0 prints; every rank's result counts
    delete testing::UnitTest::GetInstance()->listeners().Release(
        testing::UnitTest::GetInstance()->listeners().default_result_printer());
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed != 0) std::fprintf(stderr, "rank %d: tests failed\n", axe::runtime::MpiWorldRank());
  axe::runtime::MpiFinalize();
  return any;
}
