// shard_map on the executor: every shard_map program JAX printed for the IR's tests runs
// typed (no equation of the body falls back to the interpreter) with the interpreter's values,
// and with JAX's own values where the test data has them; collectives inside a scan; integer
// reductions exactly; a position that fails releases the others instead of hanging; programs
// whose positions cannot all meet end with an error; the work budget counts every position.
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "axe/exec/communicator.h"
#include "axe/exec/executable.h"
#include "axe/exec/testing/storage_count.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitive.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/testdata.h"

namespace axe::exec {
namespace shard_map_exec_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::ReadFile;
using ::axe::testing_support::ReadJaxValues;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

ir::ClosedJaxpr Parse(const std::string& text) {
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(text);
  EXPECT_THAT(j, IsOk()) << text;
  return j.ok() ? *j : ir::ClosedJaxpr{};
}

// Runs `f` on a thread and waits at most a minute for it: a run that hangs fails the test
// (and is left behind) instead of hanging the suite.
template <typename T>
std::optional<T> WithinAMinute(std::function<T()> f) {
  auto done = std::make_shared<std::promise<T>>();
  std::future<T> result = done->get_future();
  std::thread([f = std::move(f), done] { done->set_value(f()); }).detach();
  if (result.wait_for(std::chrono::minutes(1)) != std::future_status::ready) return std::nullopt;
  return result.get();
}

// Deterministic arguments: small integers (exact in every type), varied signs.
std::vector<ir::HostArray> Arguments(const ir::ClosedJaxpr& j) {
  std::vector<ir::HostArray> args;
  int k = 0;
  for (const ir::ShapedArray& aval : j.jaxpr.in_avals()) {
    ir::HostArray a{aval.WithVma({}),
                    std::vector<double>(static_cast<size_t>(aval.NumElements().value_or(0)))};
    for (size_t i = 0; i < a.values.size(); ++i) {
      a.values[i] = static_cast<double>(static_cast<int64_t>((i * 7 + k * 3) % 11) - 5) / 4;
    }
    args.push_back(std::move(a));
    ++k;
  }
  return args;
}

bool Close(double want, double got, DType t) {
  if (!IsFloatingPoint(t)) return want == got;
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  return std::fabs(want - got) <= 1e-6 + 1e-5 * std::fabs(want);
}

void ExpectSameValues(const std::vector<ir::HostArray>& want, const std::vector<ir::HostArray>& got,
                      const std::string& name) {
  ASSERT_EQ(want.size(), got.size()) << name;
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(want[o].aval.shape(), got[o].aval.shape()) << name << " output " << o;
    ASSERT_EQ(want[o].aval.dtype(), got[o].aval.dtype()) << name << " output " << o;
    for (size_t i = 0; i < want[o].values.size(); ++i) {
      EXPECT_TRUE(Close(want[o].values[i], got[o].values[i], want[o].aval.dtype()))
          << name << " output " << o << " element " << i << ": " << got[o].values[i] << " where "
          << want[o].values[i] << " is expected";
    }
  }
}

std::vector<std::filesystem::path> ShardMapPrograms() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::filesystem::path(AXE_IR_TESTDATA_DIR))) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".txt" || absl::StrContains(name, "values")) continue;
    if (absl::StrContains(ReadFile(entry.path()), "shard_map[")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ShardMapExecTest, EveryJaxPrintedShardMapRunsTypedWithTheInterpretersValues) {
  int programs = 0;
  for (const std::filesystem::path& file : ShardMapPrograms()) {
    const std::string name = file.filename().string();
    absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(ReadFile(file));
    if (!j.ok()) continue;  // a file of several jaxprs or a deliberately unreadable one
    absl::StatusOr<Executable> e = Executable::Compile(*j);
    ASSERT_THAT(e, IsOk()) << name;
    EXPECT_EQ(e->stats().fallbacks, 0) << name << "\n" << e->Describe();
    EXPECT_EQ(e->stats().nested_fallbacks, 0) << name << "\n" << e->Describe();
    EXPECT_THAT(e->Describe(), HasSubstr("shard_map on ")) << name;
    const std::vector<ir::HostArray> args = Arguments(*j);
    absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(*j, args);
    ASSERT_THAT(got, IsOk()) << name;
    ++programs;
    absl::StatusOr<std::vector<ir::HostArray>> want = ir::EvalJaxpr(*j, args);
    ASSERT_THAT(want, IsOk()) << name;
    ExpectSameValues(*want, *got, name);
  }
  EXPECT_GE(programs, 19);
}

