// shard_map on the executor: the body compiled once (with the mesh in scope, so that its
// collectives know their groups), then, per run, every mesh position on its own thread: it
// cuts its blocks out of the global operands by in_specs (strided copies through the relayout
// engine, each freed at its last use in the body; a replicated operand is shared, and a block
// that is a contiguous run of its operand is read in place), runs the body's plan, meeting the
// other positions in the body's collectives (communicator.h), and writes its result blocks into the
// global outputs by out_specs. As in JAX, an output the out_spec does not split along a mesh axis
// is taken from the positions at coordinate 0 of that axis. The first position to fail releases the
// others (Communicator::Abort) and its error is the run's. On a client whose process holds one
// device (ExecOptions::client, an MPI rank), the process runs that device's position only,
// meets the other ranks through the client's backend (NewBackendCommunicator), and then
// all-gathers every position's result blocks, so that each rank assembles the whole outputs.
#include <algorithm>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/client.h"
#include "axe/sharding/partition_spec.h"
#include "exec/permute.h"
#include "exec/plan.h"
#include "exec/spmd.h"

namespace axe::exec::internal {
namespace {

using sharding::Mesh;
using sharding::PartitionSpec;

// The most positions a shard_map runs on threads; a larger mesh runs on the interpreter.
constexpr int64_t kMaxPositions = 256;

thread_local const Mesh* planning_mesh = nullptr;

// How a spec cuts a value: the blocks per dimension, and per position the element offset of
// its block in the global row-major array and whether it writes it (an output's positions
// off coordinate 0 of a mesh axis the spec does not name hold copies and write nothing).
struct Cut {
  std::vector<int64_t> factor;
  std::vector<int64_t> offset;
  std::vector<bool> writes;
  bool whole() const {
    for (int64_t f : factor) {
      if (f != 1) return false;
    }
    return true;
  }
};

// The cut of a value of `global` shape into blocks of `local` shape by `spec`; nullopt when the
// spec does not fit (the interpreter reports it in its words).
std::optional<Cut> CutBy(const Mesh& mesh, const PartitionSpec& spec,
                         absl::Span<const int64_t> global, absl::Span<const int64_t> local) {
  const size_t rank = global.size();
  if (spec.size() > rank || local.size() != rank) return std::nullopt;
  Cut cut{std::vector<int64_t>(rank, 1), {}, {}};
  std::vector<bool> named(mesh.rank(), false);
  std::vector<std::vector<size_t>> axes_of(rank);
  for (size_t d = 0; d < spec.size(); ++d) {
    for (const std::string& name : spec.entry(d)) {
      std::optional<size_t> a = mesh.AxisIndex(name);
      if (!a || named[*a]) return std::nullopt;
      named[*a] = true;
      axes_of[d].push_back(*a);
      cut.factor[d] *= mesh.axes()[*a].size;
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    if (CheckedMul(local[d], cut.factor[d]) != global[d]) return std::nullopt;
  }
  const std::vector<int64_t> strides = RowMajorStrides(global);
  for (int64_t p = 0; p < mesh.num_devices(); ++p) {
    const std::vector<int64_t> coord = mesh.CoordinateOfPosition(p);
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) {
      int64_t block = 0;
      for (size_t a : axes_of[d]) block = block * mesh.axes()[a].size + coord[a];
      offset += block * local[d] * strides[d];
    }
    bool writes = true;
    for (size_t a = 0; a < mesh.rank(); ++a) writes = writes && (named[a] || coord[a] == 0);
    cut.offset.push_back(offset);
    cut.writes.push_back(writes);
  }
  return cut;
}

// One operand or result: its cut and the copy between a block and the global array.
struct Side {
  Cut cut;
  std::shared_ptr<const StridedCopy> copy;  // null when the value is whole (not cut)
  ir::ShapedArray local, global;
  int bytes = 0;
  // An operand whose blocks are contiguous runs of the global array (a split of the leading
  // dimensions only): each position reads its block in place.
  bool in_place = false;
  std::shared_ptr<const ir::ShapedArray> local_type;
  // A result whose blocks, in position order, are the global array (a split of the leading
  // dimensions in the mesh's order, every position writing): the positions' blocks can be
  // gathered straight into it.
  bool gathered_in_place = false;
};

// Whether every block of `local` shape is one contiguous run of the `global` array: the
// dimensions before some k are 1 in the block, those after k whole.
bool Contiguous(absl::Span<const int64_t> global, absl::Span<const int64_t> local) {
  size_t k = 0;
  while (k < local.size() && local[k] == 1) ++k;
  for (size_t d = k + 1; d < local.size(); ++d) {
    if (local[d] != global[d]) return false;
  }
  return true;
}

absl::StatusOr<std::optional<Side>> MakeSide(const Mesh& mesh, const PartitionSpec& spec,
                                             const ir::ShapedArray& global,
                                             const ir::ShapedArray& local, bool to_block) {
  if (global.dtype() != local.dtype()) return std::nullopt;
  std::optional<Cut> cut = CutBy(mesh, spec, global.shape(), local.shape());
  if (!cut) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(global.dtype()));
  Side side{*std::move(cut),
            nullptr,
            local,
            global,
            static_cast<int>(bytes),
            to_block && Contiguous(global.shape(), local.shape()),
            std::make_shared<const ir::ShapedArray>(local.WithVma({}))};
  if (!to_block && !side.cut.whole() && Contiguous(global.shape(), local.shape())) {
    const int64_t block = NumElements(local);
    side.gathered_in_place = true;
    for (size_t p = 0; p < side.cut.offset.size(); ++p) {
      side.gathered_in_place = side.gathered_in_place && side.cut.writes[p] &&
                               side.cut.offset[p] == static_cast<int64_t>(p) * block;
    }
  }
  if (!side.cut.whole()) {
    const std::vector<int64_t> g = RowMajorStrides(global.shape());
    const std::vector<int64_t> l = RowMajorStrides(local.shape());
    AXE_ASSIGN_OR_RETURN(StridedCopy copy, StridedCopy::Plan(local.shape(), to_block ? g : l,
                                                             to_block ? l : g, side.bytes, 1));
    side.copy = std::make_shared<const StridedCopy>(std::move(copy));
  }
  return side;
}

struct ShardMap {
  Mesh mesh;
  runtime::Client* client = nullptr;  // set when this process holds one device of it (MPI)
  std::shared_ptr<const Plan> body;
  std::vector<Side> in, out;
  int threads = 1;  // per position, for its large kernels
  // The value pools of past runs' positions.
  mutable absl::Mutex mu;
  mutable std::vector<std::unique_ptr<ValuePool>> pools ABSL_GUARDED_BY(mu);

