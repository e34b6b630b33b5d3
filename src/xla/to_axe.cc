// ToAxe: the Axe layout of a nested tiled XLA layout, by tracking the digits of the
// domain's row-major flat index through every tile level (docs/xla.md, "The Axe form").
#include "axe/xla/to_axe.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"
#include "axe/xla/text.h"
#include "axe/xla/tiling.h"
#include "checks.h"

namespace axe::xla {
namespace {

// A digit: a factor of the domain's row-major flat index (real), or of a dimension that
// exists only in the tiled layout (dummy: its value is 0 for every real element).
struct Slot {
  int64_t extent = 1;
  bool dummy = false;
  int64_t home = -1;   // the logical dim a real digit came from (its lowest one)
  bool tiled = false;  // placed inside a tile: padding it would be sub-tile padding
};

class DigitTracker {
 public:
  DigitTracker(const Shape& shape) : shape_(shape) {}

  absl::StatusOr<AxeForm> Run();

 private:
  absl::Status NotExpressible(absl::string_view why) const {
    return absl::FailedPreconditionError(
        absl::StrCat("not expressible as an Axe layout: ", shape_.ToString(), ": ", why,
                     " at tile level ", level_ + 1));
  }

  int NewSlot(int64_t extent, bool dummy, int64_t home, bool tiled = false) {
    slots_.push_back(Slot{extent, dummy, home, tiled});
    return static_cast<int>(slots_.size() - 1);
  }
  std::optional<size_t> Pos(int id) const {
    auto it = std::find(order_.begin(), order_.end(), id);
    if (it == order_.end()) return std::nullopt;
    return static_cast<size_t>(it - order_.begin());
  }
  // Place value of a real slot in the domain's flat index: Π extents after it.
  int64_t Weight(size_t pos) const {
    int64_t w = 1;
    for (size_t i = pos + 1; i < order_.size(); ++i)
      w *= slots_[static_cast<size_t>(order_[i])].extent;
    return w;
  }
  // Lower boundary (place value) of domain dim k: Π sizes of the later domain dims.
  int64_t DomainLow(size_t k) const {
    int64_t w = 1;
    for (size_t i = k + 1; i < dom_.size(); ++i) w *= dom_[i].size;
    return w;
  }
  size_t DomainOf(int64_t logical) const {
    for (size_t k = 0; k < dom_.size(); ++k) {
      if (dom_[k].first_dim <= logical && logical <= dom_[k].last_dim) return k;
    }
    AXE_CHECK(false) << "logical dim " << logical << " is in no domain dim";
    return 0;
  }

  absl::Status PadDim(std::vector<int>& dim, int64_t n, int64_t padded);
  absl::Status PadSlot(int id, int64_t padded);
  absl::StatusOr<int> Merge(int a, int b);
  absl::Status SplitDim(std::vector<int>& dim, int64_t bound, std::vector<int>& inner);
  std::pair<int, int> SplitSlot(int id, int64_t inner);
  int64_t DimSize(const std::vector<int>& dim) const {
    int64_t p = 1;
    for (int id : dim) p *= slots_[static_cast<size_t>(id)].extent;
    return p;
  }

