// The relayout kernels, compiled once per SIMD target by Highway (foreach_target.h) and
// picked at run time (HWY_DYNAMIC_DISPATCH), so one binary uses AVX-512 where the CPU has
// it and AVX2 or SSE4 elsewhere.
//
// A nest's units (cache blocks) are walked with an odometer: the unit index is decoded once
// per chunk (divisions), then every step adds strides. Inside a unit the kernels below
// work on raw bytes with the element size as a template parameter; none divides.
//
// The transpose micro-kernel loads an L x L tile as L vectors of L elements (one per source
// row), transposes it in registers with log2(L) rounds of ConcatEven/ConcatOdd (an "unzip":
// after round r, row bit r has moved into the lane index and vice versa; after log2(L)
// rounds rows and lanes are swapped), and stores L vectors along destination rows. On
// AVX-512 each ConcatEven/ConcatOdd is a single two-source permute.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "relayout/plan_data.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "relayout/kernels.cc"
#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace axe::relayout::internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The unsigned lane type of a kB-byte element (kB <= 8).
template <int kB>
struct Lane {
  using T = hwy::UnsignedFromSize<kB>;
};

template <int kB>
HWY_INLINE void CopyElement(uint8_t* dst, const uint8_t* src) {
  std::memcpy(dst, src, kB);
}

// ---------------------------------------------------------------- copy (rows)

// Copies `bytes` bytes; with `stream`, the aligned middle goes through streaming stores.
HWY_INLINE void CopyBytes(uint8_t* dst, const uint8_t* src, int64_t bytes, bool stream) {
#if HWY_TARGET == HWY_SCALAR
  (void)stream;
  std::memcpy(dst, src, static_cast<size_t>(bytes));
#else
  // Streamed: whole cache lines only. The partial first and last lines of a run, which it
  // may share with the neighbouring runs, get regular stores from both sides, never a mix
  // of streamed and regular stores in one line (measured on AVX2, whose 32-byte vectors
  // aligned only to themselves did that: 256-byte runs into a 16-byte-misaligned
  // destination ran at 0.29 of memcpy, 0.7-0.9 line-aligned).
  const hn::ScalableTag<uint8_t> d;
  const int64_t vb = static_cast<int64_t>(hn::Lanes(d));
  const int64_t line = std::max<int64_t>(64, vb);
  if (!stream || bytes < 2 * line) {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    return;
  }
  const int64_t head =
      static_cast<int64_t>((line - reinterpret_cast<uintptr_t>(dst) % line) % line);
  std::memcpy(dst, src, static_cast<size_t>(head));
  int64_t k = head;
  for (; k + 4 * line <= bytes; k += 4 * line) {
    for (int64_t v = 0; v < 4 * line; v += vb)
      hn::Stream(hn::LoadU(d, src + k + v), d, dst + k + v);
  }
  for (; k + line <= bytes; k += line) {
    for (int64_t v = 0; v < line; v += vb) hn::Stream(hn::LoadU(d, src + k + v), d, dst + k + v);
  }
  std::memcpy(dst + k, src + k, static_cast<size_t>(bytes - k));
#endif
}

template <int kB>
struct CopyKernel {
  int64_t sj, dj;  // row strides in bytes
  bool stream;
  HWY_INLINE void operator()(const uint8_t* src, uint8_t* dst, int64_t ni, int64_t nj) const {
    for (int64_t j = 0; j < nj; ++j) CopyBytes(dst + j * dj, src + j * sj, ni * kB, stream);
  }
};

// ---------------------------------------------------------------- strided and fill

template <int kB>
struct StridedKernel {
  int64_t si, di, sj, dj;  // bytes
  HWY_INLINE void operator()(const uint8_t* src, uint8_t* dst, int64_t ni, int64_t nj) const {
    for (int64_t j = 0; j < nj; ++j) {
      const uint8_t* s = src + j * sj;
      uint8_t* d = dst + j * dj;
      for (int64_t i = 0; i < ni; ++i) CopyElement<kB>(d + i * di, s + i * si);
    }
  }
};

// A grouped transpose's block (relayout_plan_nest.cc) element by element: i2n x j2n
// sub-blocks of I x J, I2 moving by (si2, di2) and J2 by (sj2, dj2) bytes.
template <int kB>
struct GroupedStridedKernel {
  StridedKernel<kB> inner;
  int64_t si2, di2, sj2, dj2;
  int64_t i2n, j2n;
  HWY_INLINE void operator()(const uint8_t* src, uint8_t* dst, int64_t ni, int64_t nj) const {
    for (int64_t j2 = 0; j2 < j2n; ++j2) {
      for (int64_t i2 = 0; i2 < i2n; ++i2)
        inner(src + i2 * si2 + j2 * sj2, dst + i2 * di2 + j2 * dj2, ni, nj);
    }
  }
};

