// shard_map on global operands: each operand split into the mesh positions' blocks by its
// in_spec, the body run SPMD over the positions, each output assembled from the blocks its
// out_spec names (taking position 0 along every mesh axis the out_spec does not name).
#include <optional>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "eval_control.h"
#include "eval_spmd.h"
#include "eval_util.h"

namespace axe::ir::internal {
namespace {

using sharding::Mesh;
using sharding::PartitionSpec;

absl::StatusOr<std::vector<PartitionSpec>> ReadSpecs(const Eqn& eqn, absl::string_view name) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(eqn.params, "shard_map", name));
  std::vector<PartitionSpec> out;
  for (const Param& s : p->items()) {
    AXE_ASSIGN_OR_RETURN(PartitionSpec spec, s.AsPartitionSpec(name));
    out.push_back(std::move(spec));
  }
  return out;
}

// Per dimension of a value of rank `rank`: how many blocks the spec cuts it into, and the
// block index of each mesh position.
struct Blocking {
  std::vector<int64_t> factor;                 // [dim]
  std::vector<std::vector<int64_t>> block_of;  // [position][dim]
  std::vector<bool> replica;                   // [position]: a copy the out_spec ignores
};

absl::StatusOr<Blocking> MakeBlocking(const Mesh& mesh, const PartitionSpec& spec, size_t rank) {
  if (spec.size() > rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shard_map: the spec ", spec.ToString(), " has more entries than the value's rank ", rank));
  }
  Blocking b{std::vector<int64_t>(rank, 1), {}, {}};
  std::vector<bool> named(mesh.rank(), false);
  std::vector<bool> seen(mesh.rank(), false);
  for (const PartitionSpec::Entry& entry : spec.entries()) {
    for (const std::string& name : entry) {
      std::optional<size_t> a = mesh.AxisIndex(name);
      if (a && seen[*a]) {
        return absl::InvalidArgumentError(
            absl::StrCat("the spec ", spec.ToString(), " names the mesh axis '", name, "' twice"));
      }
      if (a) seen[*a] = true;
    }
  }
  for (int64_t p = 0; p < mesh.num_devices(); ++p) {
    std::vector<int64_t> coord = mesh.CoordinateOfPosition(p);
    std::vector<int64_t> block(rank, 0);
    for (size_t d = 0; d < spec.size(); ++d) {
      int64_t f = 1;
      for (const std::string& name : spec.entry(d)) {
        std::optional<size_t> a = mesh.AxisIndex(name);
        if (!a) {
          return absl::InvalidArgumentError(absl::StrCat(
              "the spec ", spec.ToString(), " names the axis '", name, "', not in the mesh"));
        }
        named[*a] = true;
        block[d] = block[d] * mesh.axes()[*a].size + coord[*a];
        f *= mesh.axes()[*a].size;
      }
      b.factor[d] = f;
    }
    b.block_of.push_back(std::move(block));
  }
  for (int64_t p = 0; p < mesh.num_devices(); ++p) {
    std::vector<int64_t> coord = mesh.CoordinateOfPosition(p);
    bool replica = false;
    for (size_t a = 0; a < mesh.rank(); ++a) replica = replica || (!named[a] && coord[a] != 0);
    b.replica.push_back(replica);
  }
  return b;
}

// Copies between a global array and one block of it (to_block: global -> block).
void CopyBlock(HostArray& global, HostArray& block, const std::vector<int64_t>& block_index,
               bool to_block) {
  std::vector<int64_t> strides = Strides(global.aval.shape());
  std::vector<int64_t> index(block.aval.rank(), 0);
  for (size_t i = 0; i < block.values.size(); ++i, NextIndex(index, block.aval.shape())) {
    int64_t flat = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      flat += (block_index[d] * block.aval.shape()[d] + index[d]) * strides[d];
    }
    double& g = global.values[static_cast<size_t>(flat)];
    if (to_block) {
      block.values[i] = g;
    } else {
      g = block.values[i];
    }
  }
}

