#include "axe/runtime/collectives.h"

#include <cstddef>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"

namespace axe::runtime {

namespace {

int64_t Product(absl::Span<const int64_t> dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];  // within a value that fits
  return p;
}

absl::Status CheckFits(const sharding::Mesh& mesh, const Client& client) {
  if (mesh.num_devices() > client.num_devices()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the mesh ", mesh.ToString(), " has ", mesh.num_devices(),
                     " devices but the client has ", client.num_devices()));
  }
  return absl::OkStatus();
}

// Runs fn(device, its group's members, its index) on every mesh device.
absl::Status ForEachMember(
    Client& client, const CollectiveGroups& groups,
    const std::function<absl::Status(int, const std::vector<int64_t>&, int64_t)>& fn) {
  return client.RunOnDevices([&](int device) -> absl::Status {
    if (static_cast<size_t>(device) >= groups.member_of.size()) return absl::OkStatus();
    const auto [group, index] = groups.member_of[static_cast<size_t>(device)];
    return fn(device, groups.groups[static_cast<size_t>(group)], index);
  });
}

// Common start of a collective: groups, the mesh fits the client, the output allocated.
struct Setup {
  CollectiveGroups groups;
  DeviceValues out;
};
absl::StatusOr<Setup> Start(const sharding::Mesh& mesh, absl::Span<const std::string> axes,
                            const DeviceValues& x, std::vector<int64_t> out_shape, bool zero) {
  AXE_RETURN_IF_ERROR(CheckFits(mesh, x.client()));
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  zero = zero || mesh.num_devices() < x.client().num_devices();
  AXE_ASSIGN_OR_RETURN(DeviceValues out,
                       DeviceValues::Allocate(x.client(), std::move(out_shape), x.dtype(), zero));
  return Setup{std::move(groups), std::move(out)};
}

absl::Status CheckDim(int64_t dim, int64_t limit, absl::string_view what) {
  if (dim < 0 || dim >= limit) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", dim, " is out of bounds for a value of rank ", limit));
  }
  return absl::OkStatus();
}

std::string PairsToString(absl::Span<const std::pair<int64_t, int64_t>> perm) {
  std::string out = absl::StrJoin(perm, ", ", [](std::string* s, const auto& p) {
    absl::StrAppend(s, "(", p.first, ", ", p.second, ")");
  });
  return absl::StrCat("(", out, perm.size() == 1 ? ",)" : ")");
}

// The source of output element `out_index` of an all_to_all on member g: (member, flat
// index into that member's value).
struct AllToAllMap {
  std::vector<int64_t> in_shape, out_shape;
  size_t split = 0, concat = 0;
  bool tiled = false;
  int64_t group_size = 1;

  std::pair<int64_t, int64_t> Source(const std::vector<int64_t>& o, int64_t g) const {
    std::vector<int64_t> src;
    int64_t member;
    if (tiled) {
      const int64_t chunk = in_shape[split] / group_size;
      const int64_t received = out_shape[concat] / group_size;  // per member along concat
      member = o[concat] / received;
      src = o;
      src[concat] = o[concat] % received;
      src[split] += g * chunk;
    } else {
      member = o[concat];
      src = o;
      src.erase(src.begin() + static_cast<std::ptrdiff_t>(concat));
      src.insert(src.begin() + static_cast<std::ptrdiff_t>(split), g);
    }
    int64_t flat = 0;
    for (size_t i = 0; i < in_shape.size(); ++i) flat = flat * in_shape[i] + src[i];
    return {member, flat};
  }
};

}  // namespace

absl::StatusOr<CollectiveGroups> MakeCollectiveGroups(const sharding::Mesh& mesh,
                                                      absl::Span<const std::string> axes) {
  std::vector<size_t> chosen;
  std::vector<bool> used(mesh.rank(), false);
  for (const std::string& name : axes) {
    std::optional<size_t> j = mesh.AxisIndex(name);
    if (!j.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unbound axis name: ", name, ". The mesh has the axes ", mesh.AxisNamesTuple()));
    }
    if (used[*j]) {
      return absl::InvalidArgumentError(
          absl::StrCat("the collective names mesh axis '", name, "' twice"));
    }
    used[*j] = true;
    chosen.push_back(*j);
  }
  int64_t size = 1;
  for (size_t j : chosen) size *= mesh.axes()[j].size;
  CollectiveGroups out;
  out.groups.assign(static_cast<size_t>(mesh.num_devices() / size),
                    std::vector<int64_t>(static_cast<size_t>(size), 0));
  out.member_of.resize(static_cast<size_t>(mesh.num_devices()));
  for (int64_t p = 0; p < mesh.num_devices(); ++p) {
    std::vector<int64_t> c = mesh.CoordinateOfPosition(p);
    int64_t index = 0, group = 0;
    for (size_t j : chosen) index = index * mesh.axes()[j].size + c[j];
    for (size_t j = 0; j < mesh.rank(); ++j) {
      if (!used[j]) group = group * mesh.axes()[j].size + c[j];
    }
    const int64_t device = mesh.DeviceAtPosition(p);
    out.groups[static_cast<size_t>(group)][static_cast<size_t>(index)] = device;
    out.member_of[static_cast<size_t>(device)] = {group, index};
  }
  return out;
}

