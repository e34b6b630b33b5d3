// The MPI backend under mpirun (ctest runs it with 2 and 4 ranks): every collective equals
// the in-process one byte for byte on seeded random cases, random reshards are exact and
// move V_min, mismatched arguments and incompatible arrays are errors naming what differs.
// Every rank runs every test (the same seed gives every rank the same cases); rank 0 prints.
#include <mpi.h>
#include <sched.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "axe/relayout/element_type.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/mpi_client.h"
#include "axe/runtime/mpi_collectives.h"
#include "axe/runtime/mpi_reshard.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/collective_benchmark.h"
#include "runtime/dist_test_util.h"
#include "runtime/mpi_collective_benchmark.h"
#include "runtime/mpi_reshard_benchmark.h"
#include "runtime/reshard_benchmark.h"
#include "sharding/test_util.h"
#include "src/runtime/mpi_state.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::runtime {

using relayout::CheckOutcome;
using relayout::ElementBytes;

namespace {

using ::axe::sharding::Mesh;
using ::axe::sharding::NamedSharding;
using ::axe::sharding::test_util::Named;
using ::axe::testing_support::StatusIs;
using ::axe::testing_support::TestSeed;
using ::testing::HasSubstr;

MpiClient& Mpi() {
  static MpiClient* client = MpiClient::Create({.timeout_seconds = 30})->release();
  return *client;
}

Client& Threads() {
  static Client* client = Client::InProcess(MpiWorldSize())->release();
  return *client;
}

// A random mesh of exactly `devices` devices (axes a, b, c; sometimes a shuffled order).
Mesh RandomMeshOf(std::mt19937_64& rng, int64_t devices) {
  for (;;) {
    auto parts = sharding::test_util::RandomMesh(rng, devices);
    int64_t n = 1;
    for (const auto& axis : parts.axes) n *= axis.size;
    if (n == devices) return sharding::test_util::MakeMesh(parts.axes, parts.devices);
  }
}

// Mostly every rank; one time in four half of them (the other ranks are outside the mesh:
// they take part in the call and get zeros or nothing).
int64_t MeshSize(std::mt19937_64& rng) {
  const int64_t world = MpiWorldSize();
  return world > 1 && rng() % 4 == 0 ? world / 2 : world;
}

// A random subset of the mesh's axes (possibly empty: groups of one), in random order.
std::vector<std::string> RandomAxes(std::mt19937_64& rng, const Mesh& mesh) {
  std::vector<std::string> axes;
  for (const auto& a : mesh.axes()) {
    if (rng() % 2) axes.push_back(a.name);
  }
  std::shuffle(axes.begin(), axes.end(), rng);
  return axes;
}

int64_t GroupSize(const Mesh& mesh, const std::vector<std::string>& axes) {
  return (*MakeCollectiveGroups(mesh, axes)).group_size();
}

// The same values on both clients: device d's bytes are host[d].
struct Inputs {
  DeviceValues threads, mpi;
};
Inputs MakeInputs(std::mt19937_64& rng, const std::vector<int64_t>& shape, DType type) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<std::vector<uint8_t>> host;
  for (int d = 0; d < MpiWorldSize(); ++d) {
    host.push_back(test_util::RandomBytes(rng, static_cast<size_t>(n * *ElementBytes(type))));
  }
  DeviceValues t = *DeviceValues::FromHost(Threads(), shape, type, host);
  DeviceValues m = *DeviceValues::Allocate(Mpi(), shape, type);
  const int me = Mpi().rank();
  std::copy(host[static_cast<size_t>(me)].begin(), host[static_cast<size_t>(me)].end(),
            m.mutable_data(me));
  return {std::move(t), std::move(m)};
}

void ExpectSame(const absl::StatusOr<DeviceValues>& threads,
                const absl::StatusOr<DeviceValues>& mpi) {
  ASSERT_OK(threads.status());
  ASSERT_OK(mpi.status());
  ASSERT_EQ(threads->shape(), mpi->shape());
  const int me = Mpi().rank();
  ASSERT_EQ(*threads->ToHost(me), *mpi->ToHost(me)) << "rank " << me;
}

