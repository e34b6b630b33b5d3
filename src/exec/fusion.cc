#include "exec/fusion.h"

#include <algorithm>
#include <memory>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitive.h"

namespace axe::exec::internal {
namespace {

constexpr int64_t kTile = 2048;        // elements of one register
constexpr int64_t kTilesPerTask = 32;  // tiles one thread takes at a time
constexpr int64_t kParallelWork = 1 << 18;
constexpr size_t kStackScratch = 1024;  // register elements kept on the stack

bool IsFloatType(DType t) { return t == DType::kF32 || t == DType::kF64; }

// The strides through which broadcast_in_dim reads its operand for each result dimension.
std::optional<std::vector<int64_t>> BroadcastStrides(const ir::Eqn& eqn,
                                                     const ir::ShapedArray& operand,
                                                     const ir::ShapedArray& result) {
  absl::StatusOr<std::vector<int64_t>> dims = IntsParam(eqn, "broadcast_dimensions");
  if (!dims.ok() || dims->size() != operand.rank()) return std::nullopt;
  std::vector<int64_t> in_strides = RowMajorStrides(operand.shape());
  std::vector<int64_t> strides(result.rank(), 0);
  for (size_t k = 0; k < dims->size(); ++k) {
    int64_t d = (*dims)[k];
    if (d < 0 || d >= static_cast<int64_t>(result.rank())) return std::nullopt;
    if (operand.shape()[k] == result.shape()[static_cast<size_t>(d)]) {
      strides[static_cast<size_t>(d)] = in_strides[k];
    } else if (operand.shape()[k] != 1) {
      return std::nullopt;
    }
  }
  return strides;
}

// An operand of the result's rank whose dimensions are the result's or 1 (binary operations
// broadcast those, as their abstract rule allows).
bool SizeOneBroadcast(const ir::ShapedArray& operand, const ir::ShapedArray& result) {
  if (operand.rank() != result.rank()) return false;
  for (size_t d = 0; d < operand.rank(); ++d) {
    if (operand.shape()[d] != result.shape()[d] && operand.shape()[d] != 1) return false;
  }
  return true;
}

// The strides through which an operand of `result`'s rank is read, 0 along its size-1
// dimensions that the result extends (and everywhere for a one-element operand).
std::vector<int64_t> OperandStrides(const ir::ShapedArray& operand, const ir::ShapedArray& result) {
  if (operand.rank() != result.rank()) return std::vector<int64_t>(result.rank(), 0);
  std::vector<int64_t> strides = RowMajorStrides(operand.shape());
  for (size_t d = 0; d < operand.rank(); ++d) {
    if (operand.shape()[d] != result.shape()[d]) strides[d] = 0;
  }
  return strides;
}

// A tile's register: where its values are and how they advance (0: one value for all).
template <typename F>
struct Reg {
  const F* data = nullptr;
  int stride = 1;
};

// How a group walks its result, fixed when the group is built.
struct GroupWalk {
  std::vector<int> out_of_reg;  // register index -> group output index, or -1
  bool flat = true;             // every input full or scalar: tiles over [0, n)
  int64_t inner = 1, rows = 1;  // tiles run along rows of `inner` elements
  int64_t tiles = 0, tile = 1;  // how many tiles, and a register's length

  explicit GroupWalk(const FusedGroup& g) {
    out_of_reg.assign(g.inputs.size() + g.ops.size(), -1);
    for (size_t o = 0; o < g.outputs.size(); ++o) {
      out_of_reg[g.Index(g.outputs[o].first)] = static_cast<int>(o);
    }
    if (g.row_fold) {  // tiles along rows, the folded register into the row buffer
      out_of_reg[g.Index(g.row_fold->reg)] = static_cast<int>(g.outputs.size());
      flat = false;
    }
    const std::vector<int64_t> row_major = RowMajorStrides(g.aval.shape());
    for (const FusedInput& input : g.inputs) {
      const bool scalar =
          std::all_of(input.strides.begin(), input.strides.end(), [](int64_t s) { return s == 0; });
      if (!scalar && input.strides != row_major) flat = false;
    }
    const int64_t n = NumElements(g.aval);
    inner = flat ? n : (g.aval.rank() == 0 ? 1 : g.aval.shape().back());
    rows = flat ? 1 : (inner == 0 ? 0 : n / inner);
    tiles = rows * ((inner + kTile - 1) / kTile);
    tile = std::min(kTile, std::max<int64_t>(inner, 1));
  }
};

template <typename F>
struct TileRunner {
  const FusedGroup& g;
  const GroupWalk& walk;
  absl::InlinedVector<const F*, 8> in_data;
  absl::InlinedVector<F*, 4> out_data;  // per group output

