#include "axe/xla/tiling.h"

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "checks.h"

namespace axe::xla {
namespace {

absl::Status TilingOverflow(const Shape& shape, absl::string_view what) {
  return absl::OutOfRangeError(
      absl::StrCat("the ", what, " of ", ElideForMessage(shape.ToString()), " overflows int64"));
}

// Builds one level on the current expanded shape `cur` and replaces cur's covered suffix by
// the level's output: O(tile rank) work, whatever the rank of `cur`.
absl::StatusOr<TilingLevel> ApplyLevel(const Shape& shape, const Tile& tile, size_t level,
                                       std::vector<int64_t>& cur) {
  TilingLevel l;
  l.tile = tile;
  l.input_rank = cur.size();
  const size_t k = tile.rank();
  l.left_padding = k > cur.size() ? k - cur.size() : 0;
  if (l.left_padding > 0) cur.insert(cur.begin(), l.left_padding, 1);  // cur.size() < k
  l.prefix = cur.size() - k;
  l.covered.assign(cur.begin() + static_cast<std::ptrdiff_t>(l.prefix), cur.end());
  std::vector<size_t> pending;
  int64_t folded = 1;
  for (size_t i = 0; i < k; ++i) {
    pending.push_back(i);
    std::optional<int64_t> f = CheckedMul(folded, l.covered[i]);
    if (!f) {
      return TilingOverflow(shape,
                            absl::StrCat("combined ('*') dimension at tile level ", level + 1));
    }
    folded = *f;
    if (tile.dimension(i) == Tile::kCombineDimension) continue;
    l.groups.push_back(std::move(pending));
    pending.clear();
    l.folded.push_back(folded);
    l.bounds.push_back(tile.dimension(i));
    folded = 1;
  }
  if (!pending.empty()) {  // validation rules this out; kept for hand-built levels
    return absl::InvalidArgumentError(
        absl::StrCat("tile ", ElideForMessage(tile.ToString()), " (level ", level + 1, ") of ",
                     ElideForMessage(shape.ToString()),
                     " ends with '*': there is no more-minor dimension to combine it into"));
  }
  for (size_t j = 0; j < l.bounds.size(); ++j) {
    l.counts.push_back(l.folded[j] / l.bounds[j] + (l.folded[j] % l.bounds[j] != 0 ? 1 : 0));
  }
  cur.resize(l.prefix);
  cur.insert(cur.end(), l.counts.begin(), l.counts.end());
  cur.insert(cur.end(), l.bounds.begin(), l.bounds.end());
  return l;
}

}  // namespace

absl::StatusOr<TilingMap> TilingMap::Create(const Shape& shape, int max_levels) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(shape, "the tiled layout"));
  TilingMap m;
  m.dims_.assign(shape.dimensions().begin(), shape.dimensions().end());
  m.order_ = internal::MajorToMinor(shape);
  for (int64_t d : m.order_) m.physical_.push_back(m.dims_[static_cast<size_t>(d)]);
  std::vector<int64_t> cur = m.physical_;
  absl::Span<const Tile> tiles = shape.layout().tiles();
  if (max_levels >= 0 && tiles.size() > static_cast<size_t>(max_levels)) {
    tiles = tiles.subspan(0, static_cast<size_t>(max_levels));
  }
  for (size_t lvl = 0; lvl < tiles.size(); ++lvl) {
    // No level shrinks the element count, so checking the final product below suffices.
    AXE_ASSIGN_OR_RETURN(TilingLevel l, ApplyLevel(shape, tiles[lvl], lvl, cur));
    m.levels_.push_back(std::move(l));
  }
  m.expanded_ = cur;
  bool zero = false;
  for (int64_t s : cur) zero = zero || s == 0;
  std::optional<int64_t> total = zero ? std::optional<int64_t>(0) : CheckedProduct(cur);
  if (!total) return TilingOverflow(shape, "padded size");
  m.expanded_elements_ = *total;
  const int64_t align = shape.layout().tail_padding_alignment_in_elements();
  const int64_t rem = *total % align;
  std::optional<int64_t> padded = rem == 0 ? total : CheckedAdd(*total, align - rem);
  if (!padded) return TilingOverflow(shape, "tail-padded size");
  m.padded_elements_ = *padded;
  return m;
}

// Each level rewrites only the covered suffix of the index: linear in the total tile length.
void TilingMap::Forward(std::vector<int64_t>& idx, std::vector<LevelPosition>* trace) const {
  for (const TilingLevel& l : levels_) {
    if (l.left_padding > 0) idx.insert(idx.begin(), l.left_padding, 0);
    LevelPosition pos;
    for (size_t j = 0; j < l.groups.size(); ++j) {
      int64_t v = 0;
      for (size_t c : l.groups[j]) v = v * l.covered[c] + idx[l.prefix + c];
      pos.tile_index.push_back(v / l.bounds[j]);
      pos.within.push_back(v % l.bounds[j]);
    }
    idx.resize(l.prefix);
    idx.insert(idx.end(), pos.tile_index.begin(), pos.tile_index.end());
    idx.insert(idx.end(), pos.within.begin(), pos.within.end());
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

absl::StatusOr<std::vector<LevelPosition>> TilingMap::Locate(
    absl::Span<const int64_t> index) const {
  AXE_RETURN_IF_ERROR(internal::CheckIndexInBounds(dims_, index, "Locate"));
  std::vector<int64_t> idx;
  for (int64_t d : order_) idx.push_back(index[static_cast<size_t>(d)]);
  std::vector<LevelPosition> trace;
  Forward(idx, &trace);
  return trace;
}

absl::StatusOr<DelinearizedIndex> TilingMap::Delinearize(int64_t linear) const {
  if (linear < 0 || linear >= padded_elements_) {
    return absl::OutOfRangeError(absl::StrCat("offset ", linear, " is outside [0, ",
                                              padded_elements_, ") (the padded size in elements)"));
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
    std::vector<int64_t> covered(l.tile.rank(), 0);
    for (size_t j = 0; j < g; ++j) {
      int64_t v = idx[l.prefix + j] * l.bounds[j] + idx[l.prefix + g + j];
      if (v >= l.folded[j]) return DelinearizedIndex::Padding();
      for (size_t k = l.groups[j].size(); k-- > 0;) {
        const size_t c = l.groups[j][k];
        covered[c] = v % l.covered[c];
        v /= l.covered[c];
      }
    }
    idx.resize(l.prefix);
    idx.insert(idx.end(), covered.begin(), covered.end());
    // Left padding only happens when the tile covers the whole input: idx is O(tile rank).
    if (l.left_padding > 0)
      idx.erase(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(l.left_padding));
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
