// Seeded random linear shard_map programs (random_linear_program.h).
#include "ir/random_linear_program.h"

#include "axe/base/status_macros.h"
#include "axe/ir/builder.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"

namespace axe::ir::testing_random {
namespace {

using P = sharding::PartitionSpec;
using Result = absl::StatusOr<std::vector<Tracer>>;

// pcast(v, to='varying') over the axes of `axes` it does not vary over yet.
absl::StatusOr<Tracer> VaryingOver(const Tracer& v, const std::vector<std::string>& axes) {
  std::vector<std::string> missing;
  for (const std::string& a : axes) {
    if (!v.aval.IsVaryingOver(a)) missing.push_back(a);
  }
  return missing.empty() ? absl::StatusOr<Tracer>(v) : PcastVarying(v, missing);
}

int64_t GroupSize(const sharding::Mesh& mesh, const std::vector<std::string>& axes) {
  int64_t n = 1;
  for (const std::string& a : axes) n *= mesh.axes()[*mesh.AxisIndex(a)].size;
  return n;
}

Params CollectiveParams(const std::vector<std::string>& axes, int64_t size) {
  return {{"axis_name", Param::Names(axes)},
          {"axis_index_groups", Param::None()},
          {"axis_size", Param::Int(size)},
          {"tiled", Param::Bool(true)}};
}

// One random linear step on v (rows x 4 locally). Shapes stay within 32 rows.
absl::StatusOr<Tracer> RandomStep(std::mt19937_64& rng, const MeshInfo& m, const Tracer& v) {
  const std::vector<std::string>& axes = m.axis_sets[rng() % m.axis_sets.size()];
  int64_t g = GroupSize(m.mesh, axes);
  int64_t rows = v.aval.shape()[0];
  const BuiltinPrimitives& b = Builtins();
  switch (rng() % 10) {
    case 0: return Psum(v, axes);
    case 1: return VaryingOver(v, axes);
    case 2: return Neg(v);
    case 3: {
      AXE_ASSIGN_OR_RETURN(std::vector<Tracer> s, BindWithAutoPvary(*b.add, {v, v}));
      return s[0];
    }
    case 4:
      if (rows * g <= 32) return AllGather(v, axes, 0, true);
      return Neg(v);
    case 5:
      if (rows * g <= 32) return AllGather(v, axes, 0, true, /*to_invariant=*/true);
      return Neg(v);
    case 6: {
      if (rows % g != 0) return Neg(v);
      AXE_ASSIGN_OR_RETURN(Tracer w, VaryingOver(v, axes));
      Params p = CollectiveParams(axes, g);
      p["scatter_dimension"] = Param::Int(0);
      return w.builder->Bind1(*b.reduce_scatter, {w}, p);
    }
    case 7: {
      AXE_ASSIGN_OR_RETURN(Tracer w, VaryingOver(v, axes));
      int64_t shift = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(g));
      std::vector<Param> perm;
      for (int64_t i = 0; i < g; ++i) perm.push_back(Param::Ints({i, (i + shift) % g}));
      return w.builder->Bind1(
          *b.ppermute, {w},
          {{"axis_name", Param::Names(axes)}, {"perm", Param::Tuple(std::move(perm))}});
    }
    case 8: {
      if (rows % g != 0) return Neg(v);
      AXE_ASSIGN_OR_RETURN(Tracer w, VaryingOver(v, axes));
      Params p = CollectiveParams(axes, g);
      p["split_axis"] = Param::Int(0);
      p["concat_axis"] = Param::Int(1);
      return w.builder->Bind1(*b.all_to_all, {w}, p);
    }
    default: {
      AXE_ASSIGN_OR_RETURN(std::vector<Tracer> s,
                           BindWithAutoPvary(*b.mul, {v, v.builder->Scalar(3.0, DType::kF32)}));
      return s[0];
    }
  }
}

P SpecOf(const std::vector<std::string>& axes) {
  return axes.empty() ? *P::Create({}) : *P::Create({axes});
}

}  // namespace

// A random linear program: f32[16,4] in, shard_map over the mesh, in_spec on dimension 0.
absl::StatusOr<ClosedJaxpr> RandomProgram(std::mt19937_64& rng, const MeshInfo& m) {
  std::vector<std::string> in_axes;
  if (rng() % 4 != 0) in_axes = m.axis_sets[rng() % m.axis_sets.size()];
  int steps = 1 + static_cast<int>(rng() % 5);
  std::vector<std::string> out_vma;
  uint64_t state = rng();
  auto body = [&](Builder&, absl::Span<const Tracer> xs) -> Result {
    std::mt19937_64 local(state);
    Tracer v = xs[0];
    for (int i = 0; i < steps; ++i) {
      AXE_ASSIGN_OR_RETURN(v, RandomStep(local, m, v));
    }
    out_vma = v.aval.vma();
    return std::vector<Tracer>{v};
  };
  {  // Trace once to learn the output's variance set (P() may not fit it: that error is
     // the point of the second trace).
    Builder b;
    Tracer x = b.Arg(ShapedArray({16, 4}, DType::kF32));
    (void)ShardMap({x}, ShardMapSpec{m.mesh, {SpecOf(in_axes)}, {P()}}, body);
  }
  Builder b;
  Tracer x = b.Arg(ShapedArray({16, 4}, DType::kF32));
  AXE_ASSIGN_OR_RETURN(
      std::vector<Tracer> outs,
      ShardMap({x}, ShardMapSpec{m.mesh, {SpecOf(in_axes)}, {SpecOf(out_vma)}}, body));
  return b.Build(outs);
}

HostArray RandomInts(const ShapedArray& aval, std::mt19937_64& rng) {
  HostArray h{aval.WithVma({}), std::vector<double>(static_cast<size_t>(*aval.NumElements()))};
  for (double& v : h.values) v = static_cast<double>(static_cast<int64_t>(rng() % 9) - 4);
  return h;
}

double Dot(const HostArray& a, const HostArray& b) {
  double s = 0;
  for (size_t i = 0; i < a.values.size(); ++i) s += a.values[i] * b.values[i];
  return s;
}

}  // namespace axe::ir::testing_random