TEST(MpiClientTest, OneDevicePerRank) {
  MpiClient& c = Mpi();
  EXPECT_EQ(c.backend(), "mpi");
  EXPECT_EQ(c.num_devices(), MpiWorldSize());
  EXPECT_EQ(c.addressable_devices(), std::vector<int>{MpiWorldRank()});
  EXPECT_TRUE(c.IsAddressable(MpiWorldRank()));
  EXPECT_FALSE(c.IsAddressable(MpiWorldRank() + 1));
  EXPECT_THAT(MpiClient::Create({.timeout_seconds = 0}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("timeout must be positive")));
}

// The ranks whose MPI processor name (host name) is this rank's: those that can share its
// CPUs (network namespaces acting as hosts, as in runtime.mpi.tcp_two_hosts, share one).
int RanksOnThisHost() {
  std::vector<char> names(static_cast<size_t>(MpiWorldSize()) * MPI_MAX_PROCESSOR_NAME, 0);
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, 0);
  int length = 0;
  MPI_Get_processor_name(mine.data(), &length);
  MPI_Allgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, MPI_COMM_WORLD);
  int same = 0;
  for (size_t r = 0; r < static_cast<size_t>(MpiWorldSize()); ++r) {
    same += std::equal(mine.begin(), mine.end(), names.begin() + r * MPI_MAX_PROCESSOR_NAME);
  }
  return same;
}

// own_cpus: the CPUs of this rank's affinity mask shared out among the k ranks of its host
// whose masks overlap it (1 <= k <= the host's ranks). mpirun binds all ranks or none; where
// this rank is not bound, no rank is, so k is every rank of the host.
TEST(MpiClientTest, OwnCpusShareTheAffinityMaskAmongTheHostsRanks) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  const int cpus = CPU_COUNT(&mask);
  const int own = Mpi().own_cpus();
  const int host_ranks = RanksOnThisHost();
  ASSERT_GE(host_ranks, 1);
  std::vector<int> possible;
  for (int k = 1; k <= host_ranks; ++k) possible.push_back(std::max(1, cpus / k));
  EXPECT_THAT(possible, ::testing::Contains(own)) << cpus << " CPUs, " << host_ranks << " ranks";
  if (cpus == get_nprocs()) {
    EXPECT_EQ(own, std::max(1, cpus / host_ranks)) << cpus << " CPUs, unbound";
  }
}

TEST(MpiClientTest, WhereLocalCopiesRun) {
  MpiClient& c = Mpi();
  const int64_t mib = int64_t{1} << 20;
  c.set_local_copies(LocalCopyThread::kWorker);
  EXPECT_TRUE(c.LocalCopiesOnWorker(1));
  EXPECT_FALSE(c.LocalCopiesOnWorker(0));  // nothing to copy: no task
  c.set_local_copies(LocalCopyThread::kCaller);
  EXPECT_FALSE(c.LocalCopiesOnWorker(64 * mib));
  c.set_local_copies(LocalCopyThread::kAuto);
  EXPECT_FALSE(c.LocalCopiesOnWorker(mib - 1));
  EXPECT_EQ(c.LocalCopiesOnWorker(mib), c.own_cpus() >= 2);
}

