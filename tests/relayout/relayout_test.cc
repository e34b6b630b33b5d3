// The relayout engine: golden results, plan structure (fusion, kernels, description),
// edge cases and every error.
#include "axe/relayout/relayout_plan.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/dtype.h"
#include "axe/relayout/buffer_layout.h"
#include "axe/relayout/element_type.h"
#include "axe/relayout/relayout_reference.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::relayout {
namespace relayout_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// An InvalidArgument status whose message contains `text`.
auto InvalidArgument(const std::string& text) {
  return StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(text));
}

Layout L(const char* text) {
  absl::StatusOr<Layout> l = Layout::Parse(text);
  EXPECT_TRUE(l.ok()) << text << ": " << l.status().message();
  return *l;
}

std::vector<float> Iota(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

// Runs the engine and the oracle on fresh buffers; returns the engine's destination.
template <typename T>
std::vector<T> RunBoth(const BufferLayout& src, const BufferLayout& dst, std::vector<int64_t> shape,
                       const std::vector<T>& input, size_t dst_size,
                       const RelayoutOptions& options = {}) {
  std::vector<T> out(dst_size, T(-1)), expected(dst_size, T(-1));
  absl::StatusOr<RelayoutPlan> plan = PlanRelayout(src, dst, shape, sizeof(T), options);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return out;
  EXPECT_TRUE(plan->Execute(input.data(), out.data()).ok());
  EXPECT_TRUE(ReferenceRelayout(src, dst, shape, sizeof(T), input.data(), expected.data(),
                                options.padding_value)
                  .ok());
  EXPECT_EQ(out, expected) << plan->ToString();
  return out;
}

TEST(Relayout, TransposeGolden) {
  // (2, 3) row-major -> column-major.
  std::vector<float> out =
      RunBoth<float>(L("S[(2,3):(3,1)]"), L("S[(2,3):(1,2)]"), {2, 3}, Iota(6), 6);
  EXPECT_THAT(out, ElementsAre(0, 3, 1, 4, 2, 5));
}

TEST(Relayout, LargerTransposeUsesTheMicroKernel) {
  const std::vector<float> in = Iota(100 * 70);
  std::vector<float> out =
      RunBoth<float>(L("S[(100,70):(70,1)]"), L("S[(100,70):(1,100)]"), {100, 70}, in, 7000);
  for (int i = 0; i < 100; ++i) {
    for (int j = 0; j < 70; ++j)
      ASSERT_EQ(out[static_cast<size_t>(j * 100 + i)], in[static_cast<size_t>(i * 70 + j)]);
  }
  absl::StatusOr<RelayoutPlan> plan =
      PlanRelayout(L("S[(100,70):(70,1)]"), L("S[(100,70):(1,100)]"), {100, 70}, 4);
  ASSERT_OK(plan);
  EXPECT_THAT(plan->kernels(), ElementsAre(HasSubstr("transpose")));
  EXPECT_EQ(plan->threads(), 1);  // small: on the calling thread
}

TEST(Relayout, FusesDimensionsContiguousOnBothSides) {
  // Identity on a (4, 8, 16) row-major tensor: one contiguous run of 512 elements.
  absl::StatusOr<RelayoutPlan> plan =
      PlanRelayout(L("S[(4,8,16):(128,16,1)]"), L("S[(4,8,16):(128,16,1)]"), {4, 8, 16}, 4);
  ASSERT_OK(plan);
  EXPECT_THAT(plan->kernels(), ElementsAre("copy"));
  EXPECT_THAT(plan->ToString(), HasSubstr("dims 512[1,1]"));
  // The 3-D permutation (2,0,1) is a 2-D transpose once (0,1) fuse: dst[z][x][y] = src[x][y][z].
  plan = PlanRelayout(L("S[(8,8,8):(64,8,1)]"), L("S[(8,8,8):(8,1,64)]"), {8, 8, 8}, 4);
  ASSERT_OK(plan);
  EXPECT_THAT(plan->ToString(), HasSubstr("dims 8[1,64] 64[8,1]"));
  EXPECT_THAT(plan->kernels(), ElementsAre(HasSubstr("transpose")));
}

TEST(Relayout, ConstantStrideRowsOfASubView) {
  // A 4x5 window at (1, 2) of a 6x8 row-major buffer, copied to a compact 4x5 buffer.
  const std::vector<float> in = Iota(48);
  std::vector<float> out =
      RunBoth<float>(L("S[(4,5):(8,1)] + 10"), L("S[(4,5):(5,1)]"), {4, 5}, in, 20);
  EXPECT_EQ(out[0], 10);
  EXPECT_EQ(out[5], 18);
  EXPECT_EQ(out[19], 38);
  absl::StatusOr<RelayoutPlan> plan =
      PlanRelayout(L("S[(4,5):(8,1)] + 10"), L("S[(4,5):(5,1)]"), {4, 5}, 4);
  ASSERT_OK(plan);
  EXPECT_THAT(plan->kernels(), ElementsAre("copy"));
  EXPECT_EQ(plan->src_begin(), 10);
  EXPECT_EQ(plan->src_end(), 39);
  EXPECT_EQ(plan->dst_begin(), 0);
  EXPECT_EQ(plan->dst_end(), 20);
}

TEST(Relayout, TiledWithPaddingUntouchedOrFilled) {
  // f32[5, 6] row-major -> tiles of 2x4 over the padded domain (6, 8).
  const BufferLayout tiled(L("S[(3,2,2,4):(16,4,8,1)]"), {6, 8});
  const std::vector<float> in = Iota(30);
  std::vector<float> out = RunBoth<float>(L("S[(5,6):(6,1)]"), tiled, {5, 6}, in, 48);
  EXPECT_EQ(out[0], 0);    // (0,0)
  EXPECT_EQ(out[4], 6);    // (1,0): second row of the first tile
  EXPECT_EQ(out[8], 4);    // (0,4): first row of the second tile
  EXPECT_EQ(out[10], -1);  // (0,6): padding, untouched
  EXPECT_EQ(out[47], -1);  // (5,7)
  RelayoutOptions fill;
  fill.padding_value = ElementValue(7.5f);
  out = RunBoth<float>(L("S[(5,6):(6,1)]"), tiled, {5, 6}, in, 48, fill);
  EXPECT_EQ(out[10], 7.5f);
  EXPECT_EQ(out[47], 7.5f);
  EXPECT_EQ(std::count(out.begin(), out.end(), 7.5f), 48 - 30);
  absl::StatusOr<RelayoutPlan> plan = PlanRelayout(L("S[(5,6):(6,1)]"), tiled, {5, 6}, 4, fill);
  ASSERT_OK(plan);
  EXPECT_EQ(plan->elements(), 30);
  EXPECT_EQ(plan->elements_written(), 48);
  EXPECT_GT(plan->pieces(), 1);  // the partial last tiles are pieces of their own
}

TEST(Relayout, InterleaveAndDeinterleaveForPairedRows) {
  // Pairs of rows interleaved (XLA's (2,1) sub-tile): dst[(r/2)][c][r%2].
  const BufferLayout row_major(L("S[(8,32):(32,1)]"));
  const BufferLayout paired(L("S[(4,2,32):(64,1,2)]"), {8, 32});
  std::vector<uint16_t> in(256);
  std::iota(in.begin(), in.end(), 0);
  std::vector<uint16_t> out = RunBoth<uint16_t>(row_major, paired, {8, 32}, in, 256);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 32);
  EXPECT_EQ(out[2], 1);
  absl::StatusOr<RelayoutPlan> plan = PlanRelayout(row_major, paired, {8, 32}, 2);
  ASSERT_OK(plan);
  EXPECT_THAT(plan->kernels(), ElementsAre("interleave 2"));
  std::vector<uint16_t> back = RunBoth<uint16_t>(paired, row_major, {8, 32}, out, 256);
  EXPECT_EQ(back, in);
  plan = PlanRelayout(paired, row_major, {8, 32}, 2);
  ASSERT_OK(plan);
  EXPECT_THAT(plan->kernels(), ElementsAre("deinterleave 2"));
}