template <int kB>
struct FillKernel {
  int64_t di, dj;  // bytes
  const uint8_t* value;
  HWY_INLINE void operator()(const uint8_t* /*src*/, uint8_t* dst, int64_t ni, int64_t nj) const {
    uint8_t v[kB];
    std::memcpy(v, value, kB);
    for (int64_t j = 0; j < nj; ++j) {
      uint8_t* d = dst + j * dj;
      for (int64_t i = 0; i < ni; ++i) std::memcpy(d + i * di, v, kB);
    }
  }
};

// The vector kernels need more than HWY_SCALAR (the portable one-lane fallback) offers;
// on it everything but row copies runs element by element.
#if HWY_TARGET != HWY_SCALAR

// ---------------------------------------------------------------- transpose

// dst row j (L lanes at dst + j*dst_row) = column j of the L x L source tile whose row i
// is at src + i*src_row. Requires kB * kL <= HWY_MAX_BYTES.
template <int kB, int kL>
HWY_INLINE void MicroTranspose(const uint8_t* HWY_RESTRICT src, int64_t src_row,
                               uint8_t* HWY_RESTRICT dst, int64_t dst_row, bool stream) {
  using T = typename Lane<kB>::T;
  const hn::FixedTag<T, kL> d;
  using V = decltype(hn::Zero(d));
  V r[kL];
#pragma GCC unroll 16
  for (int i = 0; i < kL; ++i) r[i] = hn::LoadU(d, reinterpret_cast<const T*>(src + i * src_row));
#pragma GCC unroll 4
  for (int round = 1; round < kL; round *= 2) {
    V t[kL];
#pragma GCC unroll 16
    for (int k = 0; k < kL / 2; ++k) {
      t[k] = hn::ConcatEven(d, r[2 * k + 1], r[2 * k]);
      t[k + kL / 2] = hn::ConcatOdd(d, r[2 * k + 1], r[2 * k]);
    }
#pragma GCC unroll 16
    for (int k = 0; k < kL; ++k) r[k] = t[k];
  }
  if (stream) {
#pragma GCC unroll 16
    for (int j = 0; j < kL; ++j) hn::Stream(r[j], d, reinterpret_cast<T*>(dst + j * dst_row));
  } else {
#pragma GCC unroll 16
    for (int j = 0; j < kL; ++j) hn::StoreU(r[j], d, reinterpret_cast<T*>(dst + j * dst_row));
  }
}

// 16-byte elements: every element is already a full 128-bit vector, so a tile is moved
// element by element with vector loads and stores.
template <int kL>
HWY_INLINE void MicroTranspose16(const uint8_t* HWY_RESTRICT src, int64_t src_row,
                                 uint8_t* HWY_RESTRICT dst, int64_t dst_row, bool stream) {
  const hn::FixedTag<uint64_t, 2> d;
#pragma GCC unroll 4
  for (int j = 0; j < kL; ++j) {
#pragma GCC unroll 4
    for (int i = 0; i < kL; ++i) {
      const auto v = hn::LoadU(d, reinterpret_cast<const uint64_t*>(src + i * src_row + j * 16));
      uint64_t* out = reinterpret_cast<uint64_t*>(dst + j * dst_row + i * 16);
      if (stream) {
        hn::Stream(v, d, out);
      } else {
        hn::StoreU(v, d, out);
      }
    }
  }
}

// 32-byte tiles on x86 (8x8 of 4-byte, 4x4 of 8-byte elements: AVX2's tile): the classic
// unpack / unpack / 128-bit-swap transpose, 24 (8x8) or 8 (4x4) single shuffles, where
// ConcatEven/ConcatOdd on AVX2 cost two each (48 / 16): measured, the 8x8 f32 tile bound
// the AVX2 relayout when the memory is fast.
template <int kB, int kL>
constexpr bool kBlockTranspose = HWY_ARCH_X86&& HWY_MAX_BYTES >= 32 && kB* kL == 32 &&
                                 (kB == 4 || kB == 8);