TEST(MpiCollectivesTest, RandomCollectivesEqualTheInProcessOnes) {
  std::mt19937_64 rng(TestSeed(20261123));
  const DType types[] = {DType::kF32, DType::kS32, DType::kBF16, DType::kF64, DType::kU8};
  for (int iter = 0; iter < 200; ++iter) {
    const Mesh mesh = RandomMeshOf(rng, MeshSize(rng));
    const std::vector<std::string> axes = RandomAxes(rng, mesh);
    const int64_t g = GroupSize(mesh, axes);
    const DType type = types[rng() % 5];
    const ReduceOp op = static_cast<ReduceOp>(rng() % 3);
    std::vector<int64_t> shape;
    const size_t rank = 1 + rng() % 3;
    for (size_t i = 0; i < rank; ++i) shape.push_back(g * static_cast<int64_t>(1 + rng() % 3));
    Inputs x = MakeInputs(rng, shape, type);
    const auto dim = static_cast<int64_t>(rng() % rank);
    const auto dim2 = static_cast<int64_t>(rng() % rank);
    const bool tiled = rng() % 2 == 0;
    SCOPED_TRACE(mesh.ToString() + " " + std::string(XlaName(type)) + " case " +
                 std::to_string(iter));
    ExpectSame(AllReduce(mesh, axes, op, x.threads), MpiAllReduce(mesh, axes, op, x.mpi));
    ExpectSame(AllGather(mesh, axes, x.threads, dim, tiled),
               MpiAllGather(mesh, axes, x.mpi, dim, tiled));
    std::vector<int64_t> us = shape;  // untiled forms need the group size at the dimension
    us[static_cast<size_t>(dim)] = g;
    Inputs u = MakeInputs(rng, us, type);
    ExpectSame(ReduceScatter(mesh, axes, op, tiled ? x.threads : u.threads, dim, tiled),
               MpiReduceScatter(mesh, axes, op, tiled ? x.mpi : u.mpi, dim, tiled));
    ExpectSame(AllToAll(mesh, axes, tiled ? x.threads : u.threads, dim, dim2, tiled),
               MpiAllToAll(mesh, axes, tiled ? x.mpi : u.mpi, dim, dim2, tiled));
    std::vector<int64_t> order(static_cast<size_t>(g));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::pair<int64_t, int64_t>> perm;
    for (int64_t i = 0; i < g; ++i) {
      if (rng() % 4) perm.push_back({i, order[static_cast<size_t>(i)]});
    }
    ExpectSame(CollectivePermute(mesh, axes, x.threads, perm),
               MpiCollectivePermute(mesh, axes, x.mpi, perm));
    // axis_index needs no messages: the in-process function runs on the MPI client as is.
    ExpectSame(AxisIndex(Threads(), mesh, axes), AxisIndex(Mpi(), mesh, axes));
  }
}

// Sizes the random cases do not reach: fewer elements than members (empty chunks in the
// all-reduce), large values (messages past MPI's eager limit), and all-gathers and
// all-to-alls whose pieces are strided runs of 512 bytes or more (moved in place through an
// MPI datatype) or shorter (through scratch).
TEST(MpiCollectivesTest, TinyLargeAndStridedValuesEqualTheInProcessOnes) {
  std::mt19937_64 rng(TestSeed(20261127));
  const Mesh mesh = sharding::test_util::ParseMesh("x=" + std::to_string(MpiWorldSize()));
  const std::vector<std::string> axes = {"x"};
  const int64_t g = MpiWorldSize();
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{1}, {3}, {1, 1}, {g * 64, 96}, {3, g * 256}, {5, g}}) {
    for (DType type : {DType::kF32, DType::kBF16, DType::kS64}) {
      SCOPED_TRACE(std::string(XlaName(type)) + " shape " + absl::StrJoin(shape, ","));
      Inputs x = MakeInputs(rng, shape, type);
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax}) {
        ExpectSame(AllReduce(mesh, axes, op, x.threads), MpiAllReduce(mesh, axes, op, x.mpi));
      }
      const auto last = static_cast<int64_t>(shape.size()) - 1;
      for (int64_t dim = 0; dim <= last; ++dim) {
        for (bool tiled : {true, false}) {
          ExpectSame(AllGather(mesh, axes, x.threads, dim, tiled),
                     MpiAllGather(mesh, axes, x.mpi, dim, tiled));
        }
        if (shape[static_cast<size_t>(dim)] % g == 0) {
          ExpectSame(ReduceScatter(mesh, axes, ReduceOp::kSum, x.threads, dim, true),
                     MpiReduceScatter(mesh, axes, ReduceOp::kSum, x.mpi, dim, true));
          for (int64_t concat = 0; concat <= last; ++concat) {
            ExpectSame(AllToAll(mesh, axes, x.threads, dim, concat, true),
                       MpiAllToAll(mesh, axes, x.mpi, dim, concat, true));
          }
        }
      }
    }
  }
}