TEST(Relayout, NegativeStridesAndReplicas) {
  // Reverse the rows; the destination keeps two copies 100 elements apart.
  const std::vector<float> in = Iota(12);
  std::vector<float> out =
      RunBoth<float>(L("S[(3,4):(-4,1)] + 8"), L("S[(3,4):(4,1)] + R[2:100]"), {3, 4}, in, 112);
  EXPECT_EQ(out[0], 8);
  EXPECT_EQ(out[100], 8);
  EXPECT_EQ(out[111], 3);
  // Source replicas: the base copy is read.
  out = RunBoth<float>(L("S[4:1] + R[2:4]"), L("S[4:1]"), {4}, in, 4);
  EXPECT_THAT(out, ElementsAre(0, 1, 2, 3));
}

TEST(Relayout, BroadcastSource) {
  // Every row reads the same 4 source elements.
  std::vector<float> out =
      RunBoth<float>(L("S[(3,4):(0,1)]"), L("S[(3,4):(1,3)]"), {3, 4}, Iota(4), 12);
  EXPECT_THAT(out, ElementsAre(0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3));
}

TEST(Relayout, LayoutsThatDoNotSplitPerDimensionUseTheGenericPath) {
  // Column-major over 6 elements, read as shape (3, 2): element (i, j) has flat 2i+j, whose
  // digits over (2, 3) mix both dimensions.
  const std::vector<float> in = Iota(6);
  std::vector<float> out = RunBoth<float>(L("S[(2,3):(1,2)]"), L("S[(3,2):(2,1)]"), {3, 2}, in, 6);
  EXPECT_THAT(out, ElementsAre(0, 2, 4, 1, 3, 5));
  absl::StatusOr<RelayoutPlan> plan =
      PlanRelayout(L("S[(2,3):(1,2)]"), L("S[(3,2):(2,1)]"), {3, 2}, 4);
  ASSERT_OK(plan);
  EXPECT_TRUE(plan->generic());
  EXPECT_THAT(plan->ToString(), HasSubstr("generic"));
  // Two tilings with no common radix (tiles of 2 and of 3 on a dimension of 6).
  plan = PlanRelayout(L("S[(3,2):(2,1)]"), L("S[(2,3):(3,1)]"), {6}, 4);
  ASSERT_OK(plan);
  EXPECT_FALSE(plan->generic());  // a single flat dimension: both are S[6:1] once canonical
  plan = PlanRelayout(BufferLayout(L("S[(3,2,4):(8,1,2)]"), {6, 4}),
                      BufferLayout(L("S[(2,3,4):(12,1,3)]"), {6, 4}), {6, 4}, 4);
  ASSERT_OK(plan);
  EXPECT_TRUE(plan->generic()) << plan->ToString();
}