  // `row_buffer`: the row buffer of a group with a row fold (the tiles then lie in one row).
  void RunTiles(int64_t first_tile, int64_t last_tile, F* scratch, F* row_buffer = nullptr) const {
    absl::InlinedVector<Reg<F>, 16> regs(g.inputs.size() + g.ops.size());
    const int64_t tiles_per_row = (walk.inner + kTile - 1) / kTile;
    for (int64_t t = first_tile; t < last_tile; ++t) {
      const int64_t row = t / tiles_per_row;
      const int64_t c0 = (t % tiles_per_row) * kTile;
      const int64_t len = std::min(kTile, walk.inner - c0);
      const int64_t out_offset = row * walk.inner + c0;
      for (size_t i = 0; i < g.inputs.size(); ++i) regs[i] = LoadInput(i, row, c0);
      for (size_t k = 0; k < g.ops.size(); ++k) {
        const FusedOp& op = g.ops[k];
        const size_t r = g.inputs.size() + k;  // == g.Index(k)
        const int out = walk.out_of_reg[r];
        F* dst = out < 0 ? scratch + static_cast<int64_t>(k) * walk.tile
                 : static_cast<size_t>(out) == out_data.size()
                     ? row_buffer + c0
                     : out_data[static_cast<size_t>(out)] + out_offset;
        const Reg<F>& a = regs[g.Index(op.a)];
        const Reg<F>& b = regs[g.Index(op.b)];
        ApplyFloat(op.op, a.data, a.stride, b.data, b.stride, dst, static_cast<size_t>(len));
        regs[r] = Reg<F>{dst, 1};
      }
      for (size_t i = 0; i < g.inputs.size(); ++i) {  // outputs that are plain inputs
        const int out = walk.out_of_reg[i];
        if (out >= 0) CopyOut(regs[i], out_data[static_cast<size_t>(out)] + out_offset, len);
      }
    }
  }

  Reg<F> LoadInput(size_t i, int64_t row, int64_t c0) const {
    const std::vector<int64_t>& st = g.inputs[i].strides;
    if (walk.flat) {
      bool scalar = std::all_of(st.begin(), st.end(), [](int64_t s) { return s == 0; });
      return scalar ? Reg<F>{in_data[i], 0} : Reg<F>{in_data[i] + row * walk.inner + c0, 1};
    }
    int64_t offset = 0;
    int64_t rest = row;
    for (size_t d = g.aval.rank() - 1; d-- > 0;) {  // the row's index, last outer dim first
      const int64_t extent = g.aval.shape()[d];
      offset += (rest % extent) * st[d];
      rest /= extent;
    }
    const int64_t last = st.empty() ? 0 : st.back();
    return Reg<F>{in_data[i] + offset + c0 * last, static_cast<int>(last)};
  }

