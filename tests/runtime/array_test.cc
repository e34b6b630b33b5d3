#include "axe/runtime/array.h"

#include <cstdint>
#include <cstring>
#include <memory>
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

using relayout::BufferLayout;
using relayout::ElementBytes;

namespace array_test {
namespace {

using ::axe::sharding::NamedSharding;
using ::axe::sharding::test_util::Named;
using ::axe::sharding::test_util::XlaLayout;
using ::axe::testing_support::StatusIs;
using ::axe::testing_support::TestSeed;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::vector<uint8_t> Iota32(int64_t n) {
  std::vector<uint8_t> out(static_cast<size_t>(n) * 4);
  for (int64_t i = 0; i < n; ++i) {
    auto v = static_cast<uint32_t>(i);
    std::memcpy(out.data() + i * 4, &v, 4);
  }
  return out;
}

uint32_t At32(const std::vector<uint8_t>& bytes, int64_t i) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + i * 4, 4);
  return v;
}

TEST(ArrayTest, DevicePutScattersEveryShardAndToHostGathers) {
  std::unique_ptr<Client> client = *Client::InProcess(4);
  std::vector<uint8_t> host = Iota32(64);
  sharding::Format format = test_util::FormatOf(Named("x=2,y=2", "P('x')"));
  absl::StatusOr<Array> a = Array::DevicePut(*client, host, {8, 8}, DType::kF32, format);
  ASSERT_OK(a.status());
  EXPECT_TRUE(a->committed());
  EXPECT_EQ(a->storage().shape, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(a->shard_bytes(), 128);
  // Devices 0 and 1 hold rows 0-3, devices 2 and 3 rows 4-7 (replicated over y).
  for (int d = 0; d < 4; ++d) {
    std::vector<uint8_t> shard = *a->ShardToHost(d);
    EXPECT_EQ(At32(shard, 0), d < 2 ? 0u : 32u) << "device " << d;
    EXPECT_EQ(client->device(d).bytes_in_use(), 128);
  }
  EXPECT_EQ(*a->ToHost(), host);
}

TEST(ArrayTest, ColumnMajorAndTiledShards) {
  std::unique_ptr<Client> client = *Client::InProcess(2);
  std::vector<uint8_t> host = Iota32(6 * 10);
  sharding::Format format = test_util::FormatOf(Named("x=2", "P(None, 'x')"), XlaLayout("{0,1}"));
  Array a = *Array::DevicePut(*client, host, {6, 10}, DType::kS32, format);
  // Shard 1 holds columns 5-9 stored column-major: its second element is (1, 5) = 15.
  EXPECT_EQ(At32(std::vector<uint8_t>(a.shard_buffer(1)->data(), a.shard_buffer(1)->data() + 8), 1),
            15u);
  EXPECT_EQ(*a.ToHost(), host);
  // (6, 5) shards in 4x2 tiles pad to (8, 6).
  Array t = *a.Relayout(*sharding::LocalLayout::FromXla(XlaLayout("{1,0:T(4,2)}")));
  EXPECT_EQ(t.storage().layout.domain, (std::vector<int64_t>{8, 6}));
  // The buffer ends after the last element of the shard: (5, 4) is in tile (1, 2), the 6th
  // tile of 8 elements, at (1, 0) of it: offset 5 * 8 + 2 = 42.
  EXPECT_EQ(t.shard_bytes(), 43 * 4);
  EXPECT_EQ(*t.ToHost(), host);
  EXPECT_EQ(*t.ShardToHost(0), *a.ShardToHost(0));
}

TEST(ArrayTest, HostLayoutIsHonoured) {
  std::unique_ptr<Client> client = *Client::InProcess(2);
  // The host holds a 4x6 tensor column-major.
  std::vector<uint8_t> col = Iota32(24);
  BufferLayout host_layout(*Layout::Parse("S[(4,6):(1,4)]"));
  Array a = *Array::DevicePut(*client, col, host_layout, {4, 6}, DType::kU32,
                              test_util::FormatOf(Named("x=2", "P('x')")));
  std::vector<uint8_t> row = *a.ToHost();
  EXPECT_EQ(At32(row, 1), 4u);  // (0, 1) is element 4 of the column-major data
  std::vector<uint8_t> back(col.size());
  ASSERT_OK(a.ToHost(absl::MakeSpan(back), host_layout));
  EXPECT_EQ(back, col);
}

TEST(ArrayTest, Errors) {
  std::unique_ptr<Client> client = *Client::InProcess(2);
  std::vector<uint8_t> host = Iota32(64);
  EXPECT_THAT(Array::DevicePut(*client, host, {8, 8}, DType::kF32,
                               test_util::FormatOf(Named("x=4", "P('x')")))
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has 4 devices but the client has 2")));
  EXPECT_THAT(Array::DevicePut(*client, host, {7, 8}, DType::kF32,
                               test_util::FormatOf(Named("x=2", "P('x')")))
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("its dimension 0 should be divisible by 2")));
  EXPECT_THAT(Array::DevicePut(*client, absl::MakeSpan(host).subspan(0, 100), {8, 8}, DType::kF32,
                               test_util::FormatOf(Named("x=2", "P('x')")))
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the host buffer has 100 bytes but its layout addresses 256")));
  EXPECT_THAT(Array::DevicePut(*client, host, {8, 8}, DType::kS4,
                               test_util::FormatOf(Named("x=2", "P('x')")))
                  .status(),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("s4")));
  EXPECT_THAT(Array::DevicePut(*client, host, {8, 8}, DType::kF32,
                               test_util::FormatOf(Named("x=2", "P('x')"), XlaLayout("{0,1,2}")))
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("local layout Layout(major_to_minor=(2, 1, 0), "),
                             HasSubstr("Length of major_to_minor and the rank of the value "
                                       "should match. Got major_to_minor=(2, 1, 0) and "
                                       "shape=(8, 8)"))));
  Array a = *Array::DevicePut(*client, host, {8, 8}, DType::kF32,
                              test_util::FormatOf(Named("x=2", "P('x')")));
  EXPECT_THAT(a.ShardToHost(5).status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("device 5 holds no shard")));
  std::vector<uint8_t> small(10);
  EXPECT_THAT(a.ToHost(absl::MakeSpan(small), *Layout::Parse("S[(8,8):(8,1)]")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has 10 bytes")));
}

// An array's format is JAX's Format: it prints as JAX prints one, and a
// SingleDeviceSharding puts the whole array on its device, whichever it is.
TEST(ArrayTest, SingleDeviceShardingOnAnyDevice) {
  std::unique_ptr<Client> client = *Client::InProcess(4);
  std::vector<uint8_t> host = Iota32(4 * 6);
  const sharding::Format format =
      *sharding::Format::Parse("Format(Layout((1, 0)), SingleDeviceSharding(device=3))");
  absl::StatusOr<Array> a = Array::DevicePut(*client, host, {4, 6}, DType::kU32, format);
  ASSERT_OK(a.status());
  EXPECT_EQ(a->format(), format);
  EXPECT_EQ(a->format().ToString(),
            "Format(layout=Layout(major_to_minor=(1, 0), tiling=None, "
            "sub_byte_element_size_in_bits=0), sharding=SingleDeviceSharding(device=3))");
  EXPECT_EQ(a->sharding().mesh().device_array(), (std::vector<int64_t>{3}));
  EXPECT_EQ(a->local_layout(), XlaLayout("{0,1}"));
  EXPECT_EQ(*a->ShardToHost(3), host);
  EXPECT_EQ(*a->ToHost(), host);
  for (int d = 0; d < 3; ++d) {
    EXPECT_THAT(a->ShardToHost(d).status(),
                StatusIs(absl::StatusCode::kNotFound, HasSubstr("holds no shard")));
    EXPECT_EQ(client->device(d).bytes_in_use(), 0) << "device " << d;
  }
  // Relayout keeps the sharding as given.
  absl::StatusOr<Array> rows = a->Relayout(std::nullopt);
  ASSERT_OK(rows.status());
  EXPECT_EQ(rows->format().ToString(),
            "Format(layout=None, sharding=SingleDeviceSharding(device=3))");
  EXPECT_EQ(*rows->ToHost(), host);
}

// A Format no array can be stored in: no sharding, or a layout chosen at compile time.
TEST(ArrayTest, FormatsWithoutConcreteShardingOrLayoutAreRefused) {
  std::unique_ptr<Client> client = *Client::InProcess(2);
  std::vector<uint8_t> host = Iota32(8);
  EXPECT_THAT(Array::DevicePut(*client, host, {8}, DType::kF32, sharding::Format()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a runtime array needs a concrete sharding (NamedSharding or "
                                 "SingleDeviceSharding) and a concrete layout or None; got "
                                 "Format(layout=None, sharding=None)")));
  const sharding::Format automatic =
      *sharding::Format::Parse("Format(Layout.AUTO, SingleDeviceSharding(device=0))");
  EXPECT_THAT(
      Array::DevicePut(*client, host, {8}, DType::kF32, automatic).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("got Format(layout=AUTO, sharding=SingleDeviceSharding(device=0))")));
  EXPECT_THAT(MakeShardStorage({8}, DType::kF32, automatic).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a concrete layout or None")));
  // A tile with a combined dimension is XLA's, not a JAX Layout's.
  EXPECT_THAT(MakeArrayFormat(Named("x=2", "P()"),
                              xla::Layout({1, 0}, {xla::Tile({2, xla::Tile::kCombineDimension})}))
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("combined (*) dimension")));
}

