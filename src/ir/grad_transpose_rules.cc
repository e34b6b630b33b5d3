// Transpose rules reverse mode needs beyond those of linear_rules.cc: the structural
// primitives (transpose, reshape, squeeze, slice, dynamic_slice, dynamic_update_slice,
// concatenate, select_n, with_layout_constraint), dot_general, cond and scan. Registered only where
// no rule exists yet.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "axe/base/dims.h"
#include "axe/base/status_macros.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Cts = absl::StatusOr<std::vector<OptTracer>>;

Cts TransposeTranspose(Builder&, absl::Span<const OptTracer> cts,
                       absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(Dims perm, RequiredInts(params, "transpose", "permutation"));
  AXE_ASSIGN_OR_RETURN(Tracer t, Transpose(*cts[0], InversePermutation(perm)));
  out[0] = t;
  return out;
}

// squeeze: the cotangent reshaped back to the operand's shape.
Cts SqueezeBack(Builder&, absl::Span<const OptTracer> cts, absl::Span<const TransposeArg> args,
                const Params&) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(out[0], Reshape(*cts[0], args[0].aval.shape()));
  return out;
}

// reshape: likewise; with `dimensions`, reshaped to the operand's dimensions in that order,
// then transposed back.
Cts ReshapeBack(Builder& b, absl::Span<const OptTracer> cts, absl::Span<const TransposeArg> args,
                const Params& params) {
  AXE_ASSIGN_OR_RETURN(Dims dims, OptionalInts(params, "dimensions", {}));
  if (dims.empty() || !cts[0]) return SqueezeBack(b, cts, args, params);
  std::vector<OptTracer> out(args.size());
  const std::vector<int64_t>& shape = args[0].aval.shape();
  Dims moved_shape;
  for (int64_t d : dims) moved_shape.push_back(shape[static_cast<size_t>(d)]);
  AXE_ASSIGN_OR_RETURN(Tracer moved, Reshape(*cts[0], moved_shape));
  AXE_ASSIGN_OR_RETURN(out[0], Transpose(moved, InversePermutation(dims)));
  return out;
}

Cts IdentityTranspose(Builder&, absl::Span<const OptTracer> cts,
                      absl::Span<const TransposeArg> args, const Params&) {
  std::vector<OptTracer> out(args.size());
  out[0] = cts[0];
  return out;
}

// The cotangent written into zeros of the operand's shape at `starts`.
absl::StatusOr<Tracer> Embed(Builder& b, const Tracer& ct, const ShapedArray& operand,
                             std::vector<Tracer> starts) {
  AXE_ASSIGN_OR_RETURN(Tracer zeros, ZerosLike(b, operand.WithVma(ct.aval.vma())));
  std::vector<Tracer> args = {zeros, ct};
  args.insert(args.end(), starts.begin(), starts.end());
  return Op(*Builtins().dynamic_update_slice, args);
}

Cts SliceTranspose(Builder& b, absl::Span<const OptTracer> cts, absl::Span<const TransposeArg> args,
                   const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(Dims start, RequiredInts(params, "slice", "start_indices"));
  AXE_ASSIGN_OR_RETURN(Dims strides, OptionalInts(params, "strides", {}));
  if (std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s != 1; })) {
    // Strided: the cotangent spread out by pad, stride - 1 zeros between its elements.
    const ShapedArray& x = args[0].aval;
    const std::vector<int64_t>& got = cts[0]->aval.shape();
    std::vector<Param> config;
    for (size_t d = 0; d < x.rank(); ++d) {
      const int64_t stride = d < strides.size() ? strides[d] : 1;
      const int64_t end = got[d] == 0 ? start[d] : start[d] + 1 + (got[d] - 1) * stride;
      config.push_back(Param::Ints({start[d], x.shape()[d] - end, stride - 1}));
    }
    AXE_ASSIGN_OR_RETURN(out[0], Op(*Builtins().pad, {*cts[0], b.Scalar(0, x.dtype())},
                                    {{"padding_config", Param::Tuple(std::move(config))}}));
    return out;
  }
  std::vector<Tracer> starts;
  for (int64_t s : start) starts.push_back(b.Scalar(static_cast<double>(s), DType::kS32));
  AXE_ASSIGN_OR_RETURN(Tracer t, Embed(b, *cts[0], args[0].aval, starts));
  out[0] = t;
  return out;
}

