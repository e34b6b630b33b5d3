// The layouts of real hardware, each checked over its whole tile against an independent
// closed formula (the PTX ISA's fragment descriptions, the TMA byte-level swizzle, the
// TMEM data-path formulas, Trainium's partition/free split, the mesh's device numbering),
// and against the spec's text where it gives one.
#include <random>

#include "axe/layout/apply.h"
#include "axe/layout/axis_catalog.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"
#include "axe/layout/nvidia.h"
#include "axe/layout/properties.h"
#include "axe/layout/swizzle.h"
#include "axe/layout/tile.h"
#include "axe/layout/tmem.h"
#include "axe/layout/trainium.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"

namespace axe {
namespace hardware_test {
namespace {

using ::testing::HasSubstr;

const Axis kLane = Axis::Get("laneid"), kReg = Axis::Get("reg"), kM = Axis::Memory();

Layout P(absl::string_view text) { return testing::ParseOrFail(text); }

// Checks that `l` on `shape` maps exactly: every (row, col) produced by `owner` for the
// hardware resources goes to that point, and the map covers the tile once.
void ExpectSinglePoint(const Layout& l, std::vector<int64_t> shape, std::vector<int64_t> coord,
                       const PhysCoord& want) {
  absl::StatusOr<std::vector<PhysCoord>> got = Apply(l, shape, coord);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 1u) << l;
  EXPECT_EQ((*got)[0], want) << l << " at (" << coord[0] << ", " << coord[1] << ")";
}

TEST(Nvidia, MmaM8N8FragmentMatchesPtx) {
  const Layout l = MmaM8N8Fragment();
  EXPECT_EQ(l.ToString(), "S[(8,4,2):(4@laneid,1@laneid,1@reg)]");
  int covered = 0;
  for (int64_t lane = 0; lane < 32; ++lane) {
    for (int64_t i = 0; i < 2; ++i) {
      const int64_t row = lane >> 2,
                    col = 2 * (lane % 4) + i;  // groupID, threadID_in_group * 2 + i
      ExpectSinglePoint(l, {8, 8}, {row, col}, PhysCoord{{kLane, lane}, {kReg, i}});
      ++covered;
    }
  }
  EXPECT_EQ(covered, l.size());
  EXPECT_TRUE(*IsInjective(l));
}

TEST(Nvidia, MmaM16N8K16AccumulatorMatchesPtx) {
  EXPECT_EQ(MmaM16N8K16Accumulator(Axis::Memory()).ToString(),
            "S[(2,8,4,2):(2,4@laneid,1@laneid,1)]");
  const Layout l = MmaM16N8K16Accumulator();
  // The m8n8 fragment tiled along M (the tile's canonical form,
  // S[(2,32,2):(2@reg,1@laneid,1@reg)]).
  EXPECT_TRUE(*Equivalent(l, *Tile(P("S[2:1@reg]"), {2, 1}, MmaM8N8Fragment(), {8, 8})));
  for (int64_t lane = 0; lane < 32; ++lane) {
    for (int64_t i = 0; i < 4; ++i) {
      const int64_t row = (lane >> 2) + 8 * (i >= 2), col = 2 * (lane % 4) + (i % 2);
      ExpectSinglePoint(l, {16, 8}, {row, col}, PhysCoord{{kLane, lane}, {kReg, i}});
    }
  }
  EXPECT_TRUE(*IsInjective(l));
}

TEST(Nvidia, WgmmaM64AccumulatorMatchesPtx) {
  EXPECT_EQ(WgmmaM64Accumulator(64, Axis::Memory())->ToString(),
            "S[(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)]");
  const Axis warp = Axis::Get("wid_in_wg");
  for (int64_t n : {8, 64, 112, 256}) {
    const Layout l = *WgmmaM64Accumulator(n);
    ASSERT_EQ(l.size(), 64 * n);
    for (int64_t w = 0; w < 4; ++w) {
      for (int64_t lane = 0; lane < 32; ++lane) {
        for (int64_t i = 0; i < n / 2; ++i) {
          const int64_t row = 16 * w + (lane >> 2) + 8 * ((i >> 1) % 2);
          const int64_t col = 8 * (i >> 2) + 2 * (lane % 4) + (i % 2);
          ExpectSinglePoint(l, {64, n}, {row, col}, PhysCoord{{warp, w}, {kLane, lane}, {kReg, i}});
        }
      }
    }
  }
  EXPECT_THAT(std::string(WgmmaM64Accumulator(12).status().message()),
              HasSubstr("multiple of 8 in [8, 256]"));
  EXPECT_FALSE(WgmmaM64Accumulator(264).ok());
}

TEST(Nvidia, CtaTileOfWarpFragments) {
  absl::StatusOr<Layout> cta = CtaTile(MmaM16N8K16Accumulator(), {16, 8}, {2, 2});
  ASSERT_TRUE(cta.ok()) << cta.status();
  const Axis warpid = Axis::Get("warpid");
  for (int64_t r = 0; r < 32; ++r) {
    for (int64_t c = 0; c < 16; ++c) {
      const int64_t warp = 2 * (r / 16) + c / 8, rr = r % 16, cc = c % 8;
      const int64_t lane = 4 * (rr % 8) + cc / 2, reg = 2 * (rr / 8) + cc % 2;
      ExpectSinglePoint(*cta, {32, 16}, {r, c},
                        PhysCoord{{warpid, warp}, {kLane, lane}, {kReg, reg}});
    }
  }
  EXPECT_FALSE(CtaTile(MmaM8N8Fragment(), {8, 8}, {4}).ok());
}

// The TMA / CUTLASS byte-level statement of the shared-memory swizzles: in a byte address,
// the 16-byte chunk bits [4, 4+B) are XORed with bits [7, 7+B).
int64_t ByteSwizzle(int64_t byte_address, int b) {
  return byte_address ^ (((byte_address >> 7) & ((int64_t{1} << b) - 1)) << 4);
}

TEST(Nvidia, SharedMemorySwizzleAtomsMatchTheByteFormula) {
  EXPECT_EQ(SharedMemorySwizzleAtom(16, SmemSwizzle::k128B)->ToString(),
            "Swizzled(3,3,3, S[(8,64):(64,1)])");
  EXPECT_EQ(SharedMemorySwizzleAtom(16, SmemSwizzle::k64B)->ToString(),
            "Swizzled(3,2,3, S[(8,32):(32,1)])");
  EXPECT_EQ(SharedMemorySwizzleAtom(16, SmemSwizzle::k32B)->ToString(),
            "Swizzled(3,1,3, S[(8,16):(16,1)])");
  EXPECT_EQ(SharedMemorySwizzleAtom(32, SmemSwizzle::k128B)->per_element(), 2);
  EXPECT_EQ(SharedMemorySwizzleAtom(8, SmemSwizzle::k128B)->per_element(), 4);
  for (int bits : {8, 16, 32, 64}) {
    for (SmemSwizzle mode : {SmemSwizzle::k32B, SmemSwizzle::k64B, SmemSwizzle::k128B}) {
      const int b = static_cast<int>(mode);
      const SwizzledLayout atom = *SharedMemorySwizzleAtom(bits, mode);
      const int64_t bytes = bits / 8, row_bytes = 16 << b, cols = row_bytes / bytes;
      ASSERT_EQ(atom.size(), 8 * cols);
      for (int64_t r = 0; r < 8; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          const int64_t addr = atom.ApplyBase({8, cols}, {r, c})->get(kM);
          EXPECT_EQ(addr * bytes, ByteSwizzle((r * cols + c) * bytes, b))
              << atom << " at " << r << "," << c;
        }
      }
    }
  }
  EXPECT_THAT(std::string(SharedMemorySwizzleAtom(12, SmemSwizzle::k128B).status().message()),
              HasSubstr("power of two"));
}

TEST(Nvidia, Example62aSharedLayoutOfA64x256Tile) {
  const SwizzledLayout l = *SharedMemorySwizzleLayout(16, SmemSwizzle::k128B, 64, 256);
  EXPECT_EQ(l.ToString(), "Swizzled(3,3,3, S[(64,4,64):(64,4096,1)])");
  // Atoms of 8 x 64 fp16, ordered column-major, each swizzled in bytes.
  for (int64_t r = 0; r < 64; ++r) {
    for (int64_t c = 0; c < 256; ++c) {
      const int64_t atom = r / 8 + 8 * (c / 64), linear = atom * 512 + (r % 8) * 64 + c % 64;
      EXPECT_EQ(l.ApplyBase({64, 256}, {r, c})->get(kM) * 2, ByteSwizzle(linear * 2, 3));
    }
  }
  EXPECT_THAT(
      std::string(SharedMemorySwizzleLayout(16, SmemSwizzle::k128B, 60, 256).status().message()),
      HasSubstr("not a whole number of (8, 64) atoms"));
}

const Axis kTLane = Axis::Get("TLane"), kTCol = Axis::Get("TCol");

TEST(Tmem, DatapathLayoutsMatchTheIsaFormulas) {
  EXPECT_EQ(TmemDatapathD(64)->ToString(), "S[(128,64):(1@TLane,1@TCol)]");
  EXPECT_EQ(TmemDatapathF(64)->ToString(), "S[(4,16,64):(32@TLane,1@TLane,1@TCol)]");
  EXPECT_EQ(TmemDatapathF(64, 1)->ToString(), "S[(4,16,64):(32@TLane,1@TLane,1@TCol)] + 16@TLane");
  EXPECT_EQ(TmemDatapathBE(64)->ToString(), "S[(64,2,32):(1@TLane,64@TLane,1@TCol)]");
  EXPECT_EQ(TmemDatapathG(64)->ToString(), "S[(32,4,16):(1@TLane,32@TLane,1@TCol)]");
  for (int64_t n : {16, 112, 256}) {
    for (int64_t r = 0; r < 128; ++r) {
      for (int64_t c = 0; c < n; ++c) {
        ExpectSinglePoint(*TmemDatapathD(n), {128, n}, {r, c}, PhysCoord{{kTLane, r}, {kTCol, c}});
        if (r < 64) {
          for (int sub : {0, 1}) {
            ExpectSinglePoint(*TmemDatapathF(n, sub), {64, n}, {r, c},
                              PhysCoord{{kTLane, 32 * (r / 16) + r % 16 + 16 * sub}, {kTCol, c}});
          }
          ExpectSinglePoint(*TmemDatapathBE(n), {64, n}, {r, c},
                            PhysCoord{{kTLane, r + 64 * (c / (n / 2))}, {kTCol, c % (n / 2)}});
        }
        if (r < 32) {
          ExpectSinglePoint(*TmemDatapathG(n), {32, n}, {r, c},
                            PhysCoord{{kTLane, r + 32 * (c / (n / 4))}, {kTCol, c % (n / 4)}});
        }
      }
    }
  }
  for (const Layout& l :
       {*TmemDatapathD(32), *TmemDatapathF(32), *TmemDatapathBE(32), *TmemDatapathG(32)}) {
    EXPECT_TRUE(*IsInjective(l)) << l;
  }
  EXPECT_FALSE(TmemDatapathD(0).ok());
  EXPECT_THAT(std::string(TmemDatapathF(8, 2).status().message()),
              HasSubstr("sub_slab must be 0 or 1"));
  EXPECT_THAT(std::string(TmemDatapathBE(7).status().message()), HasSubstr("even"));
  EXPECT_THAT(std::string(TmemDatapathG(6).status().message()), HasSubstr("multiple of 4"));
}

TEST(Tmem, RegisterAtomScaleFactorsAndStagedAccumulators) {
  EXPECT_EQ(Tmem32x32bAtom(16, Axis::Memory())->ToString(), "S[(128,16):(1@tid_in_wg,1)]");
  const Axis tid = Axis::Get("tid_in_wg");
  for (int64_t r = 0; r < 128; ++r) {
    for (int64_t k = 0; k < 8; ++k)
      ExpectSinglePoint(*Tmem32x32bAtom(8), {128, 8}, {r, k}, PhysCoord{{tid, r}, {kReg, k}});
  }
  EXPECT_EQ(TmemScaleFactors(32, 4)->ToString(), "S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]");
  EXPECT_EQ(TmemScaleFactors(128, 4)->ToString(),
            "S[(4,32,4):(4@TCol,1@TLane,1@TCol)] + R[4:32@TLane]");
  for (int64_t rows : {32, 128}) {
    const Layout l = *TmemScaleFactors(rows, 4);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < 4; ++j) {
        std::vector<PhysCoord> want;
        for (int64_t w = 0; w < 4; ++w)
          want.push_back(PhysCoord{{kTLane, r % 32 + 32 * w}, {kTCol, 4 * (r / 32) + j}});
        std::sort(want.begin(), want.end());
        EXPECT_EQ(*Apply(l, {rows, 4}, {r, j}), want);  // the .warpx4 multicast: every lane quarter
      }
    }
  }
  EXPECT_FALSE(TmemScaleFactors(48, 4).ok());
  EXPECT_FALSE(TmemScaleFactors(32, 0).ok());
  absl::StatusOr<Layout> acc = TmemStagedAccumulator(2, 112, Axis::Get("Lane"), Axis::Get("Col"));
  ASSERT_TRUE(acc.ok());
  EXPECT_EQ(acc->ToString(), "S[(2,128,112):(112@Col,1@Lane,1@Col)]");
  const Layout staged = *TmemStagedAccumulator(2, 112);
  for (int64_t s = 0; s < 2; ++s) {
    for (int64_t r = 0; r < 128; ++r) {
      for (int64_t c = 0; c < 112; ++c) {
        std::vector<PhysCoord> got = *Apply(staged, {2, 128, 112}, {s, r, c});
        ASSERT_EQ(got, std::vector<PhysCoord>{(PhysCoord{{kTLane, r}, {kTCol, 112 * s + c}})});
      }
    }
  }
  EXPECT_EQ(staged.span(kTCol), 224);  // not a power of two
  EXPECT_THAT(std::string(TmemStagedAccumulator(5, 112).status().message()),
              HasSubstr("exceed the 512 TMEM columns"));
}