  std::unique_ptr<ValuePool> TakePool() const {
    absl::MutexLock lock(&mu);
    if (pools.empty()) return std::make_unique<ValuePool>();
    std::unique_ptr<ValuePool> pool = std::move(pools.back());
    pools.pop_back();
    return pool;
  }
  void GivePool(std::unique_ptr<ValuePool> pool) const {
    absl::MutexLock lock(&mu);
    if (static_cast<int64_t>(pools.size()) < mesh.num_devices()) pools.push_back(std::move(pool));
  }
};

// Position p's part of a run: its blocks, the body, its result blocks written into `out`.
absl::Status RunPosition(const ShardMap& s, const RunContext& outer, absl::Span<const Value> in,
                         int64_t p, Communicator& comm, std::vector<Value>& results,
                         std::vector<Value>& out) {
  std::unique_ptr<ValuePool> pool = s.TakePool();
  SpmdPosition position{p, &comm};
  RunContext ctx;
  ctx.pool = outer.pool;
  ctx.threads = s.threads;
  ctx.cancel = outer.cancel;
  ctx.values = pool.get();
  ctx.spmd = &position;
  absl::Status status = [&]() -> absl::Status {
    std::vector<Value> args;  // handed to the body's run, which frees each at its last use
    args.reserve(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      const Side& side = s.in[i];
      if (side.copy == nullptr) {
        args.push_back(in[i]);
        continue;
      }
      const size_t offset = static_cast<size_t>(side.cut.offset[static_cast<size_t>(p)]);
      if (side.in_place) {
        args.push_back(in[i].View(side.local_type, offset * side.bytes));
        continue;
      }
      AXE_ASSIGN_OR_RETURN(Value block, ctx.Allocate(side.local));
      AXE_RETURN_IF_ERROR(
          side.copy->Run(in[i].bytes() + offset * side.bytes, block.mutable_bytes()));
      args.push_back(std::move(block));
    }
    PlanFrame frame;
    frame.env.resize(static_cast<size_t>(s.body->num_slots));
    for (size_t i = 0; i < args.size(); ++i) {
      frame.env[static_cast<size_t>(s.body->inputs[i])] = std::move(args[i]);
    }
    args.clear();
    AXE_RETURN_IF_ERROR(RunPlanInFrame(*s.body, ctx, {}, frame, results));
    for (size_t i = 0; i < results.size(); ++i) {
      const Side& side = s.out[i];
      if (side.copy == nullptr || !side.cut.writes[static_cast<size_t>(p)]) continue;
      const size_t offset = static_cast<size_t>(side.cut.offset[static_cast<size_t>(p)]);
      AXE_RETURN_IF_ERROR(
          side.copy->Run(results[i].bytes(), out[i].mutable_bytes() + offset * side.bytes));
    }
    return absl::OkStatus();
  }();
  if (!status.ok()) results.clear();
  s.GivePool(std::move(pool));
  return status;
}

// This process's mesh position on a client whose process holds one device of the mesh.
absl::StatusOr<int64_t> OwnPosition(const Mesh& mesh, const runtime::Client& client) {
  if (mesh.num_devices() != client.num_devices()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the shard_map's mesh ", mesh.ToString(), " has ", mesh.num_devices(), " devices but ",
        client.num_devices(), " MPI ranks run; use mpirun -n ", mesh.num_devices()));
  }
  return mesh.PositionOf(client.addressable_devices().at(0));
}

