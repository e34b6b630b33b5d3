// The built-in primitives with their rules, and functions that bind them on traced values
// (like jax.lax). They are defined, with every rule, on first use of Builtins(),
// Primitive::Find or the parser: when Builtins() returns, each built-in has all its rules.
//
//   elementwise  add sub mul div max min pow rem add_any (binary), neg abs sign exp log sin
//                cos tanh sqrt rsqrt log1p logistic integer_pow square (unary), eq ne lt le
//                gt ge (comparisons, bool results), and or not is_finite round floor ceil
//                stop_gradient, clamp select_n convert_element_type
//   reduce       reduce_sum reduce_max reduce_min reduce_prod argmax argmin,
//                reduce_or reduce_and reduce_xor (bitwise over integers, logical over bool),
//                cumsum cumprod cummax cummin cumlogsumexp (cumulative along `axis`)
//   shape        broadcast_in_dim reshape squeeze transpose slice dynamic_slice
//                dynamic_update_slice concatenate rev split pad iota layout_constraint
//                (expand_dims binds broadcast_in_dim, as in JAX)
//   dot          dot_general
//   indexing     gather scatter scatter-add scatter-mul scatter-min scatter-max (integer-array
//                indexing and x.at[i].set/add/mul/min/max, with JAX's GatherDimensionNumbers,
//                ScatterDimensionNumbers and GatherScatterMode)
//   prng         random_seed random_wrap random_unwrap random_split random_fold_in random_bits
//                (JAX's key arrays, element type key<fry>), threefry2x32,
//                bitcast_convert_type (the same bits as another type)
//   control flow jit closed_call custom_jvp_call custom_vjp_call cond scan (their
//                jaxprs; the custom rules are Python functions a printed jaxpr does not
//                carry, so their derivative is call_jaxpr's)
//   shard_map    shard_map (its body runs with the mesh's axes manual)
//   conv         conv_general_dilated (XLA's convolution: any dimension numbers, strides,
//                padding, dilations, feature and batch groups)
//   while        while (lax.while_loop; forward-mode derivatives only, as in JAX)
//   math         erf erfc erf_inv expm1 tan atan asin acos sinh cosh asinh acosh atanh cbrt
//                exp2 atan2 nextafter bessel_i0e bessel_i1e igamma igammac (floating),
//                shift_left shift_right_logical
//                shift_right_arithmetic xor population_count clz (integer; xor bool too)
//   collectives  psum (check_vma off) psum_invariant pmax pmin pvary all_gather
//                all_gather_invariant reduce_scatter (psum_scatter) all_to_all ppermute
//                axis_index
//   sort         sort (multi-operand, lexicographic on num_keys, stable) top_k (values and
//                int32 indices along `axis`)
//   remat2       jax.checkpoint: a call of its `jaxpr`; `policy` is kept as printed (it only
//                decides what JAX saves for the backward pass: memory, never values)
//   reshard      jax.sharding.reshard: the identity on values (axe's types carry no
//                sharding); linear, its transpose a reshard back
//   copy         jnp.array(x, copy=True), the end of exact gelu: the identity; linear
//   stack unstack tile  jnp.stack (its transpose unstack), jnp.tile; linear
//   eq_to le_to lt_to   comparisons in the IEEE total order (jnp.searchsorted, jnp.interp)
//   platform_index  lax.platform_dependent's branch for the CPU (jnp.trace, jnp.diagonal)
//   reduce_precision  floats rounded to fewer exponent/mantissa bits, as XLA does (what
//                JAX's gradients of checkpointed functions print)
//   window       reduce_window_sum reduce_window_max reduce_window_min (pooling: windows,
//                strides, padding, base and window dilations), reduce_window (a jaxpr reducer
//                over several operands), select_and_gather_add select_and_scatter_add (max and
//                min pooling's tangent and its transpose)
//   linalg       cholesky (the lower factor), triangular_solve (left or right side, lower or
//                upper, transpose_a, unit_diagonal; linear in b), lu (LAPACK's getrf: partial
//                pivoting, with pivots and the row permutation), qr, eigh (eigenvalues
//                ascending), svd (singular values descending)
//   name         checkpoint_name's label for checkpoint policies: the identity on values
//   debug_print  jax.debug.print: no outputs, an effect; a run prints nothing
//
// Params are those JAX's jaxprs show; a parameter JAX prints with a default may be absent
// (then the default applies). Typing errors use JAX's words, e.g.
// "add got incompatible shapes for broadcasting: (3,), (4,)." (InvalidArgument).
// The rules read the manual axes of the current AxisEnv (axis_env.h); inside a shard_map with
// check_vma, ordinary primitives require equal variance sets (JAX's "requires varying manual
// axes to match" error) and collectives apply shard_map's variance rules.
//
// Every built-in has its impl (eval.h), JVP and batching (ad.h, batching.h) and, where it is
// linear, transpose rules; shard_map typing is in shard_map.h. Each family above lives in one
// file, src/ir/family_<family>.cc (control flow: family_control_flow.cc, remat2:
// family_remat.cc, bitcast_convert_type: family_bitcast.cc): its definitions and every rule
// of each of its primitives.
#ifndef AXE_IR_PRIMITIVES_H_
#define AXE_IR_PRIMITIVES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/ir/builder.h"
#include "axe/ir/jaxpr.h"
#include "axe/ir/primitive.h"
#include "axe/ir/tracer.h"

