#include "axe/runtime/reshard.h"

#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "axe/relayout/element_type.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/dist_test_util.h"
#include "sharding/test_util.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::runtime {

using relayout::ElementBytes;

namespace reshard_test {
namespace {

using ::axe::sharding::NamedSharding;
using ::axe::sharding::test_util::Named;
using ::axe::sharding::test_util::XlaLayout;
using ::axe::testing_support::StatusIs;
using ::axe::testing_support::TestSeed;
using ::testing::HasSubstr;

std::vector<uint8_t> Iota8(int64_t n) {
  std::vector<uint8_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = static_cast<uint8_t>(i * 7);
  return out;
}

// Every device's target shard equals the box of the host data the target sharding gives it.
void ExpectShardsMatchHost(const Array& b, const std::vector<uint8_t>& host) {
  for (const sharding::DeviceShard& s : b.device_map()) {
    ASSERT_EQ(*b.ShardToHost(static_cast<int>(s.device)),
              test_util::SliceRowMajor(host, b.shape(), s.index, b.element_bytes()))
        << "device " << s.device;
  }
}

TEST(ReshardTest, RowsToColumns) {
  std::unique_ptr<Client> client = *Client::InProcess(4);
  std::vector<uint8_t> host = Iota8(8 * 8 * 4);
  Array a = *Array::DevicePut(*client, host, {8, 8}, DType::kF32,
                              test_util::FormatOf(Named("x=2,y=2", "P('x')")));
  ReshardStats stats;
  Array b = *Reshard(a, test_util::FormatOf(Named("x=2,y=2", "P(None, 'y')"), XlaLayout("{0,1}")),
                     {}, &stats);
  ExpectShardsMatchHost(b, host);
  EXPECT_EQ(stats.bytes_moved, 256);
  EXPECT_EQ(stats.local_bytes, 256);
  EXPECT_EQ(stats.messages, 4);
  EXPECT_EQ(stats.bytes_received, (std::vector<int64_t>{64, 64, 64, 64}));
  // Each device holds its 128-byte source shard and its 128-byte target shard.
  EXPECT_EQ(stats.peak_bytes, (std::vector<int64_t>{256, 256, 256, 256}));
  EXPECT_TRUE(b.committed());
}

TEST(ReshardTest, StagedTransportChunksThroughABoundedBuffer) {
  std::unique_ptr<Client> client = *Client::InProcess(4);
  std::vector<uint8_t> host = Iota8(16 * 12 * 2);
  Array a = *Array::DevicePut(*client, host, {16, 12}, DType::kBF16,
                              test_util::FormatOf(Named("x=4", "P('x')"), XlaLayout("{0,1}")));
  ReshardStats stats;
  ReshardOptions options{ReshardTransport::kStaged, 10};  // 5 elements at a time
  Array b = *Reshard(a, test_util::FormatOf(Named("x=4", "P(None, 'x')")), options, &stats);
  ExpectShardsMatchHost(b, host);
  // Each device keeps a 4x3 block of its 16x3 columns and receives the other 36 elements.
  EXPECT_EQ(stats.bytes_moved, 4 * 36 * 2);
  for (int64_t peak : stats.peak_bytes) EXPECT_LE(peak, 96 + 96 + 10);
  EXPECT_THAT(
      Reshard(a, test_util::FormatOf(Named("x=4", "P()")), {ReshardTransport::kStaged, 1}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("a staging buffer of 1 bytes cannot hold one element of 2")));
}

TEST(ReshardTest, IncompatibleTargetsSayWhatDiffers) {
  std::unique_ptr<Client> client = *Client::InProcess(4);
  std::vector<uint8_t> host = Iota8(6 * 8 * 4);
  Array a = *Array::DevicePut(*client, host, {6, 8}, DType::kF32,
                              test_util::FormatOf(Named("x=2", "P('x')")));
  EXPECT_THAT(Reshard(a, test_util::FormatOf(Named("x=4", "P('x')"))).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("One of the resharded values was given the sharding of "
                                 "NamedSharding(mesh=Mesh('x': 4), spec=P('x',)), which implies "
                                 "that the global size of its dimension 0 should be divisible "
                                 "by 4")));
  EXPECT_THAT(Reshard(a, test_util::FormatOf(Named("x=8", "P()"))).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("target mesh Mesh('x': 8) has 8 devices but the client has 4")));
  EXPECT_THAT(Reshard(a, test_util::FormatOf(Named("x=2", "P()"), XlaLayout("{0}"))).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("local layout Layout(major_to_minor=(0,), tiling=(), "
                                 "sub_byte_element_size_in_bits=0): Length of major_to_minor "
                                 "and the rank of the value should match")));
  ReshardPlan other = *PlanReshard({6, 4}, 4, Named("x=2", "P('x')"), Named("x=2", "P()"));
  EXPECT_THAT(ExecuteReshard(a, test_util::FormatOf(Named("x=2", "P()")), other).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the plan is for shape (6, 4), the array has (6, 8)")));
  ReshardPlan wrong_to = *PlanReshard({6, 8}, 4, Named("x=2", "P('x')"), Named("x=2", "P()"));
  EXPECT_THAT(
      ExecuteReshard(a, test_util::FormatOf(Named("x=2", "P(None, 'x')")), wrong_to).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("the plan goes to NamedSharding(mesh=Mesh('x': 2), spec=P()), "
                         "the target is")));
}