#if HWY_MAX_BYTES >= 32
template <int kB, int kL>
HWY_INLINE void MicroTranspose32(const uint8_t* HWY_RESTRICT src, int64_t src_row,
                                 uint8_t* HWY_RESTRICT dst, int64_t dst_row, bool stream) {
  const hn::FixedTag<uint64_t, 4> d64;
  using V = decltype(hn::Zero(d64));
  V c[kL];
  if constexpr (kB == 4) {
    const hn::FixedTag<uint32_t, 8> d32;
    V t[8];
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const auto a = hn::LoadU(d32, reinterpret_cast<const uint32_t*>(src + (2 * k) * src_row));
      const auto b = hn::LoadU(d32, reinterpret_cast<const uint32_t*>(src + (2 * k + 1) * src_row));
      t[2 * k] = hn::BitCast(d64, hn::InterleaveLower(d32, a, b));      // a0 b0 a1 b1 | a4 b4 a5 b5
      t[2 * k + 1] = hn::BitCast(d64, hn::InterleaveUpper(d32, a, b));  // a2 b2 a3 b3 | a6 b6 a7 b7
    }
    V u[8];  // u[4h + m]: column m (and m + 4 in the upper block) of rows 4h .. 4h + 3
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      u[4 * h + 0] = hn::InterleaveLower(d64, t[4 * h], t[4 * h + 2]);
      u[4 * h + 1] = hn::InterleaveUpper(d64, t[4 * h], t[4 * h + 2]);
      u[4 * h + 2] = hn::InterleaveLower(d64, t[4 * h + 1], t[4 * h + 3]);
      u[4 * h + 3] = hn::InterleaveUpper(d64, t[4 * h + 1], t[4 * h + 3]);
    }
#pragma GCC unroll 4
    for (int m = 0; m < 4; ++m) {
      c[m] = hn::ConcatLowerLower(d64, u[4 + m], u[m]);
      c[m + 4] = hn::ConcatUpperUpper(d64, u[4 + m], u[m]);
    }
  } else {
    V r[4];
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)
      r[i] = hn::LoadU(d64, reinterpret_cast<const uint64_t*>(src + i * src_row));
    const V t0 = hn::InterleaveLower(d64, r[0], r[1]), t1 = hn::InterleaveUpper(d64, r[0], r[1]);
    const V t2 = hn::InterleaveLower(d64, r[2], r[3]), t3 = hn::InterleaveUpper(d64, r[2], r[3]);
    c[0] = hn::ConcatLowerLower(d64, t2, t0);
    c[1] = hn::ConcatLowerLower(d64, t3, t1);
    c[2] = hn::ConcatUpperUpper(d64, t2, t0);
    c[3] = hn::ConcatUpperUpper(d64, t3, t1);
  }
#pragma GCC unroll 8
  for (int j = 0; j < kL; ++j) {
    uint64_t* out = reinterpret_cast<uint64_t*>(dst + j * dst_row);
    if (stream) {
      hn::Stream(c[j], d64, out);
    } else {
      hn::StoreU(c[j], d64, out);
    }
  }
}

#endif  // HWY_MAX_BYTES >= 32

template <int kB, int kL>
HWY_INLINE void Micro(const uint8_t* src, int64_t src_row, uint8_t* dst, int64_t dst_row,
                      bool stream) {
#if HWY_MAX_BYTES >= 32
  if constexpr (kBlockTranspose<kB, kL>) {
    MicroTranspose32<kB, kL>(src, src_row, dst, dst_row, stream);
    return;
  }
#endif
  if constexpr (kB == 16) {
    MicroTranspose16<kL>(src, src_row, dst, dst_row, stream);
  } else {
    MicroTranspose<kB, kL>(src, src_row, dst, dst_row, stream);
  }
}

// dst[i + j*dj] = src[i*si + j] over an ni x nj block.
//
// Direct: full L x L tiles through the micro-kernel (j tiles outer, so consecutive tiles
// extend the same L destination rows), the ragged edges element by element.
//
// Staged: the block is transposed into a per-thread buffer that stays in cache, reading L
// source rows at a time along the block's whole width, and then written out as nj
// destination runs of ni elements. DRAM serves long runs far better than the short
// interleaved runs of the direct order (streaming stores in particular want >= 256-byte
// runs). To keep reads and writes overlapped, the runs of the previous block are written
// while the next block is read (two buffers); Finish() writes the last one.
template <int kB, int kL>
struct TransposeKernel {
  int64_t si, dj;  // bytes: source row stride (loop I), destination row stride (loop J)
  bool stream;
  uint8_t* stage[2] = {nullptr, nullptr};  // staged when set
  int cur = 0;
  uint8_t* pending_dst = nullptr;  // the previous block, still in stage[cur ^ 1]
  int64_t pending_rows = 0, pending_next = 0, pending_row_bytes = 0;