absl::StatusOr<DeviceValues> AllReduce(const sharding::Mesh& mesh,
                                       absl::Span<const std::string> axes, ReduceOp op,
                                       const DeviceValues& x) {
  AXE_RETURN_IF_ERROR(CheckReduction(op, x.dtype()));
  AXE_ASSIGN_OR_RETURN(Setup s, Start(mesh, axes, x, x.shape(), false));
  AXE_RETURN_IF_ERROR(ForEachMember(
      x.client(), s.groups, [&](int device, const std::vector<int64_t>& members, int64_t) {
        std::vector<const uint8_t*> inputs;
        for (int64_t m : members) inputs.push_back(x.data(static_cast<int>(m)));
        return ReduceElements(op, x.dtype(), inputs, x.elements(), s.out.mutable_data(device));
      }));
  return std::move(s.out);
}

absl::StatusOr<DeviceValues> AllGather(const sharding::Mesh& mesh,
                                       absl::Span<const std::string> axes, const DeviceValues& x,
                                       int64_t dim, bool tiled) {
  const auto rank = static_cast<int64_t>(x.shape().size());
  AXE_RETURN_IF_ERROR(CheckDim(dim, tiled ? rank : rank + 1, "all_gather: axis"));
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  const int64_t g_size = groups.group_size();
  std::vector<int64_t> shape = x.shape();
  if (tiled) {
    shape[static_cast<size_t>(dim)] *= g_size;
  } else {
    shape.insert(shape.begin() + dim, g_size);
  }
  AXE_ASSIGN_OR_RETURN(Setup s, Start(mesh, axes, x, shape, false));
  const auto d = static_cast<size_t>(dim);
  const int64_t outer = Product(x.shape(), 0, d);
  const int64_t inner = Product(x.shape(), d, x.shape().size()) * x.element_bytes();
  AXE_RETURN_IF_ERROR(ForEachMember(
      x.client(), s.groups, [&](int device, const std::vector<int64_t>& members, int64_t) {
        uint8_t* out = s.out.mutable_data(device);
        for (int64_t o = 0; o < outer; ++o) {
          for (size_t j = 0; j < members.size(); ++j) {
            const uint8_t* in = x.data(static_cast<int>(members[j]));
            std::memcpy(out + (o * g_size + static_cast<int64_t>(j)) * inner, in + o * inner,
                        static_cast<size_t>(inner));
          }
        }
        return absl::OkStatus();
      }));
  return std::move(s.out);
}

absl::StatusOr<DeviceValues> ReduceScatter(const sharding::Mesh& mesh,
                                           absl::Span<const std::string> axes, ReduceOp op,
                                           const DeviceValues& x, int64_t dim, bool tiled) {
  AXE_RETURN_IF_ERROR(CheckReduction(op, x.dtype()));
  const auto rank = static_cast<int64_t>(x.shape().size());
  AXE_RETURN_IF_ERROR(CheckDim(dim, rank, "psum_scatter: scatter_dimension"));
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  const int64_t g_size = groups.group_size();
  const auto d = static_cast<size_t>(dim);
  const int64_t n = x.shape()[d];
  std::vector<int64_t> shape = x.shape();
  if (tiled) {
    if (n % g_size != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("tiled reduce_scatter operand scatter dimension size ", n,
                       " must be divisible by shard_count ", g_size));
    }
    shape[d] = n / g_size;
  } else {
    if (n != g_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "reduce_scatter operand scatter dimension size ", n, " must match shard count ", g_size));
    }
    shape.erase(shape.begin() + dim);
  }
  AXE_ASSIGN_OR_RETURN(Setup s, Start(mesh, axes, x, shape, false));
  const int64_t outer = Product(x.shape(), 0, d);
  const int64_t inner = Product(x.shape(), d + 1, x.shape().size());
  const int64_t chunk = n / g_size * inner;  // elements each member keeps per outer index
  const int64_t eb = x.element_bytes();
  AXE_RETURN_IF_ERROR(ForEachMember(
      x.client(), s.groups,
      [&](int device, const std::vector<int64_t>& members, int64_t g) -> absl::Status {
        std::vector<const uint8_t*> inputs(members.size());
        for (int64_t o = 0; o < outer; ++o) {
          for (size_t j = 0; j < members.size(); ++j) {
            inputs[j] = x.data(static_cast<int>(members[j])) + (o * n * inner + g * chunk) * eb;
          }
          AXE_RETURN_IF_ERROR(ReduceElements(op, x.dtype(), inputs, chunk,
                                             s.out.mutable_data(device) + o * chunk * eb));
        }
        return absl::OkStatus();
      }));
  return std::move(s.out);
}

