// EvalJaxprOnDevices on an MPI client (one device per rank; run under mpirun -n 4): the
// JAX-printed shard_map programs give what the host's simulated mesh gives, on every rank,
// and seeded random linear programs and their transposes satisfy <t(y), x> == <y, f(x)>.
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "axe/ir/eval.h"
#include "axe/ir/eval_devices.h"
#include "axe/ir/mpi_eval.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "axe/ir/transpose.h"
#include "axe/runtime/mpi_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/random_linear_program.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "support/testdata.h"

namespace axe::ir {
namespace {

using ::axe::testing_support::IsOk;

std::unique_ptr<runtime::MpiClient> Client() {
  EnableMpiEvaluation();
  absl::StatusOr<std::unique_ptr<runtime::MpiClient>> c =
      runtime::MpiClient::Create({.timeout_seconds = 60});
  EXPECT_THAT(c, IsOk());
  return c.ok() ? *std::move(c) : nullptr;
}

TEST(RunMpiTest, JaxProgramsEqualTheSimulatedMesh) {
  ASSERT_EQ(runtime::MpiWorldSize(), 4) << "run under mpirun -n 4";
  std::unique_ptr<runtime::MpiClient> client = Client();
  ASSERT_NE(client, nullptr);
  std::mt19937_64 rng(::axe::testing_support::TestSeed(1209));  // the same on every rank
  for (const char* name : {"shmap_psum", "shmap_nocheck", "shmap_2d", "shmap_all_gather",
                           "shmap_identity_pvary", "shmap_collectives"}) {
    absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(testing_support::ReadJaxProgram(name));
    ASSERT_THAT(j, IsOk()) << name;
    std::vector<HostArray> args;
    for (const ShapedArray& a : j->jaxpr.in_avals()) {
      args.push_back(testing_random::RandomInts(a, rng));
    }
    absl::StatusOr<std::vector<HostArray>> host = EvalJaxpr(*j, args);
    absl::StatusOr<std::vector<HostArray>> mpi = EvalJaxprOnDevices(*j, args, *client);
    ASSERT_THAT(host, IsOk()) << name;
    ASSERT_THAT(mpi, IsOk()) << name;
    EXPECT_EQ(*host, *mpi) << name;
  }
}

TEST(RunMpiTest, TransposeLawOnRanks) {
  std::unique_ptr<runtime::MpiClient> client = Client();
  ASSERT_NE(client, nullptr);
  std::mt19937_64 rng(::axe::testing_support::TestSeed(1210));
  std::vector<testing_random::MeshInfo> meshes = {
      {*sharding::Mesh::Create({{"x", 2}, {"y", 2}}), {{"x"}, {"y"}, {"x", "y"}}},
      {*sharding::Mesh::Create({{"x", 4}}), {{"x"}}},
  };
  for (int trial = 0; trial < 60; ++trial) {
    const testing_random::MeshInfo& m = meshes[static_cast<size_t>(trial) % meshes.size()];
    absl::StatusOr<ClosedJaxpr> f = testing_random::RandomProgram(rng, m);
    ASSERT_THAT(f, IsOk());
    absl::StatusOr<ClosedJaxpr> t = LinearTranspose(*f, {true});
    ASSERT_THAT(t, IsOk()) << PrintJaxpr(*f);
    HostArray x = testing_random::RandomInts(f->jaxpr.in_avals()[0], rng);
    HostArray y = testing_random::RandomInts(f->jaxpr.out_avals()[0], rng);
    absl::StatusOr<std::vector<HostArray>> fx = EvalJaxprOnDevices(*f, {x}, *client);
    absl::StatusOr<std::vector<HostArray>> ty = EvalJaxprOnDevices(*t, {y}, *client);
    ASSERT_THAT(fx, IsOk()) << PrintJaxpr(*f);
    ASSERT_THAT(ty, IsOk()) << PrintJaxpr(*t);
    EXPECT_EQ(testing_random::Dot((*ty)[0], x), testing_random::Dot(y, (*fx)[0]))
        << "trial " << trial << "\n"
        << PrintJaxpr(*f) << "\n"
        << PrintJaxpr(*t);
    absl::StatusOr<std::vector<HostArray>> host = EvalJaxpr(*f, {x});
    ASSERT_THAT(host, IsOk());
    EXPECT_EQ(*host, *fx) << PrintJaxpr(*f);
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace axe::ir

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
