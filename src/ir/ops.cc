// The binding functions of primitives.h: each builds the params JAX records and binds.
#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"

namespace axe::ir {
namespace {

absl::StatusOr<Builder*> BuilderOf(absl::Span<const Tracer> xs, absl::string_view what) {
  for (const Tracer& t : xs) {
    if (t.builder != nullptr) return t.builder;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("Error interpreting argument to ", what,
                   " as a JAX value. The problematic value is of type an unbound Tracer and "
                   "was passed to ",
                   what, " at position 0."));
}

absl::StatusOr<Tracer> Bind1(const Primitive& p, absl::Span<const Tracer> args, Params params) {
  AXE_ASSIGN_OR_RETURN(Builder * b, BuilderOf(args, p.name()));
  return b->Bind1(p, args, std::move(params));
}

Param IntsList(const std::vector<int64_t>& v) {
  std::vector<Param> items;
  for (int64_t x : v) items.push_back(Param::Int(x));
  return Param::List(std::move(items));
}

}  // namespace

absl::StatusOr<Tracer> Binary(const Primitive& prim, const Tracer& x, const Tracer& y) {
  return Bind1(prim, {x, y}, {});
}

absl::StatusOr<Tracer> Unary(const Primitive& prim, const Tracer& x) {
  Params params;
  if (prim.options().complete_parsed_params) prim.options().complete_parsed_params(params, {});
  return Bind1(prim, {x}, std::move(params));
}

absl::StatusOr<Tracer> Add(const Tracer& x, const Tracer& y) {
  return Binary(*Builtins().add, x, y);
}
absl::StatusOr<Tracer> Sub(const Tracer& x, const Tracer& y) {
  return Binary(*Builtins().sub, x, y);
}
absl::StatusOr<Tracer> Mul(const Tracer& x, const Tracer& y) {
  return Binary(*Builtins().mul, x, y);
}
absl::StatusOr<Tracer> Div(const Tracer& x, const Tracer& y) {
  return Binary(*Builtins().div, x, y);
}
absl::StatusOr<Tracer> Max(const Tracer& x, const Tracer& y) {
  return Binary(*Builtins().max, x, y);
}
absl::StatusOr<Tracer> Min(const Tracer& x, const Tracer& y) {
  return Binary(*Builtins().min, x, y);
}
absl::StatusOr<Tracer> Neg(const Tracer& x) { return Unary(*Builtins().neg, x); }
absl::StatusOr<Tracer> Sin(const Tracer& x) { return Unary(*Builtins().sin, x); }
absl::StatusOr<Tracer> Cos(const Tracer& x) { return Unary(*Builtins().cos, x); }
absl::StatusOr<Tracer> Exp(const Tracer& x) { return Unary(*Builtins().exp, x); }
absl::StatusOr<Tracer> Log(const Tracer& x) { return Unary(*Builtins().log, x); }

absl::StatusOr<Tracer> ConvertElementType(const Tracer& x, DType new_dtype) {
  return Bind1(*Builtins().convert_element_type, {x},
               {{"new_dtype", Param::OfDType(new_dtype)},
                {"sharding", Param::None()},
                {"weak_type", Param::Bool(false)}});
}

absl::StatusOr<Tracer> BroadcastInDim(const Tracer& x, std::vector<int64_t> shape,
                                      std::vector<int64_t> broadcast_dimensions) {
  return Bind1(*Builtins().broadcast_in_dim, {x},
               {{"shape", Param::Ints(shape)},
                {"broadcast_dimensions", Param::Ints(broadcast_dimensions)},
                {"sharding", Param::None()}});
}

absl::StatusOr<Tracer> Reshape(const Tracer& x, std::vector<int64_t> new_sizes) {
  return Bind1(*Builtins().reshape, {x},
               {{"dimensions", Param::None()},
                {"new_sizes", Param::Ints(new_sizes)},
                {"sharding", Param::None()}});
}

absl::StatusOr<Tracer> Squeeze(const Tracer& x, std::vector<int64_t> dimensions) {
  return Bind1(*Builtins().squeeze, {x}, {{"dimensions", Param::Ints(dimensions)}});
}

absl::StatusOr<Tracer> ExpandDims(const Tracer& x, std::vector<int64_t> dimensions) {
  size_t out_rank = x.aval.rank() + dimensions.size();
  std::vector<bool> inserted(out_rank, false);
  for (int64_t d : dimensions) {
    if (d < 0 || static_cast<size_t>(d) >= out_rank || inserted[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("expand_dims dimension ", d,
                       " is out of range or repeated for a result of rank ", out_rank));
    }
    inserted[d] = true;
  }
  std::vector<int64_t> shape, bdims;
  size_t next = 0;
  for (size_t i = 0; i < out_rank; ++i) {
    if (inserted[i]) {
      shape.push_back(1);
    } else {
      shape.push_back(x.aval.shape()[next++]);
      bdims.push_back(static_cast<int64_t>(i));
    }
  }
  return BroadcastInDim(x, std::move(shape), std::move(bdims));
}

absl::StatusOr<Tracer> Transpose(const Tracer& x, std::vector<int64_t> permutation) {
  return Bind1(*Builtins().transpose, {x}, {{"permutation", Param::Ints(permutation)}});
}

absl::StatusOr<Tracer> ReduceSum(const Tracer& x, std::vector<int64_t> axes) {
  return Bind1(*Builtins().reduce_sum, {x},
               {{"axes", Param::Ints(axes)}, {"out_sharding", Param::None()}});
}

absl::StatusOr<Tracer> ReduceMax(const Tracer& x, std::vector<int64_t> axes) {
  return Bind1(*Builtins().reduce_max, {x}, {{"axes", Param::Ints(axes)}});
}

absl::StatusOr<Tracer> DotGeneral(const Tracer& x, const Tracer& y,
                                  std::vector<int64_t> lhs_contract,
                                  std::vector<int64_t> rhs_contract, std::vector<int64_t> lhs_batch,
                                  std::vector<int64_t> rhs_batch) {
  Param dn = Param::Tuple({Param::Tuple({IntsList(lhs_contract), IntsList(rhs_contract)}),
                           Param::Tuple({IntsList(lhs_batch), IntsList(rhs_batch)})});
  return Bind1(*Builtins().dot_general, {x, y},
               {{"dimension_numbers", std::move(dn)},
                {"preferred_element_type", Param::OfDType(x.aval.dtype())}});
}

absl::StatusOr<Tracer> Slice(const Tracer& x, std::vector<int64_t> start,
                             std::vector<int64_t> limit) {
  return Bind1(*Builtins().slice, {x},
               {{"limit_indices", Param::Ints(limit)},
                {"start_indices", Param::Ints(start)},
                {"strides", Param::None()}});
}

absl::StatusOr<Tracer> DynamicSlice(const Tracer& x, absl::Span<const Tracer> start,
                                    std::vector<int64_t> slice_sizes) {
  std::vector<Tracer> args = {x};
  args.insert(args.end(), start.begin(), start.end());
  return Bind1(*Builtins().dynamic_slice, args, {{"slice_sizes", Param::Ints(slice_sizes)}});
}

absl::StatusOr<Tracer> DynamicUpdateSlice(const Tracer& x, const Tracer& update,
                                          absl::Span<const Tracer> start) {
  std::vector<Tracer> args = {x, update};
  args.insert(args.end(), start.begin(), start.end());
  return Bind1(*Builtins().dynamic_update_slice, args, {});
}

absl::StatusOr<Tracer> Concatenate(absl::Span<const Tracer> xs, int64_t dimension) {
  return Bind1(*Builtins().concatenate, xs, {{"dimension", Param::Int(dimension)}});
}

absl::StatusOr<Tracer> SelectN(const Tracer& which, absl::Span<const Tracer> cases) {
  std::vector<Tracer> args = {which};
  args.insert(args.end(), cases.begin(), cases.end());
  return Bind1(*Builtins().select_n, args, {});
}

absl::StatusOr<Tracer> Iota(Builder& b, DType dtype, std::vector<int64_t> shape,
                            int64_t dimension) {
  return b.Bind1(*Builtins().iota, {},
                 {{"dimension", Param::Int(dimension)},
                  {"dtype", Param::OfDType(dtype)},
                  {"shape", Param::Ints(shape)},
                  {"sharding", Param::None()}});
}

absl::StatusOr<std::vector<Tracer>> Jit(std::shared_ptr<const ClosedJaxpr> body,
                                        absl::Span<const Tracer> args, std::string name) {
  AXE_ASSIGN_OR_RETURN(Builder * b, BuilderOf(args, "jit"));
  return b->Bind(
      *Builtins().jit, args,
      {{"jaxpr", Param::Jaxpr(std::move(body))}, {"name", Param::Symbol(std::move(name))}});
}

absl::StatusOr<std::vector<Tracer>> Cond(const Tracer& index,
                                         std::vector<std::shared_ptr<const ClosedJaxpr>> branches,
                                         absl::Span<const Tracer> operands) {
  std::vector<Tracer> args = {index};
  args.insert(args.end(), operands.begin(), operands.end());
  AXE_ASSIGN_OR_RETURN(Builder * b, BuilderOf(args, "cond"));
  return b->Bind(*Builtins().cond, args, {{"branches", Param::Jaxprs(std::move(branches))}});
}

absl::StatusOr<Tracer> PsumInvariant(const Tracer& x, std::vector<std::string> axes) {
  return Bind1(*Builtins().psum_invariant, {x}, {{"axes", Param::Names(axes)}});
}

absl::StatusOr<Tracer> Pvary(const Tracer& x, std::vector<std::string> axes) {
  return Bind1(*Builtins().pvary, {x}, {{"axes", Param::Names(axes)}});
}

absl::StatusOr<Tracer> AxisIndex(Builder& b, std::string axis_name) {
  return b.Bind1(*Builtins().axis_index, {}, {{"axis_name", Param::Symbol(std::move(axis_name))}});
}

}  // namespace axe::ir
