#include "relayout/relayout_plan_generic.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"

namespace axe::relayout::internal {
namespace {

GenericSide MakeGenericSide(const Layout& l, const std::vector<int64_t>& domain,
                            std::vector<int64_t> copy_offsets) {
  GenericSide g;
  const Layout canonical = Canonicalize(l);
  for (const Iter& it : canonical.shard()) {
    if (it.extent > 1) {
      g.extents.push_back(it.extent);
      g.strides.push_back(it.stride);
    }
  }
  g.domain = domain;
  g.copy_offsets = std::move(copy_offsets);
  return g;
}

// Offsets of every copy of a destination element (O plus the replica points).
absl::StatusOr<std::vector<int64_t>> CopyOffsets(const Side& s) {
  std::vector<int64_t> offsets = {s.offset};
  for (const Iter& r : s.replicas) {
    std::vector<int64_t> next;
    for (int64_t b : offsets) {
      for (int64_t c = 0; c < r.extent; ++c) next.push_back(b + c * r.stride);
    }
    if (static_cast<int64_t>(next.size()) > kMaxEnumeratedPoints) {
      return absl::ResourceExhaustedError("too many destination replica copies");
    }
    offsets = std::move(next);
  }
  return offsets;
}

// The [min, max] offset a side's map takes over its whole domain.
std::pair<int64_t, int64_t> LayoutRange(const GenericSide& g) {
  int64_t lo = 0, hi = 0;
  for (size_t k = 0; k < g.extents.size(); ++k) {
    const int64_t reach = (g.extents[k] - 1) * g.strides[k];
    (reach < 0 ? lo : hi) += reach;
  }
  const auto [min_offset, max_offset] =
      std::minmax_element(g.copy_offsets.begin(), g.copy_offsets.end());
  return {lo + *min_offset, hi + *max_offset};
}

// Sets `digits` to the odometer of the domain point `coord` and returns its address.
int64_t StartOdometer(const GenericSide& g, const std::vector<int64_t>& coord,
                      std::vector<int64_t>& digits) {
  int64_t flat = 0;
  for (size_t d = 0; d < coord.size(); ++d) flat = flat * g.domain[d] + coord[d];
  int64_t addr = 0;
  for (size_t k = g.extents.size(); k-- > 0;) {
    digits[k] = flat % g.extents[k];
    flat /= g.extents[k];
    addr += digits[k] * g.strides[k];
  }
  return addr;
}

// Advances the odometer by one domain point.
inline void StepOdometer(const GenericSide& g, std::vector<int64_t>& digits, int64_t& addr) {
  for (size_t k = g.extents.size(); k-- > 0;) {
    addr += g.strides[k];
    if (++digits[k] < g.extents[k]) return;
    addr -= g.extents[k] * g.strides[k];
    digits[k] = 0;
  }
}

template <int kB>
void GenericCopyRows(const PlanData& p, const uint8_t* src, uint8_t* dst, int64_t row_begin,
                     int64_t row_end) {
  const std::vector<int64_t>& shape = p.shape;
  const size_t r = shape.size();
  const int64_t len = shape[r - 1];
  const GenericSide& gs = p.generic_src;
  const GenericSide& gd = p.generic_dst;
  std::vector<int64_t> coord(r, 0), cs(gs.extents.size()), cd(gd.extents.size());
  for (int64_t row = row_begin; row < row_end; ++row) {
    int64_t rest = row;
    for (size_t d = r - 1; d-- > 0;) {
      coord[d] = rest % shape[d];
      rest /= shape[d];
    }
    coord[r - 1] = 0;
    int64_t as = StartOdometer(gs, coord, cs) + gs.copy_offsets[0];
    int64_t ad = StartOdometer(gd, coord, cd);
    for (int64_t x = 0; x < len; ++x) {
      for (int64_t base : gd.copy_offsets) std::memcpy(dst + (ad + base) * kB, src + as * kB, kB);
      if (x + 1 < len) {
        StepOdometer(gs, cs, as);
        StepOdometer(gd, cd, ad);
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
    int64_t addr = StartOdometer(g, coord, digits);
    for (int64_t x = coord[r - 1]; x < dom[r - 1]; ++x) {
      for (int64_t base : g.copy_offsets) {
        std::memcpy(dst + (addr + base) * kB, p.padding_value.data(), kB);
      }
      StepOdometer(g, digits, addr);
    }
  }
}

template <int kB>
void RunGenericOf(const PlanData& p, const uint8_t* src, uint8_t* dst) {
  const int64_t rows = p.generic_rows;
  const int64_t per = p.generic_rows_per_chunk;
  if (p.elements > 0) {
    const int64_t chunks = (rows + per - 1) / per;
    auto run = [&](int64_t c) {
      GenericCopyRows<kB>(p, src, dst, c * per, std::min(rows, (c + 1) * per));
    };
    if (p.threads <= 1) {
      for (int64_t c = 0; c < chunks; ++c) run(c);
    } else {
      p.pool->ParallelFor(chunks, run, p.threads);
    }
  }
  if (!p.padding_value.empty()) {
    int64_t fill_rows = 1;
    for (size_t d = 0; d + 1 < p.generic_dst.domain.size(); ++d) {
      fill_rows *= p.generic_dst.domain[d];
    }
    GenericFillRows<kB>(p, dst, 0, fill_rows);
  }
}

}  // namespace

absl::Status PlanGeneric(const Analysis& a, PlanData& p) {
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> offsets, CopyOffsets(a.dst));
  p.generic_src = MakeGenericSide(a.src.layout, a.src.domain, {a.src.offset});
  AXE_ASSIGN_OR_RETURN(Layout dst_shard, Layout::Create(a.dst.layout.shard()));
  p.generic_dst = MakeGenericSide(dst_shard, a.dst.domain, offsets);
  p.pieces = 0;
  const int64_t copies = static_cast<int64_t>(offsets.size());
  // Every destination copy of the box, and of the padding when it is filled.
  const std::optional<int64_t> domain_size = CheckedProduct(a.dst.domain);
  const int64_t per_copy = a.padding_value.empty() ? a.elements : domain_size.value_or(-1);
  const std::optional<int64_t> written = CheckedMul(per_copy, copies);
  if (per_copy < 0 || !written) {
    return absl::InvalidArgumentError(
        absl::StrCat("the destination's ", copies, " copies hold more than 2^63 elements"));
  }
  p.elements_written = *written;
  const auto [src_lo, src_hi] = LayoutRange(p.generic_src);
  const auto [dst_lo, dst_hi] = LayoutRange(p.generic_dst);
  p.src_begin = a.elements > 0 ? src_lo : 0;
  p.src_end = a.elements > 0 ? src_hi + 1 : 0;
  p.dst_begin = p.elements_written > 0 ? dst_lo : 0;
  p.dst_end = p.elements_written > 0 ? dst_hi + 1 : 0;
  p.generic_rows = 1;
  for (size_t d = 0; d + 1 < a.shape.size(); ++d) p.generic_rows *= a.shape[d];
  const int64_t row_bytes = std::max<int64_t>(1, a.shape.back() * a.element_bytes * 2);
  p.generic_rows_per_chunk = std::max<int64_t>(1, (int64_t{1} << 20) / row_bytes);
  return absl::OkStatus();
}

void RunGeneric(const PlanData& p, const uint8_t* src, uint8_t* dst) {
  switch (p.element_bytes) {
    case 1: return RunGenericOf<1>(p, src, dst);
    case 2: return RunGenericOf<2>(p, src, dst);
    case 4: return RunGenericOf<4>(p, src, dst);
    case 8: return RunGenericOf<8>(p, src, dst);
    default: return RunGenericOf<16>(p, src, dst);
  }
}

}  // namespace axe::relayout::internal
