// Kernels of the collectives inside a shard_map body (psum, psum_invariant, pmax, pmin,
// all_gather, all_gather_invariant, reduce_scatter, all_to_all, ppermute) and of the
// primitives that only name mesh axes (axis_index, pvary). Built while the body's plan is
// built (PlanningMesh() is the shard_map's mesh), each computes its groups once; at run time a
// position hands its operand to the communicator and computes its own result from the
// members' typed buffers: reductions fold in member order through the runtime's
// ReduceElements (every member gets the same bits; integers wrap, f16/bf16 accumulate in f32),
// the others are copies. Where the members live in other processes (an MPI rank), the
// operands' own bytes move through the communicator's exchanges into buffers (Site): a
// psum's into one receive buffer, an all_gather's along dimension 0 straight into its result,
// a ppermute's into the receiver's result, an all_to_all's chunks from the operand into the
// result where they are contiguous blocks. Outside a shard_map (no mesh) they fall back to the
// interpreter, which reports the unbound axis in JAX's words.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "axe/runtime/client.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/reduce_elements.h"
#include "exec/permute.h"
#include "exec/plan.h"
#include "exec/spmd.h"
#include "ir/eval_collectives.h"

namespace axe::exec::internal {
namespace {

using runtime::ReduceOp;

// Reductions of at least this many elements are folded in shares, one per member.
constexpr int64_t kSplitReduceElements = int64_t{1} << 15;

// The groups of a collective on the planning mesh: per group its positions in member order,
// per position its group and index.
struct Groups {
  std::vector<std::vector<int64_t>> positions;
  std::vector<ir::internal::Member> of;
  int64_t size = 1;
  std::vector<std::string> axes;  // the collective's mesh axes, in its order
};

std::optional<Groups> MakeGroups(const ir::Eqn& eqn, absl::string_view api) {
  const sharding::Mesh* mesh = PlanningMesh();
  if (mesh == nullptr) return std::nullopt;
  absl::StatusOr<std::vector<std::string>> axes = ir::internal::CollectiveAxes(eqn);
  if (!axes.ok()) return std::nullopt;
  Groups g;
  absl::StatusOr<std::vector<ir::internal::Member>> of =
      ir::internal::GroupMembers(*mesh, *axes, api, g.size);
  if (!of.ok() || g.size < 1) return std::nullopt;
  g.of = *std::move(of);
  g.axes = *std::move(axes);
  g.positions.assign(static_cast<size_t>(mesh->num_devices() / g.size),
                     std::vector<int64_t>(static_cast<size_t>(g.size)));
  for (size_t p = 0; p < g.of.size(); ++p) {
    g.positions[static_cast<size_t>(g.of[p].group)][static_cast<size_t>(g.of[p].index)] =
        static_cast<int64_t>(p);
  }
  return g;
}

int64_t IntParam(const ir::Eqn& eqn, const char* name, int64_t otherwise) {
  auto it = eqn.params.find(name);
  if (it == eqn.params.end() || it->second.is_none()) return otherwise;
  return it->second.AsInt(name).value_or(otherwise);
}

bool BoolParam(const ir::Eqn& eqn, const char* name) {
  auto it = eqn.params.find(name);
  if (it == eqn.params.end() || it->second.is_none()) return false;
  return it->second.AsBool(name).value_or(false);
}

// Whether the collectives run between processes (a client whose process holds one device,
// an MPI rank): then a member's exchange receives the others' operands into a buffer of its
// own, which the plan counts as the kernel's scratch.
bool BetweenProcesses(const EqnView& v) {
  const runtime::Client* client = v.options.client;
  return client != nullptr &&
         static_cast<int>(client->addressable_devices().size()) != client->num_devices();
}

BuiltKernel WithScratch(int64_t bytes, BuiltKernel k) {
  k.scratch_bytes = bytes;
  return k;
}

int64_t Product(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// What one member of one collective's group exchanges through: its communicator, group,
// index and tag. Between processes (Communicator::copies_between_processes) a member's
// operand is gathered into one receive buffer of its own; in memory the members' operands are
// read where they lie.
class Site {
 public:
  // The members' operands, in member order, and what keeps them alive.
  struct Gathered {
    std::vector<const uint8_t*> members;
    std::vector<Value> keep;
  };

  Site(const RunContext& ctx, const Groups& groups, const std::vector<int64_t>& group,
       int64_t index, uint64_t tag)
      : ctx_(ctx),
        comm_(*ctx.spmd->comm),
        groups_(groups),
        group_(group),
        index_(index),
        tag_(tag) {}

  int64_t index() const { return index_; }
  int64_t size() const { return static_cast<int64_t>(group_.size()); }
  bool copies() const { return size() > 1 && comm_.copies_between_processes(); }
  const RunContext& ctx() const { return ctx_; }

  // Every member's `x` (round: which exchange of a collective of several, from 0).
  absl::StatusOr<Gathered> Gather(const Value& x, uint64_t round = 0) const {
    Gathered g;
    const uint64_t tag = tag_ + (round << 15);
    if (!copies()) {
      AXE_ASSIGN_OR_RETURN(g.keep, comm_.ExchangeOverAxes(groups_.axes, group_, index_, tag, x));
      for (const Value& v : g.keep) g.members.push_back(Bytes(v));
      return g;
    }
    const auto bytes = static_cast<int64_t>(x.num_bytes());
    AXE_ASSIGN_OR_RETURN(Value receive,
                         ctx_.Allocate(ir::ShapedArray({size() * bytes}, DType::kU8)));
    AXE_RETURN_IF_ERROR(comm_.GatherInto(groups_.axes, group_, index_, tag, x, receive));
    for (int64_t m = 0; m < size(); ++m) {
      g.members.push_back(m == index_ ? Bytes(x) : Bytes(receive) + m * bytes);
    }
    g.keep.push_back(std::move(receive));
    return g;
  }
  // Hands a gather's own buffers back to the run's pool.
  void Release(Gathered& g) const {
    if (!copies() || ctx_.values == nullptr) return;
    for (Value& v : g.keep) ctx_.values->Give(std::move(v));
    g.keep.clear();
  }
  // Between processes only: the members' `x` straight into `into` (member order).
  absl::Status GatherInto(const Value& x, Value& into) const {
    return comm_.GatherInto(groups_.axes, group_, index_, tag_, x, into);
  }
  absl::Status PermuteInto(const Value& x, absl::Span<const int64_t> source_of, Value& into) const {
    return comm_.PermuteInto(groups_.axes, group_, index_, tag_, x, source_of, into);
  }
  absl::Status AllToAllInto(const Value& send, int64_t block, Value& into) const {
    return comm_.AllToAllInto(groups_.axes, group_, index_, tag_, send, block, into);
  }

  static const uint8_t* Bytes(const Value& v) {
    return reinterpret_cast<const uint8_t*>(v.bytes());
  }

 private:
  const RunContext& ctx_;
  Communicator& comm_;
  const Groups& groups_;
  const std::vector<int64_t>& group_;
  const int64_t index_;
  const uint64_t tag_;
};

uint8_t* MutableBytes(Value& v) { return reinterpret_cast<uint8_t*>(v.mutable_bytes()); }

// Computes a member's result of one operand, exchanging it through `site`.
using CombineShares = std::function<absl::Status(const Site& site, const Value& x, Value& out)>;

// A kernel that exchanges each operand over its group and combines the members' values.
BuiltKernel ExchangeKernel(const EqnView& v, std::shared_ptr<const Groups> groups,
                           std::vector<CombineShares> combine, int64_t work) {
  static std::atomic<uint64_t> next_id{1};
  const uint64_t id = next_id.fetch_add(1) << 20;
  BuiltKernel k;
  k.description = absl::StrCat("exchange over groups of ", groups->size);
  k.work = work;
  std::vector<ir::ShapedArray> out_avals = v.out;
  const std::string name = v.eqn.primitive->name();
  k.kernel = [groups, combine = std::move(combine), out_avals, id, name](
                 const RunContext& ctx, absl::Span<const Value> in,
                 std::vector<Value>& out) -> absl::Status {
    if (ctx.spmd == nullptr) {
      return absl::InternalError(absl::StrCat(name, " ran outside the shard_map it was built in"));
    }
    const ir::internal::Member& me = groups->of[static_cast<size_t>(ctx.spmd->position)];
    const std::vector<int64_t>& group = groups->positions[static_cast<size_t>(me.group)];
    for (size_t k = 0; k < in.size(); ++k) {
      AXE_ASSIGN_OR_RETURN(out[k], ctx.Allocate(out_avals[k]));
      AXE_RETURN_IF_ERROR(combine[k](Site(ctx, *groups, group, me.index, id + k), in[k], out[k]));
    }
    return absl::OkStatus();
  };
  return k;
}

BuiltKernel Identity() {
  BuiltKernel k;
  k.description = "relabel";
  k.relabel = true;
  k.kernel = [](const RunContext&, absl::Span<const Value> in, std::vector<Value>& out) {
    for (size_t i = 0; i < in.size(); ++i) out[i] = in[i];
    return absl::OkStatus();
  };
  return k;
}

bool SameTypes(const EqnView& v) {
  if (v.in.size() != v.out.size()) return false;
  for (size_t i = 0; i < v.in.size(); ++i) {
    if (v.in[i].shape() != v.out[i].shape() || v.in[i].dtype() != v.out[i].dtype()) return false;
  }
  return true;
}

absl::StatusOr<std::optional<BuiltKernel>> BuildReduce(const EqnView& v, ReduceOp op,
                                                       absl::string_view api) {
  std::optional<Groups> g = MakeGroups(v.eqn, api);
  if (!g || !SameTypes(v)) return std::nullopt;
  if (g->size == 1) return Identity();
  std::vector<CombineShares> combine;
  int64_t work = 0;
  for (const ir::ShapedArray& a : v.in) {
    if (!runtime::CheckReduction(op, a.dtype()).ok()) return std::nullopt;
    const DType type = a.dtype();
    const int64_t n = NumElements(a);
    AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(type));
    work += (g->size + 1) * n * static_cast<int64_t>(bytes);
    // Large operands: each member folds only its share of the elements, then the members
    // exchange their shares (the same folds in the same order: the same bits everywhere).
    const int64_t shares = n >= kSplitReduceElements ? g->size : 1;
    combine.push_back([op, type, n, bytes, shares](const Site& site, const Value& x,
                                                   Value& out) -> absl::Status {
      AXE_ASSIGN_OR_RETURN(Site::Gathered all, site.Gather(x));
      // Between processes every member folds the whole (one exchange, no second round).
      const int64_t parts = site.copies() ? 1 : shares;
      auto share = [&](int64_t m) { return std::make_pair(n * m / parts, n * (m + 1) / parts); };
      const int64_t mine = parts == 1 ? 0 : site.index();
      const auto [lo, hi] = share(mine);
      std::vector<const uint8_t*> inputs;
      for (const uint8_t* member : all.members) {
        inputs.push_back(member + static_cast<size_t>(lo) * bytes);
      }
      AXE_RETURN_IF_ERROR(runtime::ReduceElements(
          op, type, inputs, hi - lo, MutableBytes(out) + static_cast<size_t>(lo) * bytes));
      site.Release(all);
      if (parts == 1) return absl::OkStatus();
      AXE_ASSIGN_OR_RETURN(Site::Gathered reduced, site.Gather(out, 1));
      for (int64_t m = 0; m < parts; ++m) {
        if (m == site.index()) continue;
        const auto [from, to] = share(m);
        std::memcpy(MutableBytes(out) + static_cast<size_t>(from) * bytes,
                    reduced.members[static_cast<size_t>(m)] + static_cast<size_t>(from) * bytes,
                    static_cast<size_t>(to - from) * bytes);
      }
      return absl::OkStatus();
    });
  }
  int64_t receive = 0;  // between processes: every member's operand, one operand at a time
  for (const ir::ShapedArray& a : v.in) {
    AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(a.dtype()));
    receive = std::max(receive, g->size * NumElements(a) * static_cast<int64_t>(bytes));
  }
  const bool between = BetweenProcesses(v);
  return WithScratch(
      between ? receive : 0,
      ExchangeKernel(v, std::make_shared<const Groups>(*std::move(g)), std::move(combine), work));
}

// all_gather: stacked (untiled) or concatenated (tiled) along a dimension; both place member
// m's block of prod(shape[dim:]) elements at m within each of the prod(shape[:dim]) rows.
absl::StatusOr<std::optional<BuiltKernel>> BuildAllGather(const EqnView& v) {
  std::optional<Groups> g = MakeGroups(v.eqn, "all_gather");
  if (!g || v.in.size() != 1 || v.out.size() != 1) return std::nullopt;
  const int64_t dim = IntParam(v.eqn, "all_gather_dimension", 0);
  const bool tiled = BoolParam(v.eqn, "tiled");
  const std::vector<int64_t>& shape = v.in[0].shape();
  absl::StatusOr<std::vector<int64_t>> want = runtime::AllGatherShape(shape, dim, tiled, g->size);
  if (!want.ok() || *want != v.out[0].shape() || v.in[0].dtype() != v.out[0].dtype()) {
    return std::nullopt;
  }
  AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(v.in[0].dtype()));
  const size_t d = static_cast<size_t>(dim);
  const int64_t rows = Product(absl::MakeConstSpan(shape).subspan(0, d));
  const size_t block = static_cast<size_t>(Product(absl::MakeConstSpan(shape).subspan(d))) * bytes;
  const int64_t n = g->size;
  CombineShares combine = [rows, block, n](const Site& site, const Value& x,
                                           Value& out) -> absl::Status {
    if (rows == 1 && site.copies()) return site.GatherInto(x, out);  // in place
    AXE_ASSIGN_OR_RETURN(Site::Gathered all, site.Gather(x));
    std::byte* o = out.mutable_bytes();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t m = 0; m < n; ++m) {
        std::memcpy(o + static_cast<size_t>(r * n + m) * block,
                    all.members[static_cast<size_t>(m)] + static_cast<size_t>(r) * block, block);
      }
    }
    site.Release(all);
    return absl::OkStatus();
  };
  const int64_t receive =
      BetweenProcesses(v) && rows != 1 ? NumElements(v.out[0]) * static_cast<int64_t>(bytes) : 0;
  return WithScratch(receive,
                     ExchangeKernel(v, std::make_shared<const Groups>(*std::move(g)), {combine},
                                    2 * NumElements(v.out[0]) * static_cast<int64_t>(bytes)));
}

