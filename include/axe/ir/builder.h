// Building jaxprs by tracing (spec ir-and-shard-map.md §3): make input values, call primitive
// functions on them, get a closed jaxpr back.
//
//   Builder b;
//   Tracer x = b.Arg(ShapedArray({8}, DType::kF32));
//   AXE_ASSIGN_OR_RETURN(Tracer y, Sin(x));            // functions of primitives.h
//   AXE_ASSIGN_OR_RETURN(Tracer z, Mul(y, b.Scalar(2.0, DType::kF32)));
//   AXE_ASSIGN_OR_RETURN(ClosedJaxpr j, b.Build({z}));
//   PrintJaxpr(j);  // { lambda ; a:f32[8]. let b:f32[8] = sin a; c:f32[8] = mul b 2.0:f32[] in
//   (c,) }
//
// Bind() runs the primitive's abstract-evaluation rule to type the outputs (the §1 error when
// it has none) and records the equation. Every equation stays in the result (no dead-code
// elimination), as in jax.make_jaxpr. A Builder is neither copyable nor movable (tracers
// point at it).
#ifndef AXE_IR_BUILDER_H_
#define AXE_IR_BUILDER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/ir/host_array.h"
#include "axe/ir/jaxpr.h"
#include "axe/ir/literal.h"
#include "axe/ir/param.h"
#include "axe/ir/primitive.h"
#include "axe/ir/tracer.h"

namespace axe::ir {

class Builder {
 public:
  // Bound on the equations and variables one builder records.
  static constexpr size_t kMaxEqns = size_t{1} << 22;

  Builder();
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // A new input variable (an invar, in call order).
  Tracer Arg(ShapedArray aval);
  // A new constvar holding `value` (the closed jaxpr's consts).
  Tracer Const(HostArray value);
  // A literal operand.
  Tracer Lit(Literal literal);
  // The scalar literal `value` of type `dtype` (see Literal::OfDType).
  Tracer Scalar(double value, DType dtype);

  // Records `prim[params](args)`, typing the outputs with the abstract-evaluation rule.
  // Errors: an argument not traced by this builder (the §1 TypeError text), or whatever the
  // rule returns.
  absl::StatusOr<std::vector<Tracer>> Bind(const Primitive& prim, absl::Span<const Tracer> args,
                                           Params params = {});
  // Bind for a primitive with exactly one result.
  absl::StatusOr<Tracer> Bind1(const Primitive& prim, absl::Span<const Tracer> args,
                               Params params = {});
  // Records an equation whose output types the caller supplies (no rule runs).
  absl::StatusOr<std::vector<Tracer>> BindTyped(const Primitive& prim,
                                                absl::Span<const Tracer> args, Params params,
                                                std::vector<ShapedArray> out_avals);

  // The closed jaxpr with outputs `outs` (tracers of this builder), canonical.
  absl::StatusOr<ClosedJaxpr> Build(absl::Span<const Tracer> outs) const;

  uint64_t trace_id() const { return trace_id_; }
  size_t num_eqns() const { return jaxpr_.eqns.size(); }

 private:
  absl::StatusOr<Atom> ToAtom(absl::string_view prim, const Tracer& t, size_t position) const;
  Tracer NewVar(ShapedArray aval);

  uint64_t trace_id_;
  Jaxpr jaxpr_;
  std::vector<HostArray> consts_;
};

}  // namespace axe::ir

#endif  // AXE_IR_BUILDER_H_