TEST(Relayout, EdgeCases) {
  // A zero-size dimension: nothing to copy; with a fill, the whole domain is padding.
  absl::StatusOr<RelayoutPlan> plan = PlanRelayout(L("S[5:1]"), L("S[5:1]"), {0, 5}, 4);
  ASSERT_OK(plan);
  EXPECT_EQ(plan->elements(), 0);
  EXPECT_EQ(plan->elements_written(), 0);
  EXPECT_TRUE(plan->Execute(nullptr, nullptr).ok());
  RelayoutOptions fill;
  fill.padding_value = ElementValue(1.0f);
  std::vector<float> out(5, 0);
  plan = PlanRelayout(L("S[(1,5):(5,1)]"), L("S[(1,5):(5,1)]"), {0, 5}, 4, fill);
  ASSERT_OK(plan);
  ASSERT_TRUE(plan->Execute(nullptr, out.data()).ok());
  EXPECT_THAT(out, ElementsAre(1, 1, 1, 1, 1));
  // Size-1 dimensions, a one-element tensor, a scalar.
  std::vector<float> one =
      RunBoth<float>(L("S[(1,3,1):(3,1,1)]"), L("S[(1,3,1):(1,1,3)]"), {1, 3, 1}, Iota(3), 3);
  EXPECT_THAT(one, ElementsAre(0, 1, 2));
  one = RunBoth<float>(L("S[1:1] + 2"), L("S[1:1] + 1"), {1}, Iota(3), 2);
  EXPECT_THAT(one, ElementsAre(-1, 2));
  one = RunBoth<float>(L("S[1:1]"), L("S[1:1]"), {}, std::vector<float>{42}, 1);
  EXPECT_THAT(one, ElementsAre(42));
}

