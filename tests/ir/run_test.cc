// shard_map programs run on a runtime client's devices (EvalJaxprOnDevices): equal to the
// host's simulated mesh (EvalJaxpr) on the JAX-printed programs, and, on 4 and 8 devices,
// equal to the same computation written without shard_map.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "axe/ir/ad.h"
#include "axe/ir/eval.h"
#include "axe/ir/eval_devices.h"
#include "axe/ir/parser.h"
#include "axe/runtime/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "support/testdata.h"

namespace axe::ir {
namespace run_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

// Arguments of the jaxpr's input types filled with seeded values (integers in [-8, 8]).
std::vector<HostArray> RandomArgs(const ClosedJaxpr& j, std::mt19937_64& rng) {
  std::vector<HostArray> args;
  for (const ShapedArray& a : j.jaxpr.in_avals()) {
    HostArray h{a.WithVma({}), std::vector<double>(static_cast<size_t>(*a.NumElements()))};
    for (double& v : h.values) v = static_cast<double>(static_cast<int64_t>(rng() % 17) - 8);
    args.push_back(std::move(h));
  }
  return args;
}

std::unique_ptr<runtime::Client> Devices(int n) { return *runtime::Client::InProcess(n); }

TEST(RunTest, DevicesEqualTheHostOnJaxPrograms) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(1204));
  std::unique_ptr<runtime::Client> client = Devices(4);
  for (const char* name : {"shmap_psum", "shmap_nocheck", "shmap_2d", "shmap_all_gather",
                           "shmap_identity_pvary", "shmap_collectives"}) {
    absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(testing_support::ReadJaxProgram(name));
    ASSERT_THAT(j, IsOk()) << name;
    std::vector<HostArray> args = RandomArgs(*j, rng);
    absl::StatusOr<std::vector<HostArray>> host = EvalJaxpr(*j, args);
    absl::StatusOr<std::vector<HostArray>> devices = EvalJaxprOnDevices(*j, args, *client);
    ASSERT_THAT(host, IsOk()) << name;
    ASSERT_THAT(devices, IsOk()) << name;
    EXPECT_EQ(*host, *devices) << name;
  }
}

// Evaluates `sharded` on the devices and `plain` on the host, on the same arguments.
void ExpectSame(const std::string& sharded, const std::string& plain, int n, std::mt19937_64& rng) {
  absl::StatusOr<ClosedJaxpr> s = ParseJaxpr(sharded);
  absl::StatusOr<ClosedJaxpr> p = ParseJaxpr(plain);
  ASSERT_THAT(s, IsOk()) << sharded;
  ASSERT_THAT(p, IsOk()) << plain;
  std::vector<HostArray> args = RandomArgs(*s, rng);
  std::unique_ptr<runtime::Client> client = Devices(n);
  absl::StatusOr<std::vector<HostArray>> got = EvalJaxprOnDevices(*s, args, *client);
  absl::StatusOr<std::vector<HostArray>> want = EvalJaxpr(*p, args);
  ASSERT_THAT(got, IsOk()) << sharded;
  ASSERT_THAT(want, IsOk()) << plain;
  ASSERT_EQ(got->size(), want->size());
  for (size_t i = 0; i < got->size(); ++i) {
    EXPECT_EQ((*got)[i].aval.ShortString(), (*want)[i].aval.ShortString()) << sharded;
    EXPECT_EQ((*got)[i].values, (*want)[i].values) << sharded;
  }
}

// Substitutes N (devices), B (block = 16 / N) in a program text.
std::string With(const std::string& text, int n) {
  return absl::StrReplaceAll(text, {{"$N", std::to_string(n)}, {"$B", std::to_string(16 / n)}});
}

class RunOnMeshTest : public ::testing::TestWithParam<int> {};

