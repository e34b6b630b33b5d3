#include "axe/jit/execute.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "axe/base/python_error.h"
#include "axe/ir/eval.h"
#include "axe/ir/host_bytes.h"
#include "axe/ir/parser.h"
#include "axe/jit/notebook.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::jit {
namespace execute_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::axe::testing_support::TestSeed;
using ::testing::AllOf;
using ::testing::HasSubstr;

// An untiled layout as arrays and executables report it (tiling=()).
LocalLayout L(std::vector<int64_t> major_to_minor) {
  return *LocalLayout::Create(std::move(major_to_minor), LocalLayout::Tiling{});
}

sharding::NamedSharding Named(const std::string& mesh, const std::string& spec) {
  return *sharding::NamedSharding::Create(*sharding::Mesh::Parse(mesh),
                                          *sharding::PartitionSpec::Parse(spec));
}

// An array of `shape` holding 0, 1, 2, ... (row-major), stored in `layout`.
runtime::Array Iota(runtime::Client& client, std::vector<int64_t> shape,
                    const sharding::NamedSharding& sharding, const LocalLayout& layout,
                    bool committed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> host(static_cast<size_t>(n));
  std::iota(host.begin(), host.end(), 0.0f);
  const auto* bytes = reinterpret_cast<const uint8_t*>(host.data());
  Format format = *Format::Create(layout, sharding);
  return *runtime::Array::DevicePut(client, {bytes, host.size() * 4}, shape, DType::kF32,
                                    std::move(format), committed);
}

std::vector<double> Values(const runtime::Array& a) {
  std::vector<uint8_t> bytes = *a.ToHost();
  return ir::HostArrayFromBytes(ir::ShapedArray(a.shape(), a.dtype()), bytes)->values;
}

TEST(Notebook, PrintsTheNotebooksFourCasesLineForLine) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(1);
  absl::StatusOr<Notebook> notebook = RunLayoutNotebook(*client);
  ASSERT_OK(notebook.status());
  EXPECT_EQ(FormatNotebook(*notebook),
            "-- uncommitted with mismatched layout:\n"
            "x major_to_minor = (0, 1)\n"
            "y major_to_minor = (0, 1)\n"
            "-> `apply` called successfully\n"
            "\n"
            "-- uncommitted with matching layout:\n"
            "x major_to_minor = (0, 1)\n"
            "y major_to_minor = (1, 0)\n"
            "-> `apply` called successfully\n"
            "\n"
            "-- committed with matching layout:\n"
            "x major_to_minor = (0, 1)\n"
            "y major_to_minor = (1, 0)\n"
            "-> `apply` called successfully\n"
            "\n"
            "-- committed with mismatched layout:\n"
            "x major_to_minor = (0, 1)\n"
            "y major_to_minor = (0, 1)\n"
            "-> error: mismatched input layouts\n");
  const std::vector<NotebookCall>& calls = notebook->calls;
  // The first call re-laid y out; the others moved nothing.
  ASSERT_EQ(calls[0].relayouts.size(), 1u);
  EXPECT_EQ(calls[0].relayouts[0].name, "y");
  EXPECT_EQ(calls[0].relayouts[0].from, L({0, 1}));
  EXPECT_EQ(calls[0].relayouts[0].to, L({1, 0}));
  EXPECT_TRUE(calls[1].relayouts.empty());
  EXPECT_TRUE(calls[2].relayouts.empty());
  EXPECT_THAT(calls[3].status,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Compiled object called with input layout(s) does not "
                                       "match the layout(s) the computation was compiled with. "
                                       "Computation was compiled for input layouts that "
                                       "disagree with the layouts of arguments passed to it. "
                                       "Here are the 1 mismatches:\n"),
                             HasSubstr("Argument y with shape f32[512,1024]:\n  Passed layout: "
                                       "Layout(major_to_minor=(0, 1), tiling=(), "
                                       "sub_byte_element_size_in_bits=0)\n  Required layout: "
                                       "Layout(major_to_minor=(1, 0),"))));
}