TEST(Relayout, ThreadsAndStreamingStoresGiveTheSameResult) {
  const std::vector<float> in = Iota(256 * 192);
  for (int threads : {1, 2}) {
    for (StoreMode stores : {StoreMode::kRegular, StoreMode::kStreaming}) {
      RelayoutOptions o;
      o.threads = threads;
      o.min_parallel_bytes = 0;
      o.stores = stores;
      RunBoth<float>(L("S[(256,192):(192,1)]"), L("S[(256,192):(1,256)]"), {256, 192}, in,
                     in.size(), o);
      RunBoth<float>(L("S[(256,192):(192,1)]"), L("S[(256,192):(192,1)]"), {256, 192}, in,
                     in.size(), o);
    }
  }
  RelayoutOptions o;
  o.threads = 2;
  o.min_parallel_bytes = 0;
  o.stores = StoreMode::kStreaming;
  absl::StatusOr<RelayoutPlan> plan =
      PlanRelayout(L("S[(256,192):(192,1)]"), L("S[(256,192):(1,256)]"), {256, 192}, 4, o);
  ASSERT_OK(plan);
  EXPECT_EQ(plan->threads(), 2);
  EXPECT_THAT(plan->ToString(), HasSubstr("streaming stores"));
  EXPECT_THAT(plan->ToString(), HasSubstr("threads 2"));
}

TEST(Relayout, StagedTransposesOnMisalignedBuffers) {
  // Staged blocks shift with the destination's alignment (runs start on cache lines); every
  // element offset of the buffers must still give the oracle's result.
  const int64_t rows = 256, cols = 100;
  const BufferLayout src(L("S[(256,100):(100,1)]")), dst(L("S[(256,100):(1,256)]"));
  std::vector<float> in(rows * cols + 16), out(rows * cols + 16), expected(rows * cols + 16);
  for (size_t k = 0; k < in.size(); ++k) in[k] = static_cast<float>(k);
  for (int64_t offset = 0; offset < 16; offset += 3) {
    for (StoreMode stores : {StoreMode::kStreaming, StoreMode::kRegular}) {
      RelayoutOptions o;
      o.staged = 1;
      o.stores = stores;
      o.block_rows = 64;
      o.block_cols = 32;
      absl::StatusOr<RelayoutPlan> plan = PlanRelayout(src, dst, {rows, cols}, 4, o);
      ASSERT_OK(plan);
      EXPECT_THAT(plan->ToString(), HasSubstr("staged"));
      std::fill(out.begin(), out.end(), -1.0f);
      std::fill(expected.begin(), expected.end(), -1.0f);
      ASSERT_TRUE(plan->Execute(in.data() + offset, out.data() + offset).ok());
      ASSERT_TRUE(
          ReferenceRelayout(src, dst, {rows, cols}, 4, in.data() + offset, expected.data() + offset)
              .ok());
      EXPECT_EQ(out, expected) << "offset " << offset;
    }
  }
}

TEST(Relayout, MeasuredPlanSearch) {
  RelayoutOptions o;
  o.search = PlanSearch::kMeasure;
  o.measure_seconds = 0.05;
  const std::vector<float> in = Iota(128 * 96);
  RunBoth<float>(L("S[(128,96):(96,1)]"), L("S[(128,96):(1,128)]"), {128, 96}, in, in.size(), o);
  absl::StatusOr<RelayoutPlan> plan =
      PlanRelayout(L("S[(128,96):(96,1)]"), L("S[(128,96):(1,128)]"), {128, 96}, 4, o);
  ASSERT_OK(plan);
  EXPECT_THAT(plan->ToString(), HasSubstr("kMeasure: best of"));
}

