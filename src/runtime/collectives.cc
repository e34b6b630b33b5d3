#include "axe/runtime/collectives.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/box_copy.h"

namespace axe::runtime {

using relayout::BufferLayout;
using relayout::CopyBox;
using relayout::IndexBox;
using relayout::MutableStoredTensor;
using relayout::RowMajorBuffer;
using relayout::StoredTensor;
using relayout::WholeBox;

namespace {

int64_t Product(absl::Span<const int64_t> dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];  // within a value that fits
  return p;
}

// The collectives that move data copy between devices' memories directly: every device
// must be in this process.
absl::Status CheckAllHere(const Client& client) {
  if (client.addressable_devices().size() == static_cast<size_t>(client.num_devices())) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      absl::StrCat("the in-process collectives need every device in this process, but only ",
                   client.addressable_devices().size(), " of ", client.num_devices(),
                   " are (an MPI client: use the Mpi* collectives of mpi_collectives.h)"));
}

absl::Status CheckFits(const sharding::Mesh& mesh, const Client& client) {
  if (mesh.num_devices() > client.num_devices()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the mesh ", mesh.ToString(), " has ", mesh.num_devices(),
                     " devices but the client has ", client.num_devices()));
  }
  for (int64_t d : mesh.device_array()) {
    if (d >= client.num_devices()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the mesh ", mesh.ToString(), " uses device ", d, " but the client has ",
                       client.num_devices(), " devices (ids 0 to ", client.num_devices() - 1, ")"));
    }
  }
  return absl::OkStatus();
}

// Runs fn(device, its group's members, its index) on every mesh device.
absl::Status ForEachMember(
    Client& client, const CollectiveGroups& groups,
    const std::function<absl::Status(int, const std::vector<int64_t>&, int64_t)>& fn) {
  return client.RunOnDevices([&](int device) -> absl::Status {
    const std::optional<std::pair<int64_t, int64_t>> member = groups.Member(device);
    if (!member) return absl::OkStatus();
    const auto [group, index] = *member;
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
  AXE_RETURN_IF_ERROR(CheckAllHere(x.client()));
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

// An all_to_all in its tiled form (as JAX lowers the untiled one): the input x' (x with a
// dimension of 1 inserted for an untiled concat axis), the output out' (the same rank: the
// untiled result with its split axis kept, of size 1), and the two axes in those shapes.
// Row-major, x' and out' have the bytes of x and of the result.
struct TiledAllToAll {
  std::vector<int64_t> in, out;
  size_t split = 0, concat = 0;
};

TiledAllToAll MakeTiled(std::vector<int64_t> shape, size_t split, size_t concat, bool tiled,
                        int64_t group_size) {
  TiledAllToAll t{std::move(shape), {}, split, concat};
  if (!tiled && split != concat) {
    if (split < concat) ++t.concat;  // concat names a position after split is removed
    t.in.insert(t.in.begin() + static_cast<std::ptrdiff_t>(t.concat), 1);
    if (split > concat) ++t.split;
  }
  t.out = t.in;
  t.out[t.split] /= group_size;
  t.out[t.concat] *= group_size;
  return t;
}

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
  int64_t largest = 0;
  for (int64_t d : mesh.device_array()) largest = std::max(largest, d);
  out.member_of.assign(static_cast<size_t>(largest + 1), {-1, -1});
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
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  const int64_t g_size = groups.group_size();
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, AllGatherShape(x.shape(), dim, tiled, g_size));
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
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  const int64_t g_size = groups.group_size();
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape,
                       ReduceScatterShape(x.shape(), dim, tiled, g_size));
  const auto d = static_cast<size_t>(dim);
  const int64_t n = x.shape()[d];
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

absl::StatusOr<std::vector<int64_t>> AllGatherShape(absl::Span<const int64_t> shape, int64_t dim,
                                                    bool tiled, int64_t group_size) {
  const auto rank = static_cast<int64_t>(shape.size());
  AXE_RETURN_IF_ERROR(CheckDim(dim, tiled ? rank : rank + 1, "all_gather: axis"));
  std::vector<int64_t> result(shape.begin(), shape.end());
  if (tiled) {
    result[static_cast<size_t>(dim)] *= group_size;
  } else {
    result.insert(result.begin() + dim, group_size);
  }
  return result;
}

absl::StatusOr<std::vector<int64_t>> ReduceScatterShape(absl::Span<const int64_t> shape,
                                                        int64_t dim, bool tiled,
                                                        int64_t group_size) {
  const auto rank = static_cast<int64_t>(shape.size());
  AXE_RETURN_IF_ERROR(CheckDim(dim, rank, "psum_scatter: scatter_dimension"));
  const int64_t n = shape[static_cast<size_t>(dim)];
  std::vector<int64_t> result(shape.begin(), shape.end());
  if (tiled) {
    if (n % group_size != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("tiled reduce_scatter operand scatter dimension size ", n,
                       " must be divisible by shard_count ", group_size));
    }
    result[static_cast<size_t>(dim)] = n / group_size;
  } else {
    if (n != group_size) {
      return absl::InvalidArgumentError(
          absl::StrCat("reduce_scatter operand scatter dimension size ", n,
                       " must match shard count ", group_size));
    }
    result.erase(result.begin() + dim);
  }
  return result;
}

