#include "relayout/relayout_plan_build.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/layout/properties.h"
#include "relayout/radix.h"
#include "relayout/relayout_plan_generic.h"

namespace axe::relayout::internal {
namespace {

// More pieces than this (padding on many tiled dimensions) use the generic path.
constexpr int64_t kMaxPieces = 4096;
// Destinations up to this many elements are checked for injectivity over the box by
// enumeration when the layout is not injective over its whole domain.
constexpr int64_t kMaxEnumeratedInjectivity = int64_t{1} << 22;
// Destinations written whole from this size on get streaming stores (measured: from about
// 4 MiB on a transpose is faster with them, even when everything fits in the L3).
constexpr int64_t kNonTemporalBytes = int64_t{4} << 20;

// A box of one dimension: its offset on each side and its loops.
struct DimPiece {
  int64_t src_offset = 0, dst_offset = 0;
  std::vector<Loop> loops;
};

// Pieces of [lo, hi) of one dimension in a common radix. `src` is null for fills.
std::vector<DimPiece> DimPieces(int64_t lo, int64_t hi, const CommonRadix& radix,
                                const std::vector<Digit>* src, const std::vector<Digit>& dst) {
  std::vector<DimPiece> out;
  const size_t m = radix.weights.size();
  const size_t dst_index = src ? 1 : 0;
  for (const RadixBox& box : DecomposeInterval(lo, hi, radix.weights)) {
    DimPiece p;
    p.src_offset = src ? DigitsValue(*src, box.start) : 0;
    p.dst_offset = DigitsValue(dst, box.start);
    auto strides = [&](size_t level) {
      return Loop{0, src ? radix.strides[0][level] : 0, radix.strides[dst_index][level]};
    };
    Loop first = strides(box.level);
    first.extent = box.count;
    p.loops.push_back(first);
    for (size_t k = box.level + 1; k < m; ++k) {
      Loop l = strides(k);
      l.extent = radix.weights[k - 1] / radix.weights[k];
      p.loops.push_back(l);
    }
    out.push_back(std::move(p));
  }
  return out;
}

// Plans one nest per combination of the pieces of every dimension.
void EmitNests(const Analysis& a, const Tuning& t,
               const std::vector<std::vector<DimPiece>>& per_dim, bool fill,
               std::vector<Nest>& out) {
  const size_t r = a.shape.size();
  std::vector<Loop> replica_loops;
  for (const Iter& it : a.dst.replicas) replica_loops.push_back({it.extent, 0, it.stride});
  std::vector<size_t> pick(r, 0);
  while (true) {
    std::vector<Loop> loops = replica_loops;
    int64_t src_base = a.src.offset, dst_base = a.dst.offset;
    for (size_t d = 0; d < r; ++d) {
      const DimPiece& p = per_dim[d][pick[d]];
      src_base += p.src_offset;
      dst_base += p.dst_offset;
      loops.insert(loops.end(), p.loops.begin(), p.loops.end());
    }
    out.push_back(PlanNest(loops, src_base, dst_base, fill, a.element_bytes, t));
    size_t d = r;
    while (d-- > 0) {
      if (++pick[d] < per_dim[d].size()) break;
      pick[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) break;
  }
}

// The pieces of the tensor's box; false (with the reason) when the generic path is needed.
bool CopyPieces(const Analysis& a, std::vector<std::vector<DimPiece>>& per_dim, std::string& why) {
  const size_t r = a.shape.size();
  per_dim.assign(r, {});
  int64_t pieces = 1;
  for (size_t d = 0; d < r; ++d) {
    const std::vector<Digit>& src_digits = (*a.src.digits_per_dim)[d];
    const std::vector<Digit>& dst_digits = (*a.dst.digits_per_dim)[d];
    std::optional<CommonRadix> radix = MakeCommonRadix({src_digits, dst_digits});
    if (!radix) {
      why = absl::StrCat("dimension ", d,
                         " is tiled differently on the two sides (no common mixed radix)");
      return false;
    }
    per_dim[d] = DimPieces(0, a.shape[d], *radix, &src_digits, dst_digits);
    pieces *= static_cast<int64_t>(per_dim[d].size());
    if (pieces > kMaxPieces) {
      why = absl::StrCat("more than ", kMaxPieces, " pieces");
      return false;
    }
  }
  return true;
}

// The padding fill: region pd has the dims before pd inside the box, dim pd in the padding
// and the dims after pd anywhere. False (with the reason) when there are too many pieces.
bool FillNests(const Analysis& a, const Tuning& t, std::vector<Nest>& fill, std::string& why) {
  const size_t r = a.shape.size();
  for (size_t pd = 0; pd < r; ++pd) {
    if (a.shape[pd] >= a.dst.domain[pd]) continue;
    std::vector<std::vector<DimPiece>> per_dim(r);
    int64_t pieces = 1;
    for (size_t d = 0; d < r; ++d) {
      const std::vector<Digit>& dst_digits = (*a.dst.digits_per_dim)[d];
      std::optional<CommonRadix> radix = MakeCommonRadix({dst_digits});
      AXE_CHECK(radix.has_value()) << "a single side always has a radix";
      const int64_t lo = d == pd ? a.shape[d] : 0;
      const int64_t hi = d < pd ? a.shape[d] : a.dst.domain[d];
      per_dim[d] = DimPieces(lo, hi, *radix, nullptr, dst_digits);
      pieces *= static_cast<int64_t>(per_dim[d].size());
    }
    if (pieces == 0) continue;  // an empty region (a zero extent before pd)
    if (pieces > kMaxPieces) {
      why = absl::StrCat("more than ", kMaxPieces, " padding pieces");
      return false;
    }
    EmitNests(a, t, per_dim, true, fill);
  }
  return true;
}

// Builds the nests (pieces) of the copy and of the padding fill; false when the layouts
// need the generic path (`why` says why).
bool BuildNests(const Analysis& a, const Tuning& t, std::vector<Nest>& copy,
                std::vector<Nest>& fill, std::string& why) {
  if (!a.src.digits_per_dim || !a.dst.digits_per_dim) {
    why = absl::StrCat(!a.src.digits_per_dim ? "source" : "destination",
                       " layout does not split along the domain's dimensions");
    return false;
  }
  if (a.elements > 0) {
    std::vector<std::vector<DimPiece>> per_dim;
    if (!CopyPieces(a, per_dim, why)) return false;
    EmitNests(a, t, per_dim, false, copy);
  }
  if (!a.padding_value.empty() && !FillNests(a, t, fill, why)) return false;
  return true;
}

// [lo, hi) of the element offsets a nest touches on one side, extended.
void Extend(int64_t base, const std::vector<Loop>& loops, bool src, int64_t& lo, int64_t& hi,
            bool& any) {
  int64_t mn = base, mx = base;
  for (const Loop& l : loops) {
    const int64_t reach = (l.extent - 1) * (src ? l.src_stride : l.dst_stride);
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

absl::Status CheckBoxInjective(const std::vector<Nest>& nests, absl::string_view dst_text) {
  int64_t total = 0;
  for (const Nest& n : nests) total += n.elements;
  if (total > kMaxEnumeratedInjectivity) {
    return absl::InvalidArgumentError(
        absl::StrCat("destination ", dst_text, " is not injective over its domain and the tensor (",
                     total, " elements) is too large to check injectivity over the tensor's box"));
  }
  std::vector<int64_t> addresses;
  addresses.reserve(static_cast<size_t>(total));
  for (const Nest& n : nests) {
    std::vector<int64_t> cur = {n.dst_offset};
    for (const Loop& l : n.fused_loops) {
      std::vector<int64_t> next;
      next.reserve(cur.size() * static_cast<size_t>(l.extent));
      for (int64_t v : cur) {
        for (int64_t c = 0; c < l.extent; ++c) next.push_back(v + c * l.dst_stride);
      }
      cur = std::move(next);
    }
    addresses.insert(addresses.end(), cur.begin(), cur.end());
  }
  std::sort(addresses.begin(), addresses.end());
  auto dup = std::adjacent_find(addresses.begin(), addresses.end());
  if (dup != addresses.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "destination ", dst_text,
        " is not injective over the tensor's box: two elements are written to offset ", *dup));
  }
  return absl::OkStatus();
}

// The destination must be injective over its whole domain (always when filling the
// padding or on the generic path), else over the tensor's box.
absl::Status CheckInjective(const Analysis& a, const std::vector<Nest>& copy, bool generic,
                            const BufferLayout& dst) {
  absl::StatusOr<bool> injective = IsInjective(a.dst.layout);
  if (injective.ok() && *injective) return absl::OkStatus();
  const bool padded = a.dst.domain != a.shape;
  const std::string reason =
      injective.ok() ? "" : absl::StrCat(" (", injective.status().message(), ")");
  if (!padded || !a.padding_value.empty() || generic) {
    return absl::InvalidArgumentError(absl::StrCat(
        "destination ", dst.ToString(), " is not injective", padded ? " over its domain" : "",
        ": two elements would be written to the same place", reason));
  }
  return CheckBoxInjective(copy, dst.ToString());
}

void MakeChunks(PlanData& p, int64_t total_bytes) {
  p.chunks.clear();
  const int64_t per_elem = 2 * int64_t{p.element_bytes};
  if (p.threads <= 1) {
    for (size_t k = 0; k < p.nests.size(); ++k) {
      if (p.nests[k].num_units > 0) {
        p.chunks.push_back({static_cast<int32_t>(k), 0, p.nests[k].num_units});
      }
    }
    return;
  }
  // Large chunks (measured: 16 MiB chunks beat 1-4 MiB ones on a 2-core transpose).
  const int64_t target = std::clamp<int64_t>(total_bytes / (int64_t{p.threads} * 8),
                                             int64_t{256} << 10, int64_t{16} << 20);
  for (size_t k = 0; k < p.nests.size(); ++k) {
    const Nest& n = p.nests[k];
    const int64_t unit_bytes =
        std::max<int64_t>(1, n.elements * per_elem / std::max<int64_t>(1, n.num_units));
    const int64_t per_chunk = std::max<int64_t>(1, target / unit_bytes);
    for (int64_t u = 0; u < n.num_units; u += per_chunk) {
      p.chunks.push_back({static_cast<int32_t>(k), u, std::min(n.num_units, u + per_chunk)});
    }
  }
}

// Streaming stores when the destination is large and written whole (no gaps: its span
// over the domain, replicas included, is about what gets written).
bool WantStreaming(const Analysis& a, const RelayoutOptions& options) {
  int64_t copies = 1;
  for (const Iter& r : a.dst.replicas) copies *= r.extent;
  std::optional<int64_t> domain_size = CheckedProduct(a.dst.domain);
  const int64_t written = (a.padding_value.empty() ? a.elements : domain_size.value_or(0)) * copies;
  const int64_t span = a.dst.layout.span_memory();
  const bool dense = written >= span - span / 10;
  return options.stores == StoreMode::kStreaming ||
         (options.stores == StoreMode::kAuto && dense &&
          written * a.element_bytes >= kNonTemporalBytes);
}

// The nests of a non-generic plan, with what they write and the offset ranges they touch.
void SetNests(PlanData& p, std::vector<Nest> copy, const std::vector<Nest>& fill) {
  p.pieces = static_cast<int>(copy.size());
  p.nests = std::move(copy);
  p.nests.insert(p.nests.end(), fill.begin(), fill.end());
  bool any_src = false, any_dst = false;
  for (const Nest& n : p.nests) {
    p.elements_written += n.elements;
    if (n.kind != KernelKind::kFill) {
      Extend(n.src_offset, n.fused_loops, true, p.src_begin, p.src_end, any_src);
    }
    Extend(n.dst_offset, n.fused_loops, false, p.dst_begin, p.dst_end, any_dst);
  }
}

}  // namespace

absl::StatusOr<std::shared_ptr<PlanData>> BuildPlan(const BufferLayout& src_in,
                                                    const BufferLayout& dst_in, const Analysis& a,
                                                    const RelayoutOptions& options,
                                                    const Tuning& t) {
  auto p = std::make_shared<PlanData>();
  p->element_bytes = a.element_bytes;
  p->shape = a.shape;
  p->src_text = src_in.ToString();
  p->dst_text = dst_in.ToString();
  p->elements = a.elements;
  p->padding_value = a.padding_value;
  p->pool = options.pool != nullptr ? options.pool : &ThreadPool::Default();

  const bool want_stream = WantStreaming(a, options);
  Tuning tuned = t;
  tuned.stream = want_stream;
  std::vector<Nest> copy, fill;
  std::string why;
  p->generic = !BuildNests(a, tuned, copy, fill, why);
  p->note = why;
  AXE_RETURN_IF_ERROR(CheckInjective(a, copy, p->generic, dst_in));
  if (p->generic) {
    AXE_RETURN_IF_ERROR(PlanGeneric(a, *p));
  } else {
    SetNests(*p, std::move(copy), fill);
  }
  // Byte addresses must fit.
  for (int64_t v : {p->src_begin, p->src_end, p->dst_begin, p->dst_end}) {
    if (!CheckedMul(v, a.element_bytes)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "element offset ", v, " times ", a.element_bytes, " bytes overflows the address range"));
    }
  }

  for (Nest& n : p->nests) SetStreaming(n, a.element_bytes, want_stream);
  // Bytes read plus written (RelayoutPlan::bytes_moved) must fit too.
  const std::optional<int64_t> elements_moved = CheckedAdd(a.elements, p->elements_written);
  const std::optional<int64_t> moved =
      elements_moved ? CheckedMul(*elements_moved, a.element_bytes) : std::nullopt;
  if (!moved) {
    return absl::InvalidArgumentError(
        absl::StrCat("the relayout reads ", a.elements, " and writes ", p->elements_written,
                     " elements of ", a.element_bytes, " bytes: more than 2^63 bytes"));
  }
  const int64_t total_bytes = *moved;
  int threads = options.threads > 0 ? options.threads : p->pool->size();
  threads = std::max(1, std::min(threads, p->pool->size()));
  if (total_bytes < options.min_parallel_bytes) threads = 1;
  p->threads = threads;
  if (!p->generic) MakeChunks(*p, total_bytes);
  return p;
}

}  // namespace axe::relayout::internal