TEST(Relayout, DescriptionNamesDimsLoopsKernelAndThreads) {
  // Planning only: nothing is allocated for 8192 x 8192.
  absl::StatusOr<RelayoutPlan> plan =
      PlanRelayout(L("S[(8192,8192):(8192,1)]"), L("S[(8192,8192):(1,8192)]"), {8192, 8192}, 4);
  ASSERT_OK(plan);
  const std::string s = plan->ToString();
  EXPECT_THAT(s, HasSubstr("relayout (8192, 8192) x 4 B"));
  EXPECT_THAT(s, HasSubstr("dims 8192[1,8192] 8192[8192,1]"));  // by destination stride
  EXPECT_THAT(s, HasSubstr("loops J/"));
  EXPECT_THAT(s, HasSubstr("kernel transpose"));
  EXPECT_THAT(s, HasSubstr("streaming stores"));
  EXPECT_THAT(s, HasSubstr("threads "));
  EXPECT_EQ(plan->bytes_moved(), int64_t{2} * 8192 * 8192 * 4);
  EXPECT_EQ(plan->threads(), ThreadPool::Default().size());
  // The same parts as fields.
  const PlanInfo info = plan->Info();
  EXPECT_THAT(info.shape, ElementsAre(8192, 8192));
  EXPECT_EQ(info.element_bytes, 4);
  EXPECT_EQ(info.src, "S[(8192,8192):(8192,1)]");
  EXPECT_EQ(info.dst, "S[(8192,8192):(1,8192)]");
  EXPECT_FALSE(info.generic);
  ASSERT_EQ(info.pieces.size(), 1u);
  const PlanPieceInfo& piece = info.pieces[0];
  EXPECT_FALSE(piece.fill);
  ASSERT_EQ(piece.loops.size(), 2u);
  EXPECT_EQ(piece.loops[0].extent, 8192);
  EXPECT_EQ(piece.loops[0].src_stride, 1);
  EXPECT_EQ(piece.loops[0].dst_stride, 8192);
  EXPECT_EQ(piece.loops[1].src_stride, 8192);
  EXPECT_EQ(piece.loops[1].dst_stride, 1);
  EXPECT_THAT(piece.kernel, HasSubstr("transpose"));
  EXPECT_TRUE(piece.streaming_stores);
  EXPECT_THAT(s, HasSubstr(absl::StrCat("loops ", piece.loop_order, "; kernel ", piece.kernel,
                                        " in ", piece.block_i, "x", piece.block_j)));
  EXPECT_EQ(info.threads, plan->threads());
  EXPECT_THAT(s, HasSubstr(absl::StrCat("threads ", info.threads, " (", info.chunks,
                                        " chunks), SIMD ", info.simd_target)));
}

TEST(Relayout, InfoOfGenericAndPaddedPlans) {
  // Padding filled: copy pieces, then fill pieces.
  const BufferLayout tiled(L("S[(3,2,2,4):(16,4,8,1)]"), {6, 8});
  RelayoutOptions fill;
  fill.padding_value = ElementValue(7.5f);
  absl::StatusOr<RelayoutPlan> plan = PlanRelayout(L("S[(5,6):(6,1)]"), tiled, {5, 6}, 4, fill);
  ASSERT_OK(plan);
  PlanInfo info = plan->Info();
  const auto fills = std::count_if(info.pieces.begin(), info.pieces.end(),
                                   [](const PlanPieceInfo& p) { return p.fill; });
  EXPECT_GT(fills, 0);
  EXPECT_EQ(static_cast<int>(info.pieces.size() - fills), plan->pieces());
  EXPECT_FALSE(info.pieces.front().fill);
  EXPECT_TRUE(info.pieces.back().fill);
  EXPECT_EQ(info.pieces.back().kernel, "fill");
  // The generic path names its reason; it has no pieces or chunks.
  plan = PlanRelayout(L("S[(2,3):(1,2)]"), L("S[(3,2):(2,1)]"), {3, 2}, 4);
  ASSERT_OK(plan);
  info = plan->Info();
  EXPECT_TRUE(info.generic) << plan->ToString();
  EXPECT_THAT(info.generic_reason, HasSubstr("does not split"));
  EXPECT_TRUE(info.pieces.empty());
  EXPECT_EQ(info.chunks, 0);
  EXPECT_THAT(plan->ToString(), HasSubstr(info.generic_reason));
}