// Programs over f32[4,8] x f32[4,8] (the arguments' layouts vary; the values must not).
const char* const kPrograms[] = {
    R"({ lambda ; a:f32[4,8] b:f32[4,8]. let c:f32[4,8] = add a b in (c,) })",
    R"({ lambda ; a:f32[4,8] b:f32[4,8]. let
    c:f32[8,4] = transpose[permutation=(1, 0)] a
    d:f32[4,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] b c
  in (d, c) })",
    R"({ lambda ; a:f32[4,8] b:f32[4,8]. let
    c:f32[4] = reduce_sum[axes=(1,) out_sharding=None] a
    d:f32[4,8] = mul a b
  in (c, d) })",
};

TEST(Execute, UncommittedArgumentsOfRandomLayoutsGiveTheDefaultLayoutsValues) {
  std::mt19937_64 rng(TestSeed(2026));
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(4);
  const sharding::NamedSharding shardings[] = {Named("x=2,y=2", "P('x')"),
                                               Named("x=2,y=2", "P('x', 'y')"),
                                               Named("x=4", "P(None, 'x')"), Named("x=4", "P()")};
  const LocalLayout layouts[] = {L({0, 1}), L({1, 0})};
  for (int trial = 0; trial < 60; ++trial) {
    const char* text = kPrograms[rng() % std::size(kPrograms)];
    ir::ClosedJaxpr jaxpr = *ir::ParseJaxpr(text);
    std::vector<std::optional<Format>> in_formats;
    std::vector<runtime::Array> args;
    std::vector<bool> differs, layout_differs;
    for (int i = 0; i < 2; ++i) {
      const sharding::NamedSharding& want = shardings[rng() % 4];
      const LocalLayout& want_layout = layouts[rng() % 2];
      in_formats.push_back(*Format::Create(want_layout, want));
      const LocalLayout& has = layouts[rng() % 2];
      const sharding::NamedSharding& has_sharding = shardings[rng() % 4];
      args.push_back(Iota(*client, {4, 8}, has_sharding, has, /*committed=*/false));
      differs.push_back(has != want_layout || !(has_sharding == want));
      layout_differs.push_back(has != want_layout);
    }
    absl::StatusOr<Compiled> compiled = Compile(jaxpr, in_formats, {});
    ASSERT_OK(compiled.status()) << text;
    const runtime::Array* ptrs[] = {&args[0], &args[1]};
    absl::StatusOr<CallResult> result = Execute(*compiled, *client, ptrs, {"a", "b"});
    ASSERT_OK(result.status()) << text;
    // The reference: the program on the host values.
    std::vector<ir::HostArray> host;
    for (const runtime::Array& a : args) {
      host.push_back({ir::ShapedArray(a.shape(), a.dtype()), Values(a)});
    }
    std::vector<ir::HostArray> want = *ir::EvalJaxpr(jaxpr, host);
    ASSERT_EQ(result->outputs.size(), want.size());
    for (size_t o = 0; o < want.size(); ++o) {
      EXPECT_EQ(Values(result->outputs[o]), want[o].values) << text << " output " << o;
      EXPECT_TRUE(result->outputs[o].committed());
    }
    // Exactly the arguments in another format were moved, and reported.
    std::vector<bool> reported(2, false);
    for (const ArgumentRelayout& r : result->relayouts) reported[r.index] = true;
    for (int i = 0; i < 2; ++i) {
      // Another layout is always moved; the same format never is (a differing sharding with
      // an identical device map needs no move either).
      if (layout_differs[i]) {
        EXPECT_TRUE(reported[i]) << "trial " << trial << " arg " << i;
      }
      if (!differs[i]) {
        EXPECT_FALSE(reported[i]) << "trial " << trial << " arg " << i;
      }
    }
    for (const ArgumentRelayout& r : result->relayouts) {
      EXPECT_EQ(r.to, *in_formats[r.index]->local_layout());
      EXPECT_EQ(r.from, LayoutOfArray(args[r.index]));
      if (!r.resharded) {
        EXPECT_NE(r.from, r.to);
      }
    }
  }
}