// psum_scatter: member i reduces only its piece (piece i of the scatter dimension) of every
// row of the members' operands.
absl::StatusOr<std::optional<BuiltKernel>> BuildReduceScatter(const EqnView& v) {
  std::optional<Groups> g = MakeGroups(v.eqn, "psum_scatter");
  if (!g || v.in.size() != 1 || v.out.size() != 1) return std::nullopt;
  const int64_t dim = IntParam(v.eqn, "scatter_dimension", 0);
  const bool tiled = BoolParam(v.eqn, "tiled");
  const std::vector<int64_t>& shape = v.in[0].shape();
  const DType type = v.in[0].dtype();
  absl::StatusOr<std::vector<int64_t>> want =
      runtime::ReduceScatterShape(shape, dim, tiled, g->size);
  if (!want.ok() || *want != v.out[0].shape() || type != v.out[0].dtype() ||
      !runtime::CheckReduction(ReduceOp::kSum, type).ok()) {
    return std::nullopt;
  }
  AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(type));
  const size_t d = static_cast<size_t>(dim);
  const int64_t rows = Product(absl::MakeConstSpan(shape).subspan(0, d));
  const int64_t row = Product(absl::MakeConstSpan(shape).subspan(d));  // elements of a row
  const int64_t piece = row / g->size;
  CombineShares combine = [rows, row, piece, bytes, type](const Site& site, const Value& x,
                                                          Value& out) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(Site::Gathered all, site.Gather(x));
    std::vector<const uint8_t*> inputs(all.members.size());
    for (int64_t r = 0; r < rows; ++r) {
      const size_t at = static_cast<size_t>(r * row + site.index() * piece) * bytes;
      for (size_t m = 0; m < all.members.size(); ++m) inputs[m] = all.members[m] + at;
      AXE_RETURN_IF_ERROR(
          runtime::ReduceElements(ReduceOp::kSum, type, inputs, piece,
                                  MutableBytes(out) + static_cast<size_t>(r * piece) * bytes));
    }
    site.Release(all);
    return absl::OkStatus();
  };
  const int64_t receive =
      BetweenProcesses(v) ? g->size * NumElements(v.in[0]) * static_cast<int64_t>(bytes) : 0;
  return WithScratch(
      receive, ExchangeKernel(v, std::make_shared<const Groups>(*std::move(g)), {combine},
                              (g->size + 1) * NumElements(v.out[0]) * static_cast<int64_t>(bytes)));
}

