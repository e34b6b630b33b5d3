#include "axe/runtime/relayout_plan.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"
#include "axe/layout/properties.h"
#include "axe/runtime/element_type.h"
#include "runtime/plan_data.h"
#include "runtime/radix.h"

namespace axe::runtime {
namespace {

using internal::Chunk;
using internal::CommonRadix;
using internal::Digit;
using internal::GenericSide;
using internal::KernelKind;
using internal::Nest;
using internal::PlanData;
using internal::RadixBox;
using internal::UnitLoop;

// More pieces than this (padding on many tiled dimensions) use the generic path.
constexpr int64_t kMaxPieces = 4096;
// Destinations up to this many elements are checked for injectivity over the box by
// enumeration when the layout is not injective over its whole domain.
constexpr int64_t kMaxEnumeratedInjectivity = int64_t{1} << 22;
// Bytes (one side) a copy / strided kernel call handles.
constexpr int64_t kCopyUnitBytes = int64_t{256} << 10;
constexpr int64_t kSmallUnitBytes = int64_t{64} << 10;
constexpr int64_t kTransposeBlockBytes = 4096;  // of each source row
constexpr int64_t kTransposeBlockRows = 32;
constexpr int64_t kStageBytes = int64_t{256} << 10;
// Streaming stores want runs of at least this many bytes of a destination row.
constexpr int64_t kMinStreamRunBytes = 256;
// Destinations written whole from this size on get streaming stores (measured: from about
// 4 MiB on a transpose is faster with them, even when everything fits in the L3).
constexpr int64_t kNonTemporalBytes = int64_t{4} << 20;

// A loop of a piece: extent, source stride, destination stride (elements).
struct Loop {
  int64_t n, a, b;
};

absl::Status CheckMemoryAxes(const Layout& l, absl::string_view what) {
  std::optional<Axis> axis;
  auto visit = [&](Axis a, const std::string& where) -> absl::Status {
    if (!a.is_memory()) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " layout ", l.ToString(), ": ", where, " is on ", AxisKindName(a.kind()), " axis '", a.name(),
          "'; the relayout engine copies between memory buffers (take Storage() of a distributed layout first)"));
    }
    if (axis && *axis != a) {
      return absl::InvalidArgumentError(absl::StrCat(what, " layout ", l.ToString(), " uses two memory axes '",
                                                     axis->name(), "' and '", a.name(),
                                                     "'; a buffer is addressed along one axis"));
    }
    axis = a;
    return absl::OkStatus();
  };
  for (size_t k = 0; k < l.shard().size(); ++k) {
    AXE_RETURN_IF_ERROR(visit(l.shard()[k].axis, absl::StrCat("shard iter ", k, " (", l.shard()[k].ToString(), ")")));
  }
  for (size_t k = 0; k < l.replica().size(); ++k) {
    AXE_RETURN_IF_ERROR(
        visit(l.replica()[k].axis, absl::StrCat("replica iter ", k, " (", l.replica()[k].ToString(), ")")));
  }
  for (const auto& [a, v] : l.offset().entries()) {
    AXE_RETURN_IF_ERROR(visit(a, absl::StrCat("the offset ", v)));
  }
  return absl::OkStatus();
}

// The memory-axis offset of a layout (all its entries are on one memory axis).
int64_t MemoryOffset(const Layout& l) {
  int64_t o = 0;
  for (const auto& [a, v] : l.offset().entries()) o += v;
  return o;
}

// One side of a relayout, ready for planning.
struct Side {
  Layout layout;                    // source: without replicas; destination: canonical
  std::vector<int64_t> domain;
  int64_t offset = 0;               // O
  std::vector<Iter> replicas;       // destination copies (gap condition holds)
  std::optional<std::vector<std::vector<Digit>>> dims;  // per domain dim, when grouped
};

std::optional<std::vector<std::vector<Digit>>> DigitsPerDim(const Layout& l, const std::vector<int64_t>& domain) {
  absl::StatusOr<Grouped> g = Group(l, domain);
  if (!g.ok()) return std::nullopt;
  std::vector<std::vector<Digit>> dims(domain.size());
  for (size_t d = 0; d < domain.size(); ++d) {
    for (size_t k = g->seps[d]; k < g->seps[d + 1]; ++k) {
      const Iter& it = g->layout.shard()[k];
      if (it.extent > 1) dims[d].push_back({it.extent, it.stride});
    }
  }
  return dims;
}

// A box of one dimension: base address per side and its loops (extent, src, dst strides).
struct DimPiece {
  int64_t src = 0, dst = 0;
  std::vector<Loop> loops;
};

// Pieces of [lo, hi) of one dimension in a common radix. `src_side` is false for fills.
std::vector<DimPiece> DimPieces(int64_t lo, int64_t hi, const CommonRadix& radix, const std::vector<Digit>* src,
                                const std::vector<Digit>& dst) {
  std::vector<DimPiece> out;
  const size_t m = radix.weights.size();
  const size_t dst_index = src ? 1 : 0;
  for (const RadixBox& box : internal::DecomposeInterval(lo, hi, radix.weights)) {
    DimPiece p;
    p.src = src ? internal::DigitsValue(*src, box.start) : 0;
    p.dst = internal::DigitsValue(dst, box.start);
    auto strides = [&](size_t level) {
      return Loop{0, src ? radix.strides[0][level] : 0, radix.strides[dst_index][level]};
    };
    Loop first = strides(box.level);
    first.n = box.count;
    p.loops.push_back(first);
    for (size_t k = box.level + 1; k < m; ++k) {
      Loop l = strides(k);
      l.n = radix.weights[k - 1] / radix.weights[k];
      p.loops.push_back(l);
    }
    out.push_back(std::move(p));
  }
  return out;
}

struct Tuning {
  int max_vector_bytes = 16;
  int lanes = 0;
  int64_t block_rows = 0, block_cols = 0;
  int staged = 0;
  LoopOrder order = LoopOrder::kAuto;
  bool stream = false;  // the plan will use streaming stores
};

Tuning TuningFrom(const RelayoutOptions& o) {
  Tuning t;
  t.max_vector_bytes = internal::MaxVectorBytes();
  t.lanes = o.tile_lanes;
  t.block_rows = o.block_rows;
  t.block_cols = o.block_cols;
  t.staged = o.staged;
  t.order = o.loop_order;
  return t;
}

