#include "xla/random_shape.h"

#include <algorithm>
#include <numeric>

#include "axe/base/check.h"
#include "axe/xla/tiling.h"
#include "axe/xla/validate.h"

namespace axe::xla::testing {
namespace {

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> data;  // row-major
};

int64_t Product(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>());
}

// out[i_0..] = in[j] with out dim k = in dim perm[k].
Tensor Transpose(const Tensor& t, const std::vector<size_t>& perm) {
  Tensor out;
  for (size_t p : perm) out.shape.push_back(t.shape[p]);
  out.data.resize(t.data.size());
  std::vector<int64_t> in_strides(t.shape.size(), 1);
  for (size_t k = t.shape.size(); k-- > 1;) in_strides[k - 1] = in_strides[k] * t.shape[k];
  std::vector<int64_t> idx(out.shape.size(), 0);
  for (size_t flat = 0; flat < out.data.size(); ++flat) {
    int64_t src = 0;
    for (size_t k = 0; k < idx.size(); ++k) src += idx[k] * in_strides[perm[k]];
    out.data[flat] = t.data[static_cast<size_t>(src)];
    for (size_t k = idx.size(); k-- > 0;) {
      if (++idx[k] < out.shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

// Grows dim `d` to `size`, filling new entries with -1.
Tensor PadDim(const Tensor& t, size_t d, int64_t size) {
  Tensor out = t;
  out.shape[d] = size;
  out.data.assign(static_cast<size_t>(Product(out.shape)), -1);
  std::vector<int64_t> idx(t.shape.size(), 0);
  for (size_t flat = 0; flat < t.data.size(); ++flat) {
    int64_t dst = 0;
    for (size_t k = 0; k < idx.size(); ++k) dst = dst * out.shape[k] + idx[k];
    out.data[static_cast<size_t>(dst)] = t.data[flat];
    for (size_t k = idx.size(); k-- > 0;) {
      if (++idx[k] < t.shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

}  // namespace

std::vector<int64_t> OracleBuffer(const Shape& shape) {
  Tensor t;
  t.shape.assign(shape.dimensions().begin(), shape.dimensions().end());
  t.data.resize(static_cast<size_t>(Product(t.shape)));
  std::iota(t.data.begin(), t.data.end(), 0);
  // Physical order: physical dim p is logical dim minor_to_major[rank-1-p].
  const auto& m2m = shape.layout().minor_to_major();
  std::vector<size_t> perm;
  for (size_t p = 0; p < m2m.size(); ++p)
    perm.push_back(static_cast<size_t>(m2m[m2m.size() - 1 - p]));
  t = Transpose(t, perm);
  for (const Tile& tile : shape.layout().tiles()) {
    // Left-pad with size-1 dims, then fold `*` dims into their successors (a row-major
    // reshape), then pad, split and move the tile dims to the end.
    while (t.shape.size() < tile.rank()) t.shape.insert(t.shape.begin(), 1);
    const size_t prefix = t.shape.size() - tile.rank();
    std::vector<int64_t> folded(t.shape.begin(),
                                t.shape.begin() + static_cast<std::ptrdiff_t>(prefix));
    std::vector<int64_t> bounds;
    int64_t carry = 1;
    for (size_t i = 0; i < tile.rank(); ++i) {
      carry *= t.shape[prefix + i];
      if (tile.dimension(i) == Tile::kCombineDimension) continue;
      folded.push_back(carry);
      bounds.push_back(tile.dimension(i));
      carry = 1;
    }
    t.shape = folded;
    for (size_t j = 0; j < bounds.size(); ++j) {
      const int64_t n = t.shape[prefix + j], b = bounds[j];
      if (n % b != 0) t = PadDim(t, prefix + j, (n + b - 1) / b * b);
    }
    std::vector<int64_t> split(t.shape.begin(),
                               t.shape.begin() + static_cast<std::ptrdiff_t>(prefix));
    for (size_t j = 0; j < bounds.size(); ++j) {
      split.push_back(t.shape[prefix + j] / bounds[j]);
      split.push_back(bounds[j]);
    }
    t.shape = split;
    std::vector<size_t> move;
    for (size_t k = 0; k < prefix; ++k) move.push_back(k);
    for (size_t j = 0; j < bounds.size(); ++j) move.push_back(prefix + 2 * j);
    for (size_t j = 0; j < bounds.size(); ++j) move.push_back(prefix + 2 * j + 1);
    t = Transpose(t, move);
  }
  const int64_t align = shape.layout().tail_padding_alignment_in_elements();
  while (static_cast<int64_t>(t.data.size()) % align != 0) t.data.push_back(-1);
  return t.data;
}

Shape RandomTiledShape(std::mt19937_64& rng, const RandomShapeOptions& o) {
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int attempt = 0; attempt < 10000; ++attempt) {
    const int64_t rank = uniform(0, o.max_rank);
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < rank; ++i)
      dims.push_back(uniform(0, 3) == 0 ? 1 : uniform(1, o.max_dim));
    std::vector<int64_t> m2m(static_cast<size_t>(rank));
    std::iota(m2m.begin(), m2m.end(), 0);
    std::shuffle(m2m.begin(), m2m.end(), rng);
    if (o.prefer_descending && uniform(0, 1) == 0) std::sort(m2m.rbegin(), m2m.rend());
    std::vector<Tile> tiles;
    int64_t cur = rank;
    const int64_t levels = uniform(0, o.max_levels);
    static constexpr int64_t kBounds[] = {1, 1, 2, 2, 3, 4, 8};
    for (int64_t lvl = 0; lvl < levels; ++lvl) {
      if (lvl == 1 && uniform(0, 4) == 0) {
        tiles.push_back(Tile({uniform(0, 1) == 0 ? 2 : 4, 1}));  // TPU packing
        cur = std::max<int64_t>(cur, 2) + 2;
        continue;
      }
      const int64_t max_len = std::max<int64_t>(1, cur + (o.allow_long_tiles ? 2 : 0));
      const int64_t len = uniform(1, std::min<int64_t>(max_len, 4));
      std::vector<int64_t> bounds;
      int64_t groups = 0;
      for (int64_t i = 0; i < len; ++i) {
        if (o.allow_combine && i + 1 < len && uniform(0, 5) == 0) {
          bounds.push_back(Tile::kCombineDimension);
        } else {
          bounds.push_back(kBounds[uniform(0, 6)]);
          ++groups;
        }
      }
      tiles.push_back(Tile(bounds));
      cur = std::max(cur, len) - len + 2 * groups;
    }
    Layout layout(m2m, tiles);
    if (uniform(0, 4) == 0) layout = layout.WithTailPaddingAlignmentInElements(uniform(1, 8));
    if (uniform(0, 4) == 0) layout = layout.WithMemorySpace(uniform(0, 6));
    Shape s =
        Shape::Array(uniform(0, 1) ? PrimitiveType::kF32 : PrimitiveType::kBF16, dims, {}, layout);
    AXE_CHECK(ValidateShape(s).ok()) << s.ToString();
    absl::StatusOr<TilingMap> map = TilingMap::Create(s);
    AXE_CHECK(map.ok()) << map.status();
    if (map->padded_elements() > o.max_padded) continue;
    return s;
  }
  AXE_CHECK(false) << "RandomTiledShape: no draw fits max_padded";
  return Shape();
}

}  // namespace axe::xla::testing