// The copies of an all_to_all: `direct` moves a chunk of the operand (a box of the split
// axis) to its place in the result; between processes, `pack` gathers chunk j of the operand
// into block j of a send buffer and `unpack` places received block j as chunk j of the result,
// each null where the chunks already are contiguous blocks (nothing before the split, or the
// concat, axis but ones).
struct AllToAllCopies {
  StridedCopy direct;
  std::shared_ptr<const StridedCopy> pack, unpack;
  int64_t block = 0;                   // bytes of one chunk
  int64_t src_step = 0, dst_step = 0;  // bytes between chunks of the operand and the result
  ir::ShapedArray blocks;              // the send and receive buffers' type
};

absl::StatusOr<AllToAllCopies> PlanAllToAllCopies(const std::vector<int64_t>& x,
                                                  const std::vector<int64_t>& z,
                                                  const std::vector<int64_t>& box, size_t s,
                                                  size_t c, size_t bytes) {
  const std::vector<int64_t> xs = RowMajorStrides(x), zs = RowMajorStrides(z);
  const std::vector<int64_t> bs = RowMajorStrides(box);
  const int eb = static_cast<int>(bytes);
  AXE_ASSIGN_OR_RETURN(StridedCopy direct, StridedCopy::Plan(box, xs, zs, eb, 1));
  AllToAllCopies out{std::move(direct), nullptr, nullptr, 0, 0, 0, {}};
  const int64_t chunks = x[s] / box[s];
  out.block = Product(box) * static_cast<int64_t>(bytes);
  out.src_step = box[s] * xs[s] * static_cast<int64_t>(bytes);
  out.dst_step = box[c] * zs[c] * static_cast<int64_t>(bytes);
  out.blocks = ir::ShapedArray({chunks * out.block}, DType::kU8);
  if (Product(absl::MakeConstSpan(x).subspan(0, s)) != 1) {
    AXE_ASSIGN_OR_RETURN(StridedCopy pack, StridedCopy::Plan(box, xs, bs, eb, 1));
    out.pack = std::make_shared<const StridedCopy>(std::move(pack));
  }
  if (Product(absl::MakeConstSpan(z).subspan(0, c)) != 1) {
    AXE_ASSIGN_OR_RETURN(StridedCopy unpack, StridedCopy::Plan(box, bs, zs, eb, 1));
    out.unpack = std::make_shared<const StridedCopy>(std::move(unpack));
  }
  return out;
}

