#include "axe/jit/jit.h"

#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "axe/ir/host_bytes.h"
#include "axe/ir/parser.h"
#include "axe/jit/notebook.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::jit {
namespace jit_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

LocalLayout L(std::vector<int64_t> major_to_minor) {
  return *LocalLayout::Create(std::move(major_to_minor), LocalLayout::Tiling{});
}

sharding::NamedSharding Device0() {
  return *sharding::NamedSharding::Create(sharding::Mesh(), sharding::PartitionSpec());
}

runtime::Array Iota(runtime::Client& client, std::vector<int64_t> shape, const LocalLayout& layout,
                    bool committed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> host(static_cast<size_t>(n));
  std::iota(host.begin(), host.end(), 0.0f);
  const auto* bytes = reinterpret_cast<const uint8_t*>(host.data());
  Format format = *Format::Create(layout, Device0());
  return *runtime::Array::DevicePut(client, {bytes, host.size() * 4}, shape, DType::kF32,
                                    std::move(format), committed);
}

std::vector<double> Values(const runtime::Array& a) {
  return ir::HostArrayFromBytes(ir::ShapedArray(a.shape(), a.dtype()), *a.ToHost())->values;
}

constexpr char kTranspose[] = R"({ lambda ; a:f32[16,128]. let
    b:f32[128,16] = transpose[permutation=(1, 0)] a
  in (b,) })";

Format Fmt(const LocalLayout& layout) {
  return *Format::Create(layout, sharding::Sharding(Device0()));
}

TEST(Jit, CachesOneExecutablePerResolvedFormats) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(1);
  Jit f = *Jit::Create(*ir::ParseJaxpr(kTranspose), {}, {});
  runtime::Array x = Iota(*client, {16, 128}, L({0, 1}), /*committed=*/false);
  const runtime::Array* args[] = {&x};
  ASSERT_OK(f.Call(*client, args).status());
  ASSERT_OK(f.Call(*client, args).status());
  EXPECT_EQ(f.cache_size(), 1u);
  EXPECT_EQ(f.cache_hits(), 1);
  // A committed argument with a non-default layout compiles a separate executable for its
  // own layout, and is not moved.
  runtime::Array col = Iota(*client, {16, 128}, L({1, 0}), /*committed=*/true);
  const runtime::Array* col_args[] = {&col};
  absl::StatusOr<CallResult> r = f.Call(*client, col_args);
  ASSERT_OK(r.status());
  EXPECT_EQ(f.cache_size(), 2u);
  EXPECT_TRUE(r->relayouts.empty());
  EXPECT_EQ(Values(r->outputs[0]), Values(*f.Call(*client, args)->outputs.begin()));
}

TEST(Jit, UncommittedArgumentsAreReLaidOutNeverIgnored) {
  // jax-ml/jax#23100: a concrete jit layout on an uncommitted argument is honoured.
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(1);
  Jit f = *Jit::Create(*ir::ParseJaxpr(kTranspose), {Fmt(L({1, 0}))}, {});
  runtime::Array x = Iota(*client, {16, 128}, L({0, 1}), /*committed=*/false);
  const runtime::Array* args[] = {&x};
  absl::StatusOr<CallResult> r = f.Call(*client, args, {"x"});
  ASSERT_OK(r.status());
  ASSERT_EQ(r->relayouts.size(), 1u);
  EXPECT_EQ(r->relayouts[0].to, L({1, 0}));
  // The values are the transpose whatever the layouts.
  std::vector<double> in = Values(x);
  std::vector<double> out = Values(r->outputs[0]);
  for (int64_t i = 0; i < 16; ++i) {
    for (int64_t j = 0; j < 128; ++j) EXPECT_EQ(out[j * 16 + i], in[i * 128 + j]);
  }
}

TEST(Jit, CommittedArgumentsThatDifferAreJaxsValueErrors) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(1);
  runtime::Array x = Iota(*client, {16, 128}, L({0, 1}), /*committed=*/true);
  const runtime::Array* args[] = {&x};
  // [LT-5] with in_shardings = Format(Layout((1, 0)), s) and a committed row-major argument.
  Jit concrete = *Jit::Create(*ir::ParseJaxpr(kTranspose), {Fmt(L({1, 0}))}, {});
  EXPECT_THAT(concrete.Call(*client, args),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Layout passed to jit does not match the layout on the "
                                 "respective arg. Got jit layout: Layout(major_to_minor=(1, 0)")));
  Jit automatic = *Jit::Create(*ir::ParseJaxpr(kTranspose), {*Format::Create(AutoLayout{})}, {});
  EXPECT_THAT(automatic.Call(*client, args),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("The layout given to `jax.jit` is `Layout.AUTO` but the "
                                 "corresponding argument passed is a `jax.Array` with a "
                                 "concrete layout.")));
}

TEST(Jit, AutoForUncommittedArgumentsIsTheCompilersChoice) {
  // [LN-1]: apply_fn's y is read by column, so AUTO lays it out (1, 0) and the call re-lays
  // the row-major uncommitted y out.
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(1);
  Format automatic = *Format::Create(AutoLayout{});
  Jit f = *Jit::Create(*ir::ParseJaxpr(kApplyFnJaxpr), {automatic, automatic}, {});
  runtime::Array x = Iota(*client, {512, 1024}, L({0, 1}), false);
  runtime::Array y = Iota(*client, {512, 1024}, L({0, 1}), false);
  const runtime::Array* args[] = {&x, &y};
  absl::StatusOr<CallResult> r = f.Call(*client, args, {"x", "y"});
  ASSERT_OK(r.status());
  ASSERT_EQ(r->relayouts.size(), 1u);
  EXPECT_EQ(r->relayouts[0].name, "y");
  EXPECT_EQ(r->relayouts[0].to, L({1, 0}));
  std::vector<double> column = Values(r->outputs[1]);
  for (int64_t i = 0; i < 512; ++i) EXPECT_EQ(column[i], i * 1024.0);
}

TEST(Jit, LowerThenCompileIsTheAotPath) {
  // [LT-5]: the AUTO output of a transpose becomes a relabel.
  Jit f =
      *Jit::Create(*ir::ParseJaxpr(kTranspose), {Fmt(L({0, 1}))}, {*Format::Create(AutoLayout{})});
  absl::StatusOr<Lowered> lowered = f.Lower();
  ASSERT_OK(lowered.status());
  EXPECT_EQ(lowered->as_text(), kTranspose);
  absl::StatusOr<Compiled> compiled = lowered->Compile();
  ASSERT_OK(compiled.status());
  EXPECT_EQ(*compiled->output_formats()[0].local_layout(), L({1, 0}));
  EXPECT_THAT(Jit::Create(*ir::ParseJaxpr(kTranspose), {Fmt(L({0, 1})), Fmt(L({0, 1}))}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "jit got 2 input formats for a program with 1 inputs"));
}

}  // namespace
}  // namespace jit_test
}  // namespace axe::jit