// Every position's result blocks, all-gathered over the whole mesh (member order = position
// order), written where their positions write: straight into the result where the blocks in
// position order are the result.
absl::Status ShareResults(const ShardMap& s, Communicator& comm, int64_t me,
                          absl::Span<const Value> results, std::vector<Value>& out) {
  std::vector<std::string> axes;
  std::vector<int64_t> group;
  for (const sharding::MeshAxis& a : s.mesh.axes()) axes.push_back(a.name);
  for (int64_t p = 0; p < s.mesh.num_devices(); ++p) group.push_back(p);
  for (size_t i = 0; i < results.size(); ++i) {
    const Side& side = s.out[i];
    if (side.gathered_in_place && group.size() > 1) {
      AXE_RETURN_IF_ERROR(comm.GatherInto(axes, group, me, i, results[i], out[i]));
      continue;
    }
    AXE_ASSIGN_OR_RETURN(std::vector<Value> all,
                         comm.ExchangeOverAxes(axes, group, me, i, results[i]));
    if (side.copy == nullptr) {
      out[i] = all[0];
      continue;
    }
    for (size_t p = 0; p < all.size(); ++p) {
      if (!side.cut.writes[p] || static_cast<int64_t>(p) == me) continue;
      const size_t offset = static_cast<size_t>(side.cut.offset[p]);
      AXE_RETURN_IF_ERROR(
          side.copy->Run(all[p].bytes(), out[i].mutable_bytes() + offset * side.bytes));
    }
  }
  return absl::OkStatus();
}

// On a client whose process holds one device: this process's position only, its collectives
// and the results' blocks through the client's backend.
absl::Status RunOwnPosition(const ShardMap& s, const RunContext& ctx, absl::Span<const Value> in,
                            std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(int64_t me, OwnPosition(s.mesh, *s.client));
  std::unique_ptr<Communicator> comm = NewBackendCommunicator(*s.client, s.mesh);
  std::vector<Value> results;
  AXE_RETURN_IF_ERROR(RunPosition(s, ctx, in, me, *comm, results, out));
  return ShareResults(s, *comm, me, results, out);
}

