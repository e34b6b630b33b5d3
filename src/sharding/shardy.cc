#include "axe/sharding/shardy.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "not_expressible.h"

namespace axe::sharding {
namespace {

std::string Quoted(absl::string_view name) { return absl::StrCat("\"", name, "\""); }

std::string AxisListText(const std::vector<ShardyAxisRef>& refs) {
  std::vector<std::string> parts;
  for (const ShardyAxisRef& r : refs) parts.push_back(r.ToString());
  return absl::StrJoin(parts, ", ");
}

std::string DimText(const ShardyDimSharding& dim) {
  std::string text = absl::StrCat("{", AxisListText(dim.axes));
  if (dim.open) absl::StrAppend(&text, dim.axes.empty() ? "?" : ", ?");
  absl::StrAppend(&text, "}");
  if (dim.priority) absl::StrAppend(&text, "p", *dim.priority);
  return text;
}

// The mesh a sharding is read on: its inlined mesh, else `mesh` (whose name must match).
absl::StatusOr<ShardyMesh> MeshOf(const ShardySharding& s, const std::optional<ShardyMesh>& mesh) {
  if (s.inline_mesh()) return *s.inline_mesh();
  if (!mesh) {
    return absl::InvalidArgumentError(
        absl::StrCat("the sharding refers to @", s.mesh_name(), "; give its mesh"));
  }
  if (!mesh->name.empty() && mesh->name != s.mesh_name()) {
    return absl::InvalidArgumentError(absl::StrCat("the sharding refers to @", s.mesh_name(),
                                                   " but the mesh given is @", mesh->name));
  }
  return *mesh;
}

// The range [pre_size, pre_size * size) of an axis that a reference covers.
std::pair<int64_t, int64_t> Span(const ShardyAxisRef& ref, int64_t axis_size) {
  if (!ref.is_sub_axis()) return {1, axis_size};
  return {ref.pre_size, ref.pre_size * ref.size};
}

absl::Status CheckRef(const ShardyAxisRef& ref, const std::vector<MeshAxis>& axes,
                      std::map<std::string, std::vector<std::pair<int64_t, int64_t>>>& used) {
  auto it =
      std::find_if(axes.begin(), axes.end(), [&](const MeshAxis& a) { return a.name == ref.name; });
  if (it == axes.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown axis name: ", Quoted(ref.name), " (not in the mesh)"));
  }
  if (ref.is_sub_axis()) {
    // pre_size * size must divide the axis size (checked without overflow), and the
    // reference must not be the whole axis (that is written "x").
    const bool divides = ref.pre_size >= 1 && ref.size > 1 && ref.pre_size <= it->size &&
                         ref.size <= it->size / ref.pre_size &&
                         it->size % (ref.pre_size * ref.size) == 0;
    if (!divides || (ref.pre_size == 1 && ref.size == it->size)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sub-axis ", ref.ToString(), " does not split axis ", Quoted(ref.name), " of size ",
          it->size, " (pre-size >= 1, size > 1, pre-size * size a proper divisor of it)"));
    }
  }
  const auto span = Span(ref, it->size);
  for (const auto& [lo, hi] : used[ref.name]) {
    if (span.first < hi && lo < span.second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "axis ", ref.ToString(), " overlaps another use of axis ", Quoted(ref.name)));
    }
  }
  used[ref.name].push_back(span);
  return absl::OkStatus();
}

// Each axis split at the boundaries its references use: axis name -> boundaries 1 = b0 < b1
// < ... < bk = size (each dividing the next).
std::map<std::string, std::vector<int64_t>> Boundaries(const ShardySharding& s,
                                                       const std::vector<MeshAxis>& axes) {
  std::map<std::string, std::set<int64_t>> cuts;
  for (const MeshAxis& a : axes) cuts[a.name] = {1, a.size};
  auto add = [&](const ShardyAxisRef& r) {
    if (!r.is_sub_axis()) return;
    cuts[r.name].insert(r.pre_size);
    cuts[r.name].insert(r.pre_size * r.size);
  };
  for (const ShardyDimSharding& d : s.dims()) std::for_each(d.axes.begin(), d.axes.end(), add);
  std::for_each(s.replicated().begin(), s.replicated().end(), add);
  std::for_each(s.unreduced().begin(), s.unreduced().end(), add);
  std::map<std::string, std::vector<int64_t>> out;
  for (auto& [name, set] : cuts) out[name].assign(set.begin(), set.end());
  return out;
}

std::string PieceName(const std::string& axis, int64_t lo, int64_t hi) {
  return absl::StrCat(axis, "_", lo, "_", hi / lo);
}

}  // namespace

