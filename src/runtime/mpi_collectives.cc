#include "axe/runtime/mpi_collectives.h"

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/box_copy.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/mpi_client.h"
#include "src/runtime/mpi_state.h"

namespace axe::runtime {

namespace {

int64_t Product(absl::Span<const int64_t> dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];  // within a value that fits
  return p;
}

std::string ShapeText(DType dtype, absl::Span<const int64_t> shape) {
  return absl::StrCat(XlaName(dtype), "[", absl::StrJoin(shape, ","), "]");
}

absl::Status CheckDim(int64_t dim, int64_t limit, absl::string_view what) {
  if (dim < 0 || dim >= limit) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", dim, " is out of bounds for a value of rank ", limit));
  }
  return absl::OkStatus();
}

// What every MPI collective starts with: the call agreed on by all ranks, the groups, this
// rank's group communicator and index.
struct Call {
  MpiClient* client = nullptr;
  CollectiveGroups groups;
  MPI_Comm comm = MPI_COMM_NULL;  // MPI_COMM_NULL: this rank is outside the mesh
  int64_t index = 0;              // this rank's index in its group
  int64_t size = 1;               // the group size
  std::string what;
};

absl::StatusOr<Call> Begin(const sharding::Mesh& mesh, absl::Span<const std::string> axes,
                           const DeviceValues& x, std::string what, absl::string_view extra) {
  Call c;
  c.client = AsMpiClient(x.client());
  if (c.client == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " over MPI needs values of an MPI client, not of the '",
                     x.client().backend(), "' backend"));
  }
  AXE_RETURN_IF_ERROR(CheckUsable(*c.client));
  const std::string text =
      absl::StrCat(what, "(", extra, ") of ", ShapeText(x.dtype(), x.shape()), " over (",
                   absl::StrJoin(axes, ", "), ") on mesh ", mesh.ToString());
  AXE_RETURN_IF_ERROR(AgreeOnCall(*c.client, what, text));
  if (mesh.num_devices() > c.client->num_devices()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the mesh ", mesh.ToString(), " has ", mesh.num_devices(),
                     " devices but the client has ", c.client->num_devices()));
  }
  AXE_ASSIGN_OR_RETURN(c.groups, MakeCollectiveGroups(mesh, axes));
  AXE_ASSIGN_OR_RETURN(c.comm, GroupComm(*c.client, mesh, axes, c.groups));
  c.size = c.groups.group_size();
  const auto rank = static_cast<size_t>(c.client->rank());
  if (rank < c.groups.member_of.size()) c.index = c.groups.member_of[rank].second;
  c.what = std::move(what);
  return c;
}

// Waits for `requests`; on failure keeps `out` (which MPI may still write) alive.
absl::Status Finish(Call& c, std::vector<MPI_Request>& requests, DeviceValues& out,
                    std::vector<uint8_t>* scratch = nullptr) {
  absl::Status s = WaitAll(*c.client, requests, c.what);
  if (!s.ok()) {
    c.client->state().KeepAlive(std::move(out));
    if (scratch != nullptr) c.client->state().KeepAlive(std::move(*scratch));
  }
  return s;
}

// Element range [begin, end) of chunk j when `elements` are cut into n nearly equal chunks.
int64_t ChunkBegin(int64_t elements, int64_t n, int64_t j) {
  return elements / n * j + std::min(j, elements % n);
}

}  // namespace

