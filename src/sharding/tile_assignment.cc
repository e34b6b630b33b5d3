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

namespace {

// One dimension of the transposed iota: `size` consecutive devices `stride` apart.
struct IotaRun {
  int64_t size = 1;
  int64_t stride = 1;
};

// Splits a permutation of 0..N-1 (row-major flat order) into runs, minor first: each run is
// the longest prefix of multiples of its stride that divides N. A list that is an iota yields
// its transposed dims; any other list yields runs that Build() below rejects.
std::vector<IotaRun> SplitIntoRuns(absl::Span<const int64_t> devices) {
  const int64_t n = static_cast<int64_t>(devices.size());
  std::vector<IotaRun> runs;
  for (int64_t block = 1; block < n;) {
    const int64_t stride = devices[static_cast<size_t>(block)];
    int64_t size = 1;
    while (size * block < n && devices[static_cast<size_t>(size * block)] == size * stride) ++size;
    while (n % (size * block) != 0) --size;
    if (size < 2 || stride < 1) return {};
    runs.push_back({size, stride});
    block *= size;
  }
  return runs;
}

}  // namespace

std::optional<TileAssignment> TileAssignment::AsIota() const {
  if (is_iota_) return *this;
  const int64_t n = num_elements();
  if (n == 0 || devices_[0] != 0) return std::nullopt;
  std::vector<IotaRun> runs = SplitIntoRuns(devices_);
  if (runs.empty() && n > 1) return std::nullopt;
  // The reshape dims are the runs by decreasing stride; each stride must be the product of
  // the sizes of the runs with smaller strides.
  std::vector<size_t> by_stride(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) by_stride[i] = i;
  std::sort(by_stride.begin(), by_stride.end(),
            [&](size_t a, size_t b) { return runs[a].stride > runs[b].stride; });
  std::vector<int64_t> reshape(runs.size());
  std::vector<int64_t> reshape_index_of_run(runs.size());
  int64_t expected_stride = 1;
  for (size_t k = runs.size(); k-- > 0;) {
    const IotaRun& run = runs[by_stride[k]];
    if (run.stride != expected_stride) return std::nullopt;
    expected_stride *= run.size;
    reshape[k] = run.size;
    reshape_index_of_run[by_stride[k]] = static_cast<int64_t>(k);
  }
  // The transposed dims are the runs major first.
  std::vector<int64_t> perm(reshape_index_of_run.rbegin(), reshape_index_of_run.rend());
  if (runs.empty()) {
    reshape = {1};
    perm = {0};
  }
  absl::StatusOr<TileAssignment> iota = Iota(dims_, std::move(reshape), std::move(perm));
  if (!iota.ok()) return std::nullopt;
  for (int64_t f = 0; f < n; ++f) {
    if (iota->DeviceAtFlat(f) != devices_[static_cast<size_t>(f)]) return std::nullopt;
  }
  return *std::move(iota);
}

bool operator==(const TileAssignment& a, const TileAssignment& b) {
  if (a.dims_ != b.dims_) return false;
  if (a.is_iota_ && b.is_iota_) return a.reshape_dims_ == b.reshape_dims_ && a.perm_ == b.perm_;
  if (!a.is_iota_ && !b.is_iota_) return a.devices_ == b.devices_;
  for (int64_t f = 0; f < a.num_elements(); ++f) {
    if (a.DeviceAtFlat(f) != b.DeviceAtFlat(f)) return false;
  }
  return true;
}

std::string TileAssignment::ToString() const {
  std::string out = absl::StrCat("devices=[", absl::StrJoin(dims_, ","), "]");
  if (!is_iota_) return absl::StrCat(out, absl::StrJoin(devices_, ","));
  absl::StrAppend(&out, "<=[", absl::StrJoin(reshape_dims_, ","), "]");
  if (reshape_dims_.size() > 1) absl::StrAppend(&out, "T(", absl::StrJoin(perm_, ","), ")");
  return out;
}

}  // namespace axe::sharding
