// Automatic differentiation of jaxprs (issue 12): forward mode (jvp), linearize, and reverse
// mode (vjp, grad) by linearize + transpose, as JAX does it.
//
//   Jvp(f)            (primals..., tangents...) -> (outs..., out_tangents...)
//   Linearize(f)      f split into a primal jaxpr  primals -> (outs..., residuals...)
//                     and a linear one  (residuals..., tangents...) -> out_tangents
//   Vjp(f)            (primals..., cotangents of the outs...) -> one cotangent per input
//   Grad(f, argnums)  primals -> one gradient per argnum (f has one scalar float output)
//
// Each equation is differentiated by its primitive's JVP rule (primitive.h), emitting into a
// Builder; inputs whose tangent is a symbolic zero (a literal, an integer value, an input not
// differentiated) skip the rule. Rules exist for the elementwise primitives, comparisons (zero
// tangents), the structural ones, dot_general, reduce_max, the collectives (linear; pmax/pmin
// by their argmax mask), cond, scan and shard_map; jit / closed_call bodies are inlined. A
// cond, scan or shard_map keeps its original equation for the primal outputs and gets a second
// one for the tangents (whose body is the JVP of the old one; shard_map's tangents take the
// primals' specs and the body keeps its variance typing), so that Linearize separates them.
// Reverse mode transposes the linear part with BackwardPass (transpose.h): collectives inside
// shard_map transpose by the §8 table (pvary <-> psum_invariant, ...); the structural
// primitives, dot_general, cond and scan have transpose rules here; the result is cleaned of
// equations whose outputs are unused (the re-emitted forward pass). The rules are JAX's at
// ties and kinks too (max/min halve tied tangents, abs passes its tangent at 0, ...), and
// custom_jvp_call named relu / relu6 uses jax.nn's rule.
//
// Errors: a custom_vjp_call, whose rule the printed jaxpr names but does not carry, is refused
// ("cannot differentiate custom_vjp_call (name=...): ...", Unimplemented); a missing rule
// gives JAX's "Differentiation rule for '{p}' not implemented" / "Transpose rule (for
// reverse-mode differentiation) for '{p}' not implemented"; Grad of a non-scalar output
// "Gradient only defined for scalar-output functions. Output had shape: (3,). ..." and of an
// integer input "grad requires real- or complex-valued inputs ..." (JAX's texts,
// InvalidArgument).
#ifndef AXE_IR_AD_H_
#define AXE_IR_AD_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/ir/builder.h"
#include "axe/ir/jaxpr.h"
#include "axe/ir/primitive.h"

namespace axe::ir {

// The JVP of `jaxpr` traced into `builder`: `tangents[i]` nullopt is a symbolic zero. Returns
// the outputs and their tangents (nullopt: symbolic zero).
absl::StatusOr<JvpResult> JvpTrace(Builder& builder, const ClosedJaxpr& jaxpr,
                                   absl::Span<const Tracer> primals,
                                   absl::Span<const std::optional<Tracer>> tangents);

// The JVP jaxpr; `with_tangent` (default: every input) selects the inputs that get a tangent
// argument (the others are held constant). Symbolic-zero output tangents are materialized.
absl::StatusOr<ClosedJaxpr> Jvp(const ClosedJaxpr& jaxpr, std::vector<bool> with_tangent = {});

struct Linearized {
  ClosedJaxpr primal;  // primals -> (outs..., residuals...)
  ClosedJaxpr linear;  // (residuals..., tangents...) -> out tangents
  size_t num_residuals = 0;
};
absl::StatusOr<Linearized> Linearize(const ClosedJaxpr& jaxpr);

absl::StatusOr<ClosedJaxpr> Vjp(const ClosedJaxpr& jaxpr);

// argnums empty: {0}. InvalidArgument for an argnum out of range.
absl::StatusOr<ClosedJaxpr> Grad(const ClosedJaxpr& jaxpr, std::vector<int64_t> argnums = {});

}  // namespace axe::ir

#endif  // AXE_IR_AD_H_