  HWY_INLINE void WritePending(int64_t rows) {
    const uint8_t* buf = stage[cur ^ 1];
    const int64_t end = std::min(pending_rows, pending_next + rows);
    for (; pending_next < end; ++pending_next) {
      CopyBytes(pending_dst + pending_next * dj, buf + pending_next * pending_row_bytes,
                pending_row_bytes, stream);
    }
  }
  void Finish() {
    if (stage[0] != nullptr) WritePending(pending_rows);
  }

  HWY_INLINE void operator()(const uint8_t* src, uint8_t* dst, int64_t ni, int64_t nj) {
    // Full tiles cover [0, i_hi) x [0, j_hi); the ragged rest is copied element by element.
    // (Misaligned buffers keep their split vector accesses: measured, peeling to alignment
    // costs more, as the peeled columns are copied element by element and miss the cache.
    // Staged blocks are shifted by the unit walk so that destination runs start on lines.)
    const int64_t i_hi = ni / kL * kL, j_hi = nj / kL * kL;
    if (stage[0] != nullptr) {
      uint8_t* st = stage[cur];
      const int64_t row = ni * kB;
      const int64_t tiles = (i_hi / kL) * (j_hi / kL);
      const int64_t per_tile = tiles > 0 ? (pending_rows - pending_next + tiles - 1) / tiles : 0;
      // Source rows packed together (the block is one contiguous region): fetch the next
      // L rows while transposing these; the hardware prefetcher does not see them coming.
      const bool prefetch = si <= nj * kB;
      for (int64_t i0 = 0; i0 < i_hi; i0 += kL) {
        for (int64_t j0 = 0; j0 < j_hi; j0 += kL) {
          if (prefetch && i0 + kL < i_hi) {
            for (int r = 0; r < kL; ++r) hwy::Prefetch(src + (i0 + kL + r) * si + j0 * kB);
          }
          Micro<kB, kL>(src + i0 * si + j0 * kB, si, st + i0 * kB + j0 * row, row, false);
          WritePending(per_tile);
        }
      }
      Edges(src, st, ni, nj, kB, row, i_hi, j_hi);
      WritePending(pending_rows);
      pending_dst = dst;
      pending_rows = nj;
      pending_next = 0;
      pending_row_bytes = row;
      cur ^= 1;
      return;
    }
    for (int64_t j0 = 0; j0 < j_hi; j0 += kL) {
      for (int64_t i0 = 0; i0 < i_hi; i0 += kL) {
        Micro<kB, kL>(src + i0 * si + j0 * kB, si, dst + i0 * kB + j0 * dj, dj, stream);
      }
    }
    Edges(src, dst, ni, nj, kB, dj, i_hi, j_hi);
  }

  // Everything of the ni x nj block outside the tiles [0, i_hi) x [0, j_hi):
  // out[i*ei + j*ej] = src[i*si + j*kB].
  HWY_INLINE void Edges(const uint8_t* src, uint8_t* out, int64_t ni, int64_t nj, int64_t ei,
                        int64_t ej, int64_t i_hi, int64_t j_hi) const {
    if (i_hi < ni) {
      for (int64_t j = 0; j < j_hi; ++j) {
        for (int64_t i = i_hi; i < ni; ++i)
          CopyElement<kB>(out + i * ei + j * ej, src + i * si + j * kB);
      }
    }
    for (int64_t j = j_hi; j < nj; ++j) {
      for (int64_t i = 0; i < ni; ++i)
        CopyElement<kB>(out + i * ei + j * ej, src + i * si + j * kB);
    }
  }
};

// Grouped transpose (high ranks, e.g. 16^6 permutations, where I and J are too short for
// long runs): a block covers i2n values of a loop I2 that continues I in the destination
// (destination stride ni) and j2n values of a loop J2 that continues J in the source
// (source stride nj). Rows of the block are then i' = (i2, i) with one source run of
// nj * j2n elements each, columns j' = (j2, j) with one destination run of ni * i2n
// elements each. The block is transposed tile by tile into the stage buffer (tiles never
// straddle an I or J boundary: the kernel loops over i2 and j2) and written out as
// destination runs while the next block is read, like the staged TransposeKernel.
template <int kB, int kL>
struct GroupedTransposeKernel {
  int64_t si, dj;    // bytes: source stride of I, destination stride of J
  int64_t si2, dj2;  // bytes: source stride of I2, destination stride of J2
  int64_t i2n, j2n;  // I2, J2 values per block
  bool stream;
  uint8_t* stage[2] = {nullptr, nullptr};
  int cur = 0;
  uint8_t* pending_dst = nullptr;  // the previous block, still in stage[cur ^ 1]
  int64_t pending_rows = 0, pending_next = 0, pending_row_bytes = 0, pending_nj = 1;

