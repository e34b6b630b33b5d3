#include "axe/xla/tiling.h"

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "checks.h"

namespace axe::xla {
namespace {

absl::Status Overflow(const Shape& shape, absl::string_view what) {
  return absl::OutOfRangeError(absl::StrCat("the ", what, " of ", shape.ToString(), " overflows int64"));
}

// Size of position `pos` of a level's left-padded input.
int64_t PaddedSize(const TilingLevel& l, size_t pos) { return pos < l.left_padding ? 1 : l.input[pos - l.left_padding]; }

}  // namespace

absl::StatusOr<TilingMap> TilingMap::Create(const Shape& shape, int max_levels) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(shape, "the tiled layout"));
  TilingMap m;
  m.dims_.assign(shape.dimensions().begin(), shape.dimensions().end());
  m.order_ = internal::MajorToMinor(shape);
  for (int64_t d : m.order_) m.physical_.push_back(m.dims_[static_cast<size_t>(d)]);
  std::vector<int64_t> cur = m.physical_;
  absl::Span<const Tile> tiles = shape.layout().tiles();
  if (max_levels >= 0 && tiles.size() > static_cast<size_t>(max_levels)) tiles = tiles.subspan(0, static_cast<size_t>(max_levels));
  for (size_t lvl = 0; lvl < tiles.size(); ++lvl) {
    TilingLevel l;
    l.tile = tiles[lvl];
    l.input = cur;
    const size_t k = l.tile.rank();
    l.left_padding = k > cur.size() ? k - cur.size() : 0;
    const size_t n = cur.size() + l.left_padding;
    l.prefix = n - k;
    std::vector<size_t> pending;
    int64_t folded = 1;
    for (size_t i = 0; i < k; ++i) {
      const size_t pos = l.prefix + i;
      pending.push_back(pos);
      std::optional<int64_t> f = CheckedMul(folded, PaddedSize(l, pos));
      if (!f) return Overflow(shape, absl::StrCat("combined ('*') dimension at tile level ", lvl + 1));
      folded = *f;
      if (l.tile.dimension(i) == Tile::kCombineDimension) continue;
      l.groups.push_back(std::move(pending));
      pending.clear();
      l.folded.push_back(folded);
      l.bounds.push_back(l.tile.dimension(i));
      folded = 1;
    }
    if (!pending.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("tile ", l.tile.ToString(), " (level ", lvl + 1, ") of ",
                                                     shape.ToString(),
                                                     " ends with '*': there is no more-minor dimension to combine it into"));
    }
    for (size_t pos = 0; pos < l.prefix; ++pos) l.output.push_back(PaddedSize(l, pos));
    for (size_t j = 0; j < l.bounds.size(); ++j) {
      l.output.push_back(l.folded[j] / l.bounds[j] + (l.folded[j] % l.bounds[j] != 0 ? 1 : 0));
    }
    for (int64_t b : l.bounds) l.output.push_back(b);
    // No level shrinks the element count, so checking the final product below suffices.
    cur = l.output;
    m.levels_.push_back(std::move(l));
  }
  m.expanded_ = cur;
  bool zero = false;
  for (int64_t s : cur) zero = zero || s == 0;
  std::optional<int64_t> total = zero ? std::optional<int64_t>(0) : CheckedProduct(cur);
  if (!total) return Overflow(shape, "padded size");
  m.expanded_elements_ = *total;
  const int64_t align = shape.layout().tail_padding_alignment_in_elements();
  const int64_t rem = *total % align;
  std::optional<int64_t> padded = rem == 0 ? total : CheckedAdd(*total, align - rem);
  if (!padded) return Overflow(shape, "tail-padded size");
  m.padded_elements_ = *padded;
  return m;
}