std::string KernelName(const Nest& n) {
  switch (n.kind) {
    case KernelKind::kCopy:
      return "copy";
    case KernelKind::kTranspose:
      return absl::StrCat("transpose ", n.lanes, "x", n.lanes);
    case KernelKind::kInterleave:
      return absl::StrCat("interleave ", n.lanes);
    case KernelKind::kDeinterleave:
      return absl::StrCat("deinterleave ", n.lanes);
    case KernelKind::kStrided:
      return "strided";
    case KernelKind::kFill:
      return "fill";
  }
  return "?";
}

int FloorPow2(int64_t v) {
  int p = 1;
  while (p * 2 <= v && p < (1 << 20)) p *= 2;
  return p;
}

// Fuses and orders the loops of one piece and picks its kernel and blocking.
Nest PlanNest(const std::vector<Loop>& loops, int64_t src_base, int64_t dst_base, bool fill, int bytes,
              const Tuning& t) {
  Nest n;
  std::vector<Loop> ls;
  for (Loop l : loops) {
    if (l.n == 1) continue;
    if (fill) l.a = 0;
    if (l.b < 0 || (l.b == 0 && l.a < 0)) {
      src_base += (l.n - 1) * l.a;
      dst_base += (l.n - 1) * l.b;
      l.a = -l.a;
      l.b = -l.b;
    }
    ls.push_back(l);
  }
  std::stable_sort(ls.begin(), ls.end(), [](const Loop& x, const Loop& y) {
    if (x.b != y.b) return x.b > y.b;
    return std::abs(x.a) > std::abs(y.a);
  });
  std::vector<Loop> f;
  for (const Loop& l : ls) {
    if (!f.empty()) {
      std::optional<int64_t> nb = CheckedMul(l.n, l.b), na = CheckedMul(l.n, l.a);
      if (nb && na && f.back().b == *nb && f.back().a == *na) {
        f.back() = Loop{f.back().n * l.n, l.a, l.b};
        continue;
      }
    }
    f.push_back(l);
  }
  n.src_offset = src_base;
  n.dst_offset = dst_base;
  n.elements = 1;
  for (const Loop& l : f) {
    n.dims.push_back({l.n, l.a, l.b});
    n.elements *= l.n;
  }

  // Kernel loops.
  int iI = -1, iJ = -1;
  const int last = static_cast<int>(f.size()) - 1;
  n.kind = fill ? KernelKind::kFill : KernelKind::kCopy;
  if (!f.empty()) {
    iI = last;
    iJ = last - 1;  // -1 when there is a single loop
    const Loop& I = f[static_cast<size_t>(iI)];
    if (!fill && !(I.b == 1 && I.a == 1)) {
      n.kind = KernelKind::kStrided;
      if (I.b == 1) {
        for (int k = last - 1; k >= 0; --k) {
          if (f[static_cast<size_t>(k)].a == 1) {
            iJ = k;
            n.kind = KernelKind::kTranspose;
            break;
          }
        }
        if (n.kind == KernelKind::kTranspose && bytes <= 8) {
          const Loop& J = f[static_cast<size_t>(iJ)];
          if ((I.n == 2 || I.n == 4) && J.b == I.n) {
            n.kind = KernelKind::kInterleave;
            n.lanes = static_cast<int>(I.n);
          } else if ((J.n == 2 || J.n == 4) && I.a == J.n) {
            n.kind = KernelKind::kDeinterleave;
            n.lanes = static_cast<int>(J.n);
          }
        }
      }
    }
  }
  const Loop I = iI >= 0 ? f[static_cast<size_t>(iI)] : Loop{1, 1, 1};
  const Loop J = iJ >= 0 ? f[static_cast<size_t>(iJ)] : Loop{1, 0, 0};
  n.ni = I.n;
  n.si = I.a;
  n.di = I.b;
  n.nj = J.n;
  n.sj = J.a;
  n.dj = J.b;

  // Cache blocks.
  const int64_t b = bytes;
  switch (n.kind) {
    case KernelKind::kCopy:
      n.block_i = std::min(n.ni, std::max<int64_t>(1, kCopyUnitBytes / b));
      n.block_j = std::min(n.nj, std::max<int64_t>(1, kCopyUnitBytes / b / n.block_i));
      break;
    case KernelKind::kTranspose: {
      const int min_lanes = bytes == 16 ? 2 : 16 / bytes;
      const int max_lanes = bytes == 16 ? 4 : std::max(min_lanes, std::min(16, t.max_vector_bytes / bytes));
      int lanes = t.lanes > 0 ? std::clamp(FloorPow2(t.lanes), min_lanes, max_lanes) : max_lanes;
      if (t.lanes <= 0) {
        while (lanes > min_lanes && (lanes > n.ni || lanes > n.nj)) lanes /= 2;
      }
      n.lanes = lanes;
      // Cache blocks, in multiples of the tile edge. Direct: 32 source rows of about a page
      // each. Staged (large destinations, see kernels.cc): enough source rows for 256-byte
      // destination runs, a page of each, within a 256 KiB buffer.
      // The blocks of a loop are balanced (8000 in blocks of 1008, not 7 x 1024 + 832).
      auto edge = [&](int64_t want, int64_t extent) {
        const int64_t e = std::min(extent, std::max<int64_t>(lanes, want / lanes * lanes));
        const int64_t blocks = (extent + e - 1) / e;
        return std::min(e, ((extent + blocks - 1) / blocks + lanes - 1) / lanes * lanes);
      };
      const int64_t staged_rows = edge(std::max<int64_t>(kMinStreamRunBytes / b, lanes), n.ni);
      n.staged = t.staged > 0 || (t.staged == 0 && t.stream && staged_rows * b >= kMinStreamRunBytes);
      if (n.staged) {
        // Source rows packed next to each other (the block is one contiguous source run,
        // e.g. a 3-D permutation fused into 2-D): reads are cheap, so longer destination
        // runs pay (measured on 256^3 (2,0,1): 0.68 -> 0.84 of memcpy with 512-byte runs).
        const bool packed = n.si * b <= kTransposeBlockBytes && n.si <= n.nj;
        const int64_t rows = packed ? edge(std::max<int64_t>(2 * kMinStreamRunBytes / b, lanes), n.ni) : staged_rows;
        n.block_i = edge(t.block_rows > 0 ? t.block_rows : rows, n.ni);
        const int64_t cols = std::min(kTransposeBlockBytes / b, kStageBytes / (n.block_i * b));
        n.block_j = edge(t.block_cols > 0 ? t.block_cols : cols, n.nj);
        n.staged = n.block_i * n.block_j * b <= internal::kMaxStagedBlockBytes;
      }
      if (!n.staged) {
        n.block_i = edge(t.block_rows > 0 ? t.block_rows : kTransposeBlockRows, n.ni);
        n.block_j = edge(t.block_cols > 0 ? t.block_cols : kTransposeBlockBytes / b, n.nj);
      }
      break;
    }
    case KernelKind::kInterleave:
      n.block_i = n.ni;
      n.block_j = std::min(n.nj, std::max<int64_t>(1, kSmallUnitBytes / (b * n.ni)));
      break;
    case KernelKind::kDeinterleave:
      n.block_j = n.nj;
      n.block_i = std::min(n.ni, std::max<int64_t>(1, kSmallUnitBytes / (b * n.nj)));
      break;
    case KernelKind::kStrided:
    case KernelKind::kFill:
      n.block_i = std::min(n.ni, std::max<int64_t>(1, kSmallUnitBytes / b));
      n.block_j = std::min(n.nj, std::max<int64_t>(1, kSmallUnitBytes / b / n.block_i));
      break;
  }

  // Unit loops: the other dims plus the block loops of I and J, ordered.
  struct Named {
    UnitLoop u;
    std::string name;
  };
  std::vector<Named> units;
  for (int k = 0; k <= last; ++k) {
    if (k == iI || k == iJ) continue;
    const Loop& l = f[static_cast<size_t>(k)];
    units.push_back({UnitLoop{l.n, l.a, l.b, 0, 0}, absl::StrCat("d", k)});
  }
  int64_t blocks_i = (n.ni + n.block_i - 1) / n.block_i;
  const int64_t blocks_j = (n.nj + n.block_j - 1) / n.block_j;
  if (n.kind == KernelKind::kTranspose && n.staged && n.di == 1 && (n.block_i * b) % 64 == 0 &&
      (n.dj * b) % 64 == 0) {
    bool aligned = true;
    for (int k = 0; k <= last; ++k) {
      if (k != iI && k != iJ && (f[static_cast<size_t>(k)].b * b) % 64 != 0) aligned = false;
    }
    if (aligned && blocks_i > 1) {
      n.align_runs = true;
      blocks_i = n.ni / n.block_i + 1;
    }
  }
  if (blocks_j > 1) {
    units.push_back({UnitLoop{blocks_j, n.block_j * n.sj, n.block_j * n.dj, 0, n.block_j}, absl::StrCat("J/", n.block_j)});
  }
  if (blocks_i > 1) {
    units.push_back({UnitLoop{blocks_i, n.block_i * n.si, n.block_i * n.di, n.block_i, 0}, absl::StrCat("I/", n.block_i)});
  }
  // By destination stride (writes stream), except where a kernel call reads one
  // contiguous source run (deinterleave): then by source stride, so that consecutive calls
  // read the source sequentially (measured: XLA's tiled -> row-major 0.69 -> 0.88 of memcpy).
  const bool by_source = t.order == LoopOrder::kSource ||
                         (t.order == LoopOrder::kAuto && n.kind == KernelKind::kDeinterleave);
  std::stable_sort(units.begin(), units.end(), [by_source](const Named& x, const Named& y) {
    if (by_source) return std::abs(x.u.src) > std::abs(y.u.src);
    return x.u.dst > y.u.dst;
  });
  n.num_units = 1;
  std::vector<std::string> names;
  for (const Named& x : units) {
    n.units.push_back(x.u);
    n.num_units *= x.u.n;
    names.push_back(x.name);
  }
  AXE_CHECK(n.units.size() <= 64) << "too many unit loops: " << n.units.size();
  n.order = names.empty() ? "single block" : absl::StrJoin(names, " > ");
  if (iI >= 0) n.order = absl::StrCat(n.order, ", I = d", iI, iJ >= 0 ? absl::StrCat(", J = d", iJ) : "");
  return n;
}