// all_to_all between processes: the chunks leave from the operand and arrive in the result
// where they are contiguous blocks, else through a packed buffer.
absl::Status AllToAllBetweenProcesses(const Site& site, const AllToAllCopies& copies,
                                      const Value& x, Value& out) {
  const size_t block = static_cast<size_t>(copies.block);
  const int64_t n = site.size();
  Value send = x;
  if (copies.pack != nullptr) {
    AXE_ASSIGN_OR_RETURN(send, site.ctx().Allocate(copies.blocks));
    for (int64_t j = 0; j < n; ++j) {
      AXE_RETURN_IF_ERROR(copies.pack->Run(x.bytes() + static_cast<size_t>(j * copies.src_step),
                                           send.mutable_bytes() + static_cast<size_t>(j) * block));
    }
  }
  Value receive = out;
  if (copies.unpack != nullptr) {
    AXE_ASSIGN_OR_RETURN(receive, site.ctx().Allocate(copies.blocks));
  }
  AXE_RETURN_IF_ERROR(site.AllToAllInto(send, copies.block, receive));
  if (copies.unpack != nullptr) {
    for (int64_t j = 0; j < n; ++j) {
      AXE_RETURN_IF_ERROR(
          copies.unpack->Run(receive.bytes() + static_cast<size_t>(j) * block,
                             out.mutable_bytes() + static_cast<size_t>(j * copies.dst_step)));
    }
  }
  return absl::OkStatus();
}