// Committed arguments in their compiled layouts (dense, tiled) and outputs in chosen
// layouts: the executor runs in those layouts and each result is stored in its output's.
TEST(Execute, ArgumentsAndResultsInTheirCompiledLayoutsGiveTheRowMajorValues) {
  std::mt19937_64 rng(TestSeed(2027));
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(2);
  const sharding::NamedSharding shardings[] = {Named("x=2", "P()"), Named("x=2", "P('x')")};
  const LocalLayout layouts[] = {L({0, 1}), L({1, 0}),
                                 *LocalLayout::Create({0, 1}, LocalLayout::Tiling{{2, 2}})};
  for (int trial = 0; trial < 40; ++trial) {
    const char* text = kPrograms[rng() % std::size(kPrograms)];
    ir::ClosedJaxpr jaxpr = *ir::ParseJaxpr(text);
    std::vector<std::optional<Format>> in_formats, out_formats;
    std::vector<runtime::Array> args;
    for (int i = 0; i < 2; ++i) {
      const sharding::NamedSharding& sharding = shardings[rng() % 2];
      const LocalLayout& layout = layouts[rng() % 3];
      in_formats.push_back(*Format::Create(layout, sharding));
      args.push_back(Iota(*client, {4, 8}, sharding, layout, /*committed=*/true));
    }
    for (const ir::ShapedArray& aval : jaxpr.jaxpr.out_avals()) {
      out_formats.push_back(aval.rank() == 2 ? *Format::Create(layouts[rng() % 2], shardings[0])
                                             : std::optional<Format>());
    }
    absl::StatusOr<Compiled> compiled = Compile(jaxpr, in_formats, out_formats);
    ASSERT_OK(compiled.status()) << text;
    const runtime::Array* ptrs[] = {&args[0], &args[1]};
    absl::StatusOr<CallResult> result = Execute(*compiled, *client, ptrs, {"a", "b"});
    ASSERT_OK(result.status()) << text;
    EXPECT_TRUE(result->relayouts.empty());
    std::vector<ir::HostArray> host;
    for (const runtime::Array& a : args) {
      host.push_back({ir::ShapedArray(a.shape(), a.dtype()), Values(a)});
    }
    std::vector<ir::HostArray> want = *ir::EvalJaxpr(jaxpr, host);
    ASSERT_EQ(result->outputs.size(), want.size());
    for (size_t o = 0; o < want.size(); ++o) {
      EXPECT_EQ(Values(result->outputs[o]), want[o].values) << text << " output " << o;
      EXPECT_EQ(LayoutOfArray(result->outputs[o]), *compiled->output_formats()[o].local_layout())
          << text << " output " << o;
    }
  }
}

// Integers through a column-major program: the same bits as row-major.
TEST(Execute, IntegersInColumnMajorLayoutsAreExact) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(1);
  ir::ClosedJaxpr jaxpr = *ir::ParseJaxpr(
      "{ lambda ; a:i32[3,5]. let b:i32[3,5] = mul a a; c:i32[5] = reduce_sum[axes=(0,) "
      "out_sharding=None] b; d:i32[5,3] = transpose[permutation=(1, 0)] b in (c, d) }");
  std::vector<int32_t> host(15);
  for (size_t i = 0; i < host.size(); ++i) host[i] = 123456789 + static_cast<int32_t>(i);
  const auto* bytes = reinterpret_cast<const uint8_t*>(host.data());
  Format format = *Format::Create(L({1, 0}), Named("x=1", "P()"));
  runtime::Array a = *runtime::Array::DevicePut(*client, {bytes, host.size() * 4}, {3, 5},
                                                DType::kS32, std::move(format), true);
  const sharding::NamedSharding one = Named("x=1", "P()");
  Compiled compiled = *Compile(jaxpr, {*Format::Create(L({1, 0}), one)},
                               {*Format::Create(L({0}), one), *Format::Create(L({1, 0}), one)});
  const runtime::Array* args[] = {&a};
  absl::StatusOr<CallResult> result = Execute(compiled, *client, args);
  ASSERT_OK(result.status());
  std::vector<int32_t> sums(5, 0), transposed(15);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 5; ++c) {
      const int32_t sq = static_cast<int32_t>(static_cast<uint32_t>(host[r * 5 + c]) *
                                              static_cast<uint32_t>(host[r * 5 + c]));
      sums[c] = static_cast<int32_t>(static_cast<uint32_t>(sums[c]) + static_cast<uint32_t>(sq));
      transposed[c * 3 + r] = sq;
    }
  }
  auto as_bytes = [](const std::vector<int32_t>& v) {
    const auto* p = reinterpret_cast<const uint8_t*>(v.data());
    return std::vector<uint8_t>(p, p + v.size() * 4);
  };
  EXPECT_THAT(result->outputs[0].ToHost(), testing_support::IsOkAndHolds(as_bytes(sums)));
  EXPECT_THAT(result->outputs[1].ToHost(), testing_support::IsOkAndHolds(as_bytes(transposed)));
  EXPECT_EQ(LayoutOfArray(result->outputs[1]), L({1, 0}));
}

