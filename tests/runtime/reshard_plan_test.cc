#include "axe/runtime/reshard_plan.h"

#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sharding/test_util.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::runtime {

using relayout::BoxElements;
using relayout::IndexBox;
using relayout::Intersect;
using relayout::Subtract;

namespace reshard_plan_test {
namespace {

using ::axe::sharding::DeviceShard;
using ::axe::sharding::NamedSharding;
using ::axe::sharding::test_util::Named;
using ::axe::testing_support::StatusIs;
using ::axe::testing_support::TestSeed;
using ::testing::HasSubstr;

TEST(IndexBoxTest, IntersectAndSubtract) {
  IndexBox a{{0, 4}, {0, 8}}, b{{2, 8}, {4, 6}};
  EXPECT_EQ(Intersect(a, b), (IndexBox{{2, 4}, {4, 6}}));
  EXPECT_EQ(Intersect(a, IndexBox{{4, 8}, {0, 8}}), std::nullopt);
  std::vector<IndexBox> rest = Subtract(a, b);
  int64_t n = 0;
  for (const IndexBox& r : rest) n += *BoxElements(r);
  EXPECT_EQ(n, 32 - 4);
  EXPECT_EQ(rest.size(), 3u);  // rows 0-2; then rows 2-4 left and right of columns 4-6
  EXPECT_EQ(Subtract(a, a).size(), 0u);
  EXPECT_EQ(BoxToString(a), "[[0, 4], [0, 8]]");
  EXPECT_EQ(BoxElements(IndexBox{{0, int64_t{1} << 62}, {0, 8}}), std::nullopt);
}

TEST(ReshardPlanTest, RowsToColumnsWorkedExample) {
  // Mesh x=2,y=2; (8, 8) f32 from P('x') (rows, replicated over y) to P(None, 'y')
  // (columns, replicated over x): each device keeps a 4x4 quarter and lacks another one.
  ReshardPlan p =
      *PlanReshard({8, 8}, 4, Named("x=2,y=2", "P('x')"), Named("x=2,y=2", "P(None, 'y')"));
  EXPECT_EQ(p.v_min_elements, 64);
  EXPECT_EQ(p.v_min_bytes, 256);
  EXPECT_EQ(p.local_bytes, 256);
  ASSERT_EQ(p.messages.size(), 4u);
  // Device 0 lacks rows 4-8 of columns 0-4, held by devices 2 and 3.
  EXPECT_EQ(p.messages[0].dst_device, 0);
  EXPECT_EQ(p.messages[0].box, (IndexBox{{4, 8}, {0, 4}}));
  EXPECT_THAT(p.messages[0].src_device, ::testing::AnyOf(2, 3));
  // Balanced: every device sends exactly one 64-byte message.
  EXPECT_EQ(p.bytes_sent, (std::vector<int64_t>{64, 64, 64, 64}));
  EXPECT_EQ(p.bytes_received, (std::vector<int64_t>{64, 64, 64, 64}));
  std::string text = p.ToString();
  EXPECT_THAT(text, HasSubstr("V_min 256 bytes (64 elements) in 4 messages"));
  EXPECT_THAT(text, HasSubstr("device 0: sends 64 B, receives 64 B, keeps 64 B"));
  EXPECT_THAT(text, HasSubstr("message 2 -> 0: [[4, 8], [0, 4]] 64 B"));
}

TEST(ReshardPlanTest, ReplicatedToShardedMovesNothing) {
  ReshardPlan p = *PlanReshard({8, 8}, 2, Named("x=4", "P()"), Named("x=4", "P('x')"));
  EXPECT_EQ(p.v_min_bytes, 0);
  EXPECT_TRUE(p.messages.empty());
  EXPECT_EQ(p.local_copies.size(), 4u);
  EXPECT_EQ(p.local_bytes, 128);
}

TEST(ReshardPlanTest, ReplicatedSendersAreBalanced) {
  // Every device of x=2,y=4 (source P('x'), replicated 4 times) needs... the target P() is
  // the whole array everywhere: each device lacks the other half, held by 4 devices.
  ReshardPlan p = *PlanReshard({8, 16}, 4, Named("x=2,y=4", "P('x')"), Named("x=2,y=4", "P()"));
  EXPECT_EQ(p.v_min_bytes, 8 * 256);
  EXPECT_EQ(p.max_bytes_sent(), 256);  // 8 messages of 256 bytes over 8 senders
  // A device absent from the source map receives everything it needs.
  ReshardPlan q = *PlanReshard({8, 16}, 4, Named("x=2", "P('x')"), Named("x=4", "P(None, 'x')"));
  EXPECT_EQ(q.bytes_received[3], 8 * 4 * 4);
  EXPECT_EQ(q.bytes_kept[3], 0);
}

TEST(ReshardPlanTest, Errors) {
  EXPECT_THAT(PlanReshard({7, 8}, 4, Named("x=2", "P('x')"), Named("x=2", "P()")).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("One of the source values was given the sharding of")));
  EXPECT_THAT(PlanReshard({8, 6}, 4, Named("x=2", "P('x')"), Named("x=4", "P(None, 'x')")).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("its dimension 1 should be divisible by 4")));
  std::vector<DeviceShard> half = {{0, {{0, 4}}, 0}};
  std::vector<DeviceShard> whole = {{0, {{0, 8}}, 0}};
  EXPECT_THAT(PlanReshard({8}, 4, half, whole).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the source boxes hold 4 of the 8 elements")));
  std::vector<DeviceShard> overlap = {{0, {{0, 6}}, 0}, {1, {{2, 8}}, 1}};
  EXPECT_THAT(PlanReshard({8}, 4, overlap, whole).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("overlap")));
  std::vector<DeviceShard> twice = {{0, {{0, 8}}, 0}, {0, {{0, 8}}, 0}};
  EXPECT_THAT(PlanReshard({8}, 4, whole, twice).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("lists device 0 twice")));
  std::vector<DeviceShard> outside = {{0, {{0, 9}}, 0}};
  EXPECT_THAT(PlanReshard({8}, 4, whole, outside).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("device 0's box [[0, 9]] leaves the array in dimension 0")));
  EXPECT_THAT(PlanReshard({8}, 0, whole, whole).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("element size 0")));
}