  static void CopyOut(const Reg<F>& r, F* dst, int64_t len) {
    for (int64_t j = 0; j < len; ++j) dst[j] = r.data[j * r.stride];
  }
};

// A group ending in a row fold: rows in tasks of about kTilesPerTask tiles, each row's tiles
// run with the folded register written into a row buffer, then folded into `folded[row]`.
template <typename F>
absl::Status RunRowFold(const FusedGroup& g, const GroupWalk& walk, const TileRunner<F>& runner,
                        F* folded, bool parallel, const RunContext& ctx) {
  const int64_t tiles_per_row = (walk.inner + kTile - 1) / kTile;
  const int64_t rows_per_task =
      std::max<int64_t>(1, kTilesPerTask / std::max<int64_t>(1, tiles_per_row));
  const int64_t tasks = (walk.rows + rows_per_task - 1) / rows_per_task;
  auto task = [&](int64_t t) {
    std::unique_ptr<F[]> registers(new F[std::max<size_t>(1, g.ops.size() * walk.tile)]);
    std::unique_ptr<F[]> row(new F[static_cast<size_t>(std::max<int64_t>(1, walk.inner))]);
    const int64_t last = std::min(walk.rows, (t + 1) * rows_per_task);
    for (int64_t r = t * rows_per_task; r < last; ++r) {
      runner.RunTiles(r * tiles_per_row, (r + 1) * tiles_per_row, registers.get(), row.get());
      folded[r] = FoldRow(g.row_fold->fold, row.get(), walk.inner);
    }
  };
  if (!parallel || tasks <= 1) {
    for (int64_t t = 0; t < tasks; ++t) task(t);
  } else {
    ctx.pool->ParallelFor(tasks, task, ctx.threads);
  }
  return absl::OkStatus();
}

template <typename F>
absl::Status RunGroup(const FusedGroup& g, const GroupWalk& walk, const RunContext& ctx,
                      absl::Span<const Value> in, std::vector<Value>& out) {
  TileRunner<F> runner{g, walk, {}, {}};
  for (const Value& v : in) runner.in_data.push_back(v.data<F>());
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    // An output the plan handed a dead input's storage for (Step::donor) is written there.
    if (out[o].num_bytes() > 0 &&
        out[o].num_bytes() == static_cast<size_t>(NumElements(g.aval)) * sizeof(F)) {
      if (!(out[o].aval() == g.aval)) out[o] = out[o].Relabeled(g.aval);
    } else {
      AXE_ASSIGN_OR_RETURN(out[o], ctx.Allocate(g.aval));
    }
    runner.out_data.push_back(out[o].mutable_data<F>());
  }
  const int64_t tasks = (walk.tiles + kTilesPerTask - 1) / kTilesPerTask;
  // Registers of one tile each, uninitialized (every op writes its register before any op
  // reads it); on the stack when they are small.
  const size_t scratch = g.ops.size() * static_cast<size_t>(walk.tile);
  auto task = [&](int64_t t) {
    const int64_t first = t * kTilesPerTask, last = std::min(walk.tiles, first + kTilesPerTask);
    if (scratch <= kStackScratch) {
      F registers[kStackScratch];
      runner.RunTiles(first, last, registers);
    } else {
      std::unique_ptr<F[]> registers(new F[scratch]);
      runner.RunTiles(first, last, registers.get());
    }
  };
  const int64_t n = NumElements(g.aval);
  const bool parallel = n * static_cast<int64_t>(g.ops.size()) >= kParallelWork &&
                        ctx.threads > 1 && ctx.pool != nullptr;
  if (g.row_fold) {
    // A row fold the caller gave storage for (a block of a larger result) is written there.
    Value& folded = out[g.outputs.size()];
    if (folded.num_bytes() != static_cast<size_t>(NumElements(g.row_fold->aval)) * sizeof(F)) {
      AXE_ASSIGN_OR_RETURN(folded, ctx.Allocate(g.row_fold->aval));
    }
    return RunRowFold(g, walk, runner, folded.mutable_data<F>(), parallel, ctx);
  }
  if (!parallel || tasks <= 1) {
    for (int64_t t = 0; t < tasks; ++t) task(t);
  } else {
    ctx.pool->ParallelFor(tasks, task, ctx.threads);
  }
  return absl::OkStatus();
}

}  // namespace

bool Fusible(const ir::Eqn& eqn, absl::Span<const ir::ShapedArray> in_avals,
             const ir::ShapedArray& out_aval, const ir::ShapedArray& aval) {
  if (!IsFloatType(aval.dtype()) || out_aval.shape() != aval.shape() ||
      out_aval.dtype() != aval.dtype() || eqn.outputs.size() != 1) {
    return false;
  }
  if (eqn.primitive->name() == "broadcast_in_dim") {
    return in_avals.size() == 1 && in_avals[0].dtype() == aval.dtype() &&
           BroadcastStrides(eqn, in_avals[0], aval).has_value();
  }
  if (!ClassifyElementwise(eqn)) return false;
  for (const ir::ShapedArray& a : in_avals) {
    if (a.dtype() != aval.dtype()) return false;
    if (a.shape() != aval.shape() && NumElements(a) != 1 && !SizeOneBroadcast(a, aval)) {
      return false;
    }
  }
  return true;
}

void AddToGroup(const ir::Eqn& eqn, absl::Span<const int> in_slots,
                absl::Span<const ir::ShapedArray> in_avals, int out_slot, FusedGroup& group,
                absl::flat_hash_map<int, int>& reg_of_slot) {
  group.names.push_back(eqn.primitive->name());
  auto new_input = [&](int slot, std::vector<int64_t> strides) {
    group.inputs.push_back(FusedInput{slot, std::move(strides)});
    return InputReg(group.inputs.size() - 1);
  };
  if (eqn.primitive->name() == "broadcast_in_dim") {
    // An operand the group computes itself has the group's shape: the broadcast is an
    // identity on it (its value is in a register, not in memory).
    auto produced = reg_of_slot.find(in_slots[0]);
    if (produced != reg_of_slot.end() && in_avals[0].shape() == group.aval.shape()) {
      reg_of_slot[out_slot] = produced->second;
      return;
    }
    reg_of_slot[out_slot] = new_input(in_slots[0], *BroadcastStrides(eqn, in_avals[0], group.aval));
    return;
  }
  std::vector<int> regs;
  for (size_t i = 0; i < in_slots.size(); ++i) {
    auto it = reg_of_slot.find(in_slots[i]);
    if (it != reg_of_slot.end() && in_avals[i].shape() == group.aval.shape()) {
      regs.push_back(it->second);
      continue;
    }
    const bool full = in_avals[i].shape() == group.aval.shape();
    int r = new_input(in_slots[i], OperandStrides(in_avals[i], group.aval));
    if (full) reg_of_slot[in_slots[i]] = r;
    regs.push_back(r);
  }
  EwOp op = *ClassifyElementwise(eqn);
  group.ops.push_back(FusedOp{op, regs[0], regs.size() > 1 ? regs[1] : regs[0]});
  reg_of_slot[out_slot] = static_cast<int>(group.ops.size()) - 1;
}

