#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/sharding/mesh.h"
#include "device_ids.h"

namespace axe::sharding {

absl::Status CheckDeviceId(int64_t device) {
  if (device < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", device, " is negative in tile assignment"));
  }
  if (device >= Mesh::kMaxDevices) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", device, " is out of range in tile assignment (ids are below ",
                     Mesh::kMaxDevices, ")"));
  }
  return absl::OkStatus();
}

std::optional<BadDeviceId> FindBadDeviceId(absl::Span<const int64_t> devices) {
  std::vector<bool> seen;
  for (size_t i = 0; i < devices.size(); ++i) {
    absl::Status range = CheckDeviceId(devices[i]);
    if (!range.ok()) return BadDeviceId{i, std::move(range)};
    const size_t id = static_cast<size_t>(devices[i]);
    if (seen.size() <= id) seen.resize(id + 1, false);
    if (seen[id]) {
      return BadDeviceId{i, absl::InvalidArgumentError(absl::StrCat(
                                "device ", devices[i], " is not unique in tile assignment"))};
    }
    seen[id] = true;
  }
  return std::nullopt;
}

namespace {

absl::StatusOr<int64_t> CheckedDims(absl::Span<const int64_t> dims, absl::string_view what) {
  int64_t n = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " dimension ", i, " is ", dims[i], " (must be >= 1)"));
    }
    std::optional<int64_t> next = CheckedMul(n, dims[i]);
    if (!next || *next > Mesh::kMaxDevices) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " has more than ", Mesh::kMaxDevices, " devices"));
    }
    n = *next;
  }
  return n;
}

// XLA's canonical iota form: drop size-1 reshape dims, merge runs of the permutation that
// stay in order (perm[i+1] == perm[i] + 1), until nothing changes; [1] when nothing is left.
void CanonicalizeIota(std::vector<int64_t>& dims, std::vector<int64_t>& perm) {
  while (true) {
    std::vector<int64_t> new_index(dims.size(), -1);
    std::vector<int64_t> kept_dims;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] != 1) {
        new_index[i] = static_cast<int64_t>(kept_dims.size());
        kept_dims.push_back(dims[i]);
      }
    }
    std::vector<int64_t> kept_perm;
    for (int64_t p : perm) {
      if (new_index[static_cast<size_t>(p)] >= 0)
        kept_perm.push_back(new_index[static_cast<size_t>(p)]);
    }
    dims = std::move(kept_dims);
    perm = std::move(kept_perm);
    bool changed = false;
    for (size_t i = 1, base = 0; i < perm.size(); ++i) {
      const int64_t base_dim = perm[base];
      if (base_dim + static_cast<int64_t>(i - base) == perm[i]) {
        dims[static_cast<size_t>(base_dim)] *= dims[static_cast<size_t>(perm[i])];
        dims[static_cast<size_t>(perm[i])] = 1;
        changed = true;
      } else {
        base = i;
      }
    }
    if (!changed) break;
  }
  if (dims.empty()) {
    dims = {1};
    perm = {0};
  }
}

}  // namespace

absl::StatusOr<TileAssignment> TileAssignment::Explicit(std::vector<int64_t> dims,
                                                        std::vector<int64_t> devices) {
  absl::StatusOr<int64_t> n = CheckedDims(dims, "tile assignment");
  if (!n.ok()) return n.status();
  if (static_cast<int64_t>(devices.size()) != *n) {
    return absl::InvalidArgumentError(absl::StrCat("tile assignment [", absl::StrJoin(dims, ","),
                                                   "] needs ", *n, " device ids, got ",
                                                   devices.size()));
  }
  if (std::optional<BadDeviceId> bad = FindBadDeviceId(devices)) return bad->error;
  TileAssignment t;
  t.dims_ = std::move(dims);
  t.devices_ = std::move(devices);
  return t;
}

absl::StatusOr<TileAssignment> TileAssignment::Iota(std::vector<int64_t> dims,
                                                    std::vector<int64_t> reshape_dims,
                                                    std::vector<int64_t> perm) {
  absl::StatusOr<int64_t> n = CheckedDims(dims, "tile assignment");
  if (!n.ok()) return n.status();
  absl::StatusOr<int64_t> m = CheckedDims(reshape_dims, "iota reshape");
  if (!m.ok()) return m.status();
  if (*n != *m) {
    return absl::InvalidArgumentError(absl::StrCat("tile assignment [", absl::StrJoin(dims, ","),
                                                   "] has ", *n, " devices but the iota <=[",
                                                   absl::StrJoin(reshape_dims, ","), "] has ", *m));
  }
  if (perm.empty()) {
    for (size_t i = 0; i < reshape_dims.size(); ++i) perm.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted.size() != reshape_dims.size() || sorted[i] != static_cast<int64_t>(i)) {
      return absl::InvalidArgumentError(absl::StrCat("iota transpose T(", absl::StrJoin(perm, ","),
                                                     ") is not a permutation of the ",
                                                     reshape_dims.size(), " reshape dims"));
    }
  }
  CanonicalizeIota(reshape_dims, perm);
  TileAssignment t;
  t.dims_ = std::move(dims);
  t.is_iota_ = true;
  t.reshape_dims_ = std::move(reshape_dims);
  t.perm_ = std::move(perm);
  return t;
}

int64_t TileAssignment::num_elements() const {
  int64_t n = 1;  // validated to be at most Mesh::kMaxDevices
  for (int64_t d : dims_) n *= d;
  return n;
}

int64_t TileAssignment::DeviceAtFlat(int64_t flat) const {
  if (!is_iota_) return devices_[static_cast<size_t>(flat)];
  // The flat index enumerates the transposed array (dims reshape_dims[perm[k]]) row-major.
  std::vector<int64_t> index(reshape_dims_.size());
  for (size_t k = perm_.size(); k-- > 0;) {
    const size_t dim = static_cast<size_t>(perm_[k]);
    index[dim] = flat % reshape_dims_[dim];
    flat /= reshape_dims_[dim];
  }
  int64_t value = 0;
  for (size_t i = 0; i < index.size(); ++i) value = value * reshape_dims_[i] + index[i];
  return value;
}

std::string TileAssignment::ToString() const {
  std::string out = absl::StrCat("devices=[", absl::StrJoin(dims_, ","), "]");
  if (!is_iota_) return absl::StrCat(out, absl::StrJoin(devices_, ","));
  absl::StrAppend(&out, "<=[", absl::StrJoin(reshape_dims_, ","), "]");
  if (reshape_dims_.size() > 1) absl::StrAppend(&out, "T(", absl::StrJoin(perm_, ","), ")");
  return out;
}

}  // namespace axe::sharding