// V_min and the messages against a count element by element: every element a device
// lacks is received exactly once, from a device that holds it, and nothing else is sent.
TEST(ReshardPlanTest, RandomPlansAreExactlyMinimal) {
  std::mt19937_64 rng(TestSeed(4242));
  for (int iter = 0; iter < 300; ++iter) {
    auto a = sharding::test_util::RandomMesh(rng, 3);
    auto b = rng() % 2 ? a : sharding::test_util::RandomMesh(rng, 3);
    sharding::Mesh ma = sharding::test_util::MakeMesh(a.axes, a.devices);
    sharding::Mesh mb = sharding::test_util::MakeMesh(b.axes, b.devices);
    const size_t rank = 1 + rng() % 2;
    NamedSharding from = sharding::test_util::MakeNamed(
        ma, sharding::test_util::Spec(sharding::test_util::RandomSpecEntries(rng, a.axes, rank)));
    NamedSharding to = sharding::test_util::MakeNamed(
        mb, sharding::test_util::Spec(sharding::test_util::RandomSpecEntries(rng, b.axes, rank)));
    std::vector<int64_t> shape;
    for (size_t i = 0; i < rank; ++i) {
      shape.push_back(std::lcm(from.DimPieces(i), to.DimPieces(i)) *
                      static_cast<int64_t>(1 + rng() % 2));
    }
    SCOPED_TRACE(from.ToString() + " -> " + to.ToString());
    ReshardPlan p = *PlanReshard(shape, 1, from, to);
    std::vector<DeviceShard> src = *sharding::DevicesIndicesMap(from, shape);
    std::vector<DeviceShard> dst = *sharding::DevicesIndicesMap(to, shape);
    auto holds = [](const std::vector<DeviceShard>& map, int64_t device,
                    const std::vector<int64_t>& idx) {
      for (const DeviceShard& s : map) {
        if (s.device != device) continue;
        for (size_t i = 0; i < idx.size(); ++i) {
          if (idx[i] < s.index[i].begin || idx[i] >= s.index[i].end) return false;
        }
        return true;
      }
      return false;
    };
    int64_t lacking = 0;
    int64_t total = 1;
    for (int64_t d : shape) total *= d;
    for (const DeviceShard& t : dst) {
      for (int64_t flat = 0; flat < total; ++flat) {
        std::vector<int64_t> idx(rank);
        for (size_t i = rank, f = static_cast<size_t>(flat); i-- > 0;) {
          idx[i] = static_cast<int64_t>(f % static_cast<size_t>(shape[i]));
          f /= static_cast<size_t>(shape[i]);
        }
        if (!holds(dst, t.device, idx)) continue;
        const bool lacks = !holds(src, t.device, idx);
        lacking += lacks;
        int received = 0;
        for (const ReshardMessage& m : p.messages) {
          if (m.dst_device != t.device) continue;
          bool in = true;
          for (size_t i = 0; i < rank; ++i) {
            in = in && idx[i] >= m.box[i].begin && idx[i] < m.box[i].end;
          }
          if (!in) continue;
          ++received;
          EXPECT_TRUE(holds(src, m.src_device, idx)) << "sender " << m.src_device;
        }
        ASSERT_EQ(received, lacks ? 1 : 0) << "device " << t.device << " element " << flat;
      }
    }
    EXPECT_EQ(p.v_min_elements, lacking);
    EXPECT_EQ(p.v_min_bytes, lacking);
  }
}

}  // namespace
}  // namespace reshard_plan_test
}  // namespace axe::runtime