TEST(Execute, CommittedArgumentsInAnotherShardingAreRefused) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(4);
  ir::ClosedJaxpr jaxpr = *ir::ParseJaxpr(kPrograms[0]);
  Format want = *Format::Create(L({0, 1}), Named("x=4", "P('x')"));
  Compiled compiled = *Compile(jaxpr, {want, want}, {});
  runtime::Array a = Iota(*client, {4, 8}, Named("x=4", "P('x')"), L({0, 1}), true);
  runtime::Array b = Iota(*client, {4, 8}, Named("x=4", "P(None, 'x')"), L({1, 0}), true);
  const runtime::Array* ptrs[] = {&a, &b};
  EXPECT_THAT(
      Execute(compiled, *client, ptrs, {"a", "b"}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("Compiled object called with input sharding(s) and layout(s) does "
                               "not match"),
                     HasSubstr("input shardings and layouts that disagree with the shardings and "
                               "layouts of arguments passed to it. Here are the 2 mismatches:\n"
                               "Argument b with shape f32[4,8]:\n  Passed sharding: "
                               "NamedSharding(mesh=Mesh('x': 4), spec=P(None, 'x'))\n  Required "
                               "sharding: NamedSharding(mesh=Mesh('x': 4), spec=P('x',))\n"
                               "Argument b with shape f32[4,8]:\n  Passed layout: "))));
  // The same arrays uncommitted are moved instead.
  a.set_committed(false);
  b.set_committed(false);
  absl::StatusOr<CallResult> moved = Execute(compiled, *client, ptrs, {"a", "b"});
  ASSERT_OK(moved.status());
  ASSERT_EQ(moved->relayouts.size(), 1u);
  EXPECT_EQ(moved->relayouts[0].name, "b");
  EXPECT_TRUE(moved->relayouts[0].resharded);
}

TEST(Execute, TypesAndCountsUseJaxsTypeErrors) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(1);
  Compiled compiled = *Compile(*ir::ParseJaxpr(kPrograms[0]), {}, {});
  runtime::Array a = Iota(*client, {4, 8}, Named("x=1", "P()"), L({0, 1}), false);
  runtime::Array c = Iota(*client, {8, 4}, Named("x=1", "P()"), L({0, 1}), false);
  const runtime::Array* one[] = {&a};
  absl::Status count = Execute(compiled, *client, one).status();
  EXPECT_THAT(count, StatusIs(absl::StatusCode::kInvalidArgument,
                              "Computation compiled for 2 inputs but called with 1"));
  EXPECT_TRUE(IsTypeError(count));
  const runtime::Array* two[] = {&a, &c};
  absl::Status types = Execute(compiled, *client, two, {"x", "y"}).status();
  EXPECT_THAT(types, StatusIs(absl::StatusCode::kInvalidArgument,
                              HasSubstr("Argument types differ from the types for which this "
                                        "computation was compiled. Perhaps you are calling the "
                                        "compiled executable with a different enable_x64 mode "
                                        "than when it was AOT compiled? The mismatches are:\n"
                                        "Argument 'y' compiled with f32[4,8] and called with "
                                        "f32[8,4]")));
  EXPECT_TRUE(IsTypeError(types));
}

