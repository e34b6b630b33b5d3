#include "axe/runtime/collectives.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/element_type.h"
#include "axe/relayout/element_value.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sharding/test_util.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::runtime {

using relayout::ElementBytes;
using relayout::RoundToBF16Bits;
using relayout::RoundToF16Bits;

namespace collectives_test {
namespace {

using ::axe::sharding::Mesh;
using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::axe::testing_support::TestSeed;
using ::testing::HasSubstr;

using Bytes = std::vector<uint8_t>;

// ---- The host reference: written from the definitions, element by element. ----

// The members of `device`'s group in member order, and its index.
std::pair<std::vector<int64_t>, int64_t> RefGroup(const Mesh& mesh,
                                                  const std::vector<std::string>& axes,
                                                  int64_t device) {
  std::vector<int64_t> mine = *mesh.CoordinateOf(device);
  std::vector<size_t> chosen;
  for (const std::string& a : axes) chosen.push_back(*mesh.AxisIndex(a));
  int64_t size = 1;
  for (size_t j : chosen) size *= mesh.axes()[j].size;
  std::vector<int64_t> members(static_cast<size_t>(size));
  int64_t my_index = 0;
  for (int64_t other = 0; other < mesh.num_devices(); ++other) {
    std::vector<int64_t> c = *mesh.CoordinateOf(other);
    bool same_group = true;
    for (size_t j = 0; j < mesh.rank(); ++j) {
      bool in_axes = std::find(chosen.begin(), chosen.end(), j) != chosen.end();
      if (!in_axes && c[j] != mine[j]) same_group = false;
    }
    if (!same_group) continue;
    int64_t index = 0;
    for (size_t j : chosen) index = index * mesh.axes()[j].size + c[j];
    members[static_cast<size_t>(index)] = other;
    if (other == device) my_index = index;
  }
  return {members, my_index};
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
void StoreTo(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

template <typename T>
void RefIntFold(ReduceOp op, const std::vector<const uint8_t*>& in, uint8_t* out) {
  T acc = Load<T>(in[0]);
  for (size_t k = 1; k < in.size(); ++k) {
    T v = Load<T>(in[k]);
    if (op == ReduceOp::kSum) {
      using U = std::make_unsigned_t<T>;
      acc = static_cast<T>(static_cast<U>(static_cast<U>(acc) + static_cast<U>(v)));
    } else {
      acc = op == ReduceOp::kMax ? (v > acc ? v : acc) : (v < acc ? v : acc);
    }
  }
  StoreTo(out, acc);
}

template <typename A, typename Decode>
A RefFloatFold(ReduceOp op, const std::vector<const uint8_t*>& in, Decode decode) {
  A acc = decode(in[0]);
  for (size_t k = 1; k < in.size(); ++k) {
    A v = decode(in[k]);
    if (op == ReduceOp::kSum) {
      acc = acc + v;
    } else if (op == ReduceOp::kMax) {
      acc = acc >= v ? acc : v;
    } else {
      acc = acc <= v ? acc : v;
    }
  }
  return acc;
}

// One output element of a reduction (the test's inputs hold no NaN).
void RefReduce(DType t, ReduceOp op, const std::vector<const uint8_t*>& in, uint8_t* out) {
  switch (t) {
    case DType::kPred: {
      bool r = op == ReduceOp::kMin;
      for (const uint8_t* p : in) r = op == ReduceOp::kMin ? (r && *p) : (r || *p);
      *out = r;
      return;
    }
    case DType::kS8: return RefIntFold<int8_t>(op, in, out);
    case DType::kS16: return RefIntFold<int16_t>(op, in, out);
    case DType::kS32: return RefIntFold<int32_t>(op, in, out);
    case DType::kS64: return RefIntFold<int64_t>(op, in, out);
    case DType::kU8: return RefIntFold<uint8_t>(op, in, out);
    case DType::kU16: return RefIntFold<uint16_t>(op, in, out);
    case DType::kU32: return RefIntFold<uint32_t>(op, in, out);
    case DType::kU64: return RefIntFold<uint64_t>(op, in, out);
    case DType::kF32:
      return StoreTo(out,
                     RefFloatFold<float>(op, in, [](const uint8_t* p) { return Load<float>(p); }));
    case DType::kF64:
      return StoreTo(
          out, RefFloatFold<double>(op, in, [](const uint8_t* p) { return Load<double>(p); }));
    case DType::kF16: {
      float r = RefFloatFold<float>(
          op, in, [](const uint8_t* p) { return static_cast<float>(Load<_Float16>(p)); });
      return StoreTo(out, static_cast<_Float16>(r));
    }
    case DType::kBF16: {
      float r = RefFloatFold<float>(op, in, [](const uint8_t* p) {
        uint32_t bits = static_cast<uint32_t>(Load<uint16_t>(p)) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
      });
      return StoreTo(out, RoundToBF16Bits(r));
    }
    default: FAIL() << "no reference for " << XlaName(t);
  }
}

// Random values of `t` with no NaN: floats are small multiples of 1/8.
Bytes RandomValues(std::mt19937_64& rng, DType t, int64_t n) {
  const int eb = *ElementBytes(t);
  Bytes out(static_cast<size_t>(n * eb));
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* p = out.data() + i * eb;
    const double v = static_cast<double>(static_cast<int64_t>(rng() % 401) - 200) / 8;
    switch (t) {
      case DType::kPred: *p = rng() % 2; break;
      case DType::kF16: StoreTo(p, RoundToF16Bits(v)); break;
      case DType::kBF16: StoreTo(p, RoundToBF16Bits(v)); break;
      case DType::kF32: StoreTo(p, static_cast<float>(v)); break;
      case DType::kF64: StoreTo(p, v); break;
      default:
        for (int b = 0; b < eb; ++b) p[b] = static_cast<uint8_t>(rng());
    }
  }
  return out;
}

int64_t Prod(const std::vector<int64_t>& s) {
  int64_t p = 1;
  for (int64_t d : s) p *= d;
  return p;
}

std::vector<int64_t> Unflatten(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  return idx;
}
int64_t Flatten(const std::vector<int64_t>& shape, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (size_t i = 0; i < shape.size(); ++i) f = f * shape[i] + idx[i];
  return f;
}

struct Case {
  Mesh mesh;
  std::vector<std::string> axes;
  int64_t group_size = 1;
  DType type = DType::kF32;
  int eb = 4;
  std::vector<int64_t> shape;
  std::vector<Bytes> inputs;  // per device
};

// ---- The randomized comparison. ----

class CollectivesRandomTest : public ::testing::Test {
 protected:
  void SetUp() override { client_ = *Client::InProcess(8); }

  Case RandomCase(std::mt19937_64& rng, bool reducible) {
    const DType reducible_types[] = {
        DType::kPred, DType::kS8,  DType::kS16, DType::kS32,  DType::kS64, DType::kU8, DType::kU16,
        DType::kU32,  DType::kU64, DType::kF16, DType::kBF16, DType::kF32, DType::kF64};
    const DType moved_types[] = {DType::kU8,  DType::kF8E4M3FN, DType::kBF16,
                                 DType::kF32, DType::kC64,      DType::kC128};
    Case c;
    auto parts = sharding::test_util::RandomMesh(rng, 2);
    c.mesh = sharding::test_util::MakeMesh(parts.axes, parts.devices);
    std::vector<std::string> names;
    for (const auto& a : parts.axes) names.push_back(a.name);
    std::shuffle(names.begin(), names.end(), rng);
    names.resize(rng() % (names.size() + 1));
    c.axes = names;
    for (const std::string& a : c.axes) c.group_size *= c.mesh.axes()[*c.mesh.AxisIndex(a)].size;
    c.type = reducible ? reducible_types[rng() % 13] : moved_types[rng() % 6];
    c.eb = *ElementBytes(c.type);
    const size_t rank = 1 + rng() % 3;
    for (size_t i = 0; i < rank; ++i) c.shape.push_back(1 + static_cast<int64_t>(rng() % 3));
    return c;
  }

  void FillInputs(std::mt19937_64& rng, Case& c) {
    c.inputs.clear();
    for (int d = 0; d < client_->num_devices(); ++d) {
      c.inputs.push_back(RandomValues(rng, c.type, Prod(c.shape)));
    }
  }

  DeviceValues Values(const Case& c) {
    return *DeviceValues::FromHost(*client_, c.shape, c.type, c.inputs);
  }

  std::unique_ptr<Client> client_;
};

TEST_F(CollectivesRandomTest, AllReduceAndReduceScatterMatchTheReference) {
  std::mt19937_64 rng(TestSeed(7001));
  for (int iter = 0; iter < 150; ++iter) {
    Case c = RandomCase(rng, true);
    const auto op = static_cast<ReduceOp>(rng() % 3);
    const int64_t dim = static_cast<int64_t>(rng() % c.shape.size());
    const bool tiled = rng() % 2;
    c.shape[static_cast<size_t>(dim)] =
        tiled ? c.group_size * (1 + static_cast<int64_t>(rng() % 2)) : c.group_size;
    FillInputs(rng, c);
    SCOPED_TRACE(testing::Message()
                 << c.mesh << " axes " << c.axes.size() << " " << XlaName(c.type) << " "
                 << ReduceOpName(op) << " dim " << dim << (tiled ? " tiled" : ""));
    DeviceValues x = Values(c);
    DeviceValues sum = *AllReduce(c.mesh, c.axes, op, x);
    DeviceValues scattered = *ReduceScatter(c.mesh, c.axes, op, x, dim, tiled);
    const int64_t n = Prod(c.shape);
    const int64_t piece = c.shape[static_cast<size_t>(dim)] / c.group_size;
    for (int64_t d = 0; d < c.mesh.num_devices(); ++d) {
      auto [members, g] = RefGroup(c.mesh, c.axes, d);
      Bytes want(static_cast<size_t>(n * c.eb));
      for (int64_t i = 0; i < n; ++i) {
        std::vector<const uint8_t*> in;
        for (int64_t m : members) in.push_back(c.inputs[static_cast<size_t>(m)].data() + i * c.eb);
        RefReduce(c.type, op, in, want.data() + i * c.eb);
      }
      ASSERT_EQ(*sum.ToHost(static_cast<int>(d)), want) << "all-reduce, device " << d;
      // Member g keeps piece g along dim of the reduction.
      Bytes kept;
      for (int64_t i = 0; i < n; ++i) {
        int64_t k = Unflatten(c.shape, i)[static_cast<size_t>(dim)];
        if (k / piece != g) continue;
        kept.insert(kept.end(), want.begin() + i * c.eb, want.begin() + (i + 1) * c.eb);
      }
      ASSERT_EQ(*scattered.ToHost(static_cast<int>(d)), kept) << "reduce-scatter, device " << d;
    }
  }
}

TEST_F(CollectivesRandomTest, AllGatherMatchesTheReference) {
  std::mt19937_64 rng(TestSeed(7002));
  for (int iter = 0; iter < 150; ++iter) {
    Case c = RandomCase(rng, rng() % 2);
    FillInputs(rng, c);
    const bool tiled = rng() % 2;
    const auto rank = static_cast<int64_t>(c.shape.size());
    const int64_t dim =
        static_cast<int64_t>(rng() % static_cast<uint64_t>(tiled ? rank : rank + 1));
    SCOPED_TRACE(testing::Message()
                 << c.mesh << " " << XlaName(c.type) << " dim " << dim << (tiled ? " tiled" : ""));
    DeviceValues out = *AllGather(c.mesh, c.axes, Values(c), dim, tiled);
    std::vector<int64_t> out_shape = c.shape;
    if (tiled) {
      out_shape[static_cast<size_t>(dim)] *= c.group_size;
    } else {
      out_shape.insert(out_shape.begin() + dim, c.group_size);
    }
    ASSERT_EQ(out.shape(), out_shape);
    for (int64_t d = 0; d < c.mesh.num_devices(); ++d) {
      auto [members, g] = RefGroup(c.mesh, c.axes, d);
      Bytes want;
      for (int64_t i = 0; i < Prod(out_shape); ++i) {
        std::vector<int64_t> o = Unflatten(out_shape, i);
        int64_t member;
        std::vector<int64_t> src = o;
        if (tiled) {
          member = o[static_cast<size_t>(dim)] / c.shape[static_cast<size_t>(dim)];
          src[static_cast<size_t>(dim)] %= c.shape[static_cast<size_t>(dim)];
        } else {
          member = o[static_cast<size_t>(dim)];
          src.erase(src.begin() + dim);
        }
        const Bytes& in = c.inputs[static_cast<size_t>(members[static_cast<size_t>(member)])];
        int64_t f = Flatten(c.shape, src);
        want.insert(want.end(), in.begin() + f * c.eb, in.begin() + (f + 1) * c.eb);
      }
      ASSERT_EQ(*out.ToHost(static_cast<int>(d)), want) << "device " << d;
    }
  }
}

TEST_F(CollectivesRandomTest, AllToAllMatchesTheReference) {
  std::mt19937_64 rng(TestSeed(7003));
  for (int iter = 0; iter < 150; ++iter) {
    Case c = RandomCase(rng, rng() % 2);
    const bool tiled = rng() % 2;
    const auto rank = static_cast<int64_t>(c.shape.size());
    const int64_t split = static_cast<int64_t>(rng() % static_cast<uint64_t>(rank));
    const int64_t concat = static_cast<int64_t>(rng() % static_cast<uint64_t>(rank));
    c.shape[static_cast<size_t>(split)] =
        tiled ? c.group_size * (1 + static_cast<int64_t>(rng() % 2)) : c.group_size;
    FillInputs(rng, c);
    SCOPED_TRACE(testing::Message() << c.mesh << " " << XlaName(c.type) << " split " << split
                                    << " concat " << concat << (tiled ? " tiled" : ""));
    DeviceValues out = *AllToAll(c.mesh, c.axes, Values(c), split, concat, tiled);
    for (int64_t d = 0; d < c.mesh.num_devices(); ++d) {
      auto [members, g] = RefGroup(c.mesh, c.axes, d);
      // The chunks member j sends to member g, concatenated (or stacked) in member order.
      const int64_t chunk = c.shape[static_cast<size_t>(split)] / c.group_size;
      std::vector<int64_t> chunk_shape = c.shape;
      chunk_shape[static_cast<size_t>(split)] = chunk;
      std::vector<int64_t> out_shape = chunk_shape;
      if (tiled) {
        out_shape[static_cast<size_t>(concat)] *= c.group_size;
      } else {
        out_shape.erase(out_shape.begin() + split);
        out_shape.insert(out_shape.begin() + concat, c.group_size);
      }
      ASSERT_EQ(out.shape(), out_shape);
      Bytes want;
      for (int64_t i = 0; i < Prod(out_shape); ++i) {
        std::vector<int64_t> o = Unflatten(out_shape, i);
        int64_t member;
        std::vector<int64_t> in_chunk;  // index into the chunk (chunk_shape)
        if (tiled) {
          const int64_t per = chunk_shape[static_cast<size_t>(concat)];
          member = o[static_cast<size_t>(concat)] / per;
          in_chunk = o;
          in_chunk[static_cast<size_t>(concat)] %= per;
        } else {
          member = o[static_cast<size_t>(concat)];
          in_chunk = o;
          in_chunk.erase(in_chunk.begin() + concat);
          in_chunk.insert(in_chunk.begin() + split, 0);
        }
        std::vector<int64_t> src = in_chunk;
        src[static_cast<size_t>(split)] += g * chunk;
        const Bytes& in = c.inputs[static_cast<size_t>(members[static_cast<size_t>(member)])];
        int64_t f = Flatten(c.shape, src);
        want.insert(want.end(), in.begin() + f * c.eb, in.begin() + (f + 1) * c.eb);
      }
      ASSERT_EQ(*out.ToHost(static_cast<int>(d)), want) << "device " << d;
    }
  }
}

TEST_F(CollectivesRandomTest, PermuteAndAxisIndexMatchTheReference) {
  std::mt19937_64 rng(TestSeed(7004));
  for (int iter = 0; iter < 100; ++iter) {
    Case c = RandomCase(rng, rng() % 2);
    FillInputs(rng, c);
    // A random partial permutation of the group's indices.
    std::vector<int64_t> dsts(static_cast<size_t>(c.group_size));
    for (int64_t i = 0; i < c.group_size; ++i) dsts[static_cast<size_t>(i)] = i;
    std::shuffle(dsts.begin(), dsts.end(), rng);
    std::vector<std::pair<int64_t, int64_t>> perm;
    for (int64_t i = 0; i < c.group_size; ++i) {
      if (rng() % 3) perm.push_back({i, dsts[static_cast<size_t>(i)]});
    }
    DeviceValues out = *CollectivePermute(c.mesh, c.axes, Values(c), perm);
    DeviceValues index = *AxisIndex(*client_, c.mesh, c.axes);
    for (int64_t d = 0; d < c.mesh.num_devices(); ++d) {
      auto [members, g] = RefGroup(c.mesh, c.axes, d);
      Bytes want(c.inputs[0].size(), 0);
      for (const auto& [src, dst] : perm) {
        if (dst == g) want = c.inputs[static_cast<size_t>(members[static_cast<size_t>(src)])];
      }
      ASSERT_EQ(*out.ToHost(static_cast<int>(d)), want) << "device " << d;
      Bytes idx = *index.ToHost(static_cast<int>(d));
      ASSERT_EQ(Load<int32_t>(idx.data()), g) << "device " << d;
    }
  }
}

// ---- Fixed cases and errors. ----

TEST(CollectivesTest, AxisIndexOfNC1) {
  // [NC-1]: mesh (4,) axis x: axis_index('x') on devices 0..3 is 0, 1, 2, 3.
  std::unique_ptr<Client> client = *Client::InProcess(4);
  Mesh mesh = *Mesh::Parse("x=4");
  DeviceValues idx = *AxisIndex(*client, mesh, {"x"});
  for (int d = 0; d < 4; ++d) EXPECT_EQ(Load<int32_t>(idx.ToHost(d)->data()), d);
  // A shuffled device order: the index follows the mesh position.
  Mesh shuffled = *Mesh::Parse("x=4,devices=[3,1,0,2]");
  idx = *AxisIndex(*client, shuffled, {"x"});
  EXPECT_EQ(Load<int32_t>(idx.ToHost(3)->data()), 0);
  EXPECT_EQ(Load<int32_t>(idx.ToHost(2)->data()), 3);
}

TEST(CollectivesTest, MaxPropagatesNaNAndBF16SumRoundsOnce) {
  std::unique_ptr<Client> client = *Client::InProcess(2);
  Mesh mesh = *Mesh::Parse("x=2");
  const float nan = std::nanf("");
  Bytes a(4), b(4);
  StoreTo(a.data(), 1.0f);
  StoreTo(b.data(), nan);
  DeviceValues x = *DeviceValues::FromHost(*client, {1}, DType::kF32, {a, b});
  EXPECT_TRUE(
      std::isnan(Load<float>(AllReduce(mesh, {"x"}, ReduceOp::kMax, x)->ToHost(0)->data())));
  // 256 + 1 in bf16 arithmetic would round at each step; accumulated in f32 it is 257,
  // rounded once to bf16: 256 (ties to even).
  Bytes c(2), e(2);
  StoreTo(c.data(), RoundToBF16Bits(256));
  StoreTo(e.data(), RoundToBF16Bits(1));
  DeviceValues y = *DeviceValues::FromHost(*client, {1}, DType::kBF16, {c, e});
  EXPECT_EQ(Load<uint16_t>(AllReduce(mesh, {"x"}, ReduceOp::kSum, y)->ToHost(1)->data()),
            RoundToBF16Bits(256));
}

// The raw exchanges on the threads backend: each device, on its own worker, moves its own
// bytes with the other members of its group (here the groups of 'y' on a 2x2 mesh: devices
// {0, 1} and {2, 3}), a hundred rounds in a row.
TEST(CollectivesTest, RawExchangesOnThreadsMoveEachDevicesOwnBytes) {
  std::unique_ptr<Client> client = *Client::InProcess(4);
  Mesh mesh = *Mesh::Parse("x=2,y=2");
  const std::vector<std::string> axes = {"y"};
  const std::vector<int64_t> swap = {1, 0};
  std::vector<std::vector<int32_t>> gathered(4), permuted(4), exchanged(4);
  ASSERT_THAT(client->RunOnDevices([&](int device) -> absl::Status {
    for (int round = 0; round < 100; ++round) {
      const std::vector<int32_t> mine = {100 * device + 2 * round, 100 * device + 2 * round + 1};
      std::vector<int32_t> all(4), from(2), blocks(2);
      AXE_RETURN_IF_ERROR(AllGatherBytes(*client, mesh, axes, device, mine.data(), 8, all.data()));
      AXE_RETURN_IF_ERROR(
          PermuteBytes(*client, mesh, axes, device, mine.data(), 8, swap, from.data()));
      AXE_RETURN_IF_ERROR(
          AllToAllBytes(*client, mesh, axes, device, mine.data(), 4, blocks.data()));
      if (round == 99) {
        gathered[static_cast<size_t>(device)] = all;
        permuted[static_cast<size_t>(device)] = from;
        exchanged[static_cast<size_t>(device)] = blocks;
      }
    }
    return absl::OkStatus();
  }),
              IsOk());
  EXPECT_THAT(gathered[0], ::testing::ElementsAre(198, 199, 298, 299));
  EXPECT_THAT(gathered[3], ::testing::ElementsAre(398, 399, 498, 499));
  EXPECT_THAT(permuted[0], ::testing::ElementsAre(298, 299));
  EXPECT_THAT(permuted[2], ::testing::ElementsAre(498, 499));
  EXPECT_THAT(exchanged[0], ::testing::ElementsAre(198, 298));
  EXPECT_THAT(exchanged[1], ::testing::ElementsAre(199, 299));
  EXPECT_THAT(exchanged[3], ::testing::ElementsAre(399, 499));
  // A device outside the mesh, or of the other process kind, is refused by the front door.
  std::vector<int32_t> buffer(4);
  EXPECT_THAT(
      AllGatherBytes(*client, *Mesh::Parse("x=2"), {"x"}, 3, buffer.data(), 4, buffer.data()),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("all_gather: device 3 is not a device of the mesh")));
}

TEST(CollectivesTest, Errors) {
  std::unique_ptr<Client> client = *Client::InProcess(4);
  Mesh mesh = *Mesh::Parse("x=2,y=2");
  std::vector<Bytes> in(4, Bytes(6 * 4, 0));
  DeviceValues x = *DeviceValues::FromHost(*client, {2, 3}, DType::kF32, in);
  EXPECT_THAT(AllReduce(mesh, {"z"}, ReduceOp::kSum, x).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unbound axis name: z. The mesh has the axes ('x', 'y')")));
  EXPECT_THAT(AllReduce(mesh, {"x", "x"}, ReduceOp::kSum, x).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'x' twice")));
  EXPECT_THAT(ReduceScatter(mesh, {"x"}, ReduceOp::kSum, x, 1, false).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("reduce_scatter operand scatter dimension size 3 must match "
                                 "shard count 2")));
  EXPECT_THAT(ReduceScatter(mesh, {"x"}, ReduceOp::kSum, x, 1, true).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("size 3 must be divisible by shard_count 2")));
  EXPECT_THAT(AllToAll(mesh, {"y"}, x, 1, 0, false).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("x.shape[split_axis], but they are 2 and 3 respectively.")));
  EXPECT_THAT(AllToAll(mesh, {"y"}, x, 1, 0, true).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("The size of all_to_all split_axis (3) has to be divisible by "
                                 "the size of the named axis y (2)")));
  EXPECT_THAT(AllGather(mesh, {"x"}, x, 2, true).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("all_gather: axis 2 is out of bounds")));
  const std::vector<std::pair<int64_t, int64_t>> twice = {{0, 1}, {0, 0}};
  EXPECT_THAT(CollectivePermute(mesh, {"x"}, x, twice).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ppermute sources and destinations must be unique, got "
                                 "((0, 1), (0, 0)).")));
  const std::vector<std::pair<int64_t, int64_t>> outside = {{0, 2}};
  EXPECT_THAT(CollectivePermute(mesh, {"x"}, x, outside).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("group of size 2")));
  DeviceValues c = *DeviceValues::Allocate(*client, {2}, DType::kC64);
  EXPECT_THAT(AllReduce(mesh, {"x"}, ReduceOp::kMax, c).status(),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("max reduction of c64")));
  DeviceValues f8 = *DeviceValues::Allocate(*client, {2}, DType::kF8E5M2);
  EXPECT_THAT(AllReduce(mesh, {"x"}, ReduceOp::kSum, f8).status(),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("f8e5m2 is not supported")));
  EXPECT_THAT(AllReduce(*Mesh::Parse("x=8"), {"x"}, ReduceOp::kSum, x).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has 8 devices but the client has 4")));
  EXPECT_THAT(DeviceValues::FromHost(*client, {2, 3}, DType::kF32, {Bytes(24)}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("values for 1 devices")));
}