  HWY_INLINE void WritePending(int64_t rows) {
    const uint8_t* buf = stage[cur ^ 1];
    const int64_t end = std::min(pending_rows, pending_next + rows);
    for (; pending_next < end; ++pending_next) {
      const int64_t j2 = pending_next / pending_nj, j = pending_next - j2 * pending_nj;
      CopyBytes(pending_dst + j2 * dj2 + j * dj, buf + pending_next * pending_row_bytes,
                pending_row_bytes, stream);
    }
  }
  void Finish() { WritePending(pending_rows); }

  HWY_INLINE void operator()(const uint8_t* src, uint8_t* dst, int64_t ni, int64_t nj) {
    const int64_t i_hi = ni / kL * kL, j_hi = nj / kL * kL;
    uint8_t* st = stage[cur];
    const int64_t row = ni * i2n * kB;  // one destination run
    const int64_t tiles = i2n * j2n * (i_hi / kL) * (j_hi / kL);
    const int64_t per_tile = tiles > 0 ? (pending_rows - pending_next + tiles - 1) / tiles : 0;
    for (int64_t i2 = 0; i2 < i2n; ++i2) {
      const uint8_t* s2 = src + i2 * si2;
      uint8_t* t2 = st + i2 * ni * kB;
      for (int64_t i0 = 0; i0 < i_hi; i0 += kL) {
        for (int64_t j2 = 0; j2 < j2n; ++j2) {
          const int64_t jb = j2 * nj;  // column j' of the block
          for (int64_t j0 = 0; j0 < j_hi; j0 += kL) {
            Micro<kB, kL>(s2 + i0 * si + (jb + j0) * kB, si, t2 + i0 * kB + (jb + j0) * row, row,
                          false);
            WritePending(per_tile);
          }
        }
      }
      if (i_hi < ni || j_hi < nj) {
        for (int64_t j2 = 0; j2 < j2n; ++j2)
          Edges(s2 + j2 * nj * kB, t2 + j2 * nj * row, ni, nj, row, i_hi, j_hi);
      }
    }
    WritePending(pending_rows);
    pending_dst = dst;
    pending_rows = nj * j2n;
    pending_nj = nj;
    pending_next = 0;
    pending_row_bytes = row;
    cur ^= 1;
  }

  // out[i*kB + j*ej] = src[i*si + j*kB] outside the tiles [0, i_hi) x [0, j_hi).
  HWY_INLINE void Edges(const uint8_t* src, uint8_t* out, int64_t ni, int64_t nj, int64_t ej,
                        int64_t i_hi, int64_t j_hi) const {
    for (int64_t j = 0; j < nj; ++j) {
      for (int64_t i = j < j_hi ? i_hi : 0; i < ni; ++i)
        CopyElement<kB>(out + i * kB + j * ej, src + i * si + j * kB);
    }
  }
};

// ---------------------------------------------------------------- (de)interleave

// dst[i + j*K] = src[i*si + j] for i < K: K source rows zipped into one destination run.
template <int kB, int kK>
// With `stage`, the run is zipped into that cache-resident buffer and then written with
// streaming stores.
struct InterleaveKernel {
  int64_t si;  // bytes
  uint8_t* stage = nullptr;
  HWY_INLINE void operator()(const uint8_t* src, uint8_t* final_dst, int64_t /*ni*/,
                             int64_t nj) const {
    using T = typename Lane<kB>::T;
    const hn::ScalableTag<T> d;
    const int64_t n = static_cast<int64_t>(hn::Lanes(d));
    const T* s0 = reinterpret_cast<const T*>(src);
    const T* s1 = reinterpret_cast<const T*>(src + si);
    uint8_t* dst = stage != nullptr ? stage : final_dst;
    T* out = reinterpret_cast<T*>(dst);
    int64_t j = 0;
    if constexpr (kK == 2) {
      for (; j + n <= nj; j += n)
        hn::StoreInterleaved2(hn::LoadU(d, s0 + j), hn::LoadU(d, s1 + j), d, out + j * 2);
    } else {
      const T* s2 = reinterpret_cast<const T*>(src + 2 * si);
      const T* s3 = reinterpret_cast<const T*>(src + 3 * si);
      for (; j + n <= nj; j += n) {
        hn::StoreInterleaved4(hn::LoadU(d, s0 + j), hn::LoadU(d, s1 + j), hn::LoadU(d, s2 + j),
                              hn::LoadU(d, s3 + j), d, out + j * 4);
      }
    }
    for (; j < nj; ++j) {
      for (int i = 0; i < kK; ++i) CopyElement<kB>(dst + (i + j * kK) * kB, src + i * si + j * kB);
    }
    if (stage != nullptr) CopyBytes(final_dst, stage, kK * nj * kB, true);
  }
};