const Axis kP = Axis::Get("P"), kF = Axis::Get("F"), kBank = Axis::Get("Bank");

TEST(Trainium, PartitionFreeLayouts) {
  EXPECT_EQ(Trainium("PF", {256, 512})->ToString(), "S[(2,128,512):(512@F,1@P,1@F)]");
  for (int64_t r = 0; r < 256; ++r) {
    for (int64_t c = 0; c < 512; c += 7) {
      ExpectSinglePoint(*Trainium("PF", {256, 512}), {256, 512}, {r, c},
                        PhysCoord{{kP, r % 128}, {kF, 512 * (r / 128) + c}});
    }
  }
  // A P dimension last: its high part is still the outermost F component.
  const Layout fp = *Trainium("FP", {64, 256});
  for (int64_t r = 0; r < 64; ++r) {
    for (int64_t c = 0; c < 256; ++c) {
      ExpectSinglePoint(fp, {64, 256}, {r, c}, PhysCoord{{kP, c % 128}, {kF, r + 64 * (c / 128)}});
    }
  }
  // Several P and F dimensions: row-major among each kind.
  const Layout mixed = *Trainium("FPFP", {3, 4, 5, 8});
  const std::vector<int64_t> shape = {3, 4, 5, 8};
  for (int64_t a = 0; a < 3; ++a) {
    for (int64_t b = 0; b < 4; ++b) {
      for (int64_t c = 0; c < 5; ++c) {
        for (int64_t d = 0; d < 8; ++d) {
          std::vector<PhysCoord> got = *Apply(mixed, shape, {a, b, c, d});
          ASSERT_EQ(got, std::vector<PhysCoord>{(PhysCoord{{kP, 8 * b + d}, {kF, 5 * a + c}})});
        }
      }
    }
  }
  EXPECT_THAT(std::string(Trainium("PF", {256}).status().message()), HasSubstr("has 2 letters"));
  EXPECT_THAT(std::string(Trainium("PX", {4, 4}).status().message()),
              HasSubstr("expected 'P' or 'F'"));
  EXPECT_THAT(std::string(Trainium("PP", {16, 16}).status().message()),
              HasSubstr("more than 128 partitions"));
  EXPECT_THAT(std::string(Trainium("PF", {200, 4}).status().message()),
              HasSubstr("multiple of 128"));
}

