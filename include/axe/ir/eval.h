// Evaluation of jaxprs on the host: the reference interpreter.
//
//   absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(closed, {x, y});
//
// Every equation runs its primitive's impl rule (primitive.h's registry; every built-in has
// its rules from the moment Builtins() returns), so a third-party primitive evaluates once it
// has an impl rule. Values are HostArrays (doubles)
// rounded to the result's dtype after every operation: f32/f16/bf16 round to nearest even,
// integers wrap modulo 2^bits, float -> integer conversions truncate and saturate (NaN -> 0)
// as XLA does, bool is 0/1. Integers beyond 2^53 are not exact (HostArray holds doubles).
//
// cond, scan, jit/closed_call evaluate their nested jaxprs. A shard_map equation runs its
// body SPMD on a simulated mesh: the operands are split by in_specs, the body runs once per
// mesh position in lockstep, the collectives (psum/psum_invariant, pmax, pmin, pvary,
// all_gather(_invariant), psum_scatter, all_to_all, ppermute, axis_index) exchange values
// with JAX's semantics, and the outputs are assembled by
// out_specs (from the position 0 along every axis an out_spec does not name). eval_devices.h
// runs the same bodies on a runtime::Client's devices with the runtime's collectives.
//
// Errors: an argument count or type that differs from the jaxpr's invars (InvalidArgument
// naming the position and both types); a primitive without an impl rule (the registry's
// Unimplemented "Evaluation rule for '{name}' not implemented"); a collective outside
// shard_map (JAX's "Found an unbound axis name" NameError text); dtypes the interpreter
// cannot hold (complex, f8, sub-byte: Unimplemented); an elided constant ([...]); a binder
// whose type contradicts its operands where the interpreter writes by it (collectives, scan);
// a value of more than 2^24 elements (InvalidArgument); values held at once (each element a
// double, the operands' copies and the results of the running equation included) beyond
// `memory` (null: the budget when the call starts, ResolveMemoryBudget), before the
// equation that would exceed it runs (ResourceExhausted); a program that needs more than 2^31
// element operations (every equation counting at least 256), estimated before it runs and
// charged as it runs (ResourceExhausted), so that bad input never hangs.
#ifndef AXE_IR_EVAL_H_
#define AXE_IR_EVAL_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/base/memory_budget.h"
#include "axe/ir/host_array.h"
#include "axe/ir/jaxpr.h"

namespace axe::ir {

absl::StatusOr<std::vector<HostArray>> EvalJaxpr(const ClosedJaxpr& jaxpr,
                                                 absl::Span<const HostArray> args,
                                                 const MemoryBudget* memory = nullptr);

// `value` rounded to `dtype` (see above): what every impl rule applies to its results.
double RoundToDType(double value, DType dtype);
// convert_element_type's value semantics from `from` to `to` (float -> integer truncates
// toward zero and saturates, NaN -> 0; to bool: value != 0).
double ConvertValue(double value, DType from, DType to);

}  // namespace axe::ir

#endif  // AXE_IR_EVAL_H_