TEST(Relayout, Errors) {
  auto error = [](const BufferLayout& s, const BufferLayout& d, std::vector<int64_t> shape,
                  int bytes, const RelayoutOptions& o = {}) {
    return PlanRelayout(s, d, shape, bytes, o).status();
  };
  EXPECT_THAT(error(L("S[4:1]"), L("S[4:1]"), {4}, 3),
              InvalidArgument("element size 3 bytes is not supported"));
  EXPECT_THAT(error(L("S[4:1]"), L("S[4:1]"), {4}, 0), InvalidArgument("sub-byte packed types"));
  EXPECT_THAT(error(L("S[(4,4):(4@lane,1)]"), L("S[16:1]"), {16}, 4),
              InvalidArgument("shard iter 0 (4:4@lane) is on thread axis 'lane'"));
  EXPECT_THAT(error(L("S[16:1]"), L("S[(4,4):(4@reg,1)]"), {16}, 4),
              InvalidArgument("two memory axes 'reg' and 'm'"));
  EXPECT_THAT(error(L("S[16:1]"), L("S[16:1] + 2@gpuid"), {16}, 4),
              InvalidArgument("device axis 'gpuid'"));
  EXPECT_THAT(error(L("S[(4,4):(4,1)]"), L("S[(4,4):(1,1)]"), {4, 4}, 4),
              InvalidArgument("is not injective"));
  EXPECT_THAT(error(L("S[4:1]"), L("S[4:100] + R[(2,2):(2,3)]"), {4}, 4),
              InvalidArgument("replica copies overlap"));
  EXPECT_THAT(error(L("S[4:1]"), L("S[4:1] + R[2:1]"), {4}, 4),
              InvalidArgument("is not injective"));
  EXPECT_THAT(error(L("S[4:1]"), L("S[4:1]"), {2, 3}, 4),
              InvalidArgument("shape (2, 3) has 6 elements but the layout S[4:1] has size 4"));
  // 2^58 16-byte elements read (broadcast) and written: 2^63 bytes moved, one too many.
  EXPECT_THAT(
      error(L("S[288230376151711744:0]"), L("S[288230376151711744:1]"), {int64_t{1} << 58}, 16),
      InvalidArgument("more than 2^63 bytes"));
  // A zero extent: the message quotes the shape given, and the domain checked.
  EXPECT_THAT(error(L("S[(1,64):(64,1)]"), L("S[(64,2):(1,64)]"), {0, 64}, 4),
              InvalidArgument("destination: shape (0, 64) is stored over the domain (1, 64)"));
  EXPECT_THAT(error(L("S[4:1]"), L("S[4:1]"), {}, 4),
              InvalidArgument("source: shape () is stored over the domain (1)"));
  EXPECT_THAT(error(L("S[4:1]"), L("S[4:1]"), {-1, 4}, 4),
              InvalidArgument("dimension 0 has negative extent -1"));
  EXPECT_THAT(error(BufferLayout(L("S[8:1]"), {2, 4}), L("S[8:1]"), {8}, 4),
              InvalidArgument("has rank 2"));
  EXPECT_THAT(
      error(BufferLayout(L("S[8:1]"), {2, 4}), L("S[(3,4):(4,1)]"), {3, 4}, 4),
      InvalidArgument("domain dimension 0 (extent 2) cannot hold shape dimension 0 (extent 3)"));
  RelayoutOptions bad_fill;
  bad_fill.padding_value = std::vector<uint8_t>{1, 2};
  EXPECT_THAT(error(L("S[4:1]"), L("S[4:1]"), {4}, 4, bad_fill),
              InvalidArgument("padding value has 2 bytes"));
  // A destination that is injective over the box but not over its padded domain: fine
  // untouched, an error when the padding is filled.
  const BufferLayout aliased(L("S[(3,2):(1,2)]"), {3, 2});  // (2,0) and (0,1) share offset 2
  EXPECT_TRUE(PlanRelayout(L("S[(2,2):(2,1)]"), aliased, {2, 2}, 4).ok());
  RelayoutOptions fill;
  fill.padding_value = ElementValue(0.0f);
  EXPECT_THAT(error(L("S[(2,2):(2,1)]"), aliased, {2, 2}, 4, fill),
              InvalidArgument("not injective over its domain"));
  // Execute: null pointers and overlapping buffers.
  absl::StatusOr<RelayoutPlan> plan =
      PlanRelayout(L("S[(4,4):(4,1)]"), L("S[(4,4):(1,4)]"), {4, 4}, 4);
  ASSERT_OK(plan);
  std::vector<float> buf(32);
  EXPECT_THAT(plan->Execute(buf.data(), buf.data() + 8), InvalidArgument("overlap"));
  EXPECT_OK(plan->Execute(buf.data(), buf.data() + 16));
  EXPECT_THAT(plan->Execute(nullptr, buf.data()), InvalidArgument("null buffer pointer"));
}

