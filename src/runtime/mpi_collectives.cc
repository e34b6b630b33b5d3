#include "axe/runtime/mpi_collectives.h"
#include "axe/runtime/backend.h"

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
#include "axe/relayout/box_copy.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/mpi_client.h"
#include "src/runtime/mpi_state.h"

namespace axe::runtime {

using relayout::BufferLayout;
using relayout::CopyBox;
using relayout::IndexBox;
using relayout::MutableStoredTensor;
using relayout::RowMajorBuffer;
using relayout::StoredTensor;
using relayout::StridedBox;
using relayout::WholeBox;

namespace {

int64_t Product(absl::Span<const int64_t> dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];  // within a value that fits
  return p;
}

// What every MPI collective starts with: this rank's group communicator and index.
struct Call {
  MpiClient* client = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;  // MPI_COMM_NULL: this rank is outside the mesh
  int64_t index = 0;              // this rank's index in its group
  int64_t size = 1;               // the group size
  std::string what;
};

absl::StatusOr<Call> Begin(MpiClient& client, const CollectiveCall& call) {
  Call c;
  c.client = &client;
  AXE_RETURN_IF_ERROR(CheckUsable(client));
  AXE_ASSIGN_OR_RETURN(c.comm, GroupComm(client, call.mesh, call.axes, call.groups));
  c.size = call.groups.group_size();
  if (const auto member = call.groups.Member(client.rank())) c.index = member->second;
  c.what = std::string(call.what);
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

// Tags of the point-to-point messages on a group communicator, one per collective and
// phase. Every rank makes its calls in the same order (AgreeOnCall checks each), and MPI
// keeps the order of one sender's messages with one tag, so they match call by call.
constexpr int kPermuteTag = 0, kAllReduceScatterTag = 1, kAllReduceGatherTag = 2, kAllGatherTag = 3,
              kReduceScatterTag = 4, kAllToAllTag = 5;

// Posts a receive (into `data`) or a send (from `data`) of `count` items of `type` between
// this rank and member `member` of the group; nothing when count is 0.
absl::Status Post(Call& c, std::vector<MPI_Request>& req, bool receive, const void* data,
                  int64_t count, MPI_Datatype type, int64_t member, int tag) {
  if (count == 0) return absl::OkStatus();
  req.emplace_back();
  const auto n = static_cast<int>(count);  // the callers' counts fit: MpiCount of the value
  const auto peer = static_cast<int>(member);
  if (receive) {
    return MpiStatus(MPI_Irecv(const_cast<void*>(data), n, type, peer, tag, c.comm, &req.back()),
                     "MPI_Irecv");
  }
  return MpiStatus(MPI_Isend(data, n, type, peer, tag, c.comm, &req.back()), "MPI_Isend");
}

// The members other than this rank's, starting after it (so that the members' first sends
// go to different members).
std::vector<int64_t> Others(const Call& c) {
  std::vector<int64_t> out;
  for (int64_t step = 1; step < c.size; ++step) out.push_back((c.index + step) % c.size);
  return out;
}

// Bytes between consecutive indices of dimension `dim` of a row-major value of `shape`.
int64_t RowBytes(absl::Span<const int64_t> shape, size_t dim, int element_bytes) {
  return Product(shape, dim + 1, shape.size()) * element_bytes;
}

// Chunk [j * extent, (j + 1) * extent) of dimension `dim` of a row-major value of `shape`
// (the other dimensions whole), described for chunk 0: runs of extent x RowBytes bytes, one
// per index of the dimensions before `dim`.
StridedBox RowMajorChunk(absl::Span<const int64_t> shape, size_t dim, int64_t extent,
                         int element_bytes) {
  const int64_t run = extent * RowBytes(shape, dim, element_bytes);
  const int64_t outer = Product(shape, 0, dim);
  if (outer == 1 || extent == shape[dim]) return StridedBox{0, run * outer, {}};
  return StridedBox{0, run, {{outer, shape[dim] * RowBytes(shape, dim, element_bytes)}}};
}

// MPI's view of `box` in place when it is one block or has runs of kMinInPlaceRunBytes or
// more; nullopt when it is to be packed.
absl::StatusOr<std::optional<MpiBoxView>> LongRunView(const StridedBox& box, const uint8_t* data,
                                                      MpiTypes& types) {
  if (!box.contiguous() && box.run_bytes < kMinInPlaceRunBytes) {
    return std::optional<MpiBoxView>();
  }
  return MpiViewOf(box, const_cast<uint8_t*>(data), types);  // written only where ours
}

// Where this rank keeps the block member j sends it, among the n - 1 others' blocks.
int64_t Slot(const Call& c, int64_t j) { return j < c.index ? j : j - 1; }

}  // namespace

absl::StatusOr<DeviceValues> MpiBackendAllReduce(MpiClient& client, const CollectiveCall& call,
                                                 ReduceOp op, const DeviceValues& x) {
  AXE_ASSIGN_OR_RETURN(Call c, Begin(client, call));
  AXE_ASSIGN_OR_RETURN(DeviceValues out, DeviceValues::Allocate(x.client(), x.shape(), x.dtype(),
                                                                c.comm == MPI_COMM_NULL));
  if (c.comm == MPI_COMM_NULL || x.bytes() == 0) return out;
  AXE_RETURN_IF_ERROR(MpiCount(x.bytes(), c.what).status());
  const int rank = c.client->rank();
  const int64_t n = c.size, g = c.index, e = x.elements(), eb = x.element_bytes();
  const uint8_t* in = x.data(rank);
  uint8_t* result = out.mutable_data(rank);
  auto begin = [&](int64_t j) { return ChunkBegin(e, n, j) * eb; };  // bytes; fit in int
  auto size = [&](int64_t j) { return begin(j + 1) - begin(j); };
  const int64_t mine = size(g);
  // Phase 1 (a reduce-scatter): member j gets every member's chunk j, the others' into the
  // client's scratch, its own read in place; it folds them in member order.
  AXE_ASSIGN_OR_RETURN(uint8_t * blocks, Scratch(*c.client, (n - 1) * mine));
  std::vector<const uint8_t*> inputs(static_cast<size_t>(n), in + begin(g));
  std::vector<MPI_Request> req;
  for (int64_t j : Others(c)) {
    inputs[static_cast<size_t>(j)] = blocks + Slot(c, j) * mine;
    AXE_RETURN_IF_ERROR(Post(c, req, true, inputs[static_cast<size_t>(j)], mine, MPI_BYTE, j,
                             kAllReduceScatterTag));
  }
  for (int64_t j : Others(c)) {
    AXE_RETURN_IF_ERROR(
        Post(c, req, false, in + begin(j), size(j), MPI_BYTE, j, kAllReduceScatterTag));
  }
  AXE_RETURN_IF_ERROR(Finish(c, req, out));
  AXE_RETURN_IF_ERROR(ReduceElements(op, x.dtype(), inputs, mine / eb, result + begin(g)));
  // Phase 2 (an all-gather): every folded chunk straight into its place in every result.
  req.clear();
  for (int64_t j : Others(c)) {
    AXE_RETURN_IF_ERROR(
        Post(c, req, true, result + begin(j), size(j), MPI_BYTE, j, kAllReduceGatherTag));
  }
  for (int64_t j : Others(c)) {
    AXE_RETURN_IF_ERROR(
        Post(c, req, false, result + begin(g), mine, MPI_BYTE, j, kAllReduceGatherTag));
  }
  AXE_RETURN_IF_ERROR(Finish(c, req, out));
  return out;
}

absl::StatusOr<DeviceValues> MpiBackendAllGather(MpiClient& client, const CollectiveCall& call,
                                                 const DeviceValues& x, int64_t dim) {
  AXE_ASSIGN_OR_RETURN(Call c, Begin(client, call));
  AXE_ASSIGN_OR_RETURN(
      DeviceValues out,
      DeviceValues::Allocate(x.client(), call.out_shape, x.dtype(), c.comm == MPI_COMM_NULL));
  if (c.comm == MPI_COMM_NULL || x.bytes() == 0) return out;
  AXE_ASSIGN_OR_RETURN(int count, MpiCount(x.bytes(), c.what));
  AXE_RETURN_IF_ERROR(MpiCount(out.bytes(), c.what).status());
  const int me = c.client->rank();
  const auto d = static_cast<size_t>(dim);
  const int64_t outer = Product(x.shape(), 0, d);
  const int64_t inner = Product(x.shape(), d, x.shape().size()) * x.element_bytes();
  // Member j's value lands at [j * inner, (j + 1) * inner) of each of the `outer` rows of
  // n * inner bytes: one block (outer == 1), else a strided box that MPI writes in place
  // when its runs are long, else a block of scratch reordered afterwards.
  uint8_t* o = out.mutable_data(me);
  const bool strided = outer != 1 && inner >= kMinInPlaceRunBytes;
  const bool reorder = outer != 1 && !strided;
  MpiTypes types;
  MpiBoxView piece{o, MPI_BYTE, count};
  int64_t piece_stride = count;  // bytes between members' pieces in the receive buffer
  if (strided) {
    StridedBox box{0, inner, {{outer, c.size * inner}}};
    AXE_ASSIGN_OR_RETURN(std::optional<MpiBoxView> view, MpiViewOf(box, o, types));
    if (!view) return absl::InternalError("all_gather: no MPI datatype for the pieces");
    piece = *view;
    piece_stride = inner;
  } else if (reorder) {
    AXE_ASSIGN_OR_RETURN(piece.base, Scratch(*c.client, out.bytes()));
  }
  const uint8_t* value = x.data(me);
  std::vector<MPI_Request> req;
  for (int64_t j : Others(c)) {
    AXE_RETURN_IF_ERROR(Post(c, req, true, piece.base + j * piece_stride, piece.count, piece.type,
                             j, kAllGatherTag));
  }
  for (int64_t j : Others(c)) {
    AXE_RETURN_IF_ERROR(Post(c, req, false, value, count, MPI_BYTE, j, kAllGatherTag));
  }
  uint8_t* own = piece.base + c.index * piece_stride;  // while the messages travel
  for (int64_t k = 0; k < (strided ? outer : 1); ++k) {
    std::memcpy(own + k * c.size * inner, value + k * inner,
                static_cast<size_t>(strided ? inner : count));
  }
  AXE_RETURN_IF_ERROR(Finish(c, req, out));
  if (!reorder) return out;
  const uint8_t* gathered = piece.base;
  for (int64_t j = 0; j < c.size; ++j) {
    for (int64_t k = 0; k < outer; ++k) {
      std::memcpy(o + (k * c.size + j) * inner, gathered + (j * outer + k) * inner,
                  static_cast<size_t>(inner));
    }
  }
  return out;
}

absl::StatusOr<DeviceValues> MpiBackendReduceScatter(MpiClient& client, const CollectiveCall& call,
                                                     ReduceOp op, const DeviceValues& x,
                                                     int64_t dim) {
  AXE_ASSIGN_OR_RETURN(Call c, Begin(client, call));
  const auto d = static_cast<size_t>(dim);
  const int64_t n = x.shape()[d], g_size = c.size;
  AXE_ASSIGN_OR_RETURN(
      DeviceValues out,
      DeviceValues::Allocate(x.client(), call.out_shape, x.dtype(), c.comm == MPI_COMM_NULL));
  if (c.comm == MPI_COMM_NULL || x.bytes() == 0) return out;
  AXE_RETURN_IF_ERROR(MpiCount(x.bytes(), c.what).status());
  const int me = c.client->rank();
  const int64_t outer = Product(x.shape(), 0, d),
                inner = Product(x.shape(), d + 1, x.shape().size());
  const int64_t chunk = n / g_size * inner, eb = x.element_bytes();
  const int64_t piece = outer * chunk * eb;  // bytes each member gets from each
  // Piece j (rows [j chunk, (j+1) chunk) of every outer index) goes to member j: read in
  // place when outer == 1, else packed first into the scratch; the others' pieces for this
  // rank arrive in the scratch; the fold reads its own piece where it lies.
  const bool pack = outer != 1;
  AXE_ASSIGN_OR_RETURN(uint8_t * scratch,
                       Scratch(*c.client, (pack ? x.bytes() : 0) + (g_size - 1) * piece));
  const uint8_t* send = x.data(me);
  if (pack) {
    for (int64_t j = 0; j < g_size; ++j) {
      for (int64_t o = 0; o < outer; ++o) {
        std::memcpy(scratch + (j * outer + o) * chunk * eb, send + (o * n * inner + j * chunk) * eb,
                    static_cast<size_t>(chunk * eb));
      }
    }
    send = scratch;
  }
  uint8_t* blocks = scratch + (pack ? x.bytes() : 0);
  std::vector<const uint8_t*> inputs(static_cast<size_t>(g_size), send + c.index * piece);
  std::vector<MPI_Request> req;
  for (int64_t j : Others(c)) {
    inputs[static_cast<size_t>(j)] = blocks + Slot(c, j) * piece;
    AXE_RETURN_IF_ERROR(
        Post(c, req, true, inputs[static_cast<size_t>(j)], piece, MPI_BYTE, j, kReduceScatterTag));
  }
  for (int64_t j : Others(c)) {
    AXE_RETURN_IF_ERROR(
        Post(c, req, false, send + j * piece, piece, MPI_BYTE, j, kReduceScatterTag));
  }
  AXE_RETURN_IF_ERROR(Finish(c, req, out));
  AXE_RETURN_IF_ERROR(ReduceElements(op, x.dtype(), inputs, outer * chunk, out.mutable_data(me)));
  return out;
}

namespace {

// The tiled form of an all_to_all (as the in-process all_to_all and JAX lower the untiled
// one): x' is x with a size-1 dimension at an untiled concat axis, out' the result with the
// split axis kept; member j's chunk of x' is block-sized, at j along split, and lands at j
// along concat in out'.
struct AllToAllForm {
  std::vector<int64_t> in_shape, out_shape, block;
  size_t split = 0, concat = 0;