TEST(ShardMapExecTest, ShardMapProgramsGiveJaxsValues) {
  int cases = 0;
  for (const std::filesystem::path& file : ShardMapPrograms()) {
    std::filesystem::path values_file = file;
    values_file.replace_extension(".values.txt");
    if (!std::filesystem::exists(values_file)) continue;
    std::map<std::string, std::vector<ir::HostArray>> values =
        ReadJaxValues(values_file, ir::ParseArgSpec);
    absl::StatusOr<std::vector<ir::HostArray>> got =
        ExecuteJaxpr(Parse(ReadFile(file)), values["arg"]);
    ASSERT_THAT(got, IsOk()) << file;
    ExpectSameValues(values["out"], *got, file.filename().string());
    ++cases;
  }
  EXPECT_GE(cases, 12);
}

// The programs JAX printed for these tests parse, print back byte for byte and type-check
// (all_to_all with tiled=False included: the primitive has the tiled shapes).
TEST(ShardMapExecTest, JaxsShardMapProgramsPrintBackAndTypeCheck) {
  const std::filesystem::path dir = std::filesystem::path(AXE_IR_TESTDATA_DIR) / "jax_shard_map";
  int programs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (absl::StrContains(name, "values")) continue;
    const std::string text = ReadFile(entry.path());
    ir::ClosedJaxpr j = Parse(text);
    EXPECT_EQ(ir::PrintJaxpr(j) + "\n", text) << name;
    EXPECT_THAT(ir::CheckJaxpr(j), IsOk()) << name;
    ++programs;
  }
  EXPECT_GE(programs, 10);
}

// What axe's own transformations make of JAX's shard_map programs runs typed too: vmap over a
// batch of two (the collectives then act on batched operands, their dimensions moved) and the
// gradient of the scalar losses, with the interpreter's values.
TEST(ShardMapExecTest, VmapsAndGradsOfShardMapProgramsRunTyped) {
  int vmapped = 0, grads = 0;
  for (const std::filesystem::path& file : ShardMapPrograms()) {
    const std::string name = file.filename().string();
    absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(ReadFile(file));
    if (!j.ok()) continue;
    std::vector<absl::StatusOr<ir::ClosedJaxpr>> derived;
    ir::VmapOptions options;
    options.axis_size = 2;
    derived.push_back(ir::Vmap(*j, options));
    const std::vector<ir::ShapedArray> outs = j->jaxpr.out_avals();
    if (outs.size() == 1 && outs[0].rank() == 0 && IsFloatingPoint(outs[0].dtype())) {
      derived.push_back(ir::Grad(*j));
    }
    for (size_t k = 0; k < derived.size(); ++k) {
      if (!derived[k].ok()) continue;  // a transformation axe does not have for it
      const std::string what = absl::StrCat(name, k == 0 ? " vmapped" : " grad");
      absl::StatusOr<Executable> e = Executable::Compile(*derived[k]);
      ASSERT_THAT(e, IsOk()) << what;
      // The vmapped loop_of_psums adds an i32[2,1] to an i32[2,2] (axe's batching rule of
      // the add of a broadcast counter): typed too, its size-1 operand expanded first.
      EXPECT_EQ(e->stats().fallbacks + e->stats().nested_fallbacks, 0) << what << "\n"
                                                                       << e->Describe();
      const std::vector<ir::HostArray> args = Arguments(*derived[k]);
      absl::StatusOr<std::vector<ir::HostArray>> want = ir::EvalJaxpr(*derived[k], args);
      if (!want.ok()) continue;  // the interpreter's all_to_all typing (see above)
      absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(*derived[k], args);
      ASSERT_THAT(got, IsOk()) << what;
      ExpectSameValues(*want, *got, what);
      ++(k == 0 ? vmapped : grads);
    }
  }
  EXPECT_GE(vmapped, 10);
  EXPECT_GE(grads, 2);
}