// Can this nest use streaming stores, and with which destination base alignment?
void SetStreaming(Nest& n, int bytes, bool want) {
  n.stream = false;
  if (!want) return;
  if (n.kind == KernelKind::kCopy) {
    n.stream = true;
    n.stream_align = 1;
    return;
  }
  if (n.kind == KernelKind::kInterleave || n.kind == KernelKind::kDeinterleave) {
    n.stream = bytes <= 8;  // through a small stage and CopyBytes, which aligns itself
    n.stream_align = 1;
    return;
  }
  if (n.kind != KernelKind::kTranspose) return;
  if (n.staged) {  // runs are written by CopyBytes, which aligns them itself
    n.stream = true;
    n.stream_align = 1;
    return;
  }
  const int64_t align = bytes == 16 ? 16 : int64_t{n.lanes} * bytes;
  if ((n.dj * bytes) % align != 0) return;
  for (const UnitLoop& u : n.units) {
    if ((u.dst * bytes) % align != 0) return;
  }
  n.stream = true;
  n.stream_align = align;
}

// [begin, end) of the element offsets a nest touches on one side.
void Extend(int64_t base, const std::vector<Nest::Dim>& dims, bool src, int64_t& lo, int64_t& hi, bool& any) {
  int64_t mn = base, mx = base;
  for (const Nest::Dim& d : dims) {
    const int64_t s = src ? d.src : d.dst;
    const int64_t reach = (d.n - 1) * s;
    if (reach < 0) {
      mn += reach;
    } else {
      mx += reach;
    }
  }
  if (!any) {
    lo = mn;
    hi = mx + 1;
    any = true;
  } else {
    lo = std::min(lo, mn);
    hi = std::max(hi, mx + 1);
  }
}