// A program without shard_map runs on the executor, which holds values in their own encoding:
// the interpreter's cap on elements (2^24, eight bytes each) no longer applies.
TEST(Execute, ArgumentsBeyondTheInterpretersSizeRunOnTheExecutor) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(1);
  constexpr int64_t kElements = (int64_t{1} << 24) + 1;
  Compiled compiled =
      *Compile(*ir::ParseJaxpr("{ lambda ; a:u8[16777217]. let  in (a,) }"), {}, {});
  std::vector<uint8_t> host(static_cast<size_t>(kElements), 0);
  host.back() = 7;
  Format format = *runtime::MakeArrayFormat(Named("x=1", "P()"));
  runtime::Array a =
      *runtime::Array::DevicePut(*client, host, {kElements}, DType::kU8, std::move(format), false);
  const runtime::Array* args[] = {&a};
  absl::StatusOr<CallResult> result = Execute(compiled, *client, args);
  ASSERT_THAT(result, testing_support::IsOk());
  ASSERT_EQ(result->outputs.size(), 1u);
  EXPECT_THAT(result->outputs[0].ToHost(), testing_support::IsOkAndHolds(host));
}

// A shard_map program on an in-process client runs on the executor, each mesh position on a
// thread: an argument past the interpreter's cap (which it used to refuse) is split into four
// blocks, and the psum over them wraps in 32 bits.
TEST(Execute, ShardMapProgramsRunOnTheExecutor) {
  std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(4);
  constexpr int64_t kElements = (int64_t{1} << 24) + 4;
  Compiled compiled = *Compile(*ir::ParseJaxpr(R"({ lambda ; a:u8[16777220] b:i32[8]. let
    c:u8[16777220] d:i32[2] = shard_map[
      check_vma=False
      in_specs=(P('x',), P('x',))
      jaxpr={ lambda ; e:u8[4194305] f:i32[2]. let
          g:i32[2] = psum[axes=('x',) axis_index_groups=None] f
        in (e, g) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P('x',), P())
    ] a b
  in (c, d) })"),
                               {}, {});
  std::vector<uint8_t> host(static_cast<size_t>(kElements), 0);
  host.back() = 7;
  host[4194305] = 9;
  const std::vector<int32_t> ints = {2000000000, 1, 2000000000, 2, 2000000000, 3, 2000000000, 4};
  std::vector<uint8_t> int_bytes(ints.size() * 4);
  std::memcpy(int_bytes.data(), ints.data(), int_bytes.size());
  runtime::Array a =
      *runtime::Array::DevicePut(*client, host, {kElements}, DType::kU8,
                                 *runtime::MakeArrayFormat(Named("x=4", "P()")), false);
  runtime::Array b = *runtime::Array::DevicePut(
      *client, int_bytes, {8}, DType::kS32, *runtime::MakeArrayFormat(Named("x=4", "P()")), false);
  const runtime::Array* args[] = {&a, &b};
  absl::StatusOr<CallResult> result = Execute(compiled, *client, args);
  ASSERT_THAT(result, testing_support::IsOk());
  ASSERT_EQ(result->outputs.size(), 2u);
  EXPECT_THAT(result->outputs[0].ToHost(), testing_support::IsOkAndHolds(host));
  absl::StatusOr<std::vector<uint8_t>> sums = result->outputs[1].ToHost();
  ASSERT_THAT(sums, testing_support::IsOk());
  std::vector<int32_t> got(2);
  ASSERT_EQ(sums->size(), 8u);
  std::memcpy(got.data(), sums->data(), 8);
  EXPECT_EQ(got, (std::vector<int32_t>{-589934592, 10}));  // 8e9 wraps modulo 2^32

  std::unique_ptr<runtime::Client> two = *runtime::Client::InProcess(2);
  runtime::Array small = *runtime::Array::DevicePut(
      *two, int_bytes, {8}, DType::kS32, *runtime::MakeArrayFormat(Named("x=2", "P()")), false);
  Compiled psum = *Compile(*ir::ParseJaxpr(R"({ lambda ; b:i32[8]. let
    d:i32[2] = shard_map[
      check_vma=False
      in_specs=(P('x',),)
      jaxpr={ lambda ; f:i32[2]. let
          g:i32[2] = psum[axes=('x',) axis_index_groups=None] f
        in (g,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P(),)
    ] b
  in (d,) })"),
                           {}, {});
  const runtime::Array* small_args[] = {&small};
  EXPECT_THAT(Execute(psum, *two, small_args).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a shard_map of the program has 4 devices but the client has 2")));
}

}  // namespace
}  // namespace execute_test
}  // namespace axe::jit