// A scan inside the body whose steps psum an integer carry over x: every step's sum is exact
// (i32 wraps in its width), and the plan holds no fallback.
constexpr const char* kScanOfPsums = R"({ lambda ; a:i32[8]. let
    b:i32[8] = shard_map[
      check_vma=False
      in_specs=(P('x',),)
      jaxpr={ lambda ; c:i32[2]. let
          d:i32[2] = scan[
            jaxpr={ lambda ; e:i32[2]. let
                f:i32[2] = mul e 1000003:i32[]
                g:i32[2] = psum[axes=('x',) axis_index_groups=None] f
              in (g,) }
            length=5
            num_carry=1
            num_consts=0
            reverse=False
            unroll=1
          ] c
        in (d,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P('x',),)
    ] a
  in (b,) })";

TEST(ShardMapExecTest, ScanOfIntegerPsumsIsExact) {
  ir::ClosedJaxpr j = Parse(kScanOfPsums);
  absl::StatusOr<Executable> e = Executable::Compile(j);
  ASSERT_THAT(e, IsOk());
  EXPECT_EQ(e->stats().fallbacks + e->stats().nested_fallbacks, 0) << e->Describe();
  std::vector<ir::HostArray> args = {
      ir::HostArray{*ir::ShapedArray::ParseShort("i32[8]"), {1, 2, 3, 4, 5, 6, 7, 8}}};
  absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(j, args);
  ASSERT_THAT(got, IsOk());
  // Every position holds the same carry after the first step: the column sums (16, 20), then
  // each step multiplies by 4 * 1000003, wrapping in 32 bits.
  for (size_t col = 0; col < 2; ++col) {
    uint32_t v = col == 0 ? 16 : 20;
    v *= 1000003u;
    for (int step = 1; step < 5; ++step) v = v * 1000003u * 4u;
    const double want = static_cast<double>(static_cast<int32_t>(v));
    for (size_t p = 0; p < 4; ++p) EXPECT_EQ((*got)[0].values[p * 2 + col], want) << p;
  }
  absl::StatusOr<std::vector<ir::HostArray>> oracle = ir::EvalJaxpr(j, args);
  ASSERT_THAT(oracle, IsOk());
  EXPECT_EQ((*oracle)[0].values, (*got)[0].values);
}

// Collectives over one axis of a 2x2 mesh, and psum of a value not split along y.
constexpr const char* kTwoAxes = R"({ lambda ; a:i32[4,4] b:f32[4]. let
    c:i32[4,4] d:i32[4,4] e:f32[4] f:i32[4,2] = shard_map[
      check_vma=False
      in_specs=(P('x', 'y'), P('y',))
      jaxpr={ lambda ; g:i32[2,2] h:f32[2]. let
          i:i32[2,2] = psum[axes=('y',) axis_index_groups=None] g
          j:i32[2,4] = all_gather[
            all_gather_dimension=1
            axis_index_groups=None
            axis_name=('y',)
            axis_size=2
            tiled=True
          ] g
          k:f32[2] = pmax[axes=('x',) axis_index_groups=None] h
          l:i32[] = axis_index[axis_name=('x', 'y')]
          m:i32[2,1] = broadcast_in_dim[broadcast_dimensions=()] l
          n:i32[2,1] = ppermute[axis_name=('x', 'y') perm=((0, 3), (3, 0), (1, 2))] m
        in (i, j, k, n) }
      mesh=Mesh('x': 2, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('x', 'y'), P('x',), P('y',), P('x', 'y'))
    ] a b
  in (c, d, e, f) })";