TEST(Trainium, ToPsumExample18AndBankFormula) {
  absl::StatusOr<Layout> psum = ToPsum(P("S[(1024,8):(1@F,1@P)]"));
  ASSERT_TRUE(psum.ok()) << psum.status();
  EXPECT_EQ(psum->ToString(), "S[(2,512,8):(1@Bank,1@F,1@P)]");
  EXPECT_EQ(*ApplyBase(*psum, {1024, 8}, {600, 3}), (PhysCoord{{kBank, 1}, {kF, 88}, {kP, 3}}));
  // Every element keeps its fp32 slot: F' + 512 Bank == F.
  const Layout sbuf = *Trainium("PF", {256, 1024});
  const Layout moved = *ToPsum(sbuf);
  for (int64_t x = 0; x < sbuf.size(); x += 13) {
    const PhysCoord a = *ApplyBase(sbuf, x), b = *ApplyBase(moved, x);
    EXPECT_EQ(b.get(kF) + 512 * b.get(kBank), a.get(kF));
    EXPECT_EQ(b.get(kP), a.get(kP));
    EXPECT_LT(b.get(kF), 512);
  }
  EXPECT_EQ(ToPsum(P("S[(4,128):(512@F,1@P)] + 1024@F"))->ToString(),
            "S[(4,128):(1@Bank,1@P)] + 2@Bank");
  EXPECT_THAT(std::string(ToPsum(P("S[1024:3@F]")).status().message()),
              HasSubstr("does not divide the bank size"));
  EXPECT_THAT(std::string(ToPsum(P("S[768:1@F]")).status().message()),
              HasSubstr("multiple of 512"));
  EXPECT_THAT(std::string(ToPsum(P("S[8192:1@F]")).status().message()), HasSubstr("PSUM has 8"));
  EXPECT_THAT(std::string(ToPsum(P("S[512:1@F] + 5@F")).status().message()),
              HasSubstr("a bank holds 512"));
  EXPECT_THAT(std::string(ToPsum(P("S[4:-1@F]")).status().message()), HasSubstr("negative"));
}

