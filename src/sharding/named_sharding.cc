#include "axe/sharding/named_sharding.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "python_text.h"

namespace axe::sharding {

absl::Status CheckMemoryKind(absl::string_view kind) {
  if (kind == "device" || kind == "pinned_host" || kind == "unpinned_host") {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown memory kind '", ElideForMessage(kind, 40),
                   "' (expected device, pinned_host or unpinned_host)"));
}

int64_t MemorySpaceOfMemoryKind(absl::string_view kind) {
  if (kind == "pinned_host") return 5;
  if (kind == "unpinned_host") return 6;
  return 0;
}

namespace {

std::string MemoryKindSuffix(const std::optional<std::string>& kind) {
  return kind ? absl::StrCat(", memory_kind=", *kind) : std::string();
}

absl::Status CheckSpecAxes(const Mesh& mesh, const PartitionSpec& spec) {
  std::vector<std::string> used;
  std::vector<std::string> duplicates;
  for (const PartitionSpec::Entry& entry : spec.entries()) {
    for (const std::string& name : entry) {
      if (!mesh.AxisIndex(name)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Resource axis: ", name, " of ", spec.ToString(),
                         " is not found in mesh: ", mesh.AxisNamesTuple(), "."));
      }
      if (std::find(used.begin(), used.end(), name) != used.end()) {
        if (std::find(duplicates.begin(), duplicates.end(), name) == duplicates.end()) {
          duplicates.push_back(name);
        }
      } else {
        used.push_back(name);
      }
    }
  }
  if (duplicates.empty()) return absl::OkStatus();
  std::sort(duplicates.begin(), duplicates.end());
  std::vector<std::string> shown;
  for (const std::string& d : duplicates) shown.push_back(absl::StrCat("`", d, "`"));
  return absl::InvalidArgumentError(absl::StrCat(
      "A single NamedSharding spec specification can map every mesh axis to at most one "
      "positional dimension, but ",
      spec.ToString(), " has duplicate entries for ", absl::StrJoin(shown, ", ")));
}

}  // namespace

absl::StatusOr<NamedSharding> NamedSharding::Create(Mesh mesh, PartitionSpec spec,
                                                    std::optional<std::string> memory_kind) {
  if (memory_kind) AXE_RETURN_IF_ERROR(CheckMemoryKind(*memory_kind));
  AXE_RETURN_IF_ERROR(CheckSpecAxes(mesh, spec));
  return NamedSharding(std::move(mesh), std::move(spec), std::move(memory_kind));
}

std::vector<size_t> NamedSharding::DimAxes(size_t i) const {
  std::vector<size_t> axes;
  for (const std::string& name : spec_.entry(i)) axes.push_back(*mesh_.AxisIndex(name));
  return axes;
}

std::vector<size_t> NamedSharding::ReplicatedAxes() const {
  std::vector<bool> used(mesh_.rank(), false);
  for (size_t i = 0; i < spec_.size(); ++i) {
    for (size_t j : DimAxes(i)) used[j] = true;
  }
  std::vector<size_t> out;
  for (size_t j = 0; j < used.size(); ++j) {
    if (!used[j]) out.push_back(j);
  }
  return out;
}

int64_t NamedSharding::DimPieces(size_t i) const {
  int64_t n = 1;  // bounded by the mesh's device count, so no overflow
  for (size_t j : DimAxes(i)) n *= mesh_.axes()[j].size;
  return n;
}

bool NamedSharding::IsFullyReplicated() const {
  for (size_t i = 0; i < spec_.size(); ++i) {
    if (DimPieces(i) > 1) return false;
  }
  return true;
}

absl::Status NamedSharding::CheckShape(absl::Span<const int64_t> shape,
                                       absl::string_view what) const {
  if (spec_.size() > shape.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Sharding ", ToString(), " is only valid for values of rank at least ",
                     spec_.size(), ", but was applied to a value of rank ", shape.size(), ".",
                     shape.empty() ? " For scalars the PartitionSpec should be P()" : ""));
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", i, " has the negative size ", shape[i]));
    }
    const int64_t n = DimPieces(i);
    if (shape[i] % n != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "One of ", what, " was given the sharding of ", ToString(),
          ", which implies that the global size of its dimension ", i, " should be divisible by ",
          n, " (mesh axes ", PartitionSpec::EntryToString(spec_.entry(i)), "), but it is equal to ",
          shape[i], " (full shape: ", PyIntTuple(shape), ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> NamedSharding::ShardShape(
    absl::Span<const int64_t> shape) const {
  AXE_RETURN_IF_ERROR(CheckShape(shape));
  std::vector<int64_t> local(shape.begin(), shape.end());
  for (size_t i = 0; i < local.size(); ++i) local[i] /= DimPieces(i);
  return local;
}

std::string NamedSharding::ToString() const {
  return absl::StrCat("NamedSharding(mesh=", mesh_.ToString(), ", spec=", spec_.ToString(),
                      MemoryKindSuffix(memory_kind_), ")");
}

std::string NamedSharding::JaxRepr() const {
  return absl::StrCat("NamedSharding(mesh=", mesh_.JaxStr(), ", spec=", spec_.ToString(),
                      ", memory_kind=", EffectiveMemoryKind(memory_kind_), ")");
}

absl::StatusOr<SingleDeviceSharding> SingleDeviceSharding::Create(
    int64_t device, std::optional<std::string> memory_kind) {
  if (device < 0) {
    return absl::InvalidArgumentError(absl::StrCat("device id ", device, " is negative"));
  }
  if (memory_kind) AXE_RETURN_IF_ERROR(CheckMemoryKind(*memory_kind));
  return SingleDeviceSharding(device, std::move(memory_kind));
}

std::string SingleDeviceSharding::ToString() const {
  return absl::StrCat("SingleDeviceSharding(device=", device_, MemoryKindSuffix(memory_kind_), ")");
}

}  // namespace axe::sharding
