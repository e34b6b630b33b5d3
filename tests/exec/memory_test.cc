// The plan's memory figure (PlanStats::peak_bytes) against what a run really allocates
// (exec::testing's storage counts): equal, byte for byte, on convolutions, an MLP, a softmax,
// a transpose feeding an addition, pooled scratch, scans, a while loop and a cond. And the figures
// the plan promises: a convolution holds its operands, its result and one chunk of patches; a
// scan whose ys nothing reads never builds them; a fused step writes into a dead input only
// where no later operation of the step reads that input.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/exec/executable.h"
#include "axe/exec/testing/storage_count.h"
#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::exec {
namespace memory_test {
namespace {

using ::axe::testing_support::IsOk;
using ::testing::HasSubstr;

ir::ClosedJaxpr Parse(const std::string& text) {
  absl::StatusOr<ir::ClosedJaxpr> j = ir::ParseJaxpr(text);
  EXPECT_THAT(j, IsOk()) << text;
  return j.ok() ? *j : ir::ClosedJaxpr{};
}

// Arguments in [-scale, scale].
std::vector<ir::HostArray> Arguments(const ir::ClosedJaxpr& j, double scale) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> real(-scale, scale);
  std::vector<ir::HostArray> args;
  for (const ir::ShapedArray& a : j.jaxpr.in_avals()) {
    ir::HostArray h{a.WithVma({}), std::vector<double>(a.NumElements().value_or(0))};
    for (double& v : h.values) v = ir::RoundToDType(real(rng), a.dtype());
    args.push_back(std::move(h));
  }
  return args;
}

struct Measured {
  int64_t planned = 0;   // PlanStats::peak_bytes
  int64_t observed = 0;  // the arguments, the constants and the most the run allocated
};

// Compiles `text` on one thread, runs it once from a fresh value pool, and checks its values
// against the interpreter's.
Measured Measure(const std::string& text, double scale = 1.0) {
  ir::ClosedJaxpr j = Parse(text);
  ExecOptions options;
  options.num_threads = 1;
  const int64_t before_compile = testing::StorageBytesInUse();
  absl::StatusOr<Executable> e = Executable::Compile(j, options);
  EXPECT_THAT(e, IsOk());
  if (!e.ok()) return {};
  const int64_t constant_bytes = testing::StorageBytesInUse() - before_compile;
  const std::vector<ir::HostArray> host = Arguments(j, scale);
  std::vector<Value> args;
  int64_t argument_bytes = 0;
  for (const ir::HostArray& h : host) {
    args.push_back(*FromHostArray(h));
    argument_bytes += static_cast<int64_t>(args.back().num_bytes());
  }
  testing::ResetPeakStorageBytes();
  const int64_t before = testing::StorageBytesInUse();
  absl::StatusOr<std::vector<Value>> got = e->Run(args);
  const int64_t grew = testing::PeakStorageBytes() - before;
  EXPECT_THAT(got, IsOk());
  absl::StatusOr<std::vector<ir::HostArray>> want = ir::EvalJaxpr(j, host);
  EXPECT_THAT(want, IsOk());
  if (got.ok() && want.ok()) {
    for (size_t o = 0; o < want->size(); ++o) {
      const ir::HostArray g = ToHostArray((*got)[o]);
      for (size_t i = 0; i < g.values.size(); ++i) {
        EXPECT_NEAR(g.values[i], (*want)[o].values[i], 1e-4) << "output " << o << " element " << i;
      }
    }
  }
  return {e->stats().peak_bytes, argument_bytes + constant_bytes + grew};
}

// NHWC by HWIO, SAME: flax's layout, read and written in place.
std::string Conv(int n, int hw, int c) {
  return absl::StrCat(
      "{ lambda ; a:f32[", n, ",", hw, ",", hw, ",", c, "] b:f32[3,3,", c, ",", c,
      "]. let\n    c:f32[", n, ",", hw, ",", hw, ",", c,
      "] = conv_general_dilated[\n      batch_group_count=1\n"
      "      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), "
      "out_spec=(0, 3, 1, 2))\n      feature_group_count=1\n      lhs_dilation=(1, 1)\n"
      "      out_sharding=None\n      padding=((1, 1), (1, 1))\n      precision=None\n"
      "      preferred_element_type=None\n      rhs_dilation=(1, 1)\n"
      "      window_strides=(1, 1)\n    ] a b\n  in (c,) }");
}

constexpr char kMlp[] =
    "{ lambda ; a:f32[16,32] b:f32[32,32] c:f32[32,32]. let\n"
    "    d:f32[16,32] = dot_general[dimension_numbers=(([1], [0]), ([], [])) "
    "preferred_element_type=float32] a b\n"
    "    e:f32[16,32] = custom_jvp_call[\n"
    "      name=relu\n"
    "      call_jaxpr={ lambda ; f:f32[16,32]. let\n"
    "          g:f32[16,32] = max f 0.0:f32[]\n"
    "        in (g,) }\n"
    "      jvp=jvp\n"
    "      symbolic_zeros=False\n"
    "    ] d\n"
    "    h:f32[16,32] = dot_general[dimension_numbers=(([1], [0]), ([], [])) "
    "preferred_element_type=float32] e c\n"
    "    i:f32[16,32] = max h 0.0:f32[]\n"
    "    j:f32[16,32] = dot_general[dimension_numbers=(([1], [0]), ([], [])) "
    "preferred_element_type=float32] i c\n"
    "  in (j,) }";

constexpr char kSoftmax[] =
    "{ lambda ; a:f32[64,256]. let\n"
    "    b:f32[64] = reduce_max[axes=(1,) out_sharding=None] a\n"
    "    c:f32[64,1] = broadcast_in_dim[broadcast_dimensions=(0,) shape=(64, 1) sharding=None] b\n"
    "    e:f32[64,256] = sub a c\n"
    "    f:f32[64,256] = exp e\n"
    "    g:f32[64] = reduce_sum[axes=(1,) out_sharding=None] f\n"
    "    h:f32[64,1] = broadcast_in_dim[broadcast_dimensions=(0,) shape=(64, 1) sharding=None] g\n"
    "    i:f32[64,256] = div f h\n"
    "  in (i,) }";

constexpr char kTransposeAdd[] =
    "{ lambda ; a:f32[48,80]. let\n"
    "    b:f32[80,48] = transpose[permutation=(1, 0)] a\n"
    "    c:f32[80,48] = add b 1.0:f32[]\n"
    "  in (c,) }";

// A dot whose batch dimension is not leading packs its lhs (60 floats), a reduction over axes
// apart gathers its operand (192 floats): scratch taken from the value pool and given back,
// where it stays while the broadcast's larger result is made.
constexpr char kPooledScratch[] =
    "{ lambda ; a:f32[5,3,4] b:f32[3,4,6] x:f32[4,6,8]. let\n"
    "    c:f32[3,5,6] = dot_general[dimension_numbers=(([2], [1]), ([1], [0])) "
    "preferred_element_type=float32] a b\n"
    "    f:f32[6] = reduce_sum[axes=(0, 2) out_sharding=None] x\n"
    "    k:f32[2,4,6,8] = broadcast_in_dim[broadcast_dimensions=(1, 2, 3) shape=(2, 4, 6, 8) "
    "sharding=None] x\n"
    "  in (c, f, k) }";

// h = tanh(h @ wh + x @ wx) over 50 steps; `ys` says whether the stacked hs are an output.
std::string Rnn(bool ys) {
  return absl::StrCat(
      "{ lambda ; a:f32[32] b:f32[50,32] c:f32[32,32] d:f32[32,32]. let\n"
      "    e:f32[32] f:f32[50,32] = scan[\n"
      "      jaxpr={ lambda ; g:f32[32,32] h:f32[32,32] i:f32[32] j:f32[32]. let\n"
      "          k:f32[32] = dot_general[dimension_numbers=(([0], [0]), ([], [])) "
      "preferred_element_type=float32] i g\n"
      "          l:f32[32] = dot_general[dimension_numbers=(([0], [0]), ([], [])) "
      "preferred_element_type=float32] j h\n"
      "          m:f32[32] = add k l\n"
      "          n:f32[32] = tanh m\n"
      "        in (n, n) }\n"
      "      length=50\n      num_carry=1\n"
      "      num_consts=2\n      reverse=False\n      unroll=1\n"
      "    ] c d a b\n"
      "  in (",
      ys ? "e, f" : "e", ",) }");
}

// Ten iterations of x = sin(x) * 0.5 + w, and a cond picking one of two bodies.
constexpr char kWhile[] =
    "{ lambda ; a:f32[64] w:f32[64]. let\n"
    "    _:i32[] c:f32[64] = while[\n"
    "      body_jaxpr={ lambda ; v:f32[64] d:i32[] e:f32[64]. let\n"
    "          f:i32[] = add d 1:i32[]\n"
    "          g:f32[64] = sin e\n"
    "          h:f32[64] = mul g 0.5:f32[]\n"
    "          i:f32[64] = add h v\n"
    "        in (f, i) }\n"
    "      body_nconsts=1\n"
    "      cond_jaxpr={ lambda ; j:i32[] k:f32[64]. let\n"
    "          l:bool[] = lt j 10:i32[]\n"
    "        in (l,) }\n"
    "      cond_nconsts=0\n"
    "    ] w 0:i32[] a\n"
    "    m:i32[] = convert_element_type[new_dtype=int32 weak_type=False] 1:i32[]\n"
    "    n:f32[64] = cond[\n"
    "      branches=(\n"
    "        { lambda ; o:f32[64] p:f32[64]. let q:f32[64] = sub o p in (q,) }\n"
    "        { lambda ; r:f32[64] s:f32[64]. let t:f32[64] = mul r s; u:f32[64] = exp t in (u,) }\n"
    "      )\n"
    "    ] m c w\n"
    "  in (n,) }";

// sum((a @ b) ** 2) or, with `rows`, its sum per row: a loss whose product is run block by
// block of rows.
std::string SquaredLoss(int m, int k, int n, bool rows) {
  return absl::StrCat(
      "{ lambda ; a:f32[", m, ",", k, "] b:f32[", k, ",", n, "]. let\n    c:f32[", m, ",", n,
      "] = dot_general[dimension_numbers=(([1], [0]), ([], [])) "
      "preferred_element_type=float32] a b\n    d:f32[",
      m, ",", n, "] = integer_pow[y=2] c\n    e:f32[", rows ? absl::StrCat(m) : "",
      "] = reduce_sum[axes=(", rows ? "1," : "0, 1", ") out_sharding=None] d\n  in (e,) }");
}

TEST(ExecMemoryTest, ALossNeverHoldsItsWholeProduct) {
  // f32[512,256] by f32[256,256]: the arguments, the scalar result, the 512 row sums and one
  // block of 128 product rows (a quarter of the 512 KiB product).
  const Measured m = Measure(SquaredLoss(512, 256, 256, false), 0.05);
  EXPECT_EQ(m.planned, (512 * 256 + 256 * 256) * 4 + 4 + 512 * 4 + 128 * 256 * 4);
  EXPECT_EQ(m.observed, m.planned);
  // Sums per row are the result itself; 300 rows run as 4 blocks of 64 and one of 44.
  const Measured rows = Measure(SquaredLoss(300, 24, 40, true), 0.05);
  EXPECT_EQ(rows.planned, (300 * 24 + 24 * 40) * 4 + 300 * 4 + (64 + 44) * 40 * 4);
  EXPECT_EQ(rows.observed, rows.planned);
}

TEST(ExecMemoryTest, ThePlannedPeakIsWhatARunAllocates) {
  for (const std::string& text :
       {Conv(2, 6, 8), Conv(1, 9, 16), std::string(kMlp), std::string(kSoftmax),
        std::string(kTransposeAdd), std::string(kPooledScratch)}) {
    SCOPED_TRACE(text);
    const Measured m = Measure(text);
    EXPECT_GT(m.planned, 0);
    EXPECT_EQ(m.planned, m.observed);
  }
}

// Loops and conds: their bodies run from the value pool their caller shares, which the plan
// models per body (a body's values beyond its arguments, while it runs).
TEST(ExecMemoryTest, TheLoopsPlannedPeakIsWhatARunAllocates) {
  for (const std::string& text : {Rnn(false), Rnn(true), std::string(kWhile)}) {
    SCOPED_TRACE(text);
    const Measured m = Measure(text, 0.03);  // a contracting cell: the steps agree
    EXPECT_GT(m.planned, 0);
    EXPECT_EQ(m.planned, m.observed);
  }
}

TEST(ExecMemoryTest, PooledScratchStaysInThePoolAfterItsStep) {
  absl::StatusOr<Executable> e = Executable::Compile(Parse(kPooledScratch));
  ASSERT_THAT(e, IsOk());
  EXPECT_THAT(e->Describe(), HasSubstr("gemm pack-lhs"));
  EXPECT_THAT(e->Describe(), HasSubstr("reduce gathered"));
  // The arguments, c, the pooled pack, f, the pooled gathered operand and k.
  const int64_t arguments = (60 + 72 + 192) * 4;
  EXPECT_EQ(e->stats().peak_bytes, arguments + (90 + 60 + 6 + 192 + 384) * 4);
}

TEST(ExecMemoryTest, AConvolutionHoldsItsOperandsItsResultAndOneChunkOfPatches) {
  // f32[2,6,6,8] by f32[3,3,8,8]: 2304 bytes each for the input, the kernel and the result;
  // the patches of 64 output positions (the fewest a chunk covers), 72 values each.
  absl::StatusOr<Executable> e = Executable::Compile(Parse(Conv(2, 6, 8)));
  ASSERT_THAT(e, IsOk());
  EXPECT_THAT(e->Describe(), HasSubstr("im2col channels-last float32\n"));
  EXPECT_EQ(e->stats().peak_bytes, 3 * 2304 + 64 * 72 * 4);
  // f32[8,56,56,64] by f32[3,3,64,64], a ResNet stage: the patches stay within an eighth of
  // the result (348 positions of 576 values).
  absl::StatusOr<Executable> big = Executable::Compile(Parse(Conv(8, 56, 64)));
  ASSERT_THAT(big, IsOk());
  const int64_t result = 8 * 56 * 56 * 64;
  const int64_t operands = (2 * result + 3 * 3 * 64 * 64) * 4;
  EXPECT_EQ(big->stats().peak_bytes, operands + (result / 8 / 576) * 576 * 4);
}

TEST(ExecMemoryTest, AScanWhoseYsNothingReadsNeverBuildsThem) {
  absl::StatusOr<Executable> read = Executable::Compile(Parse(Rnn(true)));
  absl::StatusOr<Executable> unread = Executable::Compile(Parse(Rnn(false)));
  ASSERT_THAT(read, IsOk());
  ASSERT_THAT(unread, IsOk());
  EXPECT_EQ(read->stats().peak_bytes - unread->stats().peak_bytes, 50 * 32 * 4);
  // The arguments, the final carry, and the body's values beyond its arguments: its two
  // products (the tanh of their sum is written over one of them).
  const int64_t arguments = (32 + 50 * 32 + 2 * 32 * 32) * 4;
  EXPECT_EQ(unread->stats().peak_bytes, arguments + 32 * 4 + 2 * 32 * 4);
}

TEST(ExecMemoryTest, AFusedOutputOverwritesOnlyAnInputNoLaterOperationReads) {
  // c = sin(b) is an output before d = c * b reads b again: only d may take b's storage.
  const std::string text =
      "{ lambda ; a:f32[40,24]. let\n"
      "    b:f32[24,40] = transpose[permutation=(1, 0)] a\n"
      "    c:f32[24,40] = sin b\n"
      "    d:f32[24,40] = mul c b\n"
      "  in (c, d) }";
  const Measured m = Measure(text);
  // The argument, the transpose (whose storage d takes) and c.
  EXPECT_EQ(m.planned, 3 * 40 * 24 * 4);
  EXPECT_EQ(m.observed, m.planned);
}

}  // namespace
}  // namespace memory_test
}  // namespace axe::exec