absl::StatusOr<DeviceValues> AllToAll(const sharding::Mesh& mesh,
                                      absl::Span<const std::string> axes, const DeviceValues& x,
                                      int64_t split_axis, int64_t concat_axis, bool tiled) {
  const auto rank = static_cast<int64_t>(x.shape().size());
  AXE_RETURN_IF_ERROR(CheckDim(split_axis, rank, "all_to_all: split_axis"));
  AXE_RETURN_IF_ERROR(CheckDim(concat_axis, rank, "all_to_all: concat_axis"));
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  AllToAllMap map{x.shape(),
                  x.shape(),
                  static_cast<size_t>(split_axis),
                  static_cast<size_t>(concat_axis),
                  tiled,
                  groups.group_size()};
  const int64_t n = x.shape()[map.split];
  if (tiled) {
    if (n % map.group_size != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The size of all_to_all split_axis (", n, ") has to be divisible by the size of the ",
          "named axis ", absl::StrJoin(axes, ","), " (", map.group_size, ")"));
    }
    map.out_shape[map.split] /= map.group_size;
    map.out_shape[map.concat] *= map.group_size;
  } else {
    if (n != map.group_size) {
      return absl::InvalidArgumentError(
          absl::StrCat("all_to_all requires the size of the mapped axis axis_name to equal "
                       "x.shape[split_axis], but they are ",
                       map.group_size, " and ", n, " respectively."));
    }
    map.out_shape.erase(map.out_shape.begin() + split_axis);
    map.out_shape.insert(map.out_shape.begin() + concat_axis, map.group_size);
  }
  AXE_ASSIGN_OR_RETURN(Setup s, Start(mesh, axes, x, map.out_shape, false));
  const int64_t eb = x.element_bytes();
  AXE_RETURN_IF_ERROR(ForEachMember(
      x.client(), s.groups, [&](int device, const std::vector<int64_t>& members, int64_t g) {
        uint8_t* out = s.out.mutable_data(device);
        std::vector<int64_t> o(map.out_shape.size(), 0);
        for (int64_t flat = 0; flat < s.out.elements(); ++flat) {
          auto [member, from] = map.Source(o, g);
          std::memcpy(out + flat * eb,
                      x.data(static_cast<int>(members[static_cast<size_t>(member)])) + from * eb,
                      static_cast<size_t>(eb));
          for (size_t i = o.size(); i-- > 0;) {
            if (++o[i] < map.out_shape[i]) break;
            o[i] = 0;
          }
        }
        return absl::OkStatus();
      }));
  return std::move(s.out);
}

absl::StatusOr<DeviceValues> CollectivePermute(const sharding::Mesh& mesh,
                                               absl::Span<const std::string> axes,
                                               const DeviceValues& x,
                                               absl::Span<const std::pair<int64_t, int64_t>> perm) {
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  const int64_t g_size = groups.group_size();
  std::vector<int64_t> source_of(static_cast<size_t>(g_size), -1);
  std::vector<bool> is_source(static_cast<size_t>(g_size), false);
  for (const auto& [src, dst] : perm) {
    if (src < 0 || src >= g_size || dst < 0 || dst >= g_size) {
      return absl::InvalidArgumentError(absl::StrCat("ppermute pair (", src, ", ", dst,
                                                     ") is outside the group of size ", g_size));
    }
    if (is_source[static_cast<size_t>(src)] || source_of[static_cast<size_t>(dst)] >= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ppermute sources and destinations must be unique, got ", PairsToString(perm), "."));
    }
    is_source[static_cast<size_t>(src)] = true;
    source_of[static_cast<size_t>(dst)] = src;
  }
  AXE_ASSIGN_OR_RETURN(Setup s, Start(mesh, axes, x, x.shape(), false));
  AXE_RETURN_IF_ERROR(ForEachMember(
      x.client(), s.groups, [&](int device, const std::vector<int64_t>& members, int64_t g) {
        uint8_t* out = s.out.mutable_data(device);
        const int64_t src = source_of[static_cast<size_t>(g)];
        if (x.bytes() == 0) return absl::OkStatus();
        if (src < 0) {
          std::memset(out, 0, static_cast<size_t>(x.bytes()));
        } else {
          std::memcpy(out, x.data(static_cast<int>(members[static_cast<size_t>(src)])),
                      static_cast<size_t>(x.bytes()));
        }
        return absl::OkStatus();
      }));
  return std::move(s.out);
}

absl::StatusOr<DeviceValues> AxisIndex(Client& client, const sharding::Mesh& mesh,
                                       absl::Span<const std::string> axes) {
  AXE_RETURN_IF_ERROR(CheckFits(mesh, client));
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  AXE_ASSIGN_OR_RETURN(DeviceValues out, DeviceValues::Allocate(client, {}, DType::kS32, true));
  AXE_RETURN_IF_ERROR(
      ForEachMember(client, groups, [&](int device, const std::vector<int64_t>&, int64_t g) {
        auto v = static_cast<int32_t>(g);
        std::memcpy(out.mutable_data(device), &v, 4);
        return absl::OkStatus();
      }));
  return out;
}

}  // namespace axe::runtime