TEST(ShardMapExecTest, CollectivesOverOneAxisOfATwoAxisMesh) {
  ir::ClosedJaxpr j = Parse(kTwoAxes);
  absl::StatusOr<Executable> e = Executable::Compile(j);
  ASSERT_THAT(e, IsOk());
  EXPECT_EQ(e->stats().fallbacks + e->stats().nested_fallbacks, 0) << e->Describe();
  const std::vector<ir::HostArray> args = Arguments(j);
  absl::StatusOr<std::vector<ir::HostArray>> want = ir::EvalJaxpr(j, args);
  ASSERT_THAT(want, IsOk());
  absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(j, args);
  ASSERT_THAT(got, IsOk());
  ExpectSameValues(*want, *got, "two axes");
  // ppermute: position 3 receives 0's index, 0 receives 3's, 2 receives 1's, 1 gets zeros.
  EXPECT_EQ((*got)[3].values, (std::vector<double>{3, 0, 3, 0, 1, 0, 1, 0}));
}

// Operands of 2^17 elements: each member folds a quarter and the members exchange their
// quarters; the bits are the interpreter's (the same member-order folds), ints exactly.
constexpr const char* kLargePsums = R"({ lambda ; a:i32[8,65536] b:f32[8,65536]. let
    c:i32[2,65536] d:f32[2,65536] = shard_map[
      check_vma=False
      in_specs=(P('x',), P('x',))
      jaxpr={ lambda ; e:i32[2,65536] f:f32[2,65536]. let
          g:i32[2,65536] h:f32[2,65536] = psum[axes=('x',) axis_index_groups=None] e f
        in (g, h) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P(), P())
    ] a b
  in (c, d) })";

TEST(ShardMapExecTest, LargePsumsFoldInSharesWithTheInterpretersBits) {
  ir::ClosedJaxpr j = Parse(kLargePsums);
  std::vector<ir::HostArray> args = Arguments(j);
  for (size_t i = 0; i < args[0].values.size(); ++i) {
    args[0].values[i] = static_cast<double>(static_cast<int32_t>(i * 2654435761u));
    args[1].values[i] = static_cast<double>(static_cast<float>(std::sin(i * 0.37) * 1e3));
  }
  absl::StatusOr<std::vector<ir::HostArray>> want = ir::EvalJaxpr(j, args);
  ASSERT_THAT(want, IsOk());
  absl::StatusOr<std::vector<ir::HostArray>> got = ExecuteJaxpr(j, args);
  ASSERT_THAT(got, IsOk());
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].values, (*want)[0].values);
  EXPECT_EQ((*got)[1].values, (*want)[1].values);
}

// A primitive that fails at run time where its operand is 1, so that exactly one position of a
// shard_map fails while the others wait in a psum.
const ir::Primitive* FailAtOne() {
  static const ir::Primitive* prim = [] {
    ir::Primitive::Options options;
    options.name = "test_fail_at_one";
    const ir::Primitive* p = *ir::Primitive::Define(options);
    ir::RegisterAbstractEval(*p,
                             [](absl::Span<const ir::ShapedArray> in,
                                const ir::Params&) -> absl::StatusOr<std::vector<ir::ShapedArray>> {
                               return std::vector<ir::ShapedArray>{in[0].WithVma({})};
                             });
    ir::RegisterImpl(*p,
                     [](absl::Span<const ir::HostArray> in,
                        const ir::Params&) -> absl::StatusOr<std::vector<ir::HostArray>> {
                       if (in[0].values[0] == 1)
                         return absl::DataLossError("position 1 failed on purpose");
                       return std::vector<ir::HostArray>{in[0]};
                     });
    return p;
  }();
  return prim;
}

constexpr const char* kOnePositionFails = R"({ lambda ; a:f32[8]. let
    b:f32[2] = shard_map[
      check_vma=False
      in_specs=(P('x',),)
      jaxpr={ lambda ; c:f32[2]. let
          d:i32[] = axis_index[axis_name=x]
          e:i32[] = test_fail_at_one d
          f:f32[2] = psum[axes=('x',) axis_index_groups=None] c
        in (f,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P(),)
    ] a
  in (b,) })";