std::vector<Tracer> Starts(absl::Span<const TransposeArg> args, size_t first) {
  std::vector<Tracer> s;
  for (size_t i = first; i < args.size(); ++i) s.push_back(*args[i].value);
  return s;
}

Cts DynamicSliceTranspose(Builder& b, absl::Span<const OptTracer> cts,
                          absl::Span<const TransposeArg> args, const Params&) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(Tracer t, Embed(b, *cts[0], args[0].aval, Starts(args, 1)));
  out[0] = t;
  return out;
}

// operand: the cotangent with the updated window zeroed; update: that window.
Cts DynamicUpdateSliceTranspose(Builder& b, absl::Span<const OptTracer> cts,
                                absl::Span<const TransposeArg> args, const Params&) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  std::vector<Tracer> starts = Starts(args, 2);
  const ShapedArray& update = args[1].aval;
  if (args[0].is_undefined_primal()) {
    AXE_ASSIGN_OR_RETURN(Tracer z, ZerosLike(b, update.WithVma(cts[0]->aval.vma())));
    std::vector<Tracer> a = {*cts[0], z};
    a.insert(a.end(), starts.begin(), starts.end());
    AXE_ASSIGN_OR_RETURN(out[0], Op(*Builtins().dynamic_update_slice, a));
  }
  if (args[1].is_undefined_primal()) {
    AXE_ASSIGN_OR_RETURN(out[1], DynamicSlice(*cts[0], starts, update.shape()));
  }
  return out;
}

Cts ConcatenateTranspose(Builder&, absl::Span<const OptTracer> cts,
                         absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(params, "concatenate", "dimension"));
  Dims start(cts[0]->aval.rank(), 0), limit = cts[0]->aval.shape();
  for (size_t i = 0; i < args.size(); ++i) {
    limit[dim] = start[dim] + args[i].aval.shape()[dim];
    if (args[i].is_undefined_primal()) {
      AXE_ASSIGN_OR_RETURN(out[i], Slice(*cts[0], start, limit));
    }
    start[dim] = limit[dim];
  }
  return out;
}

// case i: the cotangent where `which` picks i, zeros elsewhere.
Cts SelectNTranspose(Builder& b, absl::Span<const OptTracer> cts,
                     absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  if (args[0].is_undefined_primal()) {
    return absl::InvalidArgumentError("select_n is not linear in its selector");
  }
  AXE_ASSIGN_OR_RETURN(Tracer zeros, ZerosLike(b, cts[0]->aval));
  for (size_t i = 1; i < args.size(); ++i) {
    if (!args[i].is_undefined_primal()) continue;
    std::vector<Tracer> a = {*args[0].value};
    for (size_t k = 1; k < args.size(); ++k) a.push_back(k == i ? *cts[0] : zeros);
    AXE_ASSIGN_OR_RETURN(out[i], Op(*Builtins().select_n, a, params));
  }
  return out;
}

}  // namespace

Cts DotGeneralTranspose(Builder& b, absl::Span<const OptTracer> cts,
                        absl::Span<const TransposeArg> args, const Params& params);
Cts CondTranspose(Builder& b, absl::Span<const OptTracer> cts, absl::Span<const TransposeArg> args,
                  const Params& params);
Cts ScanTranspose(Builder& b, absl::Span<const OptTracer> cts, absl::Span<const TransposeArg> args,
                  const Params& params);

void RegisterExtraTransposes(const BuiltinPrimitives& p) {
  auto add = [](const Primitive* prim, TransposeRule rule) {
    if (!GetTransposeRule(*prim).ok()) RegisterTranspose(*prim, std::move(rule));
  };
  add(p.transpose, TransposeTranspose);
  add(p.reshape, ReshapeBack);
  add(p.squeeze, SqueezeBack);
  add(p.with_layout_constraint, IdentityTranspose);
  add(p.slice, SliceTranspose);
  add(p.dynamic_slice, DynamicSliceTranspose);
  add(p.dynamic_update_slice, DynamicUpdateSliceTranspose);
  add(p.concatenate, ConcatenateTranspose);
  add(p.select_n, SelectNTranspose);
  add(p.dot_general, DotGeneralTranspose);
  add(p.cond, CondTranspose);
  add(p.scan, ScanTranspose);
}

}  // namespace axe::ir::internal