TEST(MpiCollectivesTest, ErrorsUseTheInProcessWords) {
  const Mesh mesh = sharding::test_util::ParseMesh("x=" + std::to_string(MpiWorldSize()));
  DeviceValues v = *DeviceValues::Allocate(Mpi(), {3, 5}, DType::kF32, true);
  EXPECT_THAT(MpiAllReduce(mesh, {"z"}, ReduceOp::kSum, v).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unbound axis name: z")));
  EXPECT_THAT(MpiAllGather(mesh, {"x"}, v, 2, true).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("all_gather: axis 2 is out of bounds")));
  EXPECT_THAT(MpiCollectivePermute(mesh, {"x"}, v, {{0, 1}, {0, 0}}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ppermute sources and destinations must be unique, got "
                                 "((0, 1), (0, 0)).")));
  DeviceValues t = *DeviceValues::Allocate(Threads(), {3, 5}, DType::kF32, true);
  EXPECT_THAT(MpiAllReduce(mesh, {"x"}, ReduceOp::kSum, t).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("needs values of an MPI client, not of the 'threads' backend")));
  // The other way round: the front doors dispatch an MPI client's values to the MPI backend.
  absl::StatusOr<DeviceValues> front = AllReduce(mesh, {"x"}, ReduceOp::kSum, v);
  ASSERT_OK(front.status());
  EXPECT_EQ(front->shape(), v.shape());
}

TEST(MpiCollectivesTest, MismatchedArgumentsAcrossRanksAreAnError) {
  const Mesh mesh = sharding::test_util::ParseMesh("x=" + std::to_string(MpiWorldSize()));
  const int64_t rows = MpiWorldRank() == 1 ? 4 : 2;  // rank 1 differs
  DeviceValues v = *DeviceValues::Allocate(Mpi(), {rows, 8}, DType::kF32, true);
  EXPECT_THAT(MpiAllReduce(mesh, {"x"}, ReduceOp::kSum, v).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("all_reduce: the ranks' arguments differ: rank 0 has "
                                 "all_reduce(sum) of f32[2,8] over (x) on mesh")));
  const ReduceOp op = MpiWorldRank() == 1 ? ReduceOp::kMax : ReduceOp::kSum;
  DeviceValues w = *DeviceValues::Allocate(Mpi(), {2, 8}, DType::kF32, true);
  EXPECT_THAT(
      MpiAllReduce(mesh, {"x"}, op, w).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rank 1 has all_reduce(max)")));
  // The client still works after a mismatch (nothing was left pending).
  EXPECT_OK(MpiAllReduce(mesh, {"x"}, ReduceOp::kSum, w).status());
}