TEST(ShardMapExecTest, APositionThatFailsReleasesTheOthers) {
  ASSERT_NE(FailAtOne(), nullptr);
  ir::ClosedJaxpr j = Parse(kOnePositionFails);
  std::vector<ir::HostArray> args = {
      ir::HostArray{*ir::ShapedArray::ParseShort("f32[8]"), std::vector<double>(8, 1.0)}};
  std::optional<absl::Status> status =
      WithinAMinute<absl::Status>([j, args] { return ExecuteJaxpr(j, args).status(); });
  ASSERT_TRUE(status.has_value()) << "the run hangs";
  EXPECT_THAT(*status, StatusIs(absl::StatusCode::kDataLoss, HasSubstr("position 1 failed")));
}

// A cond whose branch depends on the position: one branch psums, the other does not, so the
// positions can never all meet in the psum.
constexpr const char* kDivergingCond = R"({ lambda ; a:f32[8]. let
    b:f32[8] = shard_map[
      check_vma=False
      in_specs=(P('x',),)
      jaxpr={ lambda ; c:f32[2]. let
          d:i32[] = axis_index[axis_name=x]
          e:bool[] = eq d 0:i32[]
          f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] e
          g:f32[2] = cond[
            branches=(
              { lambda ; h:f32[2]. let  in (h,) }
              { lambda ; i:f32[2]. let
                  j:f32[2] = psum[axes=('x',) axis_index_groups=None] i
                in (j,) }
            )
          ] f c
        in (g,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P('x',),)
    ] a
  in (b,) })";

TEST(ShardMapExecTest, PositionsThatCannotAllMeetEndWithAnError) {
  ir::ClosedJaxpr j = Parse(kDivergingCond);
  std::vector<ir::HostArray> args = {
      ir::HostArray{*ir::ShapedArray::ParseShort("f32[8]"), std::vector<double>(8, 1.0)}};
  std::optional<absl::Status> status =
      WithinAMinute<absl::Status>([j, args] { return ExecuteJaxpr(j, args).status(); });
  ASSERT_TRUE(status.has_value()) << "the run hangs";
  EXPECT_THAT(*status, StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("a cond whose branch differs between positions cannot "
                                          "run collectives")));
}

// Each position multiplies 64x64 matrices (262144 multiply-adds): one position's work fits
// in the limit, the four positions' do not.
constexpr const char* kFourProducts = R"({ lambda ; a:f32[256,64] b:f32[64,64]. let
    c:f32[256,64] = shard_map[
      check_vma=False
      in_specs=(P('x',), P())
      jaxpr={ lambda ; d:f32[64,64] e:f32[64,64]. let
          f:f32[64,64] = dot_general[
            dimension_numbers=(([1], [0]), ([], []))
            preferred_element_type=float32
          ] d e
        in (f,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P('x',),)
    ] a b
  in (c,) })";

constexpr const char* kOneProduct = R"({ lambda ; d:f32[64,64] e:f32[64,64]. let
    f:f32[64,64] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] d e
  in (f,) })";

TEST(ShardMapExecTest, TheWorkBudgetCountsEveryPosition) {
  ExecOptions options;
  options.max_work = 700000;
  EXPECT_THAT(Executable::Compile(Parse(kOneProduct), options), IsOk());
  absl::StatusOr<Executable> all = Executable::Compile(Parse(kFourProducts));
  ASSERT_THAT(all, IsOk());
  EXPECT_GE(all->stats().work, 4 * 262144);
  EXPECT_THAT(Executable::Compile(Parse(kFourProducts), options).status(),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("per run, more than the limit of 700000")));
}