// all_to_all: member `index` receives from member j the chunk `index` of j's operand along
// split_axis and places it as chunk j along concat_axis: the same strided box copy for every
// j, at offsets that step by one chunk on each side. JAX's primitive always has these (tiled)
// shapes, whatever its `tiled` param says: lax.all_to_all inserts and squeezes the axes of its
// untiled form around it.
absl::StatusOr<std::optional<BuiltKernel>> BuildAllToAll(const EqnView& v) {
  std::optional<Groups> g = MakeGroups(v.eqn, "all_to_all");
  if (!g || v.in.size() != 1 || v.out.size() != 1 || v.in[0].dtype() != v.out[0].dtype()) {
    return std::nullopt;
  }
  const int64_t split = IntParam(v.eqn, "split_axis", 0);
  const int64_t concat = IntParam(v.eqn, "concat_axis", 0);
  const std::vector<int64_t>& x = v.in[0].shape();
  const std::vector<int64_t>& z = v.out[0].shape();
  const int64_t rank = static_cast<int64_t>(x.size());
  if (split < 0 || split >= rank || concat < 0 || concat >= rank || x[split] % g->size != 0) {
    return std::nullopt;
  }
  const size_t s = static_cast<size_t>(split), c = static_cast<size_t>(concat);
  std::vector<int64_t> box = x;
  box[s] /= g->size;
  std::vector<int64_t> jax_shape = box;
  jax_shape[c] *= g->size;
  if (jax_shape != z) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(v.in[0].dtype()));
  const std::vector<int64_t> xs = RowMajorStrides(x), zs = RowMajorStrides(z);
  const int64_t src_step = box[s] * xs[s];
  const int64_t dst_step = box[c] * zs[c];
  AXE_ASSIGN_OR_RETURN(AllToAllCopies copies, PlanAllToAllCopies(x, z, box, s, c, bytes));
  auto shared = std::make_shared<const AllToAllCopies>(std::move(copies));
  CombineShares combine = [shared, src_step, dst_step, bytes](const Site& site, const Value& x,
                                                              Value& out) -> absl::Status {
    if (site.copies()) return AllToAllBetweenProcesses(site, *shared, x, out);
    AXE_ASSIGN_OR_RETURN(Site::Gathered all, site.Gather(x));
    for (size_t j = 0; j < all.members.size(); ++j) {
      AXE_RETURN_IF_ERROR(shared->direct.Run(
          reinterpret_cast<const std::byte*>(all.members[j]) +
              static_cast<size_t>(site.index() * src_step) * bytes,
          out.mutable_bytes() + static_cast<size_t>(static_cast<int64_t>(j) * dst_step) * bytes));
    }
    return absl::OkStatus();
  };
  const int64_t packed = (shared->pack != nullptr ? 1 : 0) + (shared->unpack != nullptr ? 1 : 0);
  const int64_t receive =
      BetweenProcesses(v) ? packed * NumElements(v.in[0]) * static_cast<int64_t>(bytes) : 0;
  return WithScratch(receive,
                     ExchangeKernel(v, std::make_shared<const Groups>(*std::move(g)), {combine},
                                    2 * NumElements(v.out[0]) * static_cast<int64_t>(bytes)));
}