TEST(ReshardTest, ReshardIntoReusesTheTarget) {
  std::unique_ptr<Client> client = *Client::InProcess(2);
  std::vector<uint8_t> host = Iota8(4 * 6 * 2);
  Array a = *Array::DevicePut(*client, host, {4, 6}, DType::kS16,
                              test_util::FormatOf(Named("x=2", "P('x')")));
  sharding::Format target = test_util::FormatOf(Named("x=2", "P(None, 'x')"));
  Array out = *Array::Allocate(*client, {4, 6}, DType::kS16, target);
  ReshardPlan plan = *PlanReshard({4, 6}, 2, a.sharding(), *target.sharding()->named());
  for (int run = 0; run < 2; ++run) {
    ReshardStats stats;
    ASSERT_OK(ReshardInto(a, out, plan, {}, &stats));
    EXPECT_EQ(stats.bytes_moved, plan.v_min_bytes);
    ExpectShardsMatchHost(out, host);
  }
  Array wrong = *Array::Allocate(*client, {4, 6}, DType::kU16, target);
  EXPECT_THAT(ReshardInto(a, wrong, plan),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("differs from the source in its client, shape or element type: "
                                 "(4, 6) u16 vs (4, 6) s16")));
}

TEST(ReshardTest, ScalarsAndEmptyArrays) {
  std::unique_ptr<Client> client = *Client::InProcess(2);
  std::vector<uint8_t> one = {7, 0, 0, 0};
  Array s =
      *Array::DevicePut(*client, one, {}, DType::kU32, test_util::FormatOf(Named("x=2", "P()")));
  ReshardStats stats;
  Array t = *Reshard(s, test_util::FormatOf(Named("x=2,y=1", "P()")),
                     {ReshardTransport::kStaged, 4}, &stats);
  EXPECT_EQ(*t.ShardToHost(1), one);
  EXPECT_EQ(stats.bytes_moved, 0);
  Array e = *Array::DevicePut(*client, {}, {0, 8}, DType::kF32,
                              test_util::FormatOf(Named("x=2", "P(None, 'x')")));
  Array f = *Reshard(e, test_util::FormatOf(Named("x=2", "P()")), {}, &stats);
  EXPECT_EQ(stats.bytes_moved, 0);
  EXPECT_TRUE(f.ToHost()->empty());
}

// The property: random meshes (the target's may differ from the source's), specs, local
// layouts, element sizes and transports; every target shard is bit-exact against slicing
// the host data, bytes_moved == V_min, and the peak per device stays within source shard +
// target shard + staging.
TEST(ReshardTest, RandomReshardsAreExactAndMoveVMin) {
  std::mt19937_64 rng(TestSeed(20261124));
  std::unique_ptr<Client> client = *Client::InProcess(8);
  const DType types[] = {DType::kU8, DType::kF16, DType::kF32, DType::kS64, DType::kC128};
  for (int iter = 0; iter < 300; ++iter) {
    auto a = sharding::test_util::RandomMesh(rng, 2);
    auto b = rng() % 2 ? a : sharding::test_util::RandomMesh(rng, 2);
    const size_t rank = 1 + rng() % 3;
    NamedSharding from = sharding::test_util::MakeNamed(
        sharding::test_util::MakeMesh(a.axes, a.devices),
        sharding::test_util::Spec(sharding::test_util::RandomSpecEntries(rng, a.axes, rank)));
    NamedSharding to = sharding::test_util::MakeNamed(
        sharding::test_util::MakeMesh(b.axes, b.devices),
        sharding::test_util::Spec(sharding::test_util::RandomSpecEntries(rng, b.axes, rank)));
    std::vector<int64_t> shape;
    for (size_t i = 0; i < rank; ++i) {
      shape.push_back(std::lcm(from.DimPieces(i), to.DimPieces(i)) *
                      static_cast<int64_t>(1 + rng() % 3));
    }
    const DType type = types[rng() % 5];
    const int eb = *ElementBytes(type);
    sharding::Format src =
        test_util::FormatOf(from, test_util::RandomLocalLayout(rng, *from.ShardShape(shape)));
    sharding::Format dst =
        test_util::FormatOf(to, test_util::RandomLocalLayout(rng, *to.ShardShape(shape)));
    ReshardOptions options;
    if (rng() % 2) options = {ReshardTransport::kStaged, eb * static_cast<int64_t>(1 + rng() % 7)};
    SCOPED_TRACE(src.ToString() + " -> " + dst.ToString() + " " + std::string(XlaName(type)) +
                 (options.transport == ReshardTransport::kStaged ? " staged" : " direct"));
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<uint8_t> host = test_util::RandomBytes(rng, static_cast<size_t>(n * eb));
    Array x = *Array::DevicePut(*client, host, shape, type, src);
    ReshardPlan plan = *PlanReshard(shape, eb, from, to);
    ReshardStats stats;
    absl::StatusOr<Array> y = ExecuteReshard(x, dst, plan, options, &stats);
    ASSERT_OK(y.status());
    ExpectShardsMatchHost(*y, host);
    ASSERT_EQ(stats.bytes_moved, plan.v_min_bytes);
    ASSERT_EQ(stats.local_bytes, plan.local_bytes);
    const int64_t staging =
        options.transport == ReshardTransport::kStaged ? options.staging_bytes : 0;
    for (size_t d = 0; d < stats.peak_bytes.size(); ++d) {
      const int64_t bound = (x.shard_buffer(static_cast<int>(d)) ? x.shard_bytes() : 0) +
                            (y->shard_buffer(static_cast<int>(d)) ? y->shard_bytes() : 0) + staging;
      ASSERT_LE(stats.peak_bytes[d], bound) << "device " << d;
    }
  }
}

}  // namespace
}  // namespace reshard_test
}  // namespace axe::runtime