// The checks both backends run before any data moves: the result shapes and JAX's texts.
TEST(CollectivesTest, SharedShapeAndPairChecks) {
  EXPECT_THAT(*AllGatherShape({2, 3}, 1, true, 4), ::testing::ElementsAre(2, 12));
  EXPECT_THAT(*AllGatherShape({2, 3}, 2, false, 4), ::testing::ElementsAre(2, 3, 4));
  EXPECT_THAT(AllGatherShape({2, 3}, 3, false, 4).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("all_gather: axis 3 is out of bounds for a value of rank 3")));
  EXPECT_THAT(*ReduceScatterShape({8, 3}, 0, true, 4), ::testing::ElementsAre(2, 3));
  EXPECT_THAT(*ReduceScatterShape({4, 3}, 0, false, 4), ::testing::ElementsAre(3));
  EXPECT_THAT(ReduceScatterShape({6, 3}, 0, true, 4).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tiled reduce_scatter operand scatter dimension size 6 must be "
                                 "divisible by shard_count 4")));
  EXPECT_THAT(ReduceScatterShape({6, 3}, 0, false, 4).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("reduce_scatter operand scatter dimension size 6 must match "
                                 "shard count 4")));
  EXPECT_THAT(ReduceScatterShape({6, 3}, -1, false, 4).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("psum_scatter: scatter_dimension -1 is out of bounds for a "
                                 "value of rank 2")));
  const std::vector<std::pair<int64_t, int64_t>> ring = {{0, 1}, {1, 2}, {2, 0}};
  EXPECT_THAT(*PermuteSources(ring, 4), ::testing::ElementsAre(2, 0, 1, -1));
  const std::vector<std::pair<int64_t, int64_t>> same_dst = {{0, 1}, {2, 1}};
  EXPECT_THAT(PermuteSources(same_dst, 4).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ppermute sources and destinations must be unique, got "
                                 "((0, 1), (2, 1)).")));
  const std::vector<std::pair<int64_t, int64_t>> one = {{0, 4}};
  EXPECT_THAT(PermuteSources(one, 4).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ppermute pair (0, 4) is outside the group of size 4")));
}

}  // namespace
}  // namespace collectives_test
}  // namespace axe::runtime