namespace axe::ir {

struct BuiltinPrimitives {
  const Primitive *add, *sub, *mul, *div, *max, *min, *pow;
  const Primitive *neg, *sin, *cos, *exp, *log, *tanh, *sqrt, *abs, *sign;
  const Primitive *eq, *ne, *lt, *le, *gt, *ge;
  const Primitive *convert_element_type, *broadcast_in_dim, *reshape, *squeeze, *transpose;
  const Primitive *reduce_sum, *reduce_max, *dot_general, *slice, *dynamic_slice;
  const Primitive *dynamic_update_slice, *concatenate, *select_n, *iota,
      *with_layout_constraint;  // the primitive `layout_constraint`
  const Primitive *jit, *closed_call, *cond, *scan, *shard_map;
  const Primitive *psum, *psum_invariant, *pmax, *pmin, *pvary, *all_gather, *all_gather_invariant;
  const Primitive *reduce_scatter, *all_to_all, *ppermute, *axis_index;
  // More of JAX's primitives (what jax.grad of common functions prints).
  const Primitive *rem, *add_any, *and_, *or_, *not_, *integer_pow, *square, *rsqrt, *log1p;
  const Primitive *logistic, *is_finite, *round, *floor, *ceil, *clamp, *stop_gradient;
  const Primitive *reduce_min, *reduce_prod, *argmax, *argmin, *reduce_or, *reduce_and, *reduce_xor;
  const Primitive *cumsum, *cumprod, *cummax, *cummin, *cumlogsumexp;
  const Primitive *rev, *split, *pad;
  const Primitive *custom_jvp_call, *custom_vjp_call;
  // Indexing (family_indexing.cc): gather and the scatter family, named as JAX prints them
  // (scatter-add, scatter-mul, scatter-min, scatter-max).
  const Primitive *gather, *scatter, *scatter_add, *scatter_mul, *scatter_min, *scatter_max;
  const Primitive* conv_general_dilated;
  const Primitive *sort, *top_k;      // family_sort.cc
  const Primitive* remat2;            // family_remat.cc
  const Primitive* reshard;           // family_reshard.cc
  const Primitive* copy;              // family_copy.cc
  const Primitive* reduce_precision;  // family_reduce_precision.cc
  const Primitive* while_;            // the primitive `while` (family_while.cc)
  // More elementwise functions (family_math.cc).
  const Primitive *erf, *erfc, *erf_inv, *expm1, *tan, *atan, *asin, *acos, *sinh, *cosh;
  const Primitive *asinh, *acosh, *atanh, *cbrt, *exp2, *atan2, *nextafter;
  const Primitive *shift_left, *shift_right_logical, *shift_right_arithmetic, *xor_;
  const Primitive *population_count, *clz;
  const Primitive *random_seed, *random_wrap, *random_unwrap, *random_split, *random_fold_in;
  const Primitive *random_bits, *threefry2x32;
  const Primitive* bitcast_convert_type;
  // jnp.stack (its transpose unstack) and jnp.tile (family_stack.cc).
  const Primitive *stack, *unstack, *tile;
  // Comparisons in the IEEE total order (family_total_order.cc).
  const Primitive *eq_to, *le_to, *lt_to;
  // lax.platform_dependent's branch index (family_platform_index.cc).
  const Primitive* platform_index;
  // jax.scipy.special.gammaln and its derivative (family_math.cc).
  const Primitive *lgamma, *digamma;
  // The windowed reductions (pooling) and their derivatives' primitives (family_window.cc).
  const Primitive *reduce_window_sum, *reduce_window_max, *reduce_window_min, *reduce_window;
  const Primitive *select_and_gather_add, *select_and_scatter_add;
  const Primitive *cholesky, *triangular_solve, *lu;  // family_linalg.cc
  const Primitive* name;                              // checkpoint_name (family_checkpoint_name.cc)
  const Primitive *qr, *eigh, *svd;                   // family_linalg.cc
  const Primitive* debug_print;                       // family_debug.cc
  // Exponentially scaled Bessel functions and regularized incomplete gamma (family_math.cc).
  const Primitive *bessel_i0e, *bessel_i1e, *igamma, *igammac;
};

// Defines the built-ins and registers all their rules (impl, abstract eval, JVP, transpose,
// batching), once and thread-safe, then returns them.
const BuiltinPrimitives& Builtins();

// ---- binding functions (errors are the abstract-evaluation rules') ----

absl::StatusOr<Tracer> Add(const Tracer& x, const Tracer& y);
absl::StatusOr<Tracer> Sub(const Tracer& x, const Tracer& y);
absl::StatusOr<Tracer> Mul(const Tracer& x, const Tracer& y);
absl::StatusOr<Tracer> Div(const Tracer& x, const Tracer& y);
absl::StatusOr<Tracer> Max(const Tracer& x, const Tracer& y);
absl::StatusOr<Tracer> Min(const Tracer& x, const Tracer& y);
absl::StatusOr<Tracer> Neg(const Tracer& x);
absl::StatusOr<Tracer> Sin(const Tracer& x);
absl::StatusOr<Tracer> Cos(const Tracer& x);
absl::StatusOr<Tracer> Exp(const Tracer& x);
absl::StatusOr<Tracer> Log(const Tracer& x);
// A binary or unary primitive by pointer (comparisons included).
absl::StatusOr<Tracer> Binary(const Primitive& prim, const Tracer& x, const Tracer& y);
absl::StatusOr<Tracer> Unary(const Primitive& prim, const Tracer& x);

absl::StatusOr<Tracer> ConvertElementType(const Tracer& x, DType new_dtype);
absl::StatusOr<Tracer> BroadcastInDim(const Tracer& x, std::vector<int64_t> shape,
                                      std::vector<int64_t> broadcast_dimensions);
absl::StatusOr<Tracer> Reshape(const Tracer& x, std::vector<int64_t> new_sizes);
absl::StatusOr<Tracer> Squeeze(const Tracer& x, std::vector<int64_t> dimensions);
// broadcast_in_dim with size-1 dimensions inserted at `dimensions` of the result.
absl::StatusOr<Tracer> ExpandDims(const Tracer& x, std::vector<int64_t> dimensions);
absl::StatusOr<Tracer> Transpose(const Tracer& x, std::vector<int64_t> permutation);
absl::StatusOr<Tracer> ReduceSum(const Tracer& x, std::vector<int64_t> axes);
absl::StatusOr<Tracer> ReduceMax(const Tracer& x, std::vector<int64_t> axes);
// dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)).
absl::StatusOr<Tracer> DotGeneral(const Tracer& x, const Tracer& y,
                                  std::vector<int64_t> lhs_contract,
                                  std::vector<int64_t> rhs_contract,
                                  std::vector<int64_t> lhs_batch = {},
                                  std::vector<int64_t> rhs_batch = {});
absl::StatusOr<Tracer> Slice(const Tracer& x, std::vector<int64_t> start,
                             std::vector<int64_t> limit);
absl::StatusOr<Tracer> DynamicSlice(const Tracer& x, absl::Span<const Tracer> start,
                                    std::vector<int64_t> slice_sizes);
absl::StatusOr<Tracer> DynamicUpdateSlice(const Tracer& x, const Tracer& update,
                                          absl::Span<const Tracer> start);
absl::StatusOr<Tracer> Concatenate(absl::Span<const Tracer> xs, int64_t dimension);
absl::StatusOr<Tracer> SelectN(const Tracer& which, absl::Span<const Tracer> cases);
absl::StatusOr<Tracer> Iota(Builder& b, DType dtype, std::vector<int64_t> shape, int64_t dimension);
// jit[name, jaxpr](args): calls `body` (its invars typed like args).
absl::StatusOr<std::vector<Tracer>> Jit(std::shared_ptr<const ClosedJaxpr> body,
                                        absl::Span<const Tracer> args, std::string name);
// cond[branches](index, *operands): branch 0 is taken for index 0 (the false branch of a
// boolean predicate, which JAX converts to int32).
absl::StatusOr<std::vector<Tracer>> Cond(const Tracer& index,
                                         std::vector<std::shared_ptr<const ClosedJaxpr>> branches,
                                         absl::Span<const Tracer> operands);

// Collectives (inside a shard_map's AxisEnv).
absl::StatusOr<Tracer> PsumInvariant(const Tracer& x, std::vector<std::string> axes);
absl::StatusOr<Tracer> Pvary(const Tracer& x, std::vector<std::string> axes);
absl::StatusOr<Tracer> AxisIndex(Builder& b, std::string axis_name);

}  // namespace axe::ir

#endif  // AXE_IR_PRIMITIVES_H_