absl::StatusOr<DeviceValues> MpiAllReduce(const sharding::Mesh& mesh,
                                          absl::Span<const std::string> axes, ReduceOp op,
                                          const DeviceValues& x) {
  AXE_ASSIGN_OR_RETURN(Call c, Begin(mesh, axes, x, "all_reduce", ReduceOpName(op)));
  AXE_RETURN_IF_ERROR(CheckReduction(op, x.dtype()));
  AXE_ASSIGN_OR_RETURN(DeviceValues out, DeviceValues::Allocate(x.client(), x.shape(), x.dtype(),
                                                                c.comm == MPI_COMM_NULL));
  if (c.comm == MPI_COMM_NULL || x.bytes() == 0) return out;
  AXE_RETURN_IF_ERROR(MpiCount(x.bytes(), c.what).status());
  const int rank = c.client->rank();
  const int64_t n = c.size, g = c.index, e = x.elements(), eb = x.element_bytes();
  const uint8_t* in = x.data(rank);
  uint8_t* result = out.mutable_data(rank);
  // Phase 1: member j receives every member's chunk j (n blocks of chunk j's size).
  // Counts fit in int: x.bytes() does (MpiCount above).
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  const int64_t mine = ChunkBegin(e, n, g + 1) - ChunkBegin(e, n, g);
  for (int64_t j = 0; j < n; ++j) {
    send_displs.push_back(static_cast<int>(ChunkBegin(e, n, j) * eb));
    send_counts.push_back(static_cast<int>((ChunkBegin(e, n, j + 1) - ChunkBegin(e, n, j)) * eb));
    recv_counts.push_back(static_cast<int>(mine * eb));
    recv_displs.push_back(static_cast<int>(j * mine * eb));
  }
  std::vector<uint8_t> blocks(static_cast<size_t>(n * mine * eb));
  std::vector<MPI_Request> req(1);
  AXE_RETURN_IF_ERROR(MpiStatus(
      MPI_Ialltoallv(in, send_counts.data(), send_displs.data(), MPI_BYTE, blocks.data(),
                     recv_counts.data(), recv_displs.data(), MPI_BYTE, c.comm, req.data()),
      "MPI_Ialltoallv"));
  AXE_RETURN_IF_ERROR(Finish(c, req, out, &blocks));
  std::vector<const uint8_t*> inputs;
  for (int64_t j = 0; j < n; ++j) inputs.push_back(blocks.data() + j * mine * eb);
  AXE_RETURN_IF_ERROR(
      ReduceElements(op, x.dtype(), inputs, mine, result + ChunkBegin(e, n, g) * eb));
  // Phase 2: every member gets every folded chunk.
  AXE_RETURN_IF_ERROR(
      MpiStatus(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_BYTE, result, send_counts.data(),
                                send_displs.data(), MPI_BYTE, c.comm, req.data()),
                "MPI_Iallgatherv"));
  AXE_RETURN_IF_ERROR(Finish(c, req, out));
  return out;
}

absl::StatusOr<DeviceValues> MpiAllGather(const sharding::Mesh& mesh,
                                          absl::Span<const std::string> axes, const DeviceValues& x,
                                          int64_t dim, bool tiled) {
  AXE_ASSIGN_OR_RETURN(Call c,
                       Begin(mesh, axes, x, "all_gather",
                             absl::StrCat("axis=", dim, ", tiled=", tiled ? "True" : "False")));
  const auto rank = static_cast<int64_t>(x.shape().size());
  AXE_RETURN_IF_ERROR(CheckDim(dim, tiled ? rank : rank + 1, "all_gather: axis"));
  std::vector<int64_t> shape = x.shape();
  if (tiled) {
    shape[static_cast<size_t>(dim)] *= c.size;
  } else {
    shape.insert(shape.begin() + dim, c.size);
  }
  AXE_ASSIGN_OR_RETURN(
      DeviceValues out,
      DeviceValues::Allocate(x.client(), std::move(shape), x.dtype(), c.comm == MPI_COMM_NULL));
  if (c.comm == MPI_COMM_NULL || x.bytes() == 0) return out;
  AXE_ASSIGN_OR_RETURN(int count, MpiCount(x.bytes(), c.what));
  AXE_RETURN_IF_ERROR(MpiCount(out.bytes(), c.what).status());
  const int me = c.client->rank();
  const auto d = static_cast<size_t>(dim);
  const int64_t outer = Product(x.shape(), 0, d);
  const int64_t inner = Product(x.shape(), d, x.shape().size()) * x.element_bytes();
  std::vector<uint8_t> gathered;
  uint8_t* target = out.mutable_data(me);
  if (outer != 1) {
    gathered.resize(static_cast<size_t>(out.bytes()));
    target = gathered.data();
  }
  std::vector<MPI_Request> req(1);
  AXE_RETURN_IF_ERROR(MpiStatus(
      MPI_Iallgather(x.data(me), count, MPI_BYTE, target, count, MPI_BYTE, c.comm, req.data()),
      "MPI_Iallgather"));
  AXE_RETURN_IF_ERROR(Finish(c, req, out, &gathered));
  if (outer == 1) return out;
  uint8_t* o = out.mutable_data(me);
  for (int64_t j = 0; j < c.size; ++j) {
    for (int64_t k = 0; k < outer; ++k) {
      std::memcpy(o + (k * c.size + j) * inner, gathered.data() + (j * outer + k) * inner,
                  static_cast<size_t>(inner));
    }
  }
  return out;
}