void TilingMap::Forward(std::vector<int64_t>& idx, std::vector<LevelPosition>* trace) const {
  for (const TilingLevel& l : levels_) {
    std::vector<int64_t> padded(l.left_padding, 0);
    padded.insert(padded.end(), idx.begin(), idx.end());
    std::vector<int64_t> out(padded.begin(), padded.begin() + static_cast<std::ptrdiff_t>(l.prefix));
    LevelPosition pos;
    for (size_t j = 0; j < l.groups.size(); ++j) {
      int64_t v = 0;
      for (size_t p : l.groups[j]) v = v * PaddedSize(l, p) + padded[p];
      pos.tile_index.push_back(v / l.bounds[j]);
      pos.within.push_back(v % l.bounds[j]);
    }
    out.insert(out.end(), pos.tile_index.begin(), pos.tile_index.end());
    out.insert(out.end(), pos.within.begin(), pos.within.end());
    idx = std::move(out);
    if (trace != nullptr) trace->push_back(std::move(pos));
  }
}

absl::StatusOr<int64_t> TilingMap::LinearIndex(absl::Span<const int64_t> index) const {
  AXE_RETURN_IF_ERROR(internal::CheckIndexInBounds(dims_, index, "LinearIndex"));
  std::vector<int64_t> idx;
  for (int64_t d : order_) idx.push_back(index[static_cast<size_t>(d)]);
  Forward(idx, nullptr);
  int64_t linear = 0;
  for (size_t i = 0; i < idx.size(); ++i) linear = linear * expanded_[i] + idx[i];
  return linear;
}

absl::StatusOr<std::vector<LevelPosition>> TilingMap::Locate(absl::Span<const int64_t> index) const {
  AXE_RETURN_IF_ERROR(internal::CheckIndexInBounds(dims_, index, "Locate"));
  std::vector<int64_t> idx;
  for (int64_t d : order_) idx.push_back(index[static_cast<size_t>(d)]);
  std::vector<LevelPosition> trace;
  Forward(idx, &trace);
  return trace;
}

absl::StatusOr<DelinearizedIndex> TilingMap::Delinearize(int64_t linear) const {
  if (linear < 0 || linear >= padded_elements_) {
    return absl::OutOfRangeError(
        absl::StrCat("offset ", linear, " is outside [0, ", padded_elements_, ") (the padded size in elements)"));
  }
  if (linear >= expanded_elements_) return DelinearizedIndex::Padding();  // tail padding (L)
  std::vector<int64_t> idx(expanded_.size());
  for (size_t i = expanded_.size(); i-- > 0;) {
    idx[i] = linear % expanded_[i];
    linear /= expanded_[i];
  }
  for (size_t lvl = levels_.size(); lvl-- > 0;) {
    const TilingLevel& l = levels_[lvl];
    const size_t g = l.groups.size();
    std::vector<int64_t> padded(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(l.prefix));
    padded.resize(l.prefix + l.tile.rank());
    for (size_t j = 0; j < g; ++j) {
      int64_t v = idx[l.prefix + j] * l.bounds[j] + idx[l.prefix + g + j];
      if (v >= l.folded[j]) return DelinearizedIndex::Padding();
      for (size_t k = l.groups[j].size(); k-- > 0;) {
        const size_t p = l.groups[j][k];
        padded[p] = v % PaddedSize(l, p);
        v /= PaddedSize(l, p);
      }
    }
    idx.assign(padded.begin() + static_cast<std::ptrdiff_t>(l.left_padding), padded.end());
  }
  std::vector<int64_t> logical(dims_.size());
  for (size_t p = 0; p < order_.size(); ++p) logical[static_cast<size_t>(order_[p])] = idx[p];
  return DelinearizedIndex{false, std::move(logical)};
}

absl::StatusOr<int64_t> NestedLinearIndex(const Shape& shape, absl::Span<const int64_t> index) {
  AXE_ASSIGN_OR_RETURN(TilingMap m, TilingMap::Create(shape));
  return m.LinearIndex(index);
}

absl::StatusOr<DelinearizedIndex> NestedDelinearize(const Shape& shape, int64_t linear) {
  AXE_ASSIGN_OR_RETURN(TilingMap m, TilingMap::Create(shape));
  return m.Delinearize(linear);
}

}  // namespace axe::xla