absl::StatusOr<Replicas> Split(const Mesh& mesh, const PartitionSpec& spec, HostArray global,
                               size_t arg) {
  AXE_ASSIGN_OR_RETURN(Blocking b, MakeBlocking(mesh, spec, global.aval.rank()));
  std::vector<int64_t> local = global.aval.shape();
  for (size_t d = 0; d < local.size(); ++d) {
    if (local[d] % b.factor[d] != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shard_map argument ", arg, " of type ", global.aval.ShortString(),
                       " is not evenly divisible by in_specs[", arg, "] = ", spec.ToString(),
                       " along dimension ", d, " (", b.factor[d], " blocks)"));
    }
    local[d] /= b.factor[d];
  }
  Replicas out;
  for (int64_t p = 0; p < mesh.num_devices(); ++p) {
    AXE_ASSIGN_OR_RETURN(HostArray block, ZeroArray(global.aval.WithShape(local)));
    CopyBlock(global, block, b.block_of[static_cast<size_t>(p)], true);
    out.push_back(std::move(block));
  }
  return out;
}

absl::StatusOr<HostArray> Assemble(const Mesh& mesh, const PartitionSpec& spec, Replicas blocks) {
  const ShapedArray& local = blocks[0].aval;
  AXE_ASSIGN_OR_RETURN(Blocking b, MakeBlocking(mesh, spec, local.rank()));
  std::vector<int64_t> shape = local.shape();
  for (size_t d = 0; d < shape.size(); ++d) {
    std::optional<int64_t> s = CheckedMul(shape[d], b.factor[d]);
    if (!s) return absl::InvalidArgumentError("shard_map: an output dimension overflows int64");
    shape[d] = *s;
  }
  AXE_ASSIGN_OR_RETURN(HostArray global, ZeroArray(local.WithShape(shape)));
  for (size_t p = 0; p < blocks.size(); ++p) {
    if (!b.replica[p]) CopyBlock(global, blocks[p], b.block_of[p], false);
  }
  return global;
}

}  // namespace

absl::StatusOr<std::vector<HostArray>> RunShardMap(const Eqn& eqn, absl::Span<const HostArray> args,
                                                   SpmdExecutor& executor, int64_t* budget,
                                                   MemoryMeter* memory) {
  AXE_ASSIGN_OR_RETURN(const ClosedJaxpr* body, JaxprParam(eqn, "jaxpr"));
  AXE_ASSIGN_OR_RETURN(const Param* mesh_param, GetParam(eqn.params, "shard_map", "mesh"));
  AXE_ASSIGN_OR_RETURN(Mesh mesh, mesh_param->AsMesh("mesh"));
  AXE_ASSIGN_OR_RETURN(std::vector<PartitionSpec> in_specs, ReadSpecs(eqn, "in_specs"));
  AXE_ASSIGN_OR_RETURN(std::vector<PartitionSpec> out_specs, ReadSpecs(eqn, "out_specs"));
  if (in_specs.size() != args.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shard_map: ", in_specs.size(), " in_specs for ", args.size(), " arguments"));
  }
  std::vector<Replicas> local;
  for (size_t i = 0; i < args.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(Replicas r, Split(mesh, in_specs[i], args[i], i));
    local.push_back(std::move(r));
  }
  SpmdScope scope{&mesh, 0, mesh.num_devices(), &executor, budget, memory};
  AXE_ASSIGN_OR_RETURN(std::vector<Replicas> out, EvalSpmd(*body, std::move(local), scope));
  if (out.size() != out_specs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shard_map: ", out_specs.size(), " out_specs for ", out.size(), " outputs"));
  }
  std::vector<HostArray> result;
  for (size_t i = 0; i < out.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(Replicas blocks, executor.ShareBlocks(mesh, std::move(out[i])));
    AXE_ASSIGN_OR_RETURN(HostArray g, Assemble(mesh, out_specs[i], std::move(blocks)));
    result.push_back(std::move(g));
  }
  return result;
}

}  // namespace axe::ir::internal
