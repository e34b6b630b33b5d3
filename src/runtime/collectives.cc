#include "axe/runtime/collectives.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/backend.h"

namespace axe::runtime {

namespace {

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

const char* PythonBool(bool b) { return b ? "True" : "False"; }

// The front door of every collective: the processes agree on the call (a description made
// only when the backend compares them), then its arguments are checked once, with JAX's
// words: the mesh fits the client, the groups, `check` (the element type, the result's
// shape). Errors after the agreement are the same on every process. Then the client's
// backend runs the checked call.
// (FunctionRef: nothing allocated per call.)
using ShapeCheck = absl::FunctionRef<absl::StatusOr<std::vector<int64_t>>(int64_t group_size)>;
using BackendCall =
    absl::FunctionRef<absl::StatusOr<DeviceValues>(Backend&, const CollectiveCall& call)>;

absl::StatusOr<DeviceValues> Dispatch(absl::string_view what,
                                      absl::FunctionRef<std::string()> params,
                                      const sharding::Mesh& mesh,
                                      absl::Span<const std::string> axes, const DeviceValues& x,
                                      ShapeCheck check, BackendCall run) {
  Backend& backend = x.client().ops();
  AXE_RETURN_IF_ERROR(backend.AgreeOnCall(what, [&] {
    return absl::StrCat(what, "(", params(), ") of ", XlaName(x.dtype()), "[",
                        absl::StrJoin(x.shape(), ","), "] over (", absl::StrJoin(axes, ", "),
                        ") on mesh ", mesh.ToString());
  }));
  AXE_RETURN_IF_ERROR(MarkSameOnEveryRank(CheckFits(mesh, x.client())));
  absl::StatusOr<CollectiveGroups> groups = MakeCollectiveGroups(mesh, axes);
  if (!groups.ok()) return MarkSameOnEveryRank(groups.status());
  absl::StatusOr<std::vector<int64_t>> out_shape = check(groups->group_size());
  if (!out_shape.ok()) return MarkSameOnEveryRank(out_shape.status());
  return run(backend, CollectiveCall{mesh, axes, *groups, *std::move(out_shape), what});
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
  out.member_of.assign(static_cast<size_t>(mesh.device_id_bound()), {-1, -1});
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

absl::StatusOr<DeviceValues> AllReduce(const sharding::Mesh& mesh,
                                       absl::Span<const std::string> axes, ReduceOp op,
                                       const DeviceValues& x) {
  return Dispatch(
      "all_reduce", [&] { return std::string(ReduceOpName(op)); }, mesh, axes, x,
      [&](int64_t) -> absl::StatusOr<std::vector<int64_t>> {
        AXE_RETURN_IF_ERROR(CheckReduction(op, x.dtype()));
        return x.shape();
      },
      [&](Backend& b, const CollectiveCall& call) { return b.AllReduce(call, op, x); });
}

absl::StatusOr<DeviceValues> AllGather(const sharding::Mesh& mesh,
                                       absl::Span<const std::string> axes, const DeviceValues& x,
                                       int64_t dim, bool tiled) {
  return Dispatch(
      "all_gather", [&] { return absl::StrCat("axis=", dim, ", tiled=", PythonBool(tiled)); }, mesh,
      axes, x, [&](int64_t n) { return AllGatherShape(x.shape(), dim, tiled, n); },
      [&](Backend& b, const CollectiveCall& call) { return b.AllGather(call, x, dim, tiled); });
}

absl::StatusOr<DeviceValues> ReduceScatter(const sharding::Mesh& mesh,
                                           absl::Span<const std::string> axes, ReduceOp op,
                                           const DeviceValues& x, int64_t dim, bool tiled) {
  return Dispatch(
      "reduce_scatter",
      [&] {
        return absl::StrCat(ReduceOpName(op), ", scatter_dimension=", dim,
                            ", tiled=", PythonBool(tiled));
      },
      mesh, axes, x,
      [&](int64_t n) -> absl::StatusOr<std::vector<int64_t>> {
        AXE_RETURN_IF_ERROR(CheckReduction(op, x.dtype()));
        return ReduceScatterShape(x.shape(), dim, tiled, n);
      },
      [&](Backend& b, const CollectiveCall& call) {
        return b.ReduceScatter(call, op, x, dim, tiled);
      });
}

absl::StatusOr<DeviceValues> AllToAll(const sharding::Mesh& mesh,
                                      absl::Span<const std::string> axes, const DeviceValues& x,
                                      int64_t split_axis, int64_t concat_axis, bool tiled) {
  return Dispatch(
      "all_to_all",
      [&] {
        return absl::StrCat("split_axis=", split_axis, ", concat_axis=", concat_axis,
                            ", tiled=", PythonBool(tiled));
      },
      mesh, axes, x,
      [&](int64_t n) { return AllToAllShape(x.shape(), axes, split_axis, concat_axis, tiled, n); },
      [&](Backend& b, const CollectiveCall& call) {
        return b.AllToAll(call, x, split_axis, concat_axis, tiled);
      });
}

absl::StatusOr<DeviceValues> CollectivePermute(const sharding::Mesh& mesh,
                                               absl::Span<const std::string> axes,
                                               const DeviceValues& x,
                                               absl::Span<const std::pair<int64_t, int64_t>> perm) {
  std::vector<int64_t> source_of;
  auto pairs = [&] {
    return absl::StrCat("perm=", absl::StrJoin(perm, ", ", [](std::string* s, const auto& p) {
                          absl::StrAppend(s, "(", p.first, ", ", p.second, ")");
                        }));
  };
  return Dispatch(
      "ppermute", pairs, mesh, axes, x,
      [&](int64_t n) -> absl::StatusOr<std::vector<int64_t>> {
        AXE_ASSIGN_OR_RETURN(source_of, PermuteSources(perm, n));
        return x.shape();
      },
      [&](Backend& b, const CollectiveCall& call) {
        return b.CollectivePermute(call, x, source_of);
      });
}

absl::StatusOr<DeviceValues> AxisIndex(Client& client, const sharding::Mesh& mesh,
                                       absl::Span<const std::string> axes) {
  AXE_RETURN_IF_ERROR(CheckFits(mesh, client));
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  AXE_ASSIGN_OR_RETURN(DeviceValues out, DeviceValues::Allocate(client, {}, DType::kS32, true));
  AXE_RETURN_IF_ERROR(client.RunOnDevices([&](int device) {
    if (const auto member = groups.Member(device)) {
      auto v = static_cast<int32_t>(member->second);
      std::memcpy(out.mutable_data(device), &v, 4);
    }
    return absl::OkStatus();
  }));
  return out;
}

namespace {

// The front door of the raw exchanges: as Dispatch, for one device's bytes.
using RawCall = absl::FunctionRef<absl::Status(Backend&, const CollectiveCall& call)>;

absl::Status DispatchBytes(absl::string_view what, Client& client, const sharding::Mesh& mesh,
                           absl::Span<const std::string> axes, int device, int64_t bytes,
                           absl::Span<const int64_t> source_of, RawCall run) {
  Backend& backend = client.ops();
  AXE_RETURN_IF_ERROR(backend.AgreeOnCall(what, [&] {
    return absl::StrCat(what, "(", bytes, " bytes, sources ", absl::StrJoin(source_of, ","),
                        ") over (", absl::StrJoin(axes, ", "), ") on mesh ", mesh.ToString());
  }));
  AXE_RETURN_IF_ERROR(MarkSameOnEveryRank(CheckFits(mesh, client)));
  absl::StatusOr<CollectiveGroups> groups = MakeCollectiveGroups(mesh, axes);
  if (!groups.ok()) return MarkSameOnEveryRank(groups.status());
  if (!groups->Member(device)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": device ", device, " is not a device of the mesh ", mesh.ToString()));
  }
  if (bytes < 0) return absl::InvalidArgumentError(absl::StrCat(what, ": ", bytes, " bytes"));
  if (!source_of.empty() && static_cast<int64_t>(source_of.size()) != groups->group_size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", source_of.size(),
                                                   " sources for a group of ", groups->group_size(),
                                                   " members"));
  }
  return run(backend, CollectiveCall{mesh, axes, *groups, {bytes}, what});
}

}  // namespace