absl::StatusOr<DeviceValues> MpiReduceScatter(const sharding::Mesh& mesh,
                                              absl::Span<const std::string> axes, ReduceOp op,
                                              const DeviceValues& x, int64_t dim, bool tiled) {
  AXE_ASSIGN_OR_RETURN(Call c, Begin(mesh, axes, x, "reduce_scatter",
                                     absl::StrCat(ReduceOpName(op), ", scatter_dimension=", dim,
                                                  ", tiled=", tiled ? "True" : "False")));
  AXE_RETURN_IF_ERROR(CheckReduction(op, x.dtype()));
  const auto rank = static_cast<int64_t>(x.shape().size());
  AXE_RETURN_IF_ERROR(CheckDim(dim, rank, "psum_scatter: scatter_dimension"));
  const auto d = static_cast<size_t>(dim);
  const int64_t n = x.shape()[d], g_size = c.size;
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
  AXE_ASSIGN_OR_RETURN(
      DeviceValues out,
      DeviceValues::Allocate(x.client(), std::move(shape), x.dtype(), c.comm == MPI_COMM_NULL));
  if (c.comm == MPI_COMM_NULL || x.bytes() == 0) return out;
  AXE_RETURN_IF_ERROR(MpiCount(x.bytes(), c.what).status());
  const int me = c.client->rank();
  const int64_t outer = Product(x.shape(), 0, d),
                inner = Product(x.shape(), d + 1, x.shape().size());
  const int64_t chunk = n / g_size * inner, eb = x.element_bytes();
  const int piece = static_cast<int>(outer * chunk * eb);  // bytes each member gets from each
  std::vector<uint8_t> packed, blocks(static_cast<size_t>(g_size * piece));
  const uint8_t* send = x.data(me);
  if (outer != 1) {  // piece j: rows [j chunk, (j+1) chunk) of every outer index
    packed.resize(static_cast<size_t>(x.bytes()));
    for (int64_t j = 0; j < g_size; ++j) {
      for (int64_t o = 0; o < outer; ++o) {
        std::memcpy(packed.data() + (j * outer + o) * chunk * eb,
                    send + (o * n * inner + j * chunk) * eb, static_cast<size_t>(chunk * eb));
      }
    }
    send = packed.data();
  }
  std::vector<MPI_Request> req(1);
  AXE_RETURN_IF_ERROR(MpiStatus(
      MPI_Ialltoall(send, piece, MPI_BYTE, blocks.data(), piece, MPI_BYTE, c.comm, req.data()),
      "MPI_Ialltoall"));
  absl::Status s = Finish(c, req, out, &blocks);
  if (!s.ok()) {
    c.client->state().KeepAlive(std::move(packed));
    return s;
  }
  std::vector<const uint8_t*> inputs;
  for (int64_t j = 0; j < g_size; ++j) inputs.push_back(blocks.data() + j * piece);
  AXE_RETURN_IF_ERROR(ReduceElements(op, x.dtype(), inputs, outer * chunk, out.mutable_data(me)));
  return out;
}

absl::StatusOr<DeviceValues> MpiAllToAll(const sharding::Mesh& mesh,
                                         absl::Span<const std::string> axes, const DeviceValues& x,
                                         int64_t split_axis, int64_t concat_axis, bool tiled) {
  AXE_ASSIGN_OR_RETURN(Call c,
                       Begin(mesh, axes, x, "all_to_all",
                             absl::StrCat("split_axis=", split_axis, ", concat_axis=", concat_axis,
                                          ", tiled=", tiled ? "True" : "False")));
  const int64_t g_size = c.size;
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> result_shape,
                       AllToAllShape(x.shape(), axes, split_axis, concat_axis, tiled, g_size));
  AXE_ASSIGN_OR_RETURN(DeviceValues out, DeviceValues::Allocate(x.client(), result_shape, x.dtype(),
                                                                c.comm == MPI_COMM_NULL));
  if (c.comm == MPI_COMM_NULL || x.bytes() == 0) return out;
  AXE_RETURN_IF_ERROR(MpiCount(x.bytes(), c.what).status());
  // The tiled form (as the in-process all_to_all and JAX lower the untiled one): x' is x with
  // a size-1 dimension at an untiled concat axis, out' the result with the split axis kept.
  auto split = static_cast<size_t>(split_axis), concat = static_cast<size_t>(concat_axis);
  std::vector<int64_t> in_shape = x.shape();
  if (!tiled && split != concat) {
    if (split < concat) ++concat;
    in_shape.insert(in_shape.begin() + static_cast<std::ptrdiff_t>(concat), 1);
    if (split > concat) ++split;
  }
  std::vector<int64_t> out_shape = in_shape;
  out_shape[split] /= g_size;
  out_shape[concat] *= g_size;
  std::vector<int64_t> block = in_shape;  // what one member sends another
  block[split] /= g_size;
  AXE_ASSIGN_OR_RETURN(BufferLayout in_layout, RowMajorBuffer(in_shape));
  AXE_ASSIGN_OR_RETURN(BufferLayout out_layout, RowMajorBuffer(out_shape));
  AXE_ASSIGN_OR_RETURN(BufferLayout block_layout, RowMajorBuffer(block));
  const int me = c.client->rank();
  const int eb = x.element_bytes();
  const int64_t piece = x.bytes() / g_size;
  // Chunks are contiguous row-major pieces when every dimension before the split (concat)
  // axis has size 1: then MPI sends from x (receives into the result) with no relayout.
  const bool send_direct = Product(in_shape, 0, split) == 1;
  const bool receive_direct = Product(out_shape, 0, concat) == 1;
  std::vector<uint8_t> packed, blocks;
  const uint8_t* send = x.data(me);
  uint8_t* receive = out.mutable_data(me);
  if (!send_direct) {
    packed.resize(static_cast<size_t>(x.bytes()));
    StoredTensor from{in_layout, in_shape, x.data(me)};
    for (int64_t j = 0; j < g_size; ++j) {  // chunk j along split, to member j
      IndexBox box = WholeBox(in_shape);
      box[split] = {j * block[split], (j + 1) * block[split]};
      MutableStoredTensor to{block_layout, block, packed.data() + j * piece};
      AXE_RETURN_IF_ERROR(CopyBox(from, box, to, WholeBox(block), eb));
    }
    send = packed.data();
  }
  if (!receive_direct) {
    blocks.resize(static_cast<size_t>(x.bytes()));
    receive = blocks.data();
  }
  std::vector<MPI_Request> req(1);
  AXE_RETURN_IF_ERROR(
      MpiStatus(MPI_Ialltoall(send, static_cast<int>(piece), MPI_BYTE, receive,
                              static_cast<int>(piece), MPI_BYTE, c.comm, req.data()),
                "MPI_Ialltoall"));
  absl::Status s = Finish(c, req, out, &blocks);
  if (!s.ok()) {
    c.client->state().KeepAlive(std::move(packed));
    return s;
  }
  if (receive_direct) return out;
  const int64_t received = out_shape[concat] / g_size;
  MutableStoredTensor to{out_layout, out_shape, out.mutable_data(me)};
  for (int64_t j = 0; j < g_size; ++j) {  // member j's chunk, at piece j along concat
    StoredTensor part{block_layout, block, blocks.data() + j * piece};
    IndexBox box = WholeBox(out_shape);
    box[concat] = {j * received, (j + 1) * received};
    AXE_RETURN_IF_ERROR(CopyBox(part, WholeBox(block), to, box, eb));
  }
  return out;
}