// dst[i + j*dj] = src[i*K + j] for j < K: one source run split into K destination rows.
template <int kB, int kK>
// With `stage`, the K rows go to that buffer first and are then written with streaming
// stores.
struct DeinterleaveKernel {
  int64_t dst_row;  // bytes
  uint8_t* stage = nullptr;
  HWY_INLINE void operator()(const uint8_t* src, uint8_t* final_dst, int64_t ni,
                             int64_t /*nj*/) const {
    using T = typename Lane<kB>::T;
    const hn::ScalableTag<T> d;
    const int64_t n = static_cast<int64_t>(hn::Lanes(d));
    const int64_t dj = stage != nullptr ? ni * kB : dst_row;
    uint8_t* dst = stage != nullptr ? stage : final_dst;
    const T* in = reinterpret_cast<const T*>(src);
    T* o0 = reinterpret_cast<T*>(dst);
    T* o1 = reinterpret_cast<T*>(dst + dj);
    int64_t i = 0;
    if constexpr (kK == 2) {
      for (; i + n <= ni; i += n) {
        decltype(hn::Zero(d)) v0, v1;
        hn::LoadInterleaved2(d, in + i * 2, v0, v1);
        hn::StoreU(v0, d, o0 + i);
        hn::StoreU(v1, d, o1 + i);
      }
    } else {
      T* o2 = reinterpret_cast<T*>(dst + 2 * dj);
      T* o3 = reinterpret_cast<T*>(dst + 3 * dj);
      for (; i + n <= ni; i += n) {
        decltype(hn::Zero(d)) v0, v1, v2, v3;
        hn::LoadInterleaved4(d, in + i * 4, v0, v1, v2, v3);
        hn::StoreU(v0, d, o0 + i);
        hn::StoreU(v1, d, o1 + i);
        hn::StoreU(v2, d, o2 + i);
        hn::StoreU(v3, d, o3 + i);
      }
    }
    for (; i < ni; ++i) {
      for (int j = 0; j < kK; ++j) CopyElement<kB>(dst + i * kB + j * dj, src + (i * kK + j) * kB);
    }
    if (stage != nullptr) {
      for (int j = 0; j < kK; ++j)
        CopyBytes(final_dst + j * dst_row, stage + j * dj, ni * kB, true);
    }
  }
};

#endif  // HWY_TARGET != HWY_SCALAR

// ---------------------------------------------------------------- unit walk

// Walks units [begin, end). `pre_i` shifts the blocks of loop I back by that many
// elements (block k covers [k*block_i - pre_i, (k+1)*block_i - pre_i) within [0, ni); the
// plan reserved one more block for it), so that destination runs start on cache lines.
template <int kB, class Kernel>
HWY_NOINLINE void WalkUnits(const Nest& n, const uint8_t* src, uint8_t* dst, int64_t begin,
                            int64_t end, Kernel kernel, int64_t pre_i = 0) {
  constexpr size_t kMaxDepth = 64;
  const size_t depth = n.units.size();
  int64_t count[kMaxDepth];
  int64_t so = n.src_offset, dof = n.dst_offset, i0 = 0, j0 = 0;
  int64_t rest = begin;
  for (size_t k = depth; k-- > 0;) {
    const UnitLoop& u = n.units[k];
    const int64_t c = rest % u.extent;
    rest /= u.extent;
    count[k] = c;
    so += c * u.src_stride;
    dof += c * u.dst_stride;
    i0 += c * u.block_i_step;
    j0 += c * u.block_j_step;
  }
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t lo = std::max<int64_t>(0, i0 - pre_i);
    const int64_t ni = std::min(n.loop_i.extent, i0 - pre_i + n.block_i) - lo;
    const int64_t nj = std::min(n.block_j, n.loop_j.extent - j0);
    if (ni > 0 && nj > 0)
      kernel(src + (so + (lo - i0) * n.loop_i.src_stride) * kB,
             dst + (dof + (lo - i0) * n.loop_i.dst_stride) * kB, ni, nj);
    for (size_t k = depth; k-- > 0;) {
      const UnitLoop& u = n.units[k];
      if (++count[k] < u.extent) {
        so += u.src_stride;
        dof += u.dst_stride;
        i0 += u.block_i_step;
        j0 += u.block_j_step;
        break;
      }
      count[k] = 0;
      so -= (u.extent - 1) * u.src_stride;
      dof -= (u.extent - 1) * u.dst_stride;
      i0 -= (u.extent - 1) * u.block_i_step;
      j0 -= (u.extent - 1) * u.block_j_step;
    }
  }
  if constexpr (requires { kernel.Finish(); }) kernel.Finish();
}