GenericSide MakeGenericSide(const Layout& l, const std::vector<int64_t>& domain, std::vector<int64_t> bases) {
  GenericSide g;
  const Layout canonical = Canonicalize(l);
  for (const Iter& it : canonical.shard()) {
    if (it.extent > 1) {
      g.extents.push_back(it.extent);
      g.strides.push_back(it.stride);
    }
  }
  g.domain = domain;
  g.bases = std::move(bases);
  return g;
}

// Offsets of every copy of a destination element (O plus the replica points).
absl::StatusOr<std::vector<int64_t>> CopyOffsets(const Side& s) {
  std::vector<int64_t> bases = {s.offset};
  for (const Iter& r : s.replicas) {
    std::vector<int64_t> next;
    for (int64_t b : bases) {
      for (int64_t c = 0; c < r.extent; ++c) next.push_back(b + c * r.stride);
    }
    if (static_cast<int64_t>(next.size()) > kMaxEnumeratedPoints) {
      return absl::ResourceExhaustedError("too many destination replica copies");
    }
    bases = std::move(next);
  }
  return bases;
}

// The [min, max] offset a side's map takes over its whole domain.
std::pair<int64_t, int64_t> LayoutRange(const GenericSide& g) {
  int64_t lo = 0, hi = 0;
  for (size_t k = 0; k < g.extents.size(); ++k) {
    const int64_t reach = (g.extents[k] - 1) * g.strides[k];
    (reach < 0 ? lo : hi) += reach;
  }
  const auto [bmin, bmax] = std::minmax_element(g.bases.begin(), g.bases.end());
  return {lo + *bmin, hi + *bmax};
}

absl::Status CheckBoxInjective(const std::vector<Nest>& nests, absl::string_view dst_text) {
  int64_t total = 0;
  for (const Nest& n : nests) total += n.elements;
  if (total > kMaxEnumeratedInjectivity) {
    return absl::InvalidArgumentError(absl::StrCat(
        "destination ", dst_text, " is not injective over its domain and the tensor (", total,
        " elements) is too large to check injectivity over the tensor's box"));
  }
  std::vector<int64_t> addresses;
  addresses.reserve(static_cast<size_t>(total));
  for (const Nest& n : nests) {
    std::vector<int64_t> cur = {n.dst_offset};
    for (const Nest::Dim& d : n.dims) {
      std::vector<int64_t> next;
      next.reserve(cur.size() * static_cast<size_t>(d.n));
      for (int64_t v : cur) {
        for (int64_t c = 0; c < d.n; ++c) next.push_back(v + c * d.dst);
      }
      cur = std::move(next);
    }
    addresses.insert(addresses.end(), cur.begin(), cur.end());
  }
  std::sort(addresses.begin(), addresses.end());
  auto dup = std::adjacent_find(addresses.begin(), addresses.end());
  if (dup != addresses.end()) {
    return absl::InvalidArgumentError(absl::StrCat("destination ", dst_text,
                                                   " is not injective over the tensor's box: two elements are "
                                                   "written to offset ",
                                                   *dup));
  }
  return absl::OkStatus();
}

void MakeChunks(PlanData& p, int64_t total_bytes) {
  p.chunks.clear();
  const int64_t per_elem = 2 * int64_t{p.element_bytes};
  if (p.threads <= 1) {
    for (size_t k = 0; k < p.nests.size(); ++k) {
      if (p.nests[k].num_units > 0) p.chunks.push_back({static_cast<int32_t>(k), 0, p.nests[k].num_units});
    }
    return;
  }
  // Large chunks (measured: 16 MiB chunks beat 1-4 MiB ones on a 2-core transpose).
  const int64_t target =
      std::clamp<int64_t>(total_bytes / (int64_t{p.threads} * 8), int64_t{256} << 10, int64_t{16} << 20);
  for (size_t k = 0; k < p.nests.size(); ++k) {
    const Nest& n = p.nests[k];
    const int64_t unit_bytes = std::max<int64_t>(1, n.elements * per_elem / std::max<int64_t>(1, n.num_units));
    const int64_t per_chunk = std::max<int64_t>(1, target / unit_bytes);
    for (int64_t u = 0; u < n.num_units; u += per_chunk) {
      p.chunks.push_back({static_cast<int32_t>(k), u, std::min(n.num_units, u + per_chunk)});
    }
  }
}

// ---------------------------------------------------------------- generic path

template <int kB>
void GenericCopyRows(const PlanData& p, const uint8_t* src, uint8_t* dst, int64_t row_begin, int64_t row_end) {
  const std::vector<int64_t>& shape = p.shape;
  const size_t r = shape.size();
  const int64_t len = shape[r - 1];
  const GenericSide& gs = p.generic_src;
  const GenericSide& gd = p.generic_dst;
  std::vector<int64_t> coord(r, 0), cs(gs.extents.size()), cd(gd.extents.size());
  auto start = [&](const GenericSide& g, std::vector<int64_t>& digits) {
    int64_t flat = 0;
    for (size_t d = 0; d < r; ++d) flat = flat * g.domain[d] + coord[d];
    int64_t addr = 0;
    for (size_t k = g.extents.size(); k-- > 0;) {
      digits[k] = flat % g.extents[k];
      flat /= g.extents[k];
      addr += digits[k] * g.strides[k];
    }
    return addr;
  };
  auto step = [](const GenericSide& g, std::vector<int64_t>& digits, int64_t& addr) {
    for (size_t k = g.extents.size(); k-- > 0;) {
      addr += g.strides[k];
      if (++digits[k] < g.extents[k]) return;
      addr -= g.extents[k] * g.strides[k];
      digits[k] = 0;
    }
  };
  for (int64_t row = row_begin; row < row_end; ++row) {
    int64_t rest = row;
    for (size_t d = r - 1; d-- > 0;) {
      coord[d] = rest % shape[d];
      rest /= shape[d];
    }
    coord[r - 1] = 0;
    int64_t as = start(gs, cs) + gs.bases[0];
    int64_t ad = start(gd, cd);
    for (int64_t x = 0; x < len; ++x) {
      for (int64_t base : gd.bases) std::memcpy(dst + (ad + base) * kB, src + as * kB, kB);
      if (x + 1 < len) {
        step(gs, cs, as);
        step(gd, cd, ad);
      }
    }
  }
}