// ppermute: a member receives its source's operand, or zeros when no pair names it.
absl::StatusOr<std::optional<BuiltKernel>> BuildPpermute(const EqnView& v) {
  std::optional<Groups> g = MakeGroups(v.eqn, "ppermute");
  if (!g || v.in.size() != 1 || !SameTypes(v)) return std::nullopt;
  auto perm = v.eqn.params.find("perm");
  if (perm == v.eqn.params.end()) return std::nullopt;
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const ir::Param& item : perm->second.items()) {
    absl::StatusOr<std::vector<int64_t>> pair = item.AsInts("perm");
    if (!pair.ok() || pair->size() != 2) return std::nullopt;
    pairs.emplace_back((*pair)[0], (*pair)[1]);
  }
  absl::StatusOr<std::vector<int64_t>> sources = runtime::PermuteSources(pairs, g->size);
  if (!sources.ok()) return std::nullopt;
  CombineShares combine = [sources = *sources](const Site& site, const Value& x,
                                               Value& out) -> absl::Status {
    const int64_t from = sources[static_cast<size_t>(site.index())];
    if (from < 0) std::memset(out.mutable_bytes(), 0, out.num_bytes());
    if (site.copies()) return site.PermuteInto(x, sources, out);  // straight into out
    AXE_ASSIGN_OR_RETURN(Site::Gathered all, site.Gather(x));
    if (from >= 0)
      std::memcpy(out.mutable_bytes(), all.members[static_cast<size_t>(from)], out.num_bytes());
    return absl::OkStatus();
  };
  AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(v.out[0].dtype()));
  return ExchangeKernel(v, std::make_shared<const Groups>(*std::move(g)), {combine},
                        2 * NumElements(v.out[0]) * static_cast<int64_t>(bytes));
}