TEST(MpiReshardTest, RandomReshardsAreExactAndMoveVMin) {
  std::mt19937_64 rng(TestSeed(20261125));
  const DType types[] = {DType::kU8, DType::kF16, DType::kF32, DType::kS64};
  const int me = MpiWorldRank();
  absl::Cleanup restore = [] { Mpi().set_local_copies(LocalCopyThread::kAuto); };
  const LocalCopyThread wheres[] = {LocalCopyThread::kAuto, LocalCopyThread::kWorker,
                                    LocalCopyThread::kCaller};
  for (int iter = 0; iter < 150; ++iter) {
    const int where = static_cast<int>(rng() % 3);
    Mpi().set_local_copies(wheres[where]);  // back to kAuto by `restore`
    SCOPED_TRACE("local copies " + std::to_string(where));
    const Mesh a = RandomMeshOf(rng, MeshSize(rng));
    const Mesh b = rng() % 2 ? a : RandomMeshOf(rng, MeshSize(rng));
    const size_t rank = 1 + rng() % 3;
    std::vector<sharding::MeshAxis> a_axes(a.axes().begin(), a.axes().end());
    std::vector<sharding::MeshAxis> b_axes(b.axes().begin(), b.axes().end());
    NamedSharding from = sharding::test_util::MakeNamed(
        a, sharding::test_util::Spec(sharding::test_util::RandomSpecEntries(rng, a_axes, rank)));
    NamedSharding to = sharding::test_util::MakeNamed(
        b, sharding::test_util::Spec(sharding::test_util::RandomSpecEntries(rng, b_axes, rank)));
    std::vector<int64_t> shape;
    for (size_t i = 0; i < rank; ++i) {
      shape.push_back(std::lcm(from.DimPieces(i), to.DimPieces(i)) *
                      static_cast<int64_t>(1 + rng() % 3));
    }
    const DType type = types[rng() % 4];
    const int eb = *ElementBytes(type);
    sharding::Format src =
        test_util::FormatOf(from, test_util::RandomLocalLayout(rng, *from.ShardShape(shape)));
    sharding::Format dst =
        test_util::FormatOf(to, test_util::RandomLocalLayout(rng, *to.ShardShape(shape)));
    SCOPED_TRACE(src.ToString() + " -> " + dst.ToString() + " " + std::string(XlaName(type)));
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<uint8_t> host = test_util::RandomBytes(rng, static_cast<size_t>(n * eb));
    Array x = *Array::DevicePut(Mpi(), host, shape, type, src);
    // Staging: unbounded (one round), a few elements (many rounds), or the default.
    const int64_t choice = static_cast<int64_t>(rng() % 3);
    const int64_t staging = choice == 0   ? 0
                            : choice == 1 ? eb * static_cast<int64_t>(1 + rng() % 7)
                                          : kDefaultMpiStagingBytes;
    SCOPED_TRACE("staging " + std::to_string(staging));
    ReshardStats stats;
    absl::StatusOr<Array> y = MpiReshard(x, dst, &stats, staging);
    ASSERT_OK(y.status());
    const ReshardPlan plan = *PlanReshard(shape, eb, from, to);
    const auto i = static_cast<size_t>(me);
    const int64_t moving =
        i < plan.bytes_sent.size() ? plan.bytes_sent[i] + plan.bytes_received[i] : 0;
    const int64_t bound = (x.shard_buffer(me) ? x.shard_bytes() : 0) +
                          (y->shard_buffer(me) ? y->shard_bytes() : 0) +
                          (staging > 0 ? std::min(2 * staging, moving) : moving);
    ASSERT_LE(stats.peak_bytes[i], bound) << "rank " << me;
    ASSERT_EQ(stats.bytes_moved, plan.v_min_bytes);
    ASSERT_EQ(stats.local_bytes, plan.local_bytes);
    for (const sharding::DeviceShard& s : y->device_map()) {
      if (s.device != me) continue;
      ASSERT_EQ(*y->ShardToHost(me), test_util::SliceRowMajor(host, shape, s.index, eb));
      ASSERT_EQ(stats.bytes_received[static_cast<size_t>(me)],
                static_cast<size_t>(me) < plan.bytes_received.size()
                    ? plan.bytes_received[static_cast<size_t>(me)]
                    : 0);
    }
  }
}