#if HWY_TARGET != HWY_SCALAR
template <int kB, int kL>
void RunGroupedTranspose(const Nest& n, const uint8_t* src, uint8_t* dst, int64_t begin,
                         int64_t end, bool stream) {
  GroupedTransposeKernel<kB, kL> kernel{n.loop_i.src_stride * kB,
                                        n.loop_j.dst_stride * kB,
                                        n.i2_src_stride * kB,
                                        n.j2_dst_stride * kB,
                                        n.i2_extent,
                                        n.j2_extent,
                                        stream};
  const size_t bytes = static_cast<size_t>(n.block_i * n.i2_extent * n.block_j * n.j2_extent * kB);
  hwy::AlignedFreeUniquePtr<uint8_t[]> stage = hwy::AllocateAligned<uint8_t>(2 * bytes);
  kernel.stage[0] = stage.get();
  kernel.stage[1] = stage.get() + bytes;
  WalkUnits<kB>(n, src, dst, begin, end, kernel);
}

template <int kB, int kL>
void RunTranspose(const Nest& n, const uint8_t* src, uint8_t* dst, int64_t begin, int64_t end,
                  bool stream) {
  if (n.i2_extent > 1 || n.j2_extent > 1)
    return RunGroupedTranspose<kB, kL>(n, src, dst, begin, end, stream);
  TransposeKernel<kB, kL> kernel{n.loop_i.src_stride * kB, n.loop_j.dst_stride * kB, stream};
  hwy::AlignedFreeUniquePtr<uint8_t[]> stage;
  int64_t pre_i = 0;
  if (n.staged) {
    const size_t bytes = static_cast<size_t>(n.block_i * n.block_j * kB);
    stage = hwy::AllocateAligned<uint8_t>(2 * bytes);
    kernel.stage[0] = stage.get();
    kernel.stage[1] = stage.get() + bytes;
    if (n.align_runs)
      pre_i = static_cast<int64_t>(reinterpret_cast<uintptr_t>(dst + n.dst_offset * kB) % 64) / kB;
  }
  WalkUnits<kB>(n, src, dst, begin, end, kernel, pre_i);
}

// The widest tile edge <= `lanes` this target can hold in one vector (at least 16 bytes);
// 0 when none fits (the caller then copies element by element).
template <int kB>
int FitLanes(int lanes) {
  int l = std::min(lanes, 16);
  while (l > 1 && l * kB > HWY_MAX_BYTES) l /= 2;
  return l * kB >= 16 ? l : 0;
}
#endif  // HWY_TARGET != HWY_SCALAR