template <int kB>
void GenericFillRows(const PlanData& p, uint8_t* dst, int64_t row_begin, int64_t row_end) {
  const GenericSide& g = p.generic_dst;
  const std::vector<int64_t>& dom = g.domain;
  const std::vector<int64_t>& shape = p.shape;
  const size_t r = dom.size();
  std::vector<int64_t> coord(r, 0), digits(g.extents.size());
  for (int64_t row = row_begin; row < row_end; ++row) {
    int64_t rest = row;
    bool outside = false;
    for (size_t d = r - 1; d-- > 0;) {
      coord[d] = rest % dom[d];
      rest /= dom[d];
      outside = outside || coord[d] >= shape[d];
    }
    coord[r - 1] = outside ? 0 : shape[r - 1];
    if (coord[r - 1] >= dom[r - 1]) continue;
    int64_t flat = 0;
    for (size_t d = 0; d < r; ++d) flat = flat * dom[d] + coord[d];
    int64_t addr = 0;
    for (size_t k = g.extents.size(); k-- > 0;) {
      digits[k] = flat % g.extents[k];
      flat /= g.extents[k];
      addr += digits[k] * g.strides[k];
    }
    for (int64_t x = coord[r - 1]; x < dom[r - 1]; ++x) {
      for (int64_t base : g.bases) std::memcpy(dst + (addr + base) * kB, p.padding_value.data(), kB);
      for (size_t k = g.extents.size(); k-- > 0;) {
        addr += g.strides[k];
        if (++digits[k] < g.extents[k]) break;
        addr -= g.extents[k] * g.strides[k];
        digits[k] = 0;
      }
    }
  }
}

template <int kB>
void RunGeneric(const PlanData& p, const uint8_t* src, uint8_t* dst) {
  ThreadPool* pool = p.pool;
  const int64_t rows = p.generic_rows;
  const int64_t per = p.generic_rows_per_chunk;
  if (p.elements > 0) {
    const int64_t chunks = (rows + per - 1) / per;
    auto run = [&](int64_t c) { GenericCopyRows<kB>(p, src, dst, c * per, std::min(rows, (c + 1) * per)); };
    if (p.threads <= 1) {
      for (int64_t c = 0; c < chunks; ++c) run(c);
    } else {
      pool->ParallelFor(chunks, run, p.threads);
    }
  }
  if (!p.padding_value.empty()) {
    int64_t fill_rows = 1;
    for (size_t d = 0; d + 1 < p.generic_dst.domain.size(); ++d) fill_rows *= p.generic_dst.domain[d];
    GenericFillRows<kB>(p, dst, 0, fill_rows);
  }
}

// ---------------------------------------------------------------- planning

struct Analysis {
  Side src, dst;
  std::vector<int64_t> shape;
  int bytes = 4;
  std::vector<uint8_t> padding_value;
  int64_t elements = 0;
};

absl::StatusOr<Analysis> Analyze(const BufferLayout& src, const BufferLayout& dst, absl::Span<const int64_t> shape_in,
                                 int element_bytes, const RelayoutOptions& options) {
  AXE_RETURN_IF_ERROR(CheckElementBytes(element_bytes));
  Analysis a{Side{src.layout, {}, 0, {}, std::nullopt}, Side{dst.layout, {}, 0, {}, std::nullopt}, {}, element_bytes,
             {}, 0};
  a.shape.assign(shape_in.begin(), shape_in.end());
  AXE_RETURN_IF_ERROR(CheckBufferLayout(src, shape_in, "source"));
  AXE_RETURN_IF_ERROR(CheckBufferLayout(dst, shape_in, "destination"));
  AXE_RETURN_IF_ERROR(CheckMemoryAxes(src.layout, "source"));
  AXE_RETURN_IF_ERROR(CheckMemoryAxes(dst.layout, "destination"));
  a.src.domain = src.DomainFor(a.shape);
  a.dst.domain = dst.DomainFor(a.shape);
  if (a.shape.empty()) {  // a scalar: one element
    a.shape = {1};
    a.src.domain = {1};
    a.dst.domain = {1};
  }
  std::optional<int64_t> elements = CheckedProduct(a.shape);
  if (!elements) return absl::InvalidArgumentError(absl::StrCat("shape ", FormatTuple(a.shape), " overflows int64"));
  a.elements = *elements;

  if (options.padding_value) {
    if (static_cast<int>(options.padding_value->size()) != element_bytes) {
      return absl::InvalidArgumentError(absl::StrCat("padding value has ", options.padding_value->size(),
                                                     " bytes but elements have ", element_bytes));
    }
    a.padding_value = *options.padding_value;
  }

  // Source: the base copy f_D(x) + O (replica copies hold the same values).
  AXE_ASSIGN_OR_RETURN(a.src.layout, Layout::Create(src.layout.shard(), {}, src.layout.offset()));
  a.src.offset = MemoryOffset(a.src.layout);
  // Destination: canonical, so that its replicas are positive and merged.
  a.dst.layout = Canonicalize(dst.layout);
  a.dst.offset = MemoryOffset(a.dst.layout);
  a.dst.replicas = a.dst.layout.replica();
  if (!SatisfiesGapCondition(a.dst.layout)) {
    return absl::InvalidArgumentError(absl::StrCat("destination ", dst.ToString(),
                                                   ": its replica copies overlap each other (the replicas do not "
                                                   "satisfy the gap condition), so a write is ambiguous"));
  }
  a.src.dims = DigitsPerDim(a.src.layout, a.src.domain);
  AXE_ASSIGN_OR_RETURN(Layout dst_shard, Layout::Create(a.dst.layout.shard()));
  a.dst.dims = DigitsPerDim(dst_shard, a.dst.domain);
  return a;
}