TEST(ShardMapExecTest, ACancelledRunStopsEveryPosition) {
  std::atomic<bool> cancel{true};
  ExecOptions options;
  options.cancel = &cancel;
  ir::ClosedJaxpr j = Parse(kScanOfPsums);
  absl::StatusOr<Executable> e = Executable::Compile(j, options);
  ASSERT_THAT(e, IsOk());
  absl::StatusOr<Value> x = FromHostArray(
      ir::HostArray{*ir::ShapedArray::ParseShort("i32[8]"), std::vector<double>(8, 1.0)});
  ASSERT_THAT(x, IsOk());
  std::optional<absl::Status> status =
      WithinAMinute<absl::Status>([e = *e, x = *x] { return e.Run({x}).status(); });
  ASSERT_TRUE(status.has_value()) << "the run hangs";
  EXPECT_THAT(*status, StatusIs(absl::StatusCode::kCancelled, HasSubstr("cancelled")));
}

// Each position doubles its block: its operand block is read in place (4096 bytes), its
// body's result is one more block, copied into its block of the global result.
constexpr const char* kDoubleBlocks = R"({ lambda ; a:f32[4096]. let
    b:f32[4096] = shard_map[
      check_vma=True
      in_specs=(P('x',),)
      jaxpr={ lambda ; c:f32[1024]{V:x}. let d:f32[1024]{V:x} = add c c in (d,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P('x',),)
    ] a
  in (b,) })";

TEST(ShardMapPeakTest, OnePositionsPeakIsItsBlocksAndBodyValues) {
  absl::StatusOr<Executable> e = Executable::Compile(Parse(kDoubleBlocks));
  ASSERT_THAT(e, IsOk());
  // One device: its operand block and the body's result (8192 bytes), and its block of the
  // global result (4096), as XLA's memory_analysis() counts one device of an SPMD program.
  EXPECT_EQ(e->stats().devices, 4);
  EXPECT_EQ(e->stats().device_peak_bytes, 3 * 4096);
  // The process: the global operand and result (16384 each) and what every position adds
  // (its body's result; the operand blocks are the global operand's, read in place).
  EXPECT_EQ(e->stats().peak_bytes, 16384 + 16384 + 4 * 4096);
  EXPECT_THAT(e->Describe(), HasSubstr(", peak 49152 bytes, per device peak 12288 bytes on 4 "
                                       "devices\n"));
}

// A replicated operand is shared by the positions: counted once per device, once in all.
constexpr const char* kReplicatedOperand = R"({ lambda ; a:f32[1024] w:f32[1024]. let
    b:f32[1024] = shard_map[
      check_vma=True
      in_specs=(P('x',), P())
      jaxpr={ lambda ; c:f32[256]{V:x} v:f32[1024]. let
          d:f32[1024]{V:x} = pvary[axes=('x',)] v
          e:f32[256]{V:x} = slice[limit_indices=(256,) start_indices=(0,) strides=None] d
          f:f32[256]{V:x} = add c e
        in (f,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P('x',),)
    ] a w
  in (b,) })";

TEST(ShardMapPeakTest, AReplicatedOperandIsCountedOnceInTheWholeProcess) {
  absl::StatusOr<Executable> e = Executable::Compile(Parse(kReplicatedOperand));
  ASSERT_THAT(e, IsOk());
  const int64_t device = e->stats().device_peak_bytes;
  EXPECT_GE(device, 1024 + 4096 + 1024);  // its block, the whole w, its result block
  EXPECT_LT(device, 4 * (1024 + 4096));
  // The global a, w and b once, and per position what its body allocates beyond them.
  EXPECT_LT(e->stats().peak_bytes, 4096 + 4096 + 4096 + 4 * (device - 1024 - 4096));
  EXPECT_EQ(e->stats().devices, 4);
}

TEST(ShardMapPeakTest, AProgramWithoutAShardMapHasNoPerDeviceFigure) {
  absl::StatusOr<Executable> e = Executable::Compile(Parse(kOneProduct));
  ASSERT_THAT(e, IsOk());
  EXPECT_EQ(e->stats().devices, 0);
  EXPECT_EQ(e->stats().device_peak_bytes, 0);
  EXPECT_THAT(e->Describe(), ::testing::Not(HasSubstr("per device")));
}