absl::StatusOr<std::vector<int64_t>> PermuteSources(
    absl::Span<const std::pair<int64_t, int64_t>> perm, int64_t group_size) {
  std::vector<int64_t> source_of(static_cast<size_t>(group_size), -1);
  std::vector<bool> is_source(static_cast<size_t>(group_size), false);
  for (const auto& [src, dst] : perm) {
    if (src < 0 || src >= group_size || dst < 0 || dst >= group_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ppermute pair (", src, ", ", dst, ") is outside the group of size ", group_size));
    }
    if (is_source[static_cast<size_t>(src)] || source_of[static_cast<size_t>(dst)] >= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ppermute sources and destinations must be unique, got ", PairsToString(perm), "."));
    }
    is_source[static_cast<size_t>(src)] = true;
    source_of[static_cast<size_t>(dst)] = src;
  }
  return source_of;
}

absl::StatusOr<std::vector<int64_t>> AllToAllShape(absl::Span<const int64_t> shape,
                                                   absl::Span<const std::string> axes,
                                                   int64_t split_axis, int64_t concat_axis,
                                                   bool tiled, int64_t g_size) {
  const auto rank = static_cast<int64_t>(shape.size());
  AXE_RETURN_IF_ERROR(CheckDim(split_axis, rank, "all_to_all: split_axis"));
  AXE_RETURN_IF_ERROR(CheckDim(concat_axis, rank, "all_to_all: concat_axis"));
  const int64_t n = shape[static_cast<size_t>(split_axis)];
  std::vector<int64_t> result_shape(shape.begin(), shape.end());
  if (tiled) {
    if (n % g_size != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The size of all_to_all split_axis (", n, ") has to be divisible by the size of the ",
          "named axis ", absl::StrJoin(axes, ","), " (", g_size, ")"));
    }
    result_shape[static_cast<size_t>(split_axis)] /= g_size;
    result_shape[static_cast<size_t>(concat_axis)] *= g_size;
  } else {
    if (n != g_size) {
      return absl::InvalidArgumentError(
          absl::StrCat("all_to_all requires the size of the mapped axis axis_name to equal "
                       "x.shape[split_axis], but they are ",
                       g_size, " and ", n, " respectively."));
    }
    result_shape.erase(result_shape.begin() + split_axis);
    result_shape.insert(result_shape.begin() + concat_axis, g_size);
  }
  return result_shape;
}

absl::StatusOr<DeviceValues> AllToAll(const sharding::Mesh& mesh,
                                      absl::Span<const std::string> axes, const DeviceValues& x,
                                      int64_t split_axis, int64_t concat_axis, bool tiled) {
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  const int64_t g_size = groups.group_size();
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> result_shape,
                       AllToAllShape(x.shape(), axes, split_axis, concat_axis, tiled, g_size));
  const TiledAllToAll t = MakeTiled(x.shape(), static_cast<size_t>(split_axis),
                                    static_cast<size_t>(concat_axis), tiled, g_size);
  AXE_ASSIGN_OR_RETURN(BufferLayout in_layout, RowMajorBuffer(t.in));
  AXE_ASSIGN_OR_RETURN(BufferLayout out_layout, RowMajorBuffer(t.out));
  AXE_ASSIGN_OR_RETURN(Setup s, Start(mesh, axes, x, std::move(result_shape), false));
  // Member g's chunk of member j: piece g along split of x'_j, to piece j along concat of out'.
  const int64_t chunk = t.in[t.split] / g_size;
  const int64_t received = t.out[t.concat] / g_size;
  AXE_RETURN_IF_ERROR(ForEachMember(
      x.client(), s.groups,
      [&](int device, const std::vector<int64_t>& members, int64_t g) -> absl::Status {
        MutableStoredTensor to{out_layout, t.out, s.out.mutable_data(device)};
        for (size_t j = 0; j < members.size(); ++j) {
          StoredTensor from{in_layout, t.in, x.data(static_cast<int>(members[j]))};
          IndexBox src = WholeBox(t.in), dst = WholeBox(t.out);
          src[t.split] = {g * chunk, (g + 1) * chunk};
          const auto jj = static_cast<int64_t>(j);
          dst[t.concat] = {jj * received, (jj + 1) * received};
          AXE_RETURN_IF_ERROR(CopyBox(from, src, to, dst, x.element_bytes()));
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
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> source_of, PermuteSources(perm, g_size));
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