// Builds the nests (pieces) of the copy and of the padding fill; false when the layouts
// need the generic path.
bool BuildNests(const Analysis& a, const Tuning& t, std::vector<Nest>& copy, std::vector<Nest>& fill,
                std::string& why) {
  if (!a.src.dims || !a.dst.dims) {
    why = absl::StrCat(!a.src.dims ? "source" : "destination",
                       " layout does not split along the domain's dimensions");
    return false;
  }
  const size_t r = a.shape.size();
  std::vector<Loop> replica_loops;
  for (const Iter& it : a.dst.replicas) replica_loops.push_back({it.extent, 0, it.stride});

  auto emit = [&](const std::vector<std::vector<DimPiece>>& per_dim, bool is_fill, std::vector<Nest>& out) {
    std::vector<size_t> pick(r, 0);
    while (true) {
      std::vector<Loop> loops = replica_loops;
      int64_t sb = a.src.offset, db = a.dst.offset;
      for (size_t d = 0; d < r; ++d) {
        const DimPiece& p = per_dim[d][pick[d]];
        sb += p.src;
        db += p.dst;
        loops.insert(loops.end(), p.loops.begin(), p.loops.end());
      }
      out.push_back(PlanNest(loops, sb, db, is_fill, a.bytes, t));
      size_t d = r;
      while (d-- > 0) {
        if (++pick[d] < per_dim[d].size()) break;
        pick[d] = 0;
      }
      if (d == static_cast<size_t>(-1)) break;
    }
  };

  if (a.elements > 0) {
    std::vector<std::vector<DimPiece>> per_dim(r);
    int64_t pieces = 1;
    for (size_t d = 0; d < r; ++d) {
      const std::vector<Digit>& sd = (*a.src.dims)[d];
      const std::vector<Digit>& dd = (*a.dst.dims)[d];
      std::optional<CommonRadix> radix = internal::MakeCommonRadix({sd, dd});
      if (!radix) {
        why = absl::StrCat("dimension ", d, " is tiled differently on the two sides (no common mixed radix)");
        return false;
      }
      per_dim[d] = DimPieces(0, a.shape[d], *radix, &sd, dd);
      pieces *= static_cast<int64_t>(per_dim[d].size());
      if (pieces > kMaxPieces) {
        why = absl::StrCat("more than ", kMaxPieces, " pieces");
        return false;
      }
    }
    emit(per_dim, false, copy);
  }
  if (!a.padding_value.empty()) {
    // Region d: dims before d inside the box, dim d in the padding, dims after d anywhere.
    for (size_t pd = 0; pd < r; ++pd) {
      if (a.shape[pd] >= a.dst.domain[pd]) continue;
      std::vector<std::vector<DimPiece>> per_dim(r);
      int64_t pieces = 1;
      for (size_t d = 0; d < r; ++d) {
        const std::vector<Digit>& dd = (*a.dst.dims)[d];
        std::optional<CommonRadix> radix = internal::MakeCommonRadix({dd});
        AXE_CHECK(radix.has_value()) << "a single side always has a radix";
        const int64_t lo = d == pd ? a.shape[d] : 0;
        const int64_t hi = d < pd ? a.shape[d] : a.dst.domain[d];
        per_dim[d] = DimPieces(lo, hi, *radix, nullptr, dd);
        pieces *= static_cast<int64_t>(per_dim[d].size());
      }
      if (pieces == 0) continue;  // an empty region (a zero extent before pd)
      if (pieces > kMaxPieces) {
        why = absl::StrCat("more than ", kMaxPieces, " padding pieces");
        return false;
      }
      emit(per_dim, true, fill);
    }
  }
  return true;
}

absl::StatusOr<std::shared_ptr<PlanData>> BuildPlan(const BufferLayout& src_in, const BufferLayout& dst_in,
                                                    const Analysis& a, const RelayoutOptions& options,
                                                    const Tuning& t) {
  auto p = std::make_shared<PlanData>();
  p->element_bytes = a.bytes;
  p->shape = a.shape;
  p->src_text = src_in.ToString();
  p->dst_text = dst_in.ToString();
  p->elements = a.elements;
  p->padding_value = a.padding_value;
  p->pool = options.pool != nullptr ? options.pool : &ThreadPool::Default();

  // Streaming stores when the destination is large and written whole (no gaps: its span
  // over the domain, replicas included, is about what gets written).
  int64_t copies = 1;
  for (const Iter& r : a.dst.replicas) copies *= r.extent;
  std::optional<int64_t> domain_size = CheckedProduct(a.dst.domain);
  const int64_t written = (a.padding_value.empty() ? a.elements : domain_size.value_or(0)) * copies;
  const int64_t span = a.dst.layout.span_memory();
  const bool dense = written >= span - span / 10;
  const bool want_stream = options.stores == StoreMode::kStreaming ||
                           (options.stores == StoreMode::kAuto && dense && written * a.bytes >= kNonTemporalBytes);
  Tuning tuned = t;
  tuned.stream = want_stream;

  std::vector<Nest> copy, fill;
  std::string why;
  p->generic = !BuildNests(a, tuned, copy, fill, why);
  p->note = why;

  // Injectivity of the destination: over the whole domain (always needed when filling),
  // else over the box.
  absl::StatusOr<bool> injective = IsInjective(a.dst.layout);
  const bool padded = a.dst.domain != a.shape;
  if (!injective.ok() || !*injective) {
    const std::string reason = injective.ok() ? "" : absl::StrCat(" (", injective.status().message(), ")");
    if (!padded || !a.padding_value.empty() || p->generic) {
      return absl::InvalidArgumentError(absl::StrCat(
          "destination ", dst_in.ToString(), " is not injective", padded ? " over its domain" : "",
          ": two elements would be written to the same place", reason));
    }
    AXE_RETURN_IF_ERROR(CheckBoxInjective(copy, dst_in.ToString()));
  }

  if (p->generic) {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> bases, CopyOffsets(a.dst));
    p->generic_src = MakeGenericSide(a.src.layout, a.src.domain, {a.src.offset});
    AXE_ASSIGN_OR_RETURN(Layout dst_shard, Layout::Create(a.dst.layout.shard()));
    p->generic_dst = MakeGenericSide(dst_shard, a.dst.domain, bases);
    p->pieces = 0;
    int64_t fill_elements = 0;
    if (!a.padding_value.empty()) {
      std::optional<int64_t> dom = CheckedProduct(a.dst.domain);
      fill_elements = (*dom - a.elements) * static_cast<int64_t>(bases.size());
    }
    p->elements_written = a.elements * static_cast<int64_t>(bases.size()) + fill_elements;
    const auto [slo, shi] = LayoutRange(p->generic_src);
    const auto [dlo, dhi] = LayoutRange(p->generic_dst);
    p->src_begin = a.elements > 0 ? slo : 0;
    p->src_end = a.elements > 0 ? shi + 1 : 0;
    p->dst_begin = p->elements_written > 0 ? dlo : 0;
    p->dst_end = p->elements_written > 0 ? dhi + 1 : 0;
    p->generic_rows = 1;
    for (size_t d = 0; d + 1 < a.shape.size(); ++d) p->generic_rows *= a.shape[d];
  } else {
    p->pieces = static_cast<int>(copy.size());
    p->nests = std::move(copy);
    p->nests.insert(p->nests.end(), fill.begin(), fill.end());
    bool any_src = false, any_dst = false;
    for (size_t k = 0; k < p->nests.size(); ++k) {
      const Nest& n = p->nests[k];
      p->elements_written += n.elements;
      if (n.kind != KernelKind::kFill) Extend(n.src_offset, n.dims, true, p->src_begin, p->src_end, any_src);
      Extend(n.dst_offset, n.dims, false, p->dst_begin, p->dst_end, any_dst);
    }
  }
  // Byte addresses must fit.
  for (int64_t v : {p->src_begin, p->src_end, p->dst_begin, p->dst_end}) {
    if (!CheckedMul(v, a.bytes)) {
      return absl::InvalidArgumentError(absl::StrCat("element offset ", v, " times ", a.bytes,
                                                     " bytes overflows the address range"));
    }
  }

  for (Nest& n : p->nests) SetStreaming(n, a.bytes, want_stream);
  const int64_t written_bytes = p->elements_written * a.bytes;

  const int64_t total_bytes = a.elements * a.bytes + written_bytes;
  int threads = options.threads > 0 ? options.threads : p->pool->size();
  threads = std::max(1, std::min(threads, p->pool->size()));
  if (total_bytes < options.min_parallel_bytes) threads = 1;
  p->threads = threads;
  if (p->generic) {
    const int64_t row_bytes = std::max<int64_t>(1, a.shape.back() * a.bytes * 2);
    p->generic_rows_per_chunk = std::max<int64_t>(1, (int64_t{1} << 20) / row_bytes);
  } else {
    MakeChunks(*p, total_bytes);
  }
  return p;
}