absl::Status AllGatherBytes(Client& client, const sharding::Mesh& mesh,
                            absl::Span<const std::string> axes, int device, const void* send,
                            int64_t bytes, void* receive) {
  return DispatchBytes("all_gather", client, mesh, axes, device, bytes, {},
                       [&](Backend& b, const CollectiveCall& call) {
                         return b.AllGatherBytes(call, device, send, bytes, receive);
                       });
}

absl::Status PermuteBytes(Client& client, const sharding::Mesh& mesh,
                          absl::Span<const std::string> axes, int device, const void* send,
                          int64_t bytes, absl::Span<const int64_t> source_of, void* receive) {
  if (source_of.empty()) return absl::InvalidArgumentError("ppermute: no sources");
  return DispatchBytes("ppermute", client, mesh, axes, device, bytes, source_of,
                       [&](Backend& b, const CollectiveCall& call) {
                         return b.PermuteBytes(call, device, send, bytes, source_of, receive);
                       });
}

absl::Status AllToAllBytes(Client& client, const sharding::Mesh& mesh,
                           absl::Span<const std::string> axes, int device, const void* send,
                           int64_t block, void* receive) {
  return DispatchBytes("all_to_all", client, mesh, axes, device, block, {},
                       [&](Backend& b, const CollectiveCall& call) {
                         return b.AllToAllBytes(call, device, send, block, receive);
                       });
}

}  // namespace axe::runtime