// axis_index: the position's index in its group, an s32 scalar; no exchange.
absl::StatusOr<std::optional<BuiltKernel>> BuildAxisIndex(const EqnView& v) {
  std::optional<Groups> g = MakeGroups(v.eqn, "axis_index");
  if (!g || !v.in.empty() || v.out.size() != 1 || v.out[0].rank() != 0 ||
      v.out[0].dtype() != DType::kS32) {
    return std::nullopt;
  }
  BuiltKernel k;
  k.description = "axis_index";
  const ir::ShapedArray aval = v.out[0];
  auto shared = std::make_shared<const Groups>(*std::move(g));
  k.kernel = [shared, aval](const RunContext& ctx, absl::Span<const Value>,
                            std::vector<Value>& out) -> absl::Status {
    if (ctx.spmd == nullptr) return absl::InternalError("axis_index ran outside its shard_map");
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(aval));
    *out[0].mutable_data<int32_t>() =
        static_cast<int32_t>(shared->of[static_cast<size_t>(ctx.spmd->position)].index);
    return absl::OkStatus();
  };
  return k;
}

// pvary only retypes: its operands are its results.
absl::StatusOr<std::optional<BuiltKernel>> BuildPvary(const EqnView& v) {
  if (!MakeGroups(v.eqn, "pvary") || !SameTypes(v)) return std::nullopt;
  return Identity();
}

}  // namespace

void AddCollectiveKernels(KernelTable& table) {
  table["psum"] = [](const EqnView& v) { return BuildReduce(v, ReduceOp::kSum, "psum"); };
  table["psum_invariant"] = [](const EqnView& v) { return BuildReduce(v, ReduceOp::kSum, "psum"); };
  table["pmax"] = [](const EqnView& v) { return BuildReduce(v, ReduceOp::kMax, "pmax"); };
  table["pmin"] = [](const EqnView& v) { return BuildReduce(v, ReduceOp::kMin, "pmin"); };
  table["all_gather"] = BuildAllGather;
  table["all_gather_invariant"] = BuildAllGather;
  table["reduce_scatter"] = BuildReduceScatter;
  table["all_to_all"] = BuildAllToAll;
  table["ppermute"] = BuildPpermute;
  table["axis_index"] = BuildAxisIndex;
  table["pvary"] = BuildPvary;
}

}  // namespace axe::exec::internal