  const Shape& shape_;
  std::vector<Slot> slots_;
  std::vector<int> order_;  // real slots, most significant first
  std::vector<DomainDim> dom_;
  size_t level_ = 0;
};

// Pads the single slot `id` to `padded`: it must end exactly at the top of a domain dim, and
// every domain dim it touches merges into one whose size grows by padded / extent.
absl::Status DigitTracker::PadSlot(int id, int64_t padded) {
  Slot& s = slots_[static_cast<size_t>(id)];
  if (s.dummy) {
    s.extent = padded;
    return absl::OkStatus();
  }
  if (s.tiled) {
    return NotExpressible(absl::StrCat("padding a dimension of size ", s.extent, " to ", padded,
                                       " inside an already split dimension (sub-tile padding)"));
  }
  std::optional<size_t> pos = Pos(id);
  AXE_CHECK(pos.has_value()) << "a real digit outside the domain order";
  const int64_t low = Weight(*pos);
  const int64_t top = low * s.extent;
  std::optional<size_t> first, last;
  int64_t highest = 0;
  // Place values of every domain dim in one backward pass (not DomainLow per dim: that made
  // this quadratic in the rank).
  std::vector<int64_t> lows(dom_.size(), 1);
  for (size_t k = dom_.size(); k-- > 1;) lows[k - 1] = lows[k] * dom_[k].size;
  for (size_t k = 0; k < dom_.size(); ++k) {
    const int64_t lo = lows[k], hi = lo * dom_[k].size;
    if (lo < top && hi > low) {
      if (!first) first = k;
      last = k;
      highest = std::max(highest, hi);
    }
  }
  if (!first || highest != top) {
    return NotExpressible(absl::StrCat("padding a dimension of size ", s.extent, " to ", padded,
                                       " inside an already split dimension"));
  }
  int64_t product = 1;
  for (size_t k = *first; k <= *last; ++k) product *= dom_[k].size;
  if (product % s.extent != 0) {
    return NotExpressible(absl::StrCat("padding a dimension of size ", s.extent,
                                       " that straddles a domain boundary"));
  }
  DomainDim merged{dom_[*first].first_dim, dom_[*last].last_dim, product / s.extent * padded, {}};
  for (size_t k = *first; k <= *last; ++k) {
    const int64_t below = lows[k] / lows[*last];  // Π sizes of dims k+1 .. last
    for (int64_t w : dom_[k].weights) merged.weights.push_back(w * below);
  }
  dom_.erase(dom_.begin() + static_cast<std::ptrdiff_t>(*first),
             dom_.begin() + static_cast<std::ptrdiff_t>(*last) + 1);
  dom_.insert(dom_.begin() + static_cast<std::ptrdiff_t>(*first), std::move(merged));
  s.extent = padded;
  return absl::OkStatus();
}

// Merges slot a (more significant) with b into one slot holding the dim value a·e_b + b.
absl::StatusOr<int> DigitTracker::Merge(int a, int b) {
  Slot sa = slots_[static_cast<size_t>(a)], sb = slots_[static_cast<size_t>(b)];
  if (sa.extent == 1) return b;  // a unit digit contributes nothing
  if (sb.extent == 1) return a;
  if (sa.dummy && sb.dummy) return NewSlot(sa.extent * sb.extent, true, -1, sa.tiled || sb.tiled);
  if (sa.dummy) {
    // a is always 0: the pair is b padded by a's extent at the top.
    AXE_RETURN_IF_ERROR(PadSlot(b, sb.extent * sa.extent));
    return b;
  }
  if (sb.dummy) return NotExpressible("a real digit above a padding digit in one dimension");
  std::optional<size_t> pa = Pos(a), pb = Pos(b);
  AXE_CHECK(pa && pb) << "real digits outside the domain order";
  bool adjacent = *pb > *pa;
  for (size_t i = *pa + 1; adjacent && i < *pb; ++i)
    adjacent = slots_[static_cast<size_t>(order_[i])].extent == 1;
  if (!adjacent) {
    return NotExpressible(
        "a tile spans digits that are not adjacent in the row-major order of the domain");
  }
  const int merged = NewSlot(sa.extent * sb.extent, false, sa.home, sa.tiled || sb.tiled);
  std::vector<int> units(order_.begin() + static_cast<std::ptrdiff_t>(*pa) + 1,
                         order_.begin() + static_cast<std::ptrdiff_t>(*pb));
  order_.erase(order_.begin() + static_cast<std::ptrdiff_t>(*pa),
               order_.begin() + static_cast<std::ptrdiff_t>(*pb) + 1);
  units.insert(units.begin(), merged);
  order_.insert(order_.begin() + static_cast<std::ptrdiff_t>(*pa), units.begin(), units.end());
  return merged;
}

std::pair<int, int> DigitTracker::SplitSlot(int id, int64_t inner) {
  const Slot s = slots_[static_cast<size_t>(id)];
  const int hi = NewSlot(s.extent / inner, s.dummy, s.home, s.tiled);
  const int lo = NewSlot(inner, s.dummy, s.home, true);
  if (!s.dummy) {
    const size_t pos = *Pos(id);
    order_[pos] = lo;
    order_.insert(order_.begin() + static_cast<std::ptrdiff_t>(pos), hi);
  }
  return {hi, lo};
}

// Replaces the digits of a dim of size n by one digit of extent `padded` (n < padded).
absl::Status DigitTracker::PadDim(std::vector<int>& dim, int64_t n, int64_t padded) {
  std::vector<int> nonunit;
  for (int id : dim) {
    if (slots_[static_cast<size_t>(id)].extent > 1) nonunit.push_back(id);
  }
  if (nonunit.empty()) {
    // The dim's value is 0 for every element. Pad the domain where a real unit digit sits
    // at the top of its own logical dim (the padded box); otherwise it is layout-only.
    for (int id : dim) {
      const Slot& u = slots_[static_cast<size_t>(id)];
      std::optional<size_t> pos = Pos(id);
      if (u.dummy || u.tiled || !pos) continue;
      const size_t k = DomainOf(u.home);
      if (Weight(*pos) != DomainLow(k) * dom_[k].size) continue;
      dom_[k].size *= padded;
      slots_[static_cast<size_t>(id)].extent = padded;
      dim = {id};
      return absl::OkStatus();
    }
    dim = {NewSlot(padded, true, -1)};
    return absl::OkStatus();
  }
  int merged = nonunit.back();
  for (size_t i = nonunit.size() - 1; i-- > 0;) {
    AXE_ASSIGN_OR_RETURN(merged, Merge(nonunit[i], merged));
  }
  AXE_CHECK(slots_[static_cast<size_t>(merged)].extent == n) << "merged digit has the wrong extent";
  AXE_RETURN_IF_ERROR(PadSlot(merged, padded));
  dim = {merged};
  return absl::OkStatus();
}

// Splits a dim (bound divides its size) into outer (left in `dim`) and inner digits.
absl::Status DigitTracker::SplitDim(std::vector<int>& dim, int64_t bound, std::vector<int>& inner) {
  int64_t need = bound;
  while (need > 1) {
    AXE_CHECK(!dim.empty()) << "tile bound larger than its dimension";
    const int id = dim.back();
    const int64_t e = slots_[static_cast<size_t>(id)].extent;
    if (need % e == 0) {
      slots_[static_cast<size_t>(id)].tiled = true;
      inner.insert(inner.begin(), id);
      dim.pop_back();
      need /= e;
    } else if (e % need == 0) {
      auto [hi, lo] = SplitSlot(id, need);
      dim.back() = hi;
      inner.insert(inner.begin(), lo);
      need = 1;
    } else {
      if (dim.size() < 2)
        return NotExpressible(
            absl::StrCat("tile bound ", bound, " does not split the dimension's digits"));
      AXE_ASSIGN_OR_RETURN(int merged, Merge(dim[dim.size() - 2], id));
      dim.pop_back();
      dim.back() = merged;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<AxeForm> DigitTracker::Run() {
  AXE_ASSIGN_OR_RETURN(TilingMap map, TilingMap::Create(shape_));  // validates; sizes fit int64
  if (map.expanded_elements() == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("not expressible as an Axe layout: ", shape_.ToString(),
                     " has no elements (Axe extents are >= 1)"));
  }
  const std::vector<int64_t> dims(shape_.dimensions().begin(), shape_.dimensions().end());
  for (size_t j = 0; j < dims.size(); ++j) {
    dom_.push_back(DomainDim{static_cast<int64_t>(j), static_cast<int64_t>(j), dims[j], {1}});
  }
  // Physical dims, each one digit; the domain order is logical order.
  std::vector<int> by_logical(dims.size());
  for (size_t j = 0; j < dims.size(); ++j) {
    by_logical[j] = NewSlot(dims[j], false, static_cast<int64_t>(j));
    order_.push_back(by_logical[j]);
  }
  std::vector<std::vector<int>> cur;
  for (int64_t d : map.physical_order()) cur.push_back({by_logical[static_cast<size_t>(d)]});

  for (level_ = 0; level_ < map.levels().size(); ++level_) {
    const TilingLevel& l = map.levels()[level_];
    // Only the covered suffix changes (left padding only when it is all of cur).
    if (l.left_padding > 0) cur.insert(cur.begin(), l.left_padding, std::vector<int>{});
    std::vector<std::vector<int>> covered(
        std::make_move_iterator(cur.begin() + static_cast<std::ptrdiff_t>(l.prefix)),
        std::make_move_iterator(cur.end()));
    cur.resize(l.prefix);
    std::vector<std::vector<int>>& next = cur;
    std::vector<std::vector<int>> inners;
    for (size_t j = 0; j < l.groups.size(); ++j) {
      std::vector<int> dim;
      for (size_t c : l.groups[j]) dim.insert(dim.end(), covered[c].begin(), covered[c].end());
      const int64_t n = l.folded[j], t = l.bounds[j];
      AXE_CHECK(DimSize(dim) == n) << "digit extents disagree with the tiling";
      if (n % t != 0) AXE_RETURN_IF_ERROR(PadDim(dim, n, (n / t + 1) * t));
      std::vector<int> inner;
      AXE_RETURN_IF_ERROR(SplitDim(dim, t, inner));
      next.push_back(std::move(dim));
      inners.push_back(std::move(inner));
    }
    next.insert(next.end(), std::make_move_iterator(inners.begin()),
                std::make_move_iterator(inners.end()));
  }

  // Strides: row-major over the final dims, and within a dim over its digits.
  std::vector<int64_t> stride(slots_.size(), 0);
  int64_t st = 1;
  for (size_t q = cur.size(); q-- > 0;) {
    for (size_t k = cur[q].size(); k-- > 0;) {
      stride[static_cast<size_t>(cur[q][k])] = st;
      st *= slots_[static_cast<size_t>(cur[q][k])].extent;
    }
  }
  AXE_CHECK(st == map.expanded_elements()) << "final digits disagree with the expanded shape";
  std::vector<Iter> iters;
  int64_t domain_size = 1;
  for (int id : order_) {
    const Slot& s = slots_[static_cast<size_t>(id)];
    domain_size *= s.extent;
    if (s.extent > 1)
      iters.push_back(Iter{s.extent, stride[static_cast<size_t>(id)], Axis::Memory()});
  }
  if (iters.empty()) iters.push_back(Iter{1, 1, Axis::Memory()});
  AxeForm form{*axe::Layout::RowMajor({1}), {}, dom_, dims};
  for (const DomainDim& d : dom_) {
    form.domain.push_back(d.size);
    domain_size /= d.size;
  }
  AXE_CHECK(domain_size == 1) << "digits disagree with the domain";
  AXE_ASSIGN_OR_RETURN(form.layout, axe::Layout::Create(std::move(iters)));
  return form;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> AxeForm::DomainIndex(absl::Span<const int64_t> index) const {
  AXE_RETURN_IF_ERROR(internal::CheckIndexInBounds(real_dims, index, "DomainIndex"));
  std::vector<int64_t> out;
  for (const DomainDim& d : domain_dims) {
    int64_t v = 0;
    for (int64_t j = d.first_dim; j <= d.last_dim; ++j) {
      v += index[static_cast<size_t>(j)] * d.weights[static_cast<size_t>(j - d.first_dim)];
    }
    out.push_back(v);
  }
  return out;
}

absl::StatusOr<int64_t> AxeForm::DomainFlatIndex(absl::Span<const int64_t> index) const {
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> d, DomainIndex(index));
  int64_t flat = 0;
  for (size_t k = 0; k < d.size(); ++k) flat = flat * domain[k] + d[k];
  return flat;
}

absl::StatusOr<AxeForm> ToAxe(const Shape& shape) {
  const Shape& array = shape.IsBuffer() ? shape.buffer_shape() : shape;
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(array, "ToAxe"));
  return DigitTracker(array).Run();
}

absl::StatusOr<AxeForm> ToAxe(absl::string_view shape_text) {
  AXE_ASSIGN_OR_RETURN(Shape shape, ParseShape(shape_text));
  return ToAxe(shape);
}

}  // namespace axe::xla

// ---- FromAxe ----

namespace axe::xla {
namespace {

absl::Status NotXla(const axe::Layout& layout, absl::Span<const int64_t> dims,
                    absl::string_view why) {
  return absl::FailedPreconditionError(
      absl::StrCat("not expressible as an XLA layout: ", layout.ToString(), " over ",
                   FormatTuple(dims), ": ", why));
}

class Recognizer {
 public:
  Recognizer(const axe::Layout& target, absl::Span<const int64_t> dims)
      : target_(target), dims_(dims) {}

