// The law, on the devices: for hundreds of seeded random linear programs with
// collectives inside shard_map, the transpose t = LinearTranspose(f) satisfies
// <t(y), x> == <y, f(x)>, evaluated with EvalJaxprOnDevices (real runtime collectives).
// Inputs are small integers, so every value stays an exact f32 and the two sides agree
// exactly. The check_vma = False program's naive transpose (defensive psums and divisions)
// satisfies the law too; the transposed programs type-check.
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "axe/base/status_macros.h"
#include "axe/ir/builder.h"
#include "axe/ir/check.h"
#include "axe/ir/drop_vma.h"
#include "axe/ir/eval.h"
#include "axe/ir/eval_devices.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "axe/ir/shard_map.h"
#include "axe/ir/transpose.h"
#include "axe/runtime/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/random_linear_program.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::ir {
namespace transpose_law_test {
namespace {

using ::axe::testing_support::IsOk;
using testing_random::Dot;
using testing_random::MeshInfo;
using testing_random::RandomInts;
using testing_random::RandomProgram;

// <t(y), x> and <y, f(x)> on the devices of `client`.
void ExpectLaw(const ClosedJaxpr& f, const ClosedJaxpr& t, runtime::Client& client,
               std::mt19937_64& rng, const std::string& what, int& nonzero) {
  HostArray x = RandomInts(f.jaxpr.in_avals()[0], rng);
  HostArray y = RandomInts(f.jaxpr.out_avals()[0], rng);
  absl::StatusOr<std::vector<HostArray>> fx = EvalJaxprOnDevices(f, {x}, client);
  absl::StatusOr<std::vector<HostArray>> ty = EvalJaxprOnDevices(t, {y}, client);
  ASSERT_THAT(fx, IsOk()) << what;
  ASSERT_THAT(ty, IsOk()) << what;
  ASSERT_EQ((*ty)[0].values.size(), x.values.size()) << what;
  EXPECT_EQ(Dot((*ty)[0], x), Dot(y, (*fx)[0])) << what;
  if (Dot(y, (*fx)[0]) != 0) ++nonzero;
  absl::StatusOr<std::vector<HostArray>> host = EvalJaxpr(f, {x});
  ASSERT_THAT(host, IsOk()) << what;
  EXPECT_EQ(*host, *fx) << what;  // the simulated mesh agrees with the devices
}

// The collectives the generator uses; each must show up in the random programs.
constexpr const char* kCollectives[] = {
    "psum_invariant", "pvary",    "all_gather", "all_gather_invariant",
    "reduce_scatter", "ppermute", "all_to_all"};

TEST(TransposeLawTest, RandomLinearShardMapProgramsOnDevices) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(20261124));
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(8);
  std::vector<MeshInfo> meshes = {
      {*sharding::Mesh::Create({{"x", 2}, {"y", 2}}), {{"x"}, {"y"}, {"x", "y"}}},
      {*sharding::Mesh::Create({{"x", 2}, {"y", 4}}), {{"x"}, {"y"}, {"x", "y"}}},
      {*sharding::Mesh::Create({{"x", 4}}), {{"x"}}},
  };
  std::map<std::string, int> programs_with;  // primitive -> programs that use it
  int nonzero = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const MeshInfo& m = meshes[static_cast<size_t>(trial) % meshes.size()];
    absl::StatusOr<ClosedJaxpr> f = RandomProgram(rng, m);
    ASSERT_THAT(f, IsOk()) << "trial " << trial;
    std::string what = "trial " + std::to_string(trial) + "\n" + PrintJaxpr(*f);
    for (const char* name : kCollectives) {
      if (what.find(std::string(" ") + name + "[") != std::string::npos) ++programs_with[name];
    }
    absl::StatusOr<ClosedJaxpr> t = LinearTranspose(*f, {true});
    ASSERT_THAT(t, IsOk()) << what;
    EXPECT_THAT(CheckJaxpr(*t), IsOk()) << what << "\n" << PrintJaxpr(*t);
    ExpectLaw(*f, *t, *client, rng, what + "\n" + PrintJaxpr(*t), nonzero);
    absl::StatusOr<ClosedJaxpr> unchecked = DropVarianceTyping(*f);
    ASSERT_THAT(unchecked, IsOk()) << what;
    absl::StatusOr<ClosedJaxpr> naive = LinearTranspose(*unchecked, {true});
    ASSERT_THAT(naive, IsOk()) << what;
    ExpectLaw(*unchecked, *naive, *client, rng, what + "\nnaive:\n" + PrintJaxpr(*naive), nonzero);
    if (HasFailure()) break;
  }
  for (const char* name : kCollectives) EXPECT_GT(programs_with[name], 10) << name;
  EXPECT_GT(nonzero, 500);  // of 600 checks: the two sides are rarely a trivial 0 == 0
}

}  // namespace
}  // namespace transpose_law_test
}  // namespace axe::ir