TEST(Relayout, OneShot) {
  const std::vector<float> in = Iota(6);
  std::vector<float> out(6);
  ASSERT_TRUE(
      Relayout(L("S[(2,3):(3,1)]"), L("S[(2,3):(1,2)]"), {2, 3}, 4, in.data(), out.data()).ok());
  EXPECT_THAT(out, ElementsAre(0, 3, 1, 4, 2, 5));
  EXPECT_THAT(Relayout(L("S[(2,3):(3,1)]"), L("S[(2,3):(1,2)]"), {3, 3}, 4, in.data(), out.data()),
              InvalidArgument("shape (3, 3) has 9 elements"));
}

TEST(BufferLayout, TextRoundTripAndErrors) {
  for (const char* text :
       {"S[(512,4,2,32,128):(32768,256,1,1024,2)] over (4096, 4096)", "S[(4,5):(8,1)] + 10",
        "S[4:1@over] over (4)", "S[6:1] + R[2:6] over (2, 3)"}) {
    absl::StatusOr<BufferLayout> b = BufferLayout::Parse(text);
    ASSERT_TRUE(b.ok()) << text << ": " << b.status().message();
    absl::StatusOr<BufferLayout> again = BufferLayout::Parse(b->ToString());
    ASSERT_TRUE(again.ok()) << b->ToString();
    EXPECT_EQ(*again, *b);
    EXPECT_EQ(absl::HashOf(*again), absl::HashOf(*b));
  }
  absl::StatusOr<BufferLayout> b = BufferLayout::Parse("S[16:1] over (4,4)");
  ASSERT_OK(b);
  EXPECT_THAT(b->domain, ElementsAre(4, 4));
  EXPECT_EQ(b->ToString(), "S[16:1] over (4, 4)");
  EXPECT_THAT(BufferLayout::Parse("S[16:1] over (4,x)"), InvalidArgument("domain after 'over'"));
  EXPECT_THAT(BufferLayout::Parse("S[16:1 over (4,4)"), InvalidArgument("position"));
  EXPECT_EQ(BufferLayout(L("S[16:1]")).DomainFor({0, 16}), (std::vector<int64_t>{1, 16}));
}

TEST(ElementType, SizesAndSubByteRejection) {
  EXPECT_THAT(ElementBytes(DType::kPred), IsOkAndHolds(1));
  EXPECT_THAT(ElementBytes(DType::kF8E4M3FN), IsOkAndHolds(1));
  EXPECT_THAT(ElementBytes(DType::kBF16), IsOkAndHolds(2));
  EXPECT_THAT(ElementBytes(DType::kF32), IsOkAndHolds(4));
  EXPECT_THAT(ElementBytes(DType::kC64), IsOkAndHolds(8));
  EXPECT_THAT(ElementBytes(DType::kC128), IsOkAndHolds(16));
  EXPECT_THAT(ElementBytes(*ParseDType("bfloat16")), IsOkAndHolds(2));
  EXPECT_THAT(ElementBytes(*ParseDType("i64")), IsOkAndHolds(8));
  EXPECT_THAT(ElementBytes(DType::kS4),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("sub-byte packed type 's4'")));
  EXPECT_THAT(ElementBytes(DType::kU4),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("sub-byte packed type 'u4' (4 bits per element)")));
  EXPECT_THAT(ElementBytes(DType::kF4E2M1FN),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("'f4e2m1fn' (4 bits")));
  EXPECT_THAT(ElementBytes(DType::kTuple),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("element type 'tuple' is not an array element type")));
  // Every array type of a byte or more has a supported size.
  for (DType t : AllDTypes()) {
    if (!IsArrayType(t) || IsSubByteNonPred(t)) continue;
    absl::StatusOr<int> bytes = ElementBytes(t);
    ASSERT_OK(bytes);
    EXPECT_OK(CheckElementBytes(*bytes)) << XlaName(t);
    EXPECT_EQ(*bytes, ByteWidth(t)) << XlaName(t);
  }
  for (int b : {1, 2, 4, 8, 16}) EXPECT_OK(CheckElementBytes(b));
  for (int b : {0, 3, 5, 32, -4}) {
    EXPECT_THAT(CheckElementBytes(b),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(absl::StrCat("element size ", b, " bytes is not supported"))));
  }
}

}  // namespace
}  // namespace relayout_test
}  // namespace axe::relayout