  // True if the candidate's ToAxe is the target over exactly `dims`.
  bool Verify(const Layout& candidate) const {
    Shape s = Shape::Array(PrimitiveType::kF32, std::vector<int64_t>(dims_.begin(), dims_.end()),
                           {}, candidate);
    absl::StatusOr<AxeForm> form = ToAxe(s);
    if (!form.ok() || form->domain != form->real_dims) return false;
    absl::StatusOr<bool> eq = Equivalent(form->layout, target_);
    return eq.ok() && *eq;
  }

 private:
  const axe::Layout& target_;
  absl::Span<const int64_t> dims_;
};

using DigitBlocks = std::vector<std::vector<Iter>>;

// The layout's iters, checked to be one memory axis with positive strides and to hold the
// elements of `dims`, as a layout of their own.
absl::StatusOr<axe::Layout> MemoryShard(const axe::Layout& layout, absl::Span<const int64_t> dims) {
  if (!layout.replica().empty()) return NotXla(layout, dims, "it has replicas");
  if (!layout.offset().empty()) return NotXla(layout, dims, "it has an offset");
  std::vector<Iter> shard;
  for (const Iter& it : layout.shard()) {
    if (!it.axis.is_memory() || it.axis != layout.shard().front().axis) {
      return NotXla(layout, dims, "its iters are not all on one memory axis");
    }
    if (it.stride <= 0 && it.extent > 1) return NotXla(layout, dims, "a stride is not positive");
    shard.push_back(Iter{it.extent, it.stride, Axis::Memory()});
  }
  for (int64_t d : dims) {
    if (d < 1) return NotXla(layout, dims, "a dim is < 1 (an Axe layout has no empty dims)");
  }
  std::optional<int64_t> n = CheckedProduct(dims);
  if (!n || *n != layout.size()) {
    return NotXla(layout, dims,
                  absl::StrCat("the dims hold ", n ? absl::StrCat(*n) : "too many",
                               " elements, the layout ", layout.size()));
  }
  return axe::Layout::Create(std::move(shard));
}

// Per dim, its non-unit digits, most significant first.
DigitBlocks BlocksOf(const Grouped& grouped, size_t rank) {
  DigitBlocks blocks(rank);
  for (size_t j = 0; j < rank; ++j) {
    for (size_t k = grouped.seps[j]; k < grouped.seps[j + 1]; ++k) {
      if (grouped.layout.shard()[k].extent > 1) blocks[j].push_back(grouped.layout.shard()[k]);
    }
  }
  return blocks;
}

// The dims with digits by ascending key(dim) (minor first), then the size-1 dims (no digits)
// in decreasing dim order: the most major, as XLA's AlignLayouts places them.
template <typename Key>
std::vector<int64_t> OrderedDims(const DigitBlocks& blocks, const Key& key) {
  std::vector<int64_t> m2m;
  for (size_t j = 0; j < blocks.size(); ++j) {
    if (!blocks[j].empty()) m2m.push_back(static_cast<int64_t>(j));
  }
  std::stable_sort(m2m.begin(), m2m.end(), [&](int64_t a, int64_t b) { return key(a) < key(b); });
  for (size_t j = blocks.size(); j-- > 0;) {
    if (blocks[j].empty()) m2m.push_back(static_cast<int64_t>(j));
  }
  return m2m;
}

// The dims ordered by the stride of their most significant digit.
std::vector<int64_t> ByOuterStride(const DigitBlocks& blocks) {
  return OrderedDims(blocks, [&](int64_t j) { return blocks[static_cast<size_t>(j)][0].stride; });
}

// 1. Untiled: minor_to_major by the single digit's stride.
std::optional<Layout> TryUntiled(const Recognizer& r, const DigitBlocks& blocks) {
  for (const auto& b : blocks) {
    if (b.size() > 1) return std::nullopt;
  }
  Layout candidate(ByOuterStride(blocks));
  if (r.Verify(candidate)) return candidate;
  return std::nullopt;
}

// 2. One tile level of rank k = 1..r, minor_to_major from the outer (most significant)
//    strides; bounds from the inner digits (d for a lone digit, 1 for none). 3. The same
//    followed by (q,1), q from the split of the second-most-minor tile dim.
std::optional<Layout> TrySpecTilings(const Recognizer& r, const DigitBlocks& blocks,
                                     absl::Span<const int64_t> dims) {
  const std::vector<int64_t> m2m = ByOuterStride(blocks);
  for (size_t k = 1; k <= dims.size(); ++k) {
    std::vector<int64_t> bounds;
    for (size_t i = k; i-- > 0;) {
      const size_t j = static_cast<size_t>(m2m[i]);
      const std::vector<Iter>& b = blocks[j];
      int64_t bound = b.empty() ? 1 : dims[j];
      if (b.size() >= 2) bound = dims[j] / b[0].extent;
      bounds.push_back(bound);
    }
    Layout one(m2m, {Tile(bounds)});
    if (r.Verify(one)) return one;
    if (k >= 2) {
      const std::vector<Iter>& b = blocks[static_cast<size_t>(m2m[1])];
      if (!b.empty()) {
        Layout two(m2m, {Tile(bounds), Tile({b.back().extent, 1})});
        if (r.Verify(two)) return two;
      }
    }
  }
  return std::nullopt;
}

// One dim's digits split at a stride threshold.
struct DimPlan {
  int64_t dim = 0;
  int64_t bound = 1;
  int64_t outer_stride = 0;  // of the most significant outer digit (0: none)
  int64_t inner_stride = 0;  // of the most significant inner digit (0: none)
  std::vector<int64_t> inner_extents;
};

// The digits below stride v go inside the tile; the tiled dims are ordered by their inner
// digits, the untiled ones by their outer digits. Nothing when an outer digit lies below an
// inner one or no dim is tiled.
std::optional<Layout> TryThreshold(const Recognizer& r, const DigitBlocks& blocks, int64_t v) {
  std::vector<DimPlan> untiled, tiled;
  for (size_t j = 0; j < blocks.size(); ++j) {
    DimPlan p;
    p.dim = static_cast<int64_t>(j);
    for (const Iter& it : blocks[j]) {
      if (it.stride < v) {
        if (p.inner_stride == 0) p.inner_stride = it.stride;
        p.bound *= it.extent;
        p.inner_extents.push_back(it.extent);
      } else {
        if (p.inner_stride != 0) return std::nullopt;  // an outer digit below an inner one
        if (p.outer_stride == 0) p.outer_stride = it.stride;
      }
    }
    (p.bound > 1 ? tiled : untiled).push_back(std::move(p));
  }
  if (tiled.empty()) return std::nullopt;
  std::stable_sort(untiled.begin(), untiled.end(), [](const DimPlan& a, const DimPlan& b) {
    return a.outer_stride > b.outer_stride;
  });
  std::stable_sort(tiled.begin(), tiled.end(), [](const DimPlan& a, const DimPlan& b) {
    return a.inner_stride > b.inner_stride;
  });
  std::vector<int64_t> major_to_minor, bounds;
  for (const DimPlan& p : untiled) major_to_minor.push_back(p.dim);
  for (const DimPlan& p : tiled) {
    major_to_minor.push_back(p.dim);
    bounds.push_back(p.bound);
  }
  std::vector<int64_t> order(major_to_minor.rbegin(), major_to_minor.rend());
  Layout one(order, {Tile(bounds)});
  if (r.Verify(one)) return one;
  if (tiled.size() >= 2) {
    const DimPlan& p = tiled[tiled.size() - 2];
    int64_t q = 1;
    for (size_t i = p.inner_extents.size(); i-- > 1;) {
      q *= p.inner_extents[i];
      Layout two(order, {Tile(bounds), Tile({q, 1})});
      if (r.Verify(two)) return two;
    }
  }
  return std::nullopt;
}

// Beyond the spec's candidates: every digit stride as the threshold, smallest first.
std::optional<Layout> TryThresholdTilings(const Recognizer& r, const DigitBlocks& blocks) {
  std::vector<int64_t> thresholds;
  for (const auto& b : blocks) {
    for (const Iter& it : b) thresholds.push_back(it.stride);
  }
  std::sort(thresholds.begin(), thresholds.end());
  thresholds.erase(std::unique(thresholds.begin(), thresholds.end()), thresholds.end());
  for (int64_t v : thresholds) {
    if (std::optional<Layout> found = TryThreshold(r, blocks, v)) return found;
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<Layout> FromAxe(const axe::Layout& layout, absl::Span<const int64_t> dims) {
  AXE_ASSIGN_OR_RETURN(axe::Layout target, MemoryShard(layout, dims));
  Recognizer r(target, dims);
  if (dims.empty()) {
    if (r.Verify(Layout())) return Layout();
    return NotXla(layout, dims, "a scalar holds one element");
  }
  absl::StatusOr<Grouped> grouped = Group(Canonicalize(target), dims);
  if (!grouped.ok()) return NotXla(layout, dims, grouped.status().message());
  const DigitBlocks blocks = BlocksOf(*grouped, dims.size());
  if (std::optional<Layout> l = TryUntiled(r, blocks)) return *l;
  if (std::optional<Layout> l = TrySpecTilings(r, blocks, dims)) return *l;
  if (std::optional<Layout> l = TryThresholdTilings(r, blocks)) return *l;
  return NotXla(layout, dims,
                "tried: untiled, single-level tiling, single-level tiling with (q,1) packing");
}

}  // namespace axe::xla