std::string ShardyAxisRef::ToString() const {
  if (!is_sub_axis()) return Quoted(name);
  return absl::StrCat(Quoted(name), ":(", pre_size, ")", size);
}

ShardyMesh ShardyMesh::FromMesh(const Mesh& mesh, std::string name) {
  ShardyMesh out;
  out.name = std::move(name);
  out.axes = mesh.axes();
  if (!mesh.has_default_devices()) out.device_ids = mesh.device_array();
  return out;
}

std::optional<int64_t> ShardyMesh::MaximalDevice() const {
  if (axes.empty() && device_ids.size() == 1) return device_ids[0];
  return std::nullopt;
}

absl::StatusOr<Mesh> ShardyMesh::ToMesh() const {
  if (std::optional<int64_t> device = MaximalDevice(); device && *device != 0) {
    return absl::FailedPreconditionError(absl::StrCat("the maximal mesh of device ", *device,
                                                      " is SingleDeviceSharding(device=", *device,
                                                      "), not a Mesh"));
  }
  std::vector<int64_t> ids = device_ids;
  // Ids in iota order are the default order, when there are as many as devices (fewer are
  // refused by Mesh::Create, as Shardy's verifier refuses them).
  std::vector<int64_t> sizes;
  for (const MeshAxis& a : axes) sizes.push_back(a.size);
  const std::optional<int64_t> devices = CheckedProduct(sizes);
  bool iota = devices && *devices == static_cast<int64_t>(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) iota = iota && ids[i] == static_cast<int64_t>(i);
  if (iota) ids.clear();
  return Mesh::Create(axes, std::move(ids));
}

std::string ShardyMesh::AttrToString() const {
  std::vector<std::string> parts;
  for (const MeshAxis& a : axes) parts.push_back(absl::StrCat(Quoted(a.name), "=", a.size));
  std::string text = absl::StrCat("<[", absl::StrJoin(parts, ", "), "]");
  bool iota = true;
  for (size_t i = 0; i < device_ids.size(); ++i) {
    iota = iota && device_ids[i] == static_cast<int64_t>(i);
  }
  if (!device_ids.empty() && (!iota || MaximalDevice())) {
    absl::StrAppend(&text, ", device_ids=[", absl::StrJoin(device_ids, ", "), "]");
  }
  return text + ">";
}

std::string ShardyMesh::ToString() const {
  return absl::StrCat("sdy.mesh @", name, " = ", AttrToString());
}

ShardySharding ShardySharding::Make(std::string mesh_name, std::optional<ShardyMesh> inline_mesh,
                                    std::vector<ShardyDimSharding> dims,
                                    std::vector<ShardyAxisRef> replicated,
                                    std::vector<ShardyAxisRef> unreduced,
                                    ShardyReduction reduction) {
  ShardySharding s;
  s.mesh_name_ = std::move(mesh_name);
  s.inline_mesh_ = std::move(inline_mesh);
  s.dims_ = std::move(dims);
  s.replicated_ = std::move(replicated);
  s.unreduced_ = std::move(unreduced);
  s.reduction_ = reduction;
  return s;
}

std::string ShardySharding::ToString() const {
  std::string text = "#sdy.sharding<";
  if (inline_mesh_) {
    absl::StrAppend(&text, "mesh", inline_mesh_->AttrToString());
  } else {
    absl::StrAppend(&text, "@", mesh_name_);
  }
  std::vector<std::string> dims;
  for (const ShardyDimSharding& d : dims_) dims.push_back(DimText(d));
  absl::StrAppend(&text, ", [", absl::StrJoin(dims, ", "), "]");
  if (!replicated_.empty())
    absl::StrAppend(&text, ", replicated={", AxisListText(replicated_), "}");
  if (!unreduced_.empty()) {
    const char* op = reduction_ == ShardyReduction::kMax   ? "max"
                     : reduction_ == ShardyReduction::kMin ? "min"
                                                           : "";
    absl::StrAppend(&text, ", unreduced=", op, "{", AxisListText(unreduced_), "}");
  }
  return text + ">";
}

absl::Status ShardySharding::Check(const std::optional<ShardyMesh>& mesh,
                                   std::optional<size_t> rank) const {
  AXE_ASSIGN_OR_RETURN(ShardyMesh on, MeshOf(*this, mesh));
  if (rank && *rank != dims_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("sharding has rank ", dims_.size(), " but the value has rank ", *rank));
  }
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> used;
  for (const ShardyDimSharding& d : dims_) {
    for (const ShardyAxisRef& r : d.axes) AXE_RETURN_IF_ERROR(CheckRef(r, on.axes, used));
  }
  for (const ShardyAxisRef& r : replicated_) AXE_RETURN_IF_ERROR(CheckRef(r, on.axes, used));
  for (const ShardyAxisRef& r : unreduced_) AXE_RETURN_IF_ERROR(CheckRef(r, on.axes, used));
  return absl::OkStatus();
}