// A sharded tensor is the tile of a local layout by the mesh layout on a device axis.
TEST(Mesh, Example5CompactShardingOnA2x2Mesh) {
  const Layout mesh = P("S[(2,2):(1@gpuid,2@gpuid)]");  // devices numbered column-major
  absl::StatusOr<Layout> s0s1 = Tile(mesh, {2, 2}, P("S[(32,64):(64,1)]"), {32, 64});
  ASSERT_TRUE(s0s1.ok()) << s0s1.status();
  EXPECT_EQ(*s0s1, P("S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]"));
  const Axis gpu = Axis::Get("gpuid");
  for (int64_t i = 0; i < 64; ++i) {
    for (int64_t j = 0; j < 128; ++j) {
      ExpectSinglePoint(*s0s1, {64, 128}, {i, j},
                        PhysCoord{{gpu, i / 32 + 2 * (j / 64)}, {kM, 64 * (i % 32) + j % 64}});
    }
  }
  EXPECT_EQ(Storage(*s0s1).ToString(), "S[2048:1]");  // compact local storage
  EXPECT_EQ(*ApplyBase(*s0s1, {64, 128}, {33, 65}), (PhysCoord{{gpu, 3}, {kM, 65}}));
}

TEST(Mesh, BlogLayoutBIsAcceptedButNotCompact) {
  // The blog writes 128@m (layout_b): valid input, but each device's 2048 elements spread
  // over 4032 slots; the tile of the compact local layout spans exactly 2048.
  const Layout blog = P("S[(2,32,2,64):(1@gpuid,128@m,2@gpuid,1@m)]");
  EXPECT_EQ(Storage(blog).span(kM), 4032);
  EXPECT_TRUE(*IsInjective(blog));
  const Layout compact =
      *Tile(P("S[(2,2):(1@gpuid,2@gpuid)]"), {2, 2}, P("S[(32,64):(64,1)]"), {32, 64});
  EXPECT_EQ(Storage(compact).span(kM), 2048);
  EXPECT_FALSE(*Equivalent(blog, compact));
}