// Shards with long rows: their boxes are runs of 512 bytes or more, which MPI sends from the
// source shard and receives into the target shard in place (contiguous blocks, or strided
// ones as MPI datatypes), others through staging; every result bit-exact, V_min moved.
TEST(MpiReshardTest, LongRowsMoveInPlaceExactly) {
  std::mt19937_64 rng(TestSeed(20261126));
  const int me = MpiWorldRank();
  for (int iter = 0; iter < 40; ++iter) {
    const Mesh a = RandomMeshOf(rng, MpiWorldSize());
    const Mesh b = rng() % 2 ? a : RandomMeshOf(rng, MpiWorldSize());
    const size_t rank = 2 + rng() % 2;
    std::vector<sharding::MeshAxis> a_axes(a.axes().begin(), a.axes().end());
    std::vector<sharding::MeshAxis> b_axes(b.axes().begin(), b.axes().end());
    NamedSharding from = sharding::test_util::MakeNamed(
        a, sharding::test_util::Spec(sharding::test_util::RandomSpecEntries(rng, a_axes, rank)));
    NamedSharding to = sharding::test_util::MakeNamed(
        b, sharding::test_util::Spec(sharding::test_util::RandomSpecEntries(rng, b_axes, rank)));
    std::vector<int64_t> shape;
    for (size_t i = 0; i < rank; ++i) {
      const int64_t pieces = std::lcm(from.DimPieces(i), to.DimPieces(i));
      shape.push_back(pieces * (i + 1 == rank ? 512 : static_cast<int64_t>(1 + rng() % 3)));
    }
    const DType type = rng() % 2 ? DType::kF32 : DType::kS64;
    const int eb = *ElementBytes(type);
    // Mostly row-major shards (long runs), sometimes another layout on one side.
    auto layout = [&](const NamedSharding& s) -> std::optional<xla::Layout> {
      if (rng() % 3 != 0) return std::nullopt;
      return test_util::RandomLocalLayout(rng, *s.ShardShape(shape));
    };
    sharding::Format src = test_util::FormatOf(from, layout(from));
    sharding::Format dst = test_util::FormatOf(to, layout(to));
    SCOPED_TRACE(src.ToString() + " -> " + dst.ToString() + " " + std::string(XlaName(type)));
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<uint8_t> host = test_util::RandomBytes(rng, static_cast<size_t>(n * eb));
    Array x = *Array::DevicePut(Mpi(), host, shape, type, src);
    const int64_t staging = rng() % 2 ? kDefaultMpiStagingBytes : 4096;
    ReshardStats stats;
    absl::StatusOr<Array> y = MpiReshard(x, dst, &stats, staging);
    ASSERT_OK(y.status());
    ASSERT_EQ(stats.bytes_moved, PlanReshard(shape, eb, from, to)->v_min_bytes);
    for (const sharding::DeviceShard& s : y->device_map()) {
      if (s.device == me) {
        ASSERT_EQ(*y->ShardToHost(me), test_util::SliceRowMajor(host, shape, s.index, eb));
      }
    }
    // Again into the same target (the client's staging buffers are reused).
    ASSERT_OK(MpiReshardInto(x, *y, *PlanReshard(shape, eb, from, to), nullptr, staging));
    for (const sharding::DeviceShard& s : y->device_map()) {
      if (s.device == me) {
        ASSERT_EQ(*y->ShardToHost(me), test_util::SliceRowMajor(host, shape, s.index, eb));
      }
    }
  }
}

TEST(MpiReshardTest, IncompatibleTargetsSayWhatDiffers) {
  const std::string x = "x=" + std::to_string(MpiWorldSize());
  std::vector<uint8_t> host(static_cast<size_t>(6 * 8 * 4), 7);
  Array a =
      *Array::DevicePut(Mpi(), host, {6, 8}, DType::kF32, test_util::FormatOf(Named(x, "P()")));
  const absl::Status too_many = MpiReshard(a, test_util::FormatOf(Named("x=8", "P()"))).status();
  EXPECT_THAT(too_many, StatusIs(absl::StatusCode::kInvalidArgument,
                                 HasSubstr("has 8 devices but the client has")));
  EXPECT_TRUE(IsSameOnEveryRank(too_many));  // an error of the agreed call alone
  EXPECT_THAT(MpiReshard(a, test_util::FormatOf(Named(x, "P()")), nullptr, 3).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a staging buffer of 3 bytes cannot hold one element of 4 "
                                 "bytes")));
  if (MpiWorldSize() == 4) {
    EXPECT_THAT(MpiReshard(a, test_util::FormatOf(Named(x, "P('x')"))).status(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("implies that the global size of its dimension 0 should be "
                                   "divisible by 4")));
  }
  // Ranks asking for different targets: every rank gets an error naming both calls.
  const char* spec = MpiWorldRank() == 1 ? "P(None, 'x')" : "P('x')";
  std::vector<uint8_t> host8(static_cast<size_t>(8 * 8 * 4), 1);
  Array b =
      *Array::DevicePut(Mpi(), host8, {8, 8}, DType::kF32, test_util::FormatOf(Named(x, "P()")));
  const absl::Status differ = MpiReshard(b, test_util::FormatOf(Named(x, spec))).status();
  EXPECT_THAT(differ, StatusIs(absl::StatusCode::kInvalidArgument,
                               HasSubstr("reshard: the ranks' arguments differ: rank 0 has")));
  EXPECT_TRUE(IsSameOnEveryRank(differ));
}