absl::StatusOr<NamedSharding> ShardyToNamedSharding(const ShardySharding& sharding,
                                                    const std::optional<ShardyMesh>& mesh) {
  AXE_RETURN_IF_ERROR(sharding.Check(mesh));
  AXE_ASSIGN_OR_RETURN(ShardyMesh on, MeshOf(sharding, mesh));
  std::vector<PartitionSpec::Entry> entries;
  for (const ShardyDimSharding& d : sharding.dims()) {
    PartitionSpec::Entry entry;
    for (const ShardyAxisRef& r : d.axes) {
      if (r.is_sub_axis()) {
        return internal::NotExpressibleAsNamedSharding(
            absl::StrCat("sub-axis ", r.ToString(), ": a PartitionSpec names whole mesh axes"));
      }
      entry.push_back(r.name);
    }
    entries.push_back(std::move(entry));
  }
  if (!sharding.unreduced().empty()) {
    return internal::NotExpressibleAsNamedSharding(absl::StrCat(
        "unreduced axes {", AxisListText(sharding.unreduced()), "} hold partial values"));
  }
  AXE_ASSIGN_OR_RETURN(Mesh m, on.ToMesh());
  AXE_ASSIGN_OR_RETURN(PartitionSpec spec, PartitionSpec::Create(std::move(entries)));
  return NamedSharding::Create(std::move(m), std::move(spec));
}

absl::StatusOr<NamedSharding> ShardyToRefinedNamedSharding(const ShardySharding& sharding,
                                                           const std::optional<ShardyMesh>& mesh) {
  AXE_RETURN_IF_ERROR(sharding.Check(mesh));
  AXE_ASSIGN_OR_RETURN(ShardyMesh on, MeshOf(sharding, mesh));
  const std::map<std::string, std::vector<int64_t>> cuts = Boundaries(sharding, on.axes);
  std::vector<MeshAxis> axes;
  for (const MeshAxis& a : on.axes) {
    const std::vector<int64_t>& b = cuts.at(a.name);
    if (b.size() <= 2) {  // uncut (a size-1 axis has the one boundary 1)
      axes.push_back(a);
      continue;
    }
    for (size_t j = 0; j + 1 < b.size(); ++j) {
      axes.push_back({PieceName(a.name, b[j], b[j + 1]), b[j + 1] / b[j]});
    }
  }
  // The pieces a reference covers, major first.
  auto pieces = [&](const ShardyAxisRef& r) {
    const std::vector<int64_t>& b = cuts.at(r.name);
    if (b.size() <= 2) return std::vector<std::string>{r.name};
    const int64_t size = b.back();
    const auto [lo, hi] = Span(r, size);
    std::vector<std::string> names;
    for (size_t j = 0; j + 1 < b.size(); ++j) {
      if (b[j] >= lo && b[j + 1] <= hi) names.push_back(PieceName(r.name, b[j], b[j + 1]));
    }
    return names;
  };
  std::vector<PartitionSpec::Entry> entries;
  for (const ShardyDimSharding& d : sharding.dims()) {
    PartitionSpec::Entry entry;
    for (const ShardyAxisRef& r : d.axes) {
      for (std::string& name : pieces(r)) entry.push_back(std::move(name));
    }
    entries.push_back(std::move(entry));
  }
  ShardyMesh refined = on;
  refined.axes = std::move(axes);
  AXE_ASSIGN_OR_RETURN(Mesh m, refined.ToMesh());
  AXE_ASSIGN_OR_RETURN(PartitionSpec spec, PartitionSpec::Create(std::move(entries)));
  return NamedSharding::Create(std::move(m), std::move(spec));
}

ShardySharding NamedToShardySharding(const NamedSharding& sharding, size_t rank,
                                     absl::string_view mesh_name) {
  std::vector<ShardyDimSharding> dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    for (const std::string& name : sharding.spec().entry(i)) dims[i].axes.push_back({name});
  }
  return ShardySharding::Make(
      mesh_name.empty() ? JaxMeshName(sharding.mesh()) : std::string(mesh_name), std::nullopt,
      std::move(dims));
}

std::string JaxMeshName(const Mesh& mesh) { return mesh.rank() == 0 ? "empty_mesh" : "mesh"; }

}  // namespace axe::sharding