// Times `plan` on scratch buffers: the best of `reps` runs, in seconds.
double TimePlan(const RelayoutPlan& plan, const uint8_t* src, uint8_t* dst, int reps) {
  double best = 1e30;
  for (int k = 0; k < reps; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    absl::Status s = plan.Execute(src, dst);
    auto t1 = std::chrono::steady_clock::now();
    AXE_CHECK(s.ok()) << s.message();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

}  // namespace

// ---------------------------------------------------------------- RelayoutPlan

int RelayoutPlan::element_bytes() const { return data_->element_bytes; }
const std::vector<int64_t>& RelayoutPlan::shape() const { return data_->shape; }
int64_t RelayoutPlan::elements() const { return data_->elements; }
int64_t RelayoutPlan::elements_written() const { return data_->elements_written; }
int64_t RelayoutPlan::bytes_moved() const {
  return (data_->elements + data_->elements_written) * data_->element_bytes;
}
int64_t RelayoutPlan::src_begin() const { return data_->src_begin; }
int64_t RelayoutPlan::src_end() const { return data_->src_end; }
int64_t RelayoutPlan::dst_begin() const { return data_->dst_begin; }
int64_t RelayoutPlan::dst_end() const { return data_->dst_end; }
int RelayoutPlan::threads() const { return data_->threads; }
int RelayoutPlan::pieces() const { return data_->pieces; }
bool RelayoutPlan::generic() const { return data_->generic; }

std::vector<std::string> RelayoutPlan::kernels() const {
  std::vector<std::string> out;
  if (data_->generic) out.push_back("generic");
  for (const Nest& n : data_->nests) {
    std::string k = KernelName(n);
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

std::string RelayoutPlan::ToString() const {
  const PlanData& p = *data_;
  std::string s = absl::StrCat("relayout ", FormatTuple(p.shape), " x ", p.element_bytes, " B: ", p.src_text, " -> ",
                               p.dst_text, "\n");
  if (p.generic) {
    absl::StrAppend(&s, "  generic: element by element, odometers over both layouts (", p.note, ")\n");
  }
  constexpr size_t kShown = 8;
  for (size_t k = 0; k < p.nests.size(); ++k) {
    if (k == kShown) {
      absl::StrAppend(&s, "  ... ", p.nests.size() - kShown, " more pieces\n");
      break;
    }
    const Nest& n = p.nests[k];
    const std::string dims = absl::StrJoin(n.dims, " ", [](std::string* out, const Nest::Dim& d) {
      absl::StrAppend(out, d.n, "[", d.src, ",", d.dst, "]");
    });
    absl::StrAppend(&s, "  ", n.kind == KernelKind::kFill ? "fill" : "piece", " ", k, ": dims ",
                    dims.empty() ? "(one element)" : dims, " (extent[src stride,dst stride] in elements); loops ",
                    n.order, "; kernel ", KernelName(n));
    if (n.kind == KernelKind::kTranspose) {
      absl::StrAppend(&s, " in ", n.block_i, "x", n.block_j, n.staged ? " staged" : "", " blocks");
    }
    absl::StrAppend(&s, n.stream ? ", streaming stores" : "", "\n");
  }
  absl::StrAppend(&s, "  threads ", p.threads, " (", p.generic ? 0 : p.chunks.size(), " chunks), SIMD ",
                  internal::SimdTargetName());
  if (!p.generic && !p.note.empty()) absl::StrAppend(&s, ", ", p.note);
  return s;
}

absl::Status RelayoutPlan::Execute(const void* src_ptr, void* dst_ptr) const {
  const PlanData& p = *data_;
  if (p.elements_written == 0) return absl::OkStatus();
  if ((p.elements > 0 && src_ptr == nullptr) || dst_ptr == nullptr) {
    return absl::InvalidArgumentError("relayout: null buffer pointer");
  }
  const auto* src = static_cast<const uint8_t*>(src_ptr);
  auto* dst = static_cast<uint8_t*>(dst_ptr);
  const int64_t b = p.element_bytes;
  if (p.elements > 0) {
    const uintptr_t s0 = reinterpret_cast<uintptr_t>(src) + static_cast<uintptr_t>(p.src_begin * b);
    const uintptr_t s1 = reinterpret_cast<uintptr_t>(src) + static_cast<uintptr_t>(p.src_end * b);
    const uintptr_t d0 = reinterpret_cast<uintptr_t>(dst) + static_cast<uintptr_t>(p.dst_begin * b);
    const uintptr_t d1 = reinterpret_cast<uintptr_t>(dst) + static_cast<uintptr_t>(p.dst_end * b);
    if (s0 < d1 && d0 < s1) {
      return absl::InvalidArgumentError(
          "relayout: the source and destination buffers overlap (a relayout is not done in place)");
    }
  }
  if (p.generic) {
    switch (p.element_bytes) {
      case 1:
        RunGeneric<1>(p, src, dst);
        break;
      case 2:
        RunGeneric<2>(p, src, dst);
        break;
      case 4:
        RunGeneric<4>(p, src, dst);
        break;
      case 8:
        RunGeneric<8>(p, src, dst);
        break;
      default:
        RunGeneric<16>(p, src, dst);
        break;
    }
    return absl::OkStatus();
  }
  const uint8_t* fill = p.padding_value.empty() ? nullptr : p.padding_value.data();
  auto run = [&](int64_t c) {
    const Chunk& ch = p.chunks[static_cast<size_t>(c)];
    const Nest& n = p.nests[static_cast<size_t>(ch.nest)];
    const bool stream =
        n.stream && (reinterpret_cast<uintptr_t>(dst + n.dst_offset * b) % static_cast<uintptr_t>(n.stream_align)) == 0;
    internal::RunNestChunk(n, p.element_bytes, src, dst, ch.begin, ch.end, stream, fill);
  };
  const int64_t chunks = static_cast<int64_t>(p.chunks.size());
  if (p.threads <= 1 || chunks <= 1) {
    for (int64_t c = 0; c < chunks; ++c) run(c);
  } else {
    p.pool->ParallelFor(chunks, run, p.threads);
  }
  return absl::OkStatus();
}

absl::StatusOr<RelayoutPlan> PlanRelayout(const BufferLayout& src, const BufferLayout& dst,
                                          absl::Span<const int64_t> shape, int element_bytes,
                                          const RelayoutOptions& options) {
  AXE_ASSIGN_OR_RETURN(Analysis a, Analyze(src, dst, shape, element_bytes, options));
  const Tuning t = TuningFrom(options);
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<PlanData> best, BuildPlan(src, dst, a, options, t));
  if (options.search != PlanSearch::kMeasure || best->generic || best->elements == 0) {
    return RelayoutPlan(std::move(best));
  }

  // kMeasure: vary one knob at a time around the estimate, keep what is faster.
  const int64_t b = element_bytes;
  const int64_t src_bytes = (best->src_end - best->src_begin) * b;
  const int64_t dst_bytes = (best->dst_end - best->dst_begin) * b;
  if (src_bytes + dst_bytes > options.measure_max_bytes) {
    best->note = "kMeasure skipped: buffers larger than measure_max_bytes";
    return RelayoutPlan(std::move(best));
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(options.measure_seconds));
  std::vector<uint8_t> src_buf(static_cast<size_t>(src_bytes)), dst_buf(static_cast<size_t>(dst_bytes));
  std::memset(src_buf.data(), 1, src_buf.size());
  std::memset(dst_buf.data(), 2, dst_buf.size());
  const uint8_t* sbase = src_buf.data() - best->src_begin * b;
  uint8_t* dbase = dst_buf.data() - best->dst_begin * b;
  RelayoutOptions best_options = options;
  double best_time = TimePlan(RelayoutPlan(best), sbase, dbase, 2);
  int tried = 1;
  const bool transposes = std::any_of(best->nests.begin(), best->nests.end(),
                                      [](const Nest& n) { return n.kind == KernelKind::kTranspose; });
  std::vector<std::function<void(RelayoutOptions&)>> variants;
  for (StoreMode m : {StoreMode::kRegular, StoreMode::kStreaming}) {
    variants.push_back([m](RelayoutOptions& o) { o.stores = m; });
  }
  variants.push_back([](RelayoutOptions& o) { o.loop_order = LoopOrder::kSource; });
  if (transposes) {
    for (int64_t rows : {16, 64, 128}) variants.push_back([rows](RelayoutOptions& o) { o.block_rows = rows; });
    for (int64_t cols : {256, 2048}) variants.push_back([cols](RelayoutOptions& o) { o.block_cols = cols; });
    for (int staged : {1, -1}) variants.push_back([staged](RelayoutOptions& o) { o.staged = staged; });
    for (int lanes : {4, 8, 16}) variants.push_back([lanes](RelayoutOptions& o) { o.tile_lanes = lanes; });
  }
  for (const auto& vary : variants) {
    if (std::chrono::steady_clock::now() >= deadline) break;
    RelayoutOptions o = best_options;
    vary(o);
    absl::StatusOr<std::shared_ptr<PlanData>> cand = BuildPlan(src, dst, a, o, TuningFrom(o));
    if (!cand.ok() || (*cand)->src_begin != best->src_begin || (*cand)->dst_begin != best->dst_begin) continue;
    const double time = TimePlan(RelayoutPlan(*cand), sbase, dbase, 2);
    ++tried;
    if (time < best_time) {
      best_time = time;
      best = *std::move(cand);
      best_options = o;
    }
  }
  best->note = absl::StrCat("kMeasure: best of ", tried, " plans");
  return RelayoutPlan(std::move(best));
}

absl::Status Relayout(const BufferLayout& src, const BufferLayout& dst, absl::Span<const int64_t> shape,
                      int element_bytes, const void* src_ptr, void* dst_ptr, const RelayoutOptions& options) {
  AXE_ASSIGN_OR_RETURN(RelayoutPlan plan, PlanRelayout(src, dst, shape, element_bytes, options));
  return plan.Execute(src_ptr, dst_ptr);
}

}  // namespace axe::runtime