template <int kB>
void RunNest(const Nest& n, const uint8_t* src, uint8_t* dst, int64_t begin, int64_t end,
             bool stream, const uint8_t* fill_value) {
  switch (n.kind) {
    case KernelKind::kCopy:
      WalkUnits<kB>(n, src, dst, begin, end,
                    CopyKernel<kB>{n.loop_j.src_stride * kB, n.loop_j.dst_stride * kB, stream});
      return;
    case KernelKind::kFill:
      WalkUnits<kB>(n, src, dst, begin, end,
                    FillKernel<kB>{n.loop_i.dst_stride * kB, n.loop_j.dst_stride * kB, fill_value});
      return;
    case KernelKind::kStrided:
      WalkUnits<kB>(n, src, dst, begin, end,
                    StridedKernel<kB>{n.loop_i.src_stride * kB, n.loop_i.dst_stride * kB,
                                      n.loop_j.src_stride * kB, n.loop_j.dst_stride * kB});
      return;
#if HWY_TARGET != HWY_SCALAR
    case KernelKind::kInterleave:
    case KernelKind::kDeinterleave:
      if constexpr (kB <= 8) {
        hwy::AlignedFreeUniquePtr<uint8_t[]> stage;
        if (stream)
          stage = hwy::AllocateAligned<uint8_t>(static_cast<size_t>(n.block_i * n.block_j * kB));
        uint8_t* st = stage.get();
        if (n.kind == KernelKind::kInterleave) {
          if (n.lanes == 2)
            return WalkUnits<kB>(n, src, dst, begin, end,
                                 InterleaveKernel<kB, 2>{n.loop_i.src_stride * kB, st});
          if (n.lanes == 4)
            return WalkUnits<kB>(n, src, dst, begin, end,
                                 InterleaveKernel<kB, 4>{n.loop_i.src_stride * kB, st});
        } else {
          if (n.lanes == 2)
            return WalkUnits<kB>(n, src, dst, begin, end,
                                 DeinterleaveKernel<kB, 2>{n.loop_j.dst_stride * kB, st});
          if (n.lanes == 4)
            return WalkUnits<kB>(n, src, dst, begin, end,
                                 DeinterleaveKernel<kB, 4>{n.loop_j.dst_stride * kB, st});
        }
      }
      break;
    case KernelKind::kTranspose:
      if constexpr (kB == 16) {
        if (n.lanes >= 4) return RunTranspose<16, 4>(n, src, dst, begin, end, stream);
        if (n.lanes >= 2) return RunTranspose<16, 2>(n, src, dst, begin, end, stream);
      } else {
        const int lanes = FitLanes<kB>(n.lanes);
        if constexpr (kB * 16 <= HWY_MAX_BYTES && kB <= 4) {
          if (lanes == 16) return RunTranspose<kB, 16>(n, src, dst, begin, end, stream);
        }
        if constexpr (kB * 8 <= HWY_MAX_BYTES && kB >= 2) {
          if (lanes == 8) return RunTranspose<kB, 8>(n, src, dst, begin, end, stream);
        }
        if constexpr (kB * 4 <= HWY_MAX_BYTES && kB >= 4) {
          if (lanes == 4) return RunTranspose<kB, 4>(n, src, dst, begin, end, stream);
        }
        if constexpr (kB == 8) {
          if (lanes == 2) return RunTranspose<kB, 2>(n, src, dst, begin, end, stream);
        }
      }
      break;
#endif  // HWY_TARGET != HWY_SCALAR
    default: break;
  }
  // No vector kernel for this shape on this target: element by element.
  const StridedKernel<kB> strided{n.loop_i.src_stride * kB, n.loop_i.dst_stride * kB,
                                  n.loop_j.src_stride * kB, n.loop_j.dst_stride * kB};
  if (n.i2_extent > 1 || n.j2_extent > 1) {
    const int64_t i2_dst = n.loop_i.extent * n.loop_i.dst_stride,
                  j2_src = n.loop_j.extent * n.loop_j.src_stride;
    return WalkUnits<kB>(
        n, src, dst, begin, end,
        GroupedStridedKernel<kB>{strided, n.i2_src_stride * kB, i2_dst * kB, j2_src * kB,
                                 n.j2_dst_stride * kB, n.i2_extent, n.j2_extent});
  }
  WalkUnits<kB>(n, src, dst, begin, end, strided);
}

void RunNestChunkImpl(const Nest& n, int element_bytes, const uint8_t* src, uint8_t* dst,
                      int64_t begin, int64_t end, bool stream, const uint8_t* fill_value) {
  switch (element_bytes) {
    case 1: RunNest<1>(n, src, dst, begin, end, stream, fill_value); break;
    case 2: RunNest<2>(n, src, dst, begin, end, stream, fill_value); break;
    case 4: RunNest<4>(n, src, dst, begin, end, stream, fill_value); break;
    case 8: RunNest<8>(n, src, dst, begin, end, stream, fill_value); break;
    default: RunNest<16>(n, src, dst, begin, end, stream, fill_value); break;
  }
  if (stream) hwy::FlushStream();
}

int MaxVectorBytesImpl() { return static_cast<int>(hn::Lanes(hn::ScalableTag<uint8_t>())); }
const char* SimdTargetNameImpl() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace axe::relayout::internal
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace axe::relayout::internal {

HWY_EXPORT(RunNestChunkImpl);
HWY_EXPORT(MaxVectorBytesImpl);
HWY_EXPORT(SimdTargetNameImpl);

void RunNestChunk(const Nest& nest, int element_bytes, const uint8_t* src, uint8_t* dst,
                  int64_t begin, int64_t end, bool stream, const uint8_t* fill_value) {
  HWY_DYNAMIC_DISPATCH(RunNestChunkImpl)
  (nest, element_bytes, src, dst, begin, end, stream, fill_value);
}

int MaxVectorBytes() { return HWY_DYNAMIC_DISPATCH(MaxVectorBytesImpl)(); }
const char* SimdTargetName() { return HWY_DYNAMIC_DISPATCH(SimdTargetNameImpl)(); }

}  // namespace axe::relayout::internal
#endif  // HWY_ONCE
