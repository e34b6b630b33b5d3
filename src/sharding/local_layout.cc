#include "axe/sharding/local_layout.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "python_text.h"

namespace axe::sharding {
namespace {

absl::Status CheckBounds(const std::vector<int64_t>& major_to_minor,
                         const std::optional<LocalLayout::Tiling>& tiling) {
  if (major_to_minor.size() > LocalLayout::kMaxRank) {
    return absl::InvalidArgumentError(absl::StrCat("major_to_minor has ", major_to_minor.size(),
                                                   " entries (at most ", LocalLayout::kMaxRank,
                                                   ")"));
  }
  if (!tiling) return absl::OkStatus();
  if (tiling->size() > LocalLayout::kMaxTiles) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tiling has ", tiling->size(), " tiles (at most ", LocalLayout::kMaxTiles, ")"));
  }
  for (size_t t = 0; t < tiling->size(); ++t) {
    if ((*tiling)[t].size() > LocalLayout::kMaxTileRank) {
      return absl::InvalidArgumentError(absl::StrCat("tile ", t, " of tiling has ",
                                                     (*tiling)[t].size(), " entries (at most ",
                                                     LocalLayout::kMaxTileRank, ")"));
    }
  }
  return absl::OkStatus();
}

// OK when major_to_minor lists each of 0..rank-1 once; otherwise the error names the entry.
absl::Status CheckPermutation(const std::vector<int64_t>& major_to_minor) {
  const int64_t rank = static_cast<int64_t>(major_to_minor.size());
  std::vector<int64_t> seen_at(major_to_minor.size(), -1);
  auto error = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("major_to_minor=", PyIntTuple(major_to_minor),
                     " is not a permutation of the dimensions of a rank-", rank, " value: ", why));
  };
  for (size_t k = 0; k < major_to_minor.size(); ++k) {
    const int64_t d = major_to_minor[k];
    if (d < 0 || d >= rank) {
      return error(absl::StrCat("entry ", k, " is ", d, ", not a dimension in [0, ", rank, ")"));
    }
    const size_t du = static_cast<size_t>(d);
    if (seen_at[du] >= 0) {
      return error(
          absl::StrCat("dimension ", d, " appears twice (entries ", seen_at[du], " and ", k, ")"));
    }
    seen_at[du] = static_cast<int64_t>(k);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LocalLayout> LocalLayout::Create(std::vector<int64_t> major_to_minor,
                                                std::optional<Tiling> tiling,
                                                int64_t sub_byte_element_size_in_bits) {
  if (absl::Status s = CheckBounds(major_to_minor, tiling); !s.ok()) return s;
  return LocalLayout(std::move(major_to_minor), std::move(tiling), sub_byte_element_size_in_bits);
}

absl::StatusOr<LocalLayout> LocalLayout::FromXla(const xla::Layout& layout) {
  std::vector<int64_t> m2m(layout.minor_to_major().rbegin(), layout.minor_to_major().rend());
  Tiling tiling;
  for (const xla::Tile& tile : layout.tiles()) {
    if (tile.has_combined_dimension()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the tile ", tile.ToString(), " of ", layout.ToString(),
                       " has a combined (*) dimension, which a JAX Layout cannot hold"));
    }
    tiling.emplace_back(tile.dimensions().begin(), tile.dimensions().end());
  }
  return Create(std::move(m2m), std::move(tiling), layout.element_size_in_bits());
}

absl::StatusOr<LocalLayout> LocalLayout::WithMajorToMinor(
    std::vector<int64_t> major_to_minor) const {
  return Create(std::move(major_to_minor), tiling_, sub_byte_element_size_in_bits_);
}

absl::StatusOr<LocalLayout> LocalLayout::WithTiling(std::optional<Tiling> tiling) const {
  return Create(major_to_minor_, std::move(tiling), sub_byte_element_size_in_bits_);
}

LocalLayout LocalLayout::WithSubByteElementSizeInBits(int64_t bits) const {
  return LocalLayout(major_to_minor_, tiling_, bits);
}

absl::Status LocalLayout::CheckCompatibleAval(absl::Span<const int64_t> shape) const {
  if (major_to_minor_.size() == shape.size()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "Length of major_to_minor and the rank of the value should match. Got major_to_minor=",
      PyIntTuple(major_to_minor_), " and shape=", PyIntTuple(shape)));
}

absl::StatusOr<xla::Layout> LocalLayout::ToXla(DType dtype) const {
  if (absl::Status s = CheckPermutation(major_to_minor_); !s.ok()) return s;
  std::vector<xla::Tile> tiles;
  if (tiling_) {
    for (size_t t = 0; t < tiling_->size(); ++t) {
      for (int64_t v : (*tiling_)[t]) {
        if (v < 1) {
          return absl::InvalidArgumentError(absl::StrCat("tile ", t, " ", PyIntTuple((*tiling_)[t]),
                                                         " of tiling=", TilingToString(tiling_),
                                                         " has an entry ", v, " < 1"));
        }
      }
      tiles.emplace_back((*tiling_)[t]);
    }
  }
  if (sub_byte_element_size_in_bits_ < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sub_byte_element_size_in_bits=", sub_byte_element_size_in_bits_, " is negative"));
  }
  int64_t bits = sub_byte_element_size_in_bits_;
  if (bits == 0 && tiling_ && IsIntegral(dtype) && BitWidth(dtype) < 8) bits = BitWidth(dtype);
  std::vector<int64_t> minor_to_major(major_to_minor_.rbegin(), major_to_minor_.rend());
  return xla::Layout(std::move(minor_to_major), std::move(tiles)).WithElementSizeInBits(bits);
}

std::string LocalLayout::TilingToString(const std::optional<Tiling>& tiling) {
  if (!tiling) return "None";
  std::vector<std::string> tiles;
  for (const Tile& t : *tiling) tiles.push_back(PyIntTuple(t));
  return absl::StrCat("(", absl::StrJoin(tiles, ", "), tiles.size() == 1 ? ",)" : ")");
}

std::string LocalLayout::ToString() const {
  return absl::StrCat("Layout(major_to_minor=", PyIntTuple(major_to_minor_),
                      ", tiling=", TilingToString(tiling_),
                      ", sub_byte_element_size_in_bits=", sub_byte_element_size_in_bits_, ")");
}

}  // namespace axe::sharding