TEST_P(RunOnMeshTest, SumOfSquaresIsPsum) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(1205));
  int n = GetParam();
  ExpectSame(With("{ lambda ; a:f32[16]. let b:f32[$B] = shard_map[check_vma=True "
                  "in_specs=(P('x',),) jaxpr={ lambda ; c:f32[$B]{V:x}. let "
                  "d:f32[$B]{V:x} = mul c c; e:f32[$B] = psum_invariant[axes=('x',)] d in (e,) } "
                  "mesh=Mesh('x': $N, axis_types=(Auto,)) out_specs=(P(),)] a in (b,) }",
                  n),
             With("{ lambda ; a:f32[16]. let b:f32[$N,$B] = reshape[dimensions=None "
                  "new_sizes=($N, $B) sharding=None] a; c:f32[$N,$B] = mul b b; "
                  "d:f32[$B] = reduce_sum[axes=(0,) out_sharding=None] c in (d,) }",
                  n),
             n, rng);
}

TEST_P(RunOnMeshTest, AllGatherInvariantIsTheInput) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(1206));
  int n = GetParam();
  ExpectSame(With("{ lambda ; a:f32[16]. let b:f32[16] = shard_map[check_vma=True "
                  "in_specs=(P('x',),) jaxpr={ lambda ; c:f32[$B]{V:x}. let "
                  "d:f32[16] = all_gather_invariant[all_gather_dimension=0 axis_name=('x',) "
                  "axis_size=$N tiled=True] c in (d,) } "
                  "mesh=Mesh('x': $N, axis_types=(Auto,)) out_specs=(P(),)] a in (b,) }",
                  n),
             "{ lambda ; a:f32[16]. let b:f32[16] = neg a; c:f32[16] = neg b in (c,) }", n, rng);
}

TEST_P(RunOnMeshTest, PpermuteShiftIsARoll) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(1207));
  int n = GetParam();
  std::string perm;
  for (int i = 0; i < n; ++i)
    perm += "(" + std::to_string(i) + ", " + std::to_string((i + 1) % n) + "), ";
  ExpectSame(With("{ lambda ; a:f32[16]. let b:f32[16] = shard_map[check_vma=True "
                  "in_specs=(P('x',),) jaxpr={ lambda ; c:f32[$B]{V:x}. let "
                  "d:f32[$B]{V:x} = ppermute[axis_name=('x',) perm=(" +
                      perm +
                      ")] c in (d,) } "
                      "mesh=Mesh('x': $N, axis_types=(Auto,)) out_specs=(P('x',),)] a in (b,) }",
                  n),
             With("{ lambda ; a:f32[16]. let b:f32[$B] = slice[limit_indices=(16,) "
                  "start_indices=(" +
                      std::to_string(16 - 16 / n) +
                      ",) strides=None] a; "
                      "c:f32[" +
                      std::to_string(16 - 16 / n) + "] = slice[limit_indices=(" +
                      std::to_string(16 - 16 / n) +
                      ",) start_indices=(0,) strides=None] a; "
                      "d:f32[16] = concatenate[dimension=0] b c in (d,) }",
                  n),
             n, rng);
}

// A data-parallel layer on a 2-D mesh: rows of x split over both axes, w replicated; the
// summed loss over the batch equals the unsharded one.
TEST_P(RunOnMeshTest, DataParallelMatmulLoss) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(1208));
  int n = GetParam();
  int y = n / 2;
  std::string rows = std::to_string(16 / n);
  std::string sharded =
      "{ lambda ; a:f32[16,3] w:f32[3,2]. let b:f32[] = shard_map[check_vma=True "
      "in_specs=(P(('x', 'y'),), P()) jaxpr={ lambda ; c:f32[" +
      rows +
      ",3]{V:(x,y)} v:f32[3,2]. let "
      "u:f32[3,2]{V:(x,y)} = pvary[axes=('x', 'y')] v; "
      "d:f32[" +
      rows +
      ",2]{V:(x,y)} = dot_general[dimension_numbers=(([1], [0]), ([], [])) "
      "precision=None preferred_element_type=float32] c u; "
      "e:f32[" +
      rows +
      ",2]{V:(x,y)} = mul d d; "
      "f:f32[]{V:(x,y)} = reduce_sum[axes=(0, 1) out_sharding=None] e; "
      "g:f32[] = psum_invariant[axes=('x', 'y')] f in (g,) } "
      "mesh=Mesh('x': 2, 'y': " +
      std::to_string(y) +
      ", axis_types=(Auto, Auto)) "
      "out_specs=(P(),)] a w in (b,) }";
  std::string plain =
      "{ lambda ; a:f32[16,3] w:f32[3,2]. let d:f32[16,2] = dot_general["
      "dimension_numbers=(([1], [0]), ([], [])) precision=None preferred_element_type=float32] "
      "a w; e:f32[16,2] = mul d d; "
      "f:f32[" +
      std::to_string(n) + "," + rows + ",2] = reshape[dimensions=None new_sizes=(" +
      std::to_string(n) + ", " + rows +
      ", 2) sharding=None] e; "
      "g:f32[" +
      std::to_string(n) +
      "] = reduce_sum[axes=(1, 2) out_sharding=None] f; "
      "h:f32[] = reduce_sum[axes=(0,) out_sharding=None] g in (h,) }";
  ExpectSame(sharded, plain, n, rng);
}

