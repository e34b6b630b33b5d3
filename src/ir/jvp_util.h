// Helpers shared by the JVP, linearize and batching code (internal to src/ir).
#ifndef AXE_SRC_IR_JVP_UTIL_H_
#define AXE_SRC_IR_JVP_UTIL_H_

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/ir/builder.h"
#include "axe/ir/jaxpr.h"
#include "axe/ir/primitive.h"
#include "axe/ir/tracer.h"

namespace axe::ir::internal {

using OptTracer = std::optional<Tracer>;

// Binds a one-result primitive, pvary'ing operands to a common variance set first (a no-op
// outside shard_map or when the sets agree).
absl::StatusOr<Tracer> Op(const Primitive& prim, absl::Span<const Tracer> args, Params params = {});
// `t` broadcast to `aval`'s shape when it is smaller (rank 0, or size-1 dimensions).
absl::StatusOr<Tracer> FitTo(const Tracer& t, const ShapedArray& aval);
// The tangent, or explicit zeros of `aval` for a symbolic zero.
absl::StatusOr<Tracer> Instantiate(Builder& b, const OptTracer& t, const ShapedArray& aval);
// a + b with symbolic zeros (nullopt) as the additive identity; the sum fitted to `aval`.
absl::StatusOr<OptTracer> AddTangents(const OptTracer& a, const OptTracer& b,
                                      const ShapedArray& aval);
// Whether a value of this dtype has a (non-trivial) tangent.
bool Differentiable(DType dtype);

// The inverse of the permutation `perm` (transposing by one, then the other, is the identity).
std::vector<int64_t> InversePermutation(absl::Span<const int64_t> perm);
// Rows [from, to) of dimension 0 of `x` (a slice).
absl::StatusOr<Tracer> SliceRows(const Tracer& x, int64_t from, int64_t to);

// OK when `jaxpr` holds a value for each of its constvars; otherwise InvalidArgument naming
// `what` (a jaxpr read from text, and its nested bodies, carry constvars' types, not values).
absl::Status CheckConstValues(const ClosedJaxpr& jaxpr, absl::string_view what);

// Re-emits `jaxpr` into `b` on `args`; returns its outputs.
absl::StatusOr<std::vector<Tracer>> InlineJaxpr(Builder& b, const ClosedJaxpr& jaxpr,
                                                absl::Span<const Tracer> args);

// `jaxpr` without the equations whose outputs are unused (grad_dce.cc).
ClosedJaxpr DeadCodeEliminated(const ClosedJaxpr& jaxpr);

// The elementwise JVP rules (family_elementwise.cc): d out = deriv(x, out, dx); the binary
// deriv sees the tangents fitted to the result (nullopt: zero); zero tangents (integer
// results).
using UnaryDerivFn = std::function<absl::StatusOr<Tracer>(Builder&, const Tracer& x,
                                                          const Tracer& out, const Tracer& dx)>;
using BinaryDerivFn = std::function<absl::StatusOr<OptTracer>(
    Builder&, const Tracer& x, const Tracer& y, const Tracer& out, const OptTracer& dx,
    const OptTracer& dy)>;
JvpRule UnaryJvpRule(const Primitive* prim, UnaryDerivFn deriv);
JvpRule BinaryJvpRule(const Primitive* prim, BinaryDerivFn deriv);
JvpRule ZeroTangentJvpRule(const Primitive* prim);

// The JVP rule of a primitive linear in some operands: out = prim(primals); tangent = prim(primals
// with the linear operands replaced by their tangents, symbolic zeros instantiated), or a
// symbolic zero when every one is zero.
enum class LinearOperands { kFirst, kFirstTwo, kAll, kAllButFirst };
JvpRule LinearJvp(const Primitive* prim, LinearOperands which);

// The jaxpr in `param` of a call-like primitive, as a shared pointer (family_control_flow.cc).
absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> BodyParam(const Params& params,
                                                             absl::string_view prim,
                                                             absl::string_view param);

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_JVP_UTIL_H_