bool AddRowFold(const ir::Eqn& eqn, const ir::ShapedArray& in_aval, int in_slot,
                const ir::ShapedArray& out_aval, FusedGroup& group,
                const absl::flat_hash_map<int, int>& reg_of_slot) {
  const std::optional<Fold> fold = FoldOf(eqn.primitive->name());
  auto reg = reg_of_slot.find(in_slot);
  if (!fold || group.row_fold || group.aval.rank() == 0 || NumElements(group.aval) == 0 ||
      !(in_aval == group.aval) || out_aval.dtype() != group.aval.dtype() ||
      eqn.outputs.size() != 1 || reg == reg_of_slot.end() || reg->second < 0) {
    return false;
  }
  absl::StatusOr<std::vector<int64_t>> axes = IntsParam(eqn, "axes");
  const int64_t last = static_cast<int64_t>(group.aval.rank()) - 1;
  if (!axes.ok() || *axes != std::vector<int64_t>{last}) return false;
  std::vector<int64_t> kept(group.aval.shape().begin(), group.aval.shape().end() - 1);
  if (out_aval.shape() != kept) return false;
  group.row_fold = FusedGroup::RowFold{*fold, reg->second, out_aval};
  group.names.push_back(eqn.primitive->name());
  return true;
}

// BuiltKernel::overwrites of a group: an output may be written over an input read in full at
// its own index when no operation after the output's reads that input (a tile's operations
// run in order, each writing its tile of an output as it computes it), the input is not
// itself an output, and no other input is the same slot.
std::vector<int> OverwritableInputs(const FusedGroup& g) {
  const std::vector<int64_t> full = RowMajorStrides(g.aval.shape());
  std::vector<int> over(g.outputs.size(), -1);
  std::vector<bool> taken(g.inputs.size(), false);
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    taken[i] = g.inputs[i].strides != full;
    for (size_t j = 0; j < g.inputs.size(); ++j) {
      taken[i] = taken[i] || (j != i && g.inputs[j].slot == g.inputs[i].slot);
    }
    for (const auto& [reg, slot] : g.outputs) taken[i] = taken[i] || reg == InputReg(i);
  }
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    const int reg = g.outputs[o].first;
    if (reg < 0) continue;
    for (size_t i = 0; i < g.inputs.size() && over[o] < 0; ++i) {
      bool read_later = false;
      for (size_t k = static_cast<size_t>(reg) + 1; k < g.ops.size(); ++k) {
        const FusedOp& op = g.ops[k];
        read_later = read_later || op.a == InputReg(i) || op.b == InputReg(i);
      }
      if (taken[i] || read_later) continue;
      taken[i] = true;
      over[o] = static_cast<int>(i);
    }
  }
  return over;
}

BuiltKernel BuildFusedKernel(FusedGroup group) {
  BuiltKernel k;
  k.overwrites = OverwritableInputs(group);
  k.description = absl::StrCat("fused[", absl::StrJoin(group.names, ","), "]");
  const int64_t n = NumElements(group.aval);
  k.work = n * static_cast<int64_t>(group.ops.size() + group.inputs.size() + group.outputs.size());
  auto shared = std::make_shared<const FusedGroup>(std::move(group));
  auto walk = std::make_shared<const GroupWalk>(*shared);
  k.kernel = [shared, walk](const RunContext& ctx, absl::Span<const Value> in,
                            std::vector<Value>& out) -> absl::Status {
    if (shared->aval.dtype() == DType::kF32) return RunGroup<float>(*shared, *walk, ctx, in, out);
    return RunGroup<double>(*shared, *walk, ctx, in, out);
  };
  return k;
}

}  // namespace axe::exec::internal