// Regression: a scalar's row-major layout used to fail ("a layout needs at least one shard
// iter"); zero-size arrays hold nothing but are valid.
TEST(ArrayTest, ScalarsAndEmptyArrays) {
  std::unique_ptr<Client> client = *Client::InProcess(2);
  std::vector<uint8_t> one = Iota32(1);
  one[0] = 42;
  absl::StatusOr<Array> s =
      Array::DevicePut(*client, one, {}, DType::kS32, test_util::FormatOf(Named("x=2", "P()")));
  ASSERT_OK(s.status());
  EXPECT_EQ(*s->ToHost(), one);
  EXPECT_EQ(*s->ShardToHost(1), one);
  absl::StatusOr<Array> e = Array::DevicePut(*client, {}, {0, 8}, DType::kF32,
                                             test_util::FormatOf(Named("x=2", "P(None, 'x')")));
  ASSERT_OK(e.status());
  EXPECT_TRUE(e->ToHost()->empty());
  EXPECT_TRUE(e->ShardToHost(0)->empty());
}

// Random meshes, specs, local layouts and element sizes: every device's shard equals the
// box of the host data the sharding assigns it, and ToHost returns the host data.
TEST(ArrayTest, RandomRoundTrips) {
  std::mt19937_64 rng(TestSeed(1123));
  std::unique_ptr<Client> client = *Client::InProcess(8);
  const DType types[] = {DType::kU8, DType::kBF16, DType::kF32, DType::kF64, DType::kC128};
  for (int iter = 0; iter < 60; ++iter) {
    sharding::test_util::RandomMeshParts parts = sharding::test_util::RandomMesh(rng, 2);
    sharding::Mesh mesh = sharding::test_util::MakeMesh(parts.axes, parts.devices);
    const size_t rank = 1 + rng() % 3;
    NamedSharding named = sharding::test_util::MakeNamed(
        mesh,
        sharding::test_util::Spec(sharding::test_util::RandomSpecEntries(rng, parts.axes, rank)));
    std::vector<int64_t> shape;
    for (size_t i = 0; i < rank; ++i) {
      shape.push_back(named.DimPieces(i) * static_cast<int64_t>(1 + rng() % 5));
    }
    const DType type = types[rng() % 5];
    const int eb = static_cast<int>(*ElementBytes(type));
    std::vector<int64_t> shard_shape = *named.ShardShape(shape);
    sharding::Format format =
        test_util::FormatOf(named, test_util::RandomLocalLayout(rng, shard_shape));
    SCOPED_TRACE(format.ToString());
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<uint8_t> host = test_util::RandomBytes(rng, static_cast<size_t>(n * eb));
    absl::StatusOr<Array> a = Array::DevicePut(*client, host, shape, type, format);
    ASSERT_OK(a.status());
    for (const sharding::DeviceShard& s : a->device_map()) {
      EXPECT_EQ(*a->ShardToHost(static_cast<int>(s.device)),
                test_util::SliceRowMajor(host, shape, s.index, eb))
          << "device " << s.device;
    }
    EXPECT_EQ(*a->ToHost(), host);
  }
}

}  // namespace
}  // namespace array_test
}  // namespace axe::runtime