  IndexBox SendBox(int64_t j) const {
    IndexBox box = WholeBox(in_shape);
    box[split] = {j * block[split], (j + 1) * block[split]};
    return box;
  }
  IndexBox ReceiveBox(int64_t j) const {
    IndexBox box = WholeBox(out_shape);
    box[concat] = {j * block[concat], (j + 1) * block[concat]};
    return box;
  }
};

AllToAllForm MakeAllToAllForm(absl::Span<const int64_t> shape, int64_t split_axis,
                              int64_t concat_axis, bool tiled, int64_t members) {
  AllToAllForm f;
  f.split = static_cast<size_t>(split_axis);
  f.concat = static_cast<size_t>(concat_axis);
  f.in_shape.assign(shape.begin(), shape.end());
  if (!tiled && f.split != f.concat) {
    if (f.split < f.concat) ++f.concat;
    f.in_shape.insert(f.in_shape.begin() + static_cast<std::ptrdiff_t>(f.concat), 1);
    if (f.split > f.concat) ++f.split;
  }
  f.out_shape = f.in_shape;
  f.out_shape[f.split] /= members;
  f.out_shape[f.concat] *= members;
  f.block = f.in_shape;  // what one member sends another
  f.block[f.split] /= members;
  return f;
}

// Moves the chunks of an all_to_all between the members. MPI reads each chunk in place (a
// block, or strided with long runs as a datatype) or from the scratch where a relayout
// packed it; receives the same way, the staged ones unpacked by a relayout afterwards.
// Every member's chunk has the same form, so one decision serves all.
absl::Status ExchangeChunks(Call& c, const AllToAllForm& f, const DeviceValues& x,
                            DeviceValues& out) {
  AXE_ASSIGN_OR_RETURN(BufferLayout in_layout, RowMajorBuffer(f.in_shape));
  AXE_ASSIGN_OR_RETURN(BufferLayout out_layout, RowMajorBuffer(f.out_shape));
  AXE_ASSIGN_OR_RETURN(BufferLayout block_layout, RowMajorBuffer(f.block));
  const int me = c.client->rank();
  const int eb = x.element_bytes();
  const int64_t piece = x.bytes() / c.size;
  const StoredTensor in{in_layout, f.in_shape, x.data(me)};
  const MutableStoredTensor result{out_layout, f.out_shape, out.mutable_data(me)};
  const StridedBox send_chunk = RowMajorChunk(f.in_shape, f.split, f.block[f.split], eb);
  const StridedBox receive_chunk = RowMajorChunk(f.out_shape, f.concat, f.block[f.concat], eb);
  MpiTypes types;
  AXE_ASSIGN_OR_RETURN(std::optional<MpiBoxView> send_view,
                       LongRunView(send_chunk, x.data(me), types));
  AXE_ASSIGN_OR_RETURN(std::optional<MpiBoxView> receive_view,
                       LongRunView(receive_chunk, out.mutable_data(me), types));
  const int64_t staged = (send_view ? 0 : c.size) + (receive_view ? 0 : c.size);
  AXE_ASSIGN_OR_RETURN(uint8_t * scratch, Scratch(*c.client, staged * piece));
  uint8_t* packed = scratch;
  uint8_t* blocks = scratch + (send_view ? 0 : c.size * piece);
  for (int64_t j : send_view ? std::vector<int64_t>() : Others(c)) {  // before any message
    MutableStoredTensor to{block_layout, f.block, packed + j * piece};
    AXE_RETURN_IF_ERROR(CopyBox(in, f.SendBox(j), to, WholeBox(f.block), eb));
  }
  // A chunk in place starts at its box's first element.
  const int64_t send_step = f.block[f.split] * RowBytes(f.in_shape, f.split, eb);
  const int64_t receive_step = f.block[f.concat] * RowBytes(f.out_shape, f.concat, eb);
  std::vector<MPI_Request> req;
  for (int64_t j : Others(c)) {
    AXE_RETURN_IF_ERROR(
        receive_view ? Post(c, req, true, receive_view->base + j * receive_step,
                            receive_view->count, receive_view->type, j, kAllToAllTag)
                     : Post(c, req, true, blocks + j * piece, piece, MPI_BYTE, j, kAllToAllTag));
  }
  for (int64_t j : Others(c)) {
    AXE_RETURN_IF_ERROR(
        send_view ? Post(c, req, false, send_view->base + j * send_step, send_view->count,
                         send_view->type, j, kAllToAllTag)
                  : Post(c, req, false, packed + j * piece, piece, MPI_BYTE, j, kAllToAllTag));
  }
  // This rank's own chunk, while the messages travel: one copy (a relayout unless both
  // chunks are single blocks).
  absl::Status own = absl::OkStatus();
  if (send_chunk.contiguous() && receive_chunk.contiguous()) {
    std::memcpy(out.mutable_data(me) + c.index * piece, x.data(me) + c.index * piece,
                static_cast<size_t>(piece));
  } else {
    own = CopyBox(in, f.SendBox(c.index), result, f.ReceiveBox(c.index), eb);
  }
  AXE_RETURN_IF_ERROR(Finish(c, req, out));
  AXE_RETURN_IF_ERROR(own);
  if (receive_view) return absl::OkStatus();
  for (int64_t j : Others(c)) {
    StoredTensor part{block_layout, f.block, blocks + j * piece};
    AXE_RETURN_IF_ERROR(CopyBox(part, WholeBox(f.block), result, f.ReceiveBox(j), eb));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DeviceValues> MpiBackendAllToAll(MpiClient& client, const CollectiveCall& call,
                                                const DeviceValues& x, int64_t split_axis,
                                                int64_t concat_axis, bool tiled) {
  AXE_ASSIGN_OR_RETURN(Call c, Begin(client, call));
  AXE_ASSIGN_OR_RETURN(
      DeviceValues out,
      DeviceValues::Allocate(x.client(), call.out_shape, x.dtype(), c.comm == MPI_COMM_NULL));
  if (c.comm == MPI_COMM_NULL || x.bytes() == 0) return out;
  AXE_RETURN_IF_ERROR(MpiCount(x.bytes(), c.what).status());
  AXE_RETURN_IF_ERROR(ExchangeChunks(
      c, MakeAllToAllForm(x.shape(), split_axis, concat_axis, tiled, c.size), x, out));
  return out;
}

absl::StatusOr<DeviceValues> MpiBackendCollectivePermute(MpiClient& client,
                                                         const CollectiveCall& call,
                                                         const DeviceValues& x,
                                                         absl::Span<const int64_t> source_of) {
  AXE_ASSIGN_OR_RETURN(Call c, Begin(client, call));
  std::vector<int64_t> dest_of(source_of.size(), -1);
  for (size_t j = 0; j < source_of.size(); ++j) {
    if (source_of[j] >= 0) dest_of[static_cast<size_t>(source_of[j])] = static_cast<int64_t>(j);
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
    AXE_RETURN_IF_ERROR(
        MpiStatus(MPI_Irecv(out.mutable_data(me), count, MPI_BYTE, static_cast<int>(source_of[g]),
                            kPermuteTag, c.comm, &req.back()),
                  "MPI_Irecv"));
  }
  if (dest_of[g] >= 0) {
    req.emplace_back();
    AXE_RETURN_IF_ERROR(
        MpiStatus(MPI_Isend(x.data(me), count, MPI_BYTE, static_cast<int>(dest_of[g]), kPermuteTag,
                            c.comm, &req.back()),
                  "MPI_Isend"));
  }
  AXE_RETURN_IF_ERROR(Finish(c, req, out));
  return out;
}

absl::Status MpiBackendAllGatherBytes(MpiClient& client, const CollectiveCall& call,
                                      const void* send, int64_t bytes, void* receive) {
  AXE_ASSIGN_OR_RETURN(Call c, Begin(client, call));
  if (c.comm == MPI_COMM_NULL || bytes == 0) return absl::OkStatus();
  AXE_ASSIGN_OR_RETURN(int count, MpiCount(bytes, c.what));
  AXE_RETURN_IF_ERROR(MpiCount(bytes * c.size, c.what).status());
  std::vector<MPI_Request> req(1);
  AXE_RETURN_IF_ERROR(
      MpiStatus(MPI_Iallgather(send, count, MPI_BYTE, receive, count, MPI_BYTE, c.comm, &req[0]),
                "MPI_Iallgather"));
  return WaitAll(client, req, c.what);
}

absl::Status MpiBackendPermuteBytes(MpiClient& client, const CollectiveCall& call, const void* send,
                                    int64_t bytes, absl::Span<const int64_t> source_of,
                                    void* receive) {
  AXE_ASSIGN_OR_RETURN(Call c, Begin(client, call));
  if (c.comm == MPI_COMM_NULL || bytes == 0) return absl::OkStatus();
  AXE_RETURN_IF_ERROR(MpiCount(bytes, c.what).status());
  const int64_t source = source_of[static_cast<size_t>(c.index)];
  int64_t dest = -1;
  for (size_t j = 0; j < source_of.size(); ++j) {
    if (source_of[j] == c.index) dest = static_cast<int64_t>(j);
  }
  if (source == c.index) {  // this member keeps its own bytes
    if (receive != send) std::memcpy(receive, send, static_cast<size_t>(bytes));
    return absl::OkStatus();
  }
  std::vector<MPI_Request> req;
  if (source >= 0) {
    AXE_RETURN_IF_ERROR(Post(c, req, true, receive, bytes, MPI_BYTE, source, kPermuteTag));
  }
  if (dest >= 0) AXE_RETURN_IF_ERROR(Post(c, req, false, send, bytes, MPI_BYTE, dest, kPermuteTag));
  return WaitAll(client, req, c.what);
}

absl::Status MpiBackendAllToAllBytes(MpiClient& client, const CollectiveCall& call,
                                     const void* send, int64_t block, void* receive) {
  AXE_ASSIGN_OR_RETURN(Call c, Begin(client, call));
  if (c.comm == MPI_COMM_NULL || block == 0) return absl::OkStatus();
  AXE_ASSIGN_OR_RETURN(int count, MpiCount(block, c.what));
  AXE_RETURN_IF_ERROR(MpiCount(block * c.size, c.what).status());
  std::vector<MPI_Request> req(1);
  AXE_RETURN_IF_ERROR(
      MpiStatus(MPI_Ialltoall(send, count, MPI_BYTE, receive, count, MPI_BYTE, c.comm, &req[0]),
                "MPI_Ialltoall"));
  return WaitAll(client, req, c.what);
}

namespace {

absl::Status CheckMpiValues(absl::string_view what, const DeviceValues& x) {
  if (AsMpiClient(x.client()) != nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " over MPI needs values of an MPI client, not of the '",
                   x.client().backend(), "' backend"));
}

}  // namespace

absl::StatusOr<DeviceValues> MpiAllReduce(const sharding::Mesh& mesh,
                                          absl::Span<const std::string> axes, ReduceOp op,
                                          const DeviceValues& x) {
  AXE_RETURN_IF_ERROR(CheckMpiValues("all_reduce", x));
  return AllReduce(mesh, axes, op, x);
}

absl::StatusOr<DeviceValues> MpiAllGather(const sharding::Mesh& mesh,
                                          absl::Span<const std::string> axes, const DeviceValues& x,
                                          int64_t dim, bool tiled) {
  AXE_RETURN_IF_ERROR(CheckMpiValues("all_gather", x));
  return AllGather(mesh, axes, x, dim, tiled);
}

absl::StatusOr<DeviceValues> MpiReduceScatter(const sharding::Mesh& mesh,
                                              absl::Span<const std::string> axes, ReduceOp op,
                                              const DeviceValues& x, int64_t dim, bool tiled) {
  AXE_RETURN_IF_ERROR(CheckMpiValues("reduce_scatter", x));
  return ReduceScatter(mesh, axes, op, x, dim, tiled);
}

absl::StatusOr<DeviceValues> MpiAllToAll(const sharding::Mesh& mesh,
                                         absl::Span<const std::string> axes, const DeviceValues& x,
                                         int64_t split_axis, int64_t concat_axis, bool tiled) {
  AXE_RETURN_IF_ERROR(CheckMpiValues("all_to_all", x));
  return AllToAll(mesh, axes, x, split_axis, concat_axis, tiled);
}

absl::StatusOr<DeviceValues> MpiCollectivePermute(
    const sharding::Mesh& mesh, absl::Span<const std::string> axes, const DeviceValues& x,
    absl::Span<const std::pair<int64_t, int64_t>> perm) {
  AXE_RETURN_IF_ERROR(CheckMpiValues("ppermute", x));
  return CollectivePermute(mesh, axes, x, perm);
}

}  // namespace axe::runtime