TEST(MpiClientTest, TimeoutsOutOfRangeAreRefused) {
  EXPECT_THAT(
      MpiInit(nullptr, nullptr, 0),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("the MPI timeout must be positive and at most 1000000 s, got 0 s")));
  EXPECT_THAT(MpiInit(nullptr, nullptr, 2e6),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("got 2e+06 s")));
  EXPECT_THAT(MpiClient::Create({.timeout_seconds = 1e300}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 1000000 s")));
  EXPECT_OK(MpiInit(nullptr, nullptr, 5));  // already initialized: nothing to do
}

// MpiInit makes MPI return its errors: a message longer than the receive posted for it is
// MPI_ERR_TRUNCATE from the receive (on a communicator that inherits the handler), where
// MPI's default handler would end the whole job.
TEST(MpiClientTest, MpiErrorsComeBackAsCodes) {
  MPI_Comm comm = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &comm), MPI_SUCCESS);
  absl::Cleanup free_comm = [&comm] { MPI_Comm_free(&comm); };
  std::vector<uint8_t> bytes(8, 1);
  if (MpiWorldRank() == 0) {
    EXPECT_EQ(MPI_Send(bytes.data(), 8, MPI_BYTE, 1, 7, comm), MPI_SUCCESS);
  } else if (MpiWorldRank() == 1) {
    const int code = MPI_Recv(bytes.data(), 4, MPI_BYTE, 0, 7, comm, MPI_STATUS_IGNORE);
    int error_class = MPI_SUCCESS;
    MPI_Error_class(code, &error_class);
    EXPECT_EQ(error_class, MPI_ERR_TRUNCATE);
  }
  EXPECT_EQ(MPI_Barrier(comm), MPI_SUCCESS);
}

// The same through a client: the receiving ranks' wait returns Internal naming MPI's error
// (their client is then broken, as after a timeout), the job goes on.
TEST(MpiClientTest, ATruncatedMessageIsAnInternalStatus) {
  std::unique_ptr<MpiClient> client = *MpiClient::Create({.timeout_seconds = 30});
  const int me = client->rank();
  std::vector<MPI_Request> requests;
  auto bytes = std::make_shared<std::vector<uint8_t>>(8, 1);
  for (int r = 1; r < client->num_devices() && me == 0; ++r) {
    requests.emplace_back();
    ASSERT_EQ(MPI_Isend(bytes->data(), 8, MPI_BYTE, r, 5, client->state().world, &requests.back()),
              MPI_SUCCESS);
  }
  if (me != 0) {
    requests.emplace_back();
    ASSERT_EQ(MPI_Irecv(bytes->data(), 4, MPI_BYTE, 0, 5, client->state().world, &requests.back()),
              MPI_SUCCESS);
  }
  const absl::Status s = WaitAll(*client, requests, "a short receive");
  if (me == 0) {
    EXPECT_OK(s);
  } else {
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                            HasSubstr("a short receive: MPI_ERR_TRUNCATE: message truncated")));
    EXPECT_TRUE(client->broken());
    client->state().KeepAlive(bytes);
  }
  EXPECT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
}

TEST(MpiClientTest, RunOnDevicesKeepsTheSameOnEveryRankMark) {
  absl::Status s = Mpi().RunOnDevices(
      [](int) { return MarkSameOnEveryRank(absl::InvalidArgumentError("shared")); });
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("device " + std::to_string(MpiWorldRank()) + ": shared")));
  EXPECT_TRUE(IsSameOnEveryRank(s));
  EXPECT_FALSE(IsSameOnEveryRank(absl::InvalidArgumentError("own")));
  EXPECT_FALSE(IsSameOnEveryRank(MarkSameOnEveryRank(absl::OkStatus())));
}