INSTANTIATE_TEST_SUITE_P(Devices, RunOnMeshTest, ::testing::Values(4, 8));

// The data-parallel loss of docs/ir.md and its gradient, run on 4 devices: the batch split
// over x, w replicated; grad_w = 2 x^T (x w), exact on small integers.
TEST(RunTest, DataParallelLossGradientOnFourDevices) {
  absl::StatusOr<ClosedJaxpr> loss = ParseJaxpr(
      "{ lambda ; a:f32[16,3] w:f32[3,2]. let b:f32[] = shard_map[check_vma=True "
      "in_specs=(P('x',), P()) jaxpr={ lambda ; c:f32[4,3]{V:x} v:f32[3,2]. let "
      "u:f32[3,2]{V:x} = pvary[axes=('x',)] v; "
      "d:f32[4,2]{V:x} = dot_general[dimension_numbers=(([1], [0]), ([], [])) precision=None "
      "preferred_element_type=float32] c u; e:f32[4,2]{V:x} = mul d d; "
      "f:f32[]{V:x} = reduce_sum[axes=(0, 1) out_sharding=None] e; "
      "g:f32[] = psum_invariant[axes=('x',)] f in (g,) } "
      "mesh=Mesh('x': 4, axis_types=(Auto,)) out_specs=(P(),)] a w in (b,) }");
  ASSERT_THAT(loss, IsOk());
  absl::StatusOr<ClosedJaxpr> grad = Grad(*loss, {1});
  ASSERT_THAT(grad, IsOk());
  std::mt19937_64 rng(::axe::testing_support::TestSeed(1211));
  std::vector<HostArray> args = RandomArgs(*loss, rng);
  std::unique_ptr<runtime::Client> client = Devices(4);
  absl::StatusOr<std::vector<HostArray>> g = EvalJaxprOnDevices(*grad, args, *client);
  ASSERT_THAT(g, IsOk());
  ASSERT_EQ(g->size(), 1u);
  const std::vector<double>& x = args[0].values;
  const std::vector<double>& w = args[1].values;
  std::vector<double> want(6, 0.0);
  for (int n = 0; n < 16; ++n) {
    for (int j = 0; j < 2; ++j) {
      double xw = 0;
      for (int k = 0; k < 3; ++k) xw += x[n * 3 + k] * w[k * 2 + j];
      for (int k = 0; k < 3; ++k) want[k * 2 + j] += 2 * x[n * 3 + k] * xw;
    }
  }
  EXPECT_EQ((*g)[0].aval.ShortString(), "f32[3,2]");
  EXPECT_EQ((*g)[0].values, want);
  absl::StatusOr<std::vector<HostArray>> host = EvalJaxpr(*grad, args);
  ASSERT_THAT(host, IsOk());
  EXPECT_EQ(*host, *g);
}

TEST(RunTest, MeshLargerThanTheClientIsAnError) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(testing_support::ReadJaxProgram("shmap_psum"));
  ASSERT_THAT(j, IsOk());
  std::unique_ptr<runtime::Client> client = Devices(2);
  HostArray x{ShapedArray({8}, DType::kF32), std::vector<double>(8, 1.0)};
  EXPECT_THAT(EvalJaxprOnDevices(*j, {x}, *client),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has 4 devices but the client has 2")));
}

}  // namespace
}  // namespace run_test
}  // namespace axe::ir