// The shard_map inside a jit (as jax.jit of a shard_map prints) reports its positions' peak.
constexpr const char* kJitOfDoubleBlocks = R"({ lambda ; a:f32[4096]. let
    b:f32[4096] = jit[
      name=f
      jaxpr={ lambda ; a:f32[4096]. let
          b:f32[4096] = shard_map[
            check_vma=True
            in_specs=(P('x',),)
            jaxpr={ lambda ; c:f32[1024]{V:x}. let d:f32[1024]{V:x} = add c c in (d,) }
            mesh=Mesh('x': 4, axis_types=(Auto,))
            newly_manual_axes=frozenset({'x'})
            out_specs=(P('x',),)
          ] a
        in (b,) }
    ] a
  in (b,) })";

TEST(ShardMapPeakTest, ACallOfAShardMapReportsItsPerDevicePeak) {
  absl::StatusOr<Executable> e = Executable::Compile(Parse(kJitOfDoubleBlocks));
  ASSERT_THAT(e, IsOk());
  EXPECT_EQ(e->stats().devices, 4) << e->Describe();
  EXPECT_EQ(e->stats().device_peak_bytes, 3 * 4096);
}

// Each position's block is a strided copy (columns), read by the first step only.
constexpr const char* kColumnBlocks = R"({ lambda ; a:f32[64,1024]. let
    b:f32[64,1024] = shard_map[
      check_vma=True
      in_specs=(P(None, 'x'),)
      jaxpr={ lambda ; c:f32[64,256]{V:x}. let
          d:f32[64,256]{V:x} = add c c
          e:f32[256,64]{V:x} = transpose[permutation=(1, 0)] d
          f:f32[64,256]{V:x} = transpose[permutation=(1, 0)] e
        in (f,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P(None, 'x'),)
    ] a
  in (b,) })";

// What a run allocates against the process's figure: exactly it where every position's
// peak is at its end (each holds its result until all have finished), within it where the
// positions peak at different times. Blocks read in place are not allocated.
TEST(ShardMapPeakTest, ARunAllocatesWhatTheProcessFigureSays) {
  for (const char* text : {kDoubleBlocks, kColumnBlocks, kReplicatedOperand}) {
    SCOPED_TRACE(text);
    absl::StatusOr<Executable> e = Executable::Compile(Parse(text));
    ASSERT_THAT(e, IsOk());
    std::vector<Value> args;
    int64_t argument_bytes = 0;
    for (const ir::ShapedArray& a : e->input_avals()) {
      absl::StatusOr<Value> x = Value::Zeros(a);
      ASSERT_THAT(x, IsOk());
      argument_bytes += static_cast<int64_t>(x->num_bytes());
      args.push_back(*std::move(x));
    }
    testing::ResetPeakStorageBytes();
    const int64_t before = testing::StorageBytesInUse();
    ASSERT_THAT(e->Run(args), IsOk());
    const int64_t observed = argument_bytes + testing::PeakStorageBytes() - before;
    // The positions run on threads of their own: the figure is what they hold when all of
    // them are at their peak at once, which a run reaches only when the scheduler lets it.
    EXPECT_GT(observed, argument_bytes);
    EXPECT_LE(observed, e->stats().peak_bytes) << e->Describe();
  }
}