absl::StatusOr<DeviceValues> MpiCollectivePermute(
    const sharding::Mesh& mesh, absl::Span<const std::string> axes, const DeviceValues& x,
    absl::Span<const std::pair<int64_t, int64_t>> perm) {
  std::string pairs = absl::StrJoin(perm, ", ", [](std::string* s, const auto& p) {
    absl::StrAppend(s, "(", p.first, ", ", p.second, ")");
  });
  AXE_ASSIGN_OR_RETURN(Call c, Begin(mesh, axes, x, "ppermute", absl::StrCat("perm=", pairs)));
  std::vector<int64_t> source_of(static_cast<size_t>(c.size), -1);
  std::vector<int64_t> dest_of(static_cast<size_t>(c.size), -1);
  for (const auto& [src, dst] : perm) {
    if (src < 0 || src >= c.size || dst < 0 || dst >= c.size) {
      return absl::InvalidArgumentError(absl::StrCat("ppermute pair (", src, ", ", dst,
                                                     ") is outside the group of size ", c.size));
    }
    if (dest_of[static_cast<size_t>(src)] >= 0 || source_of[static_cast<size_t>(dst)] >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("ppermute sources and destinations must be unique, got (", pairs,
                       perm.size() == 1 ? ",)." : ")."));
    }
    dest_of[static_cast<size_t>(src)] = dst;
    source_of[static_cast<size_t>(dst)] = src;
  }
  const auto g = static_cast<size_t>(c.index);
  const bool receives = c.comm != MPI_COMM_NULL && source_of[g] >= 0;
  AXE_ASSIGN_OR_RETURN(DeviceValues out,
                       DeviceValues::Allocate(x.client(), x.shape(), x.dtype(), !receives));
  if (c.comm == MPI_COMM_NULL || x.bytes() == 0) return out;
  AXE_ASSIGN_OR_RETURN(int count, MpiCount(x.bytes(), c.what));
  const int me = c.client->rank();
  std::vector<MPI_Request> req;
  if (source_of[g] >= 0) {
    req.emplace_back();
    AXE_RETURN_IF_ERROR(MpiStatus(MPI_Irecv(out.mutable_data(me), count, MPI_BYTE,
                                            static_cast<int>(source_of[g]), 0, c.comm, &req.back()),
                                  "MPI_Irecv"));
  }
  if (dest_of[g] >= 0) {
    req.emplace_back();
    AXE_RETURN_IF_ERROR(MpiStatus(MPI_Isend(x.data(me), count, MPI_BYTE,
                                            static_cast<int>(dest_of[g]), 0, c.comm, &req.back()),
                                  "MPI_Isend"));
  }
  AXE_RETURN_IF_ERROR(Finish(c, req, out));
  return out;
}

}  // namespace axe::runtime