absl::Status RunShardMap(const ShardMap& s, const RunContext& ctx, absl::Span<const Value> in,
                         std::vector<Value>& out) {
  const int64_t n = s.mesh.num_devices();
  for (size_t i = 0; i < s.out.size(); ++i) {
    if (s.out[i].copy != nullptr) {
      AXE_ASSIGN_OR_RETURN(out[i], ctx.Allocate(s.out[i].global));
    }
  }
  if (s.client != nullptr) return RunOwnPosition(s, ctx, in, out);
  std::unique_ptr<Communicator> comm = NewInProcessCommunicator(n);
  std::vector<std::vector<Value>> results(static_cast<size_t>(n));
  auto run = [&](int64_t p) {
    absl::Status status = RunPosition(s, ctx, in, p, *comm, results[static_cast<size_t>(p)], out);
    if (status.ok()) {
      comm->Finish(p);
    } else {
      comm->Abort(std::move(status));
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n));
  for (int64_t p = 1; p < n; ++p) {
    try {
      threads.emplace_back(run, p);
    } catch (const std::system_error& e) {
      comm->Abort(absl::ResourceExhaustedError(
          absl::StrCat("cannot start a thread for mesh position ", p, ": ", e.what())));
      for (int64_t q = p; q < n; ++q) comm->Finish(q);
      break;
    }
  }
  run(0);
  for (std::thread& t : threads) t.join();
  AXE_RETURN_IF_ERROR(comm->first_error());
  for (size_t i = 0; i < s.out.size(); ++i) {
    if (s.out[i].copy == nullptr) out[i] = results[0][i];
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<PartitionSpec>> Specs(const ir::Eqn& eqn, const char* name) {
  auto it = eqn.params.find(name);
  if (it == eqn.params.end()) return absl::InvalidArgumentError(absl::StrCat("no ", name));
  std::vector<PartitionSpec> specs;
  for (const ir::Param& p : it->second.items()) {
    AXE_ASSIGN_OR_RETURN(PartitionSpec spec, p.AsPartitionSpec(name));
    specs.push_back(std::move(spec));
  }
  return specs;
}

// The threads each position's large kernels may use: the run's share.
int ThreadsPerPosition(const ExecOptions& options, int64_t positions) {
  const int total = options.num_threads <= 0
                        ? ThreadPool::Default().size()
                        : std::min(options.num_threads, ThreadPool::Default().size());
  return static_cast<int>(std::max<int64_t>(1, total / positions));
}

// What a shard_map's positions hold while they run.
struct PositionBytes {
  // The most one position (one device) holds: the body's peak (its operand blocks counted,
  // whether read in place, shared or copied) and, for each result the body's value is copied
  // from, its block of the global result; on a process of one device (MPI) also the whole
  // results it assembles and the buffer their blocks arrive in (none where they arrive in
  // place).
  int64_t device_peak = 0;
  // What the run adds to the program's values (whose global operands and results it reads
  // and writes): every position's peak less the operand blocks it does not own (read in
  // place, or one replicated operand shared by all).
  int64_t scratch = 0;
};

PositionBytes MemoryOfPositions(const ShardMap& s) {
  auto add = [](int64_t& total, int64_t b) { total = CheckedAdd(total, b).value_or(INT64_MAX); };
  auto bytes_of = [](const ir::ShapedArray& a, int bytes) {
    return CheckedMul(NumElements(a), bytes).value_or(INT64_MAX);
  };
  const int64_t n = s.mesh.num_devices();
  PositionBytes out;
  out.device_peak = s.body->stats.peak_bytes;
  int64_t borrowed = 0;  // operand bytes a position reads where they lie
  for (const Side& side : s.in) {
    if (side.copy == nullptr || side.in_place) add(borrowed, bytes_of(side.local, side.bytes));
  }
  int64_t own = std::max<int64_t>(0, s.body->stats.peak_bytes - borrowed);
  for (const Side& side : s.out) {
    if (s.client != nullptr) {
      add(out.device_peak, bytes_of(side.global, side.bytes));
      if (!side.gathered_in_place) {
        add(out.device_peak, CheckedMul(n, bytes_of(side.local, side.bytes)).value_or(INT64_MAX));
      }
    } else if (side.copy != nullptr) {
      add(out.device_peak, bytes_of(side.local, side.bytes));
    }
  }
  out.scratch = s.client != nullptr ? out.device_peak : CheckedMul(own, n).value_or(INT64_MAX);
  return out;
}

// A malformed shard_map (specs that do not fit, a body of other types) is the interpreter's to
// report: nullopt falls back to it.
absl::StatusOr<std::optional<BuiltKernel>> BuildShardMap(const EqnView& v) {
  auto mesh_param = v.eqn.params.find("mesh");
  auto body_param = v.eqn.params.find("jaxpr");
  if (mesh_param == v.eqn.params.end() || body_param == v.eqn.params.end() ||
      body_param->second.kind() != ir::Param::Kind::kJaxpr ||
      body_param->second.jaxpr() == nullptr) {
    return std::nullopt;
  }
  absl::StatusOr<Mesh> mesh = mesh_param->second.AsMesh("mesh");
  absl::StatusOr<std::vector<PartitionSpec>> in_specs = Specs(v.eqn, "in_specs");
  absl::StatusOr<std::vector<PartitionSpec>> out_specs = Specs(v.eqn, "out_specs");
  if (!mesh.ok() || !in_specs.ok() || !out_specs.ok() || mesh->num_devices() > kMaxPositions ||
      in_specs->size() != v.in.size() || out_specs->size() != v.out.size()) {
    return std::nullopt;
  }
  auto s = std::make_shared<ShardMap>();
  s->mesh = *std::move(mesh);
  runtime::Client* client = v.options.client;
  if (client != nullptr &&
      static_cast<int>(client->addressable_devices().size()) != client->num_devices()) {
    s->client = client;
  }
  s->threads = ThreadsPerPosition(v.options, s->mesh.num_devices());
  ExecOptions body_options = v.options;
  body_options.num_threads = s->threads;
  {
    ScopedPlanningMesh scope(&s->mesh);
    AXE_ASSIGN_OR_RETURN(s->body, BuildPlan(*body_param->second.jaxpr(), body_options));
  }
  if (s->body->input_avals.size() != v.in.size() || s->body->output_avals.size() != v.out.size()) {
    return std::nullopt;
  }
  const int64_t n = s->mesh.num_devices();
  int64_t work = CheckedMul(std::max<int64_t>(1, s->body->stats.work), n).value_or(INT64_MAX);
  for (size_t i = 0; i < v.in.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(std::optional<Side> side,
                         MakeSide(s->mesh, (*in_specs)[i], v.in[i], s->body->input_avals[i], true));
    if (!side) return std::nullopt;
    s->in.push_back(*std::move(side));
  }
  for (size_t i = 0; i < v.out.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(std::optional<Side> side, MakeSide(s->mesh, (*out_specs)[i], v.out[i],
                                                            s->body->output_avals[i], false));
    if (!side) return std::nullopt;
    s->out.push_back(*std::move(side));
  }
  for (const Side& side : s->in) {
    if (side.copy != nullptr && !side.in_place) {
      work = CheckedAdd(work, 2 * n * NumElements(side.local) * side.bytes).value_or(INT64_MAX);
    }
  }
  for (const Side& side : s->out) {
    work = CheckedAdd(work, 2 * NumElements(side.global) * side.bytes).value_or(INT64_MAX);
  }
  const PositionBytes bytes = MemoryOfPositions(*s);
  BuiltKernel k;
  k.description = absl::StrCat("shard_map on ", n, " positions (", s->body->steps.size(),
                               " steps, ", s->body->stats.fallbacks, " fallbacks)");
  k.work = work;
  k.scratch_bytes = bytes.scratch;
  k.device_peak_bytes = bytes.device_peak;
  k.devices = n;
  k.nested_fallbacks = AllFallbacks(*s->body);
  k.kernel = [s](const RunContext& ctx, absl::Span<const Value> in, std::vector<Value>& out) {
    return RunShardMap(*s, ctx, in, out);
  };
  return k;
}

}  // namespace

const Mesh* PlanningMesh() { return planning_mesh; }

ScopedPlanningMesh::ScopedPlanningMesh(const Mesh* mesh) : previous_(planning_mesh) {
  planning_mesh = mesh;
}
ScopedPlanningMesh::~ScopedPlanningMesh() { planning_mesh = previous_; }

void AddShardMapKernels(KernelTable& table) { table["shard_map"] = BuildShardMap; }

}  // namespace axe::exec::internal