// The default exchanges into a member's buffer, on the in-process rendezvous: what a
// transport between processes does with bytes, member order kept.
TEST(CommunicatorTest, DefaultExchangesIntoBuffersKeepMemberOrder) {
  constexpr int64_t kMembers = 3;
  std::unique_ptr<Communicator> comm = NewInProcessCommunicator(kMembers);
  const std::vector<std::string> axes = {"x"};
  const std::vector<int64_t> group = {0, 1, 2};
  const std::vector<int64_t> source_of = {2, -1, 0};  // 2 -> 0, 0 -> 2, 1 gets nothing
  std::vector<std::vector<int32_t>> gathered(kMembers), permuted(kMembers), exchanged(kMembers);
  std::vector<std::thread> threads;
  for (int64_t p = 0; p < kMembers; ++p) {
    threads.emplace_back([&, p] {
      auto i32 = [](int64_t n) { return *Value::Zeros(ir::ShapedArray({n}, DType::kS32)); };
      Value mine = i32(kMembers);  // block j: 10 * p + j, for member j
      for (int64_t j = 0; j < kMembers; ++j) mine.mutable_data<int32_t>()[j] = 10 * p + j;
      Value all = i32(kMembers * kMembers), from = i32(kMembers), blocks = i32(kMembers);
      from.mutable_data<int32_t>()[0] = -7;
      ASSERT_THAT(comm->GatherInto(axes, group, p, 1, mine, all), IsOk());
      ASSERT_THAT(comm->PermuteInto(axes, group, p, 2, mine, source_of, from), IsOk());
      ASSERT_THAT(comm->AllToAllInto(axes, group, p, 3, mine, 4, blocks), IsOk());
      const auto* a = all.data<int32_t>();
      gathered[static_cast<size_t>(p)].assign(a, a + kMembers * kMembers);
      permuted[static_cast<size_t>(p)].assign(from.data<int32_t>(), from.data<int32_t>() + 1);
      exchanged[static_cast<size_t>(p)].assign(blocks.data<int32_t>(),
                                               blocks.data<int32_t>() + kMembers);
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t p = 0; p < kMembers; ++p) {
    EXPECT_THAT(gathered[p], ::testing::ElementsAre(0, 1, 2, 10, 11, 12, 20, 21, 22));
    const auto q = static_cast<int32_t>(p);
    EXPECT_THAT(exchanged[p], ::testing::ElementsAre(q, 10 + q, 20 + q));
  }
  EXPECT_THAT(permuted[0], ::testing::ElementsAre(20));
  EXPECT_THAT(permuted[1], ::testing::ElementsAre(-7));  // untouched
  EXPECT_THAT(permuted[2], ::testing::ElementsAre(0));
}

TEST(CommunicatorTest, AnAbortReleasesTheMembersThatWait) {
  std::unique_ptr<Communicator> comm = NewInProcessCommunicator(3);
  std::vector<absl::Status> got(2);
  std::vector<std::thread> threads;
  for (int64_t p = 0; p < 2; ++p) {
    threads.emplace_back([&, p] {
      got[static_cast<size_t>(p)] = comm->Exchange({0, 1, 2}, p, 7, Value()).status();
    });
  }
  comm->Abort(absl::UnavailableError("member 2 is gone"));
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : got) {
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kAborted, HasSubstr("member 2 is gone")));
  }
  EXPECT_THAT(comm->first_error(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("member 2 is gone")));
}

TEST(CommunicatorTest, MembersGetEveryValueInMemberOrder) {
  std::unique_ptr<Communicator> comm = NewInProcessCommunicator(2);
  std::vector<std::vector<Value>> got(2);
  std::vector<std::thread> threads;
  for (int64_t p = 0; p < 2; ++p) {
    threads.emplace_back([&, p] {
      for (int round = 0; round < 100; ++round) {
        absl::StatusOr<Value> v = Value::Zeros(*ir::ShapedArray::ParseShort("i32[]"));
        *v->mutable_data<int32_t>() = static_cast<int32_t>(p * 1000 + round);
        absl::StatusOr<std::vector<Value>> all = comm->Exchange({1, 0}, 1 - p, 1, *v);
        if (!all.ok()) return;
        got[static_cast<size_t>(p)].push_back((*all)[0]);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t p = 0; p < 2; ++p) {
    ASSERT_EQ(got[p].size(), 100u);
    for (int round = 0; round < 100; ++round) {
      EXPECT_EQ(*got[p][static_cast<size_t>(round)].data<int32_t>(), 1000 + round);
    }
  }
}

}  // namespace
}  // namespace shard_map_exec_test
}  // namespace axe::exec