// Options that change the messages exchanged (a rank alone checking, staging in other rounds)
// are compared before any data moves: a clear error on every rank, marked as the same on
// every rank, and the client still usable.
TEST(MpiBenchmarkTest, OptionsThatChangeTheMessagesMustAgree) {
  const int me = MpiWorldRank();
  const std::string x = "x=" + std::to_string(MpiWorldSize());
  const sharding::Format from = test_util::FormatOf(Named(x, "P('x')")),
                         to = test_util::FormatOf(Named(x, "P(None, 'x')"));
  MpiReshardBenchmarkOptions options{.runs = 1};
  options.check = me == 1;
  absl::Status s = BenchmarkMpiReshard(Mpi(), {8, 8}, DType::kF32, from, to, options).status();
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("reshard benchmark: the ranks' arguments differ: rank 0 has "
                                    "{1 runs, no check, staging 67108864 bytes, seed 1}, rank 1 "
                                    "has {1 runs, check, staging 67108864 bytes, seed 1}")));
  EXPECT_TRUE(IsSameOnEveryRank(s));
  options.check = false;
  options.staging_bytes = me == 1 ? 8192 : 4096;
  s = BenchmarkMpiReshard(Mpi(), {8, 8}, DType::kF32, from, to, options).status();
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("rank 0 has {1 runs, no check, staging 4096 bytes, seed 1}, "
                                    "rank 1 has {1 runs, no check, staging 8192 bytes")));
  options.staging_bytes = 4096;
  options.runs = me == 1 ? 2 : 1;
  EXPECT_THAT(BenchmarkMpiReshard(Mpi(), {8, 8}, DType::kF32, from, to, options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rank 1 has {2 runs")));
  const Mesh mesh = *Mesh::Parse(x);
  const std::vector<std::string> axes = {"x"};
  CollectiveBenchmarkOptions collective;
  collective.runs = 1;
  collective.check = me == 1;
  s = BenchmarkMpiCollective(Mpi(), CollectiveKind::kAllReduce, mesh, axes, {8}, DType::kF32,
                             collective)
          .status();
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("collective benchmark: the ranks' arguments differ: rank 0 "
                                    "has {1 runs, no check, seed 1}, rank 1 has {1 runs, check, "
                                    "seed 1}")));
  EXPECT_TRUE(IsSameOnEveryRank(s));
  // The same options everywhere: the run goes through (the client was not broken).
  options.runs = 1;
  options.check = true;
  absl::StatusOr<MpiReshardBenchmarkResult> r =
      BenchmarkMpiReshard(Mpi(), {8, 8}, DType::kF32, from, to, options);
  ASSERT_OK(r.status());
  EXPECT_EQ(r->check, CheckOutcome::kPassed);
}

// The one BenchmarkCollective / BenchmarkReshard runs the MPI backend's own benchmarks on an
// MPI client: the MPI library's baselines, the job's check.
TEST(MpiBenchmarkTest, TheOneEntryPointRunsTheMpiBenchmarks) {
  const std::string x = "x=" + std::to_string(MpiWorldSize());
  const Mesh mesh = *Mesh::Parse(x);
  CollectiveBenchmarkOptions collective;
  collective.runs = 1;
  collective.check = true;
  absl::StatusOr<CollectiveBenchmarkResult> c = BenchmarkCollective(
      Mpi(), CollectiveKind::kAllReduce, mesh, {"x"}, {8}, DType::kF32, collective);
  ASSERT_OK(c.status());
  EXPECT_EQ(c->baseline, "the MPI library's own blocking collective on the same communicator");
  EXPECT_EQ(c->check, CheckOutcome::kPassed);
  ReshardBenchmarkOptions options;
  options.runs = 1;
  options.check = true;
  absl::StatusOr<ReshardBenchmarkResult> r =
      BenchmarkReshard(Mpi(), {8, 8}, DType::kF32, test_util::FormatOf(Named(x, "P('x')")),
                       test_util::FormatOf(Named(x, "P(None, 'x')")), options);
  ASSERT_OK(r.status());
  EXPECT_TRUE(r->message_passing.has_value());
  EXPECT_EQ(r->stats.bytes_moved, r->plan.v_min_bytes);
  EXPECT_EQ(r->check, CheckOutcome::kPassed);
}

}  // namespace
}  // namespace axe::runtime

int main(int argc, char** argv) {
  if (!axe::runtime::MpiInit(&argc, &argv).ok()) return 3;
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