// Example 64 (Appendix G): a 24x24 column-major layout is not F2-linear, yet is one iter pair.
TEST(TritonComparison, Example64NonPowerOfTwoExtentsAreNotF2Linear) {
  const Layout l = P("S[(24,24):(1,24)]");
  auto f = [&l](int64_t x) { return ApplyBase(l, x)->get(kM); };
  EXPECT_EQ(f(1), 24);
  EXPECT_EQ(f(2), 48);
  EXPECT_EQ(f(3), 72);
  EXPECT_NE(f(1) ^ f(2), f(1 ^ 2));
}

TEST(Mesh, ReplicatedAndRowMajorMeshes) {
  const Axis gpu = Axis::Get("gpuid");
  // Alpa S0R: mesh dimension 1 holds copies, a replica of the mesh part.
  const Layout s0r = *Tile(P("S[(2,1):(1@gpuid,1@gpuid)] + R[2:2@gpuid]"), {2, 1},
                           P("S[(32,128):(128,1)]"), {32, 128});
  EXPECT_EQ(s0r.ToString(), "S[(2,4096):(1@gpuid,1)] + R[2:2@gpuid]");
  EXPECT_EQ(Group(s0r, {64, 128})->layout.ToString(),
            "S[(2,32,128):(1@gpuid,128,1)] + R[2:2@gpuid]");
  for (int64_t i = 0; i < 64; i += 3) {
    for (int64_t j = 0; j < 128; j += 5) {
      std::vector<PhysCoord> want = {PhysCoord{{gpu, i / 32}, {kM, 128 * (i % 32) + j}},
                                     PhysCoord{{gpu, i / 32 + 2}, {kM, 128 * (i % 32) + j}}};
      std::sort(want.begin(), want.end());
      EXPECT_EQ(*Apply(s0r, {64, 128}, {i, j}), want);
    }
  }
  // JAX numbers devices row-major: the same picture gets other gpuid strides.
  const Layout row =
      *Tile(P("S[(2,2):(2@gpuid,1@gpuid)]"), {2, 2}, P("S[(32,64):(64,1)]"), {32, 64});
  EXPECT_EQ(row.ToString(), "S[(2,32,2,64):(2@gpuid,64,1@gpuid,1)]");
  // A dimension sharded over both dimensions of a row-major 2x4 mesh (minor first) on a
  // device axis of its own.
  const AxisCatalog catalog = *AxisCatalog::Standard().With({{"mesh_x", AxisKind::kDevice}});
  const Axis x = Axis::Get("mesh_x", AxisKind::kDevice);
  const Layout both = *Tile(*Layout::Parse("S[(4,2,1):(1@mesh_x,4@mesh_x,1@mesh_x)]", catalog),
                            {8, 1}, P("S[(2,4):(4,1)]"), {2, 4});
  for (int64_t i = 0; i < 16; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      // Row block i / 2 of 8 is owned by mesh coordinate (b % 2, b / 2) = device 4 (b % 2) + b / 2.
      const int64_t b = i / 2;
      ExpectSinglePoint(both, {16, 4}, {i, j},
                        PhysCoord{{x, 4 * (b % 2) + b / 2}, {kM, 4 * (i % 2) + j}});
    }
  }
}

}  // namespace
}  // namespace hardware_test
}  // namespace axe
