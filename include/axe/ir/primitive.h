// Primitives and their rules, as in `jax.extend`.
//
// A Primitive is a named operation with a params schema. Rules are registered per primitive
// in one process-wide, thread-safe registry, from any code (a third party defines its own
// primitive exactly like the built-in ones):
//
//   absl::StatusOr<const Primitive*> p = Primitive::Define({.name = "mul_add"});
//   RegisterImpl(**p, [](absl::Span<const HostArray> args, const Params&) { ... });
//   RegisterAbstractEval(**p, [](absl::Span<const ShapedArray> avals, const Params&) {
//     return std::vector<ShapedArray>{avals[0]};
//   });
//   RegisterLowering(**p, rule, "gpu");   // registers for cuda and rocm
//
// Looking up a missing rule gives JAX's NotImplementedError text as an Unimplemented status:
//
//   impl            Evaluation rule for 'mul_add' not implemented
//   abstract eval   Abstract evaluation for 'mul_add' not implemented
//   lowering        MLIR translation rule for primitive 'mul_add' not found for platform cpu
//   jvp             Differentiation rule for 'mul_add' not implemented
//   transpose       Transpose rule (for reverse-mode differentiation) for 'mul_add' not
//                   implemented
//   batching        Batching rule for 'mul_add' not implemented
//
// The rules that produce programs (jvp, transpose, batching, lowering) emit equations into a
// Builder through Tracers, like JAX's rules emit into the current trace; a lowering rule
// re-expresses the primitive in terms of others (`mlir.lower_fun`), on a named platform.
#ifndef AXE_IR_PRIMITIVE_H_
#define AXE_IR_PRIMITIVE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/host_array.h"
#include "axe/ir/jaxpr.h"
#include "axe/ir/param.h"
#include "axe/ir/shaped_array.h"
#include "axe/ir/tracer.h"

namespace axe::ir {

class Builder;
namespace internal {
struct PrimitiveFactory;
}  // namespace internal

// What a parameter must hold; check_jaxpr reads each declared parameter with the matching
// typed reader of Param.
enum class ParamType {
  kAny,
  kInt,
  kBool,
  kInts,
  kDType,
  kAxisNames,
  kJaxpr,
  kJaxprs,
  kMesh,
  kPartitionSpecs,
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kAny;
  bool required = true;
};

class Primitive {
 public:
  struct Options {
    std::string name;  // an identifier, or identifiers joined by '-'; unique in the registry
    bool multiple_results = false;
    bool call_primitive = false;
    std::vector<ParamSpec> params;  // the schema (undeclared params are allowed and kept)
    Effects effects;                // effects every equation of this primitive has
    // Printing: these params come first, in this order (jit prints name= first).
    std::vector<std::string> params_printed_first;
    // Printing: the nested jaxpr held by this param has its invars and outvars named like
    // the equation's inputs and outputs (jit's pretty-printing rule).
    std::string param_named_like_operands;
    // Printing: the params shown (JAX's pretty-printing rules drop some, e.g.
    // broadcast_in_dim's shape). Default: all.
    std::function<Params(const Params&)> printed_params;
    // Parsing: restores params the printer dropped, from the output types.
    std::function<void(Params&, absl::Span<const ShapedArray> outs)> complete_parsed_params;
    // Checking: the manual axes in scope inside this primitive's nested jaxprs (shard_map
    // adds its mesh's axes); empty: the enclosing scope's.
    std::function<absl::StatusOr<std::optional<AxisEnv>>(const Params&)> body_axis_env;
  };

  // Registers a new primitive. InvalidArgument for a name that is not an identifier,
  // AlreadyExists for a taken name. The primitive lives until the process ends.
  static absl::StatusOr<const Primitive*> Define(Options options);
  // The registered primitive `name`, or nullptr.
  static const Primitive* Find(absl::string_view name);
  // Every registered primitive, sorted by name.
  static std::vector<const Primitive*> All();

  const std::string& name() const { return options_.name; }
  bool multiple_results() const { return options_.multiple_results; }
  bool call_primitive() const { return options_.call_primitive; }
  const std::vector<ParamSpec>& param_specs() const { return options_.params; }
  const Options& options() const { return options_; }

 private:
  friend struct internal::PrimitiveFactory;
  explicit Primitive(Options options) : options_(std::move(options)) {}
  Options options_;
};

// ---- rule signatures ----

using ImplRule = std::function<absl::StatusOr<std::vector<HostArray>>(
    absl::Span<const HostArray> args, const Params& params)>;

using AbstractEvalRule = std::function<absl::StatusOr<std::vector<ShapedArray>>(
    absl::Span<const ShapedArray> avals, const Params& params)>;

// A tangent that is nullopt is the symbolic Zero of its primal's type.
struct JvpResult {
  std::vector<Tracer> primals_out;
  std::vector<std::optional<Tracer>> tangents_out;
};
using JvpRule = std::function<absl::StatusOr<JvpResult>(
    Builder& builder, absl::Span<const Tracer> primals,
    absl::Span<const std::optional<Tracer>> tangents, const Params& params)>;

// An argument of a transpose rule: a linear input arrives undefined (JAX's UndefinedPrimal,
// only its type known); a non-linear one carries its value.
struct TransposeArg {
  std::optional<Tracer> value;  // empty for an undefined (linear) input
  ShapedArray aval;

  static TransposeArg Undefined(ShapedArray aval) { return {std::nullopt, std::move(aval)}; }
  static TransposeArg Defined(Tracer t) {
    ShapedArray a = t.aval;
    return {std::move(t), std::move(a)};
  }
  bool is_undefined_primal() const { return !value.has_value(); }
};
// Cotangents: nullopt is a symbolic Zero (among the inputs) or None (for a non-linear
// argument, among the results).
using TransposeRule = std::function<absl::StatusOr<std::vector<std::optional<Tracer>>>(
    Builder& builder, absl::Span<const std::optional<Tracer>> cotangents,
    absl::Span<const TransposeArg> args, const Params& params)>;

// A batch dimension of nullopt means unbatched.
struct BatchResult {
  std::vector<Tracer> outs;
  std::vector<std::optional<int64_t>> out_dims;
};
using BatchingRule = std::function<absl::StatusOr<BatchResult>(
    Builder& builder, absl::Span<const Tracer> args, absl::Span<const std::optional<int64_t>> dims,
    const Params& params)>;

struct LoweringContext {
  std::string platform;
  Builder* builder = nullptr;
};
using LoweringRule = std::function<absl::StatusOr<std::vector<Tracer>>(
    LoweringContext& ctx, absl::Span<const Tracer> args, const Params& params)>;

// ---- registration ----
//
// Every built-in primitive has all its rules from the moment Builtins() (primitives.h) returns,
// and anything that hands out a built-in (Primitive::Find, Builtins) goes through it first, so
// a rule is never filled in later behind a caller's back. Registering replaces the rule the
// primitive had and returns that previous rule (empty when it had none), so an override can
// delegate to, or later restore, the built-in:
//
//   ImplRule builtin = RegisterImpl(*Builtins().sin, MySin);
//   ...
//   RegisterImpl(*Builtins().sin, builtin);   // restored

ImplRule RegisterImpl(const Primitive& prim, ImplRule rule);
AbstractEvalRule RegisterAbstractEval(const Primitive& prim, AbstractEvalRule rule);
JvpRule RegisterJvp(const Primitive& prim, JvpRule rule);
TransposeRule RegisterTranspose(const Primitive& prim, TransposeRule rule);
BatchingRule RegisterBatching(const Primitive& prim, BatchingRule rule);
// `platform` nullopt: the default rule for every platform. "gpu" registers for cuda and rocm.
// Unknown platform: Unimplemented "Registering an MLIR lowering rule for primitive {prim} for
// an unknown platform {p}. Known platforms are: {sorted list}."
absl::Status RegisterLowering(const Primitive& prim, LoweringRule rule,
                              std::optional<absl::string_view> platform = std::nullopt);
// Adds a platform (a runtime plug-in's); known from the start: cpu, cuda, rocm, tpu.
void RegisterPlatform(absl::string_view platform);
std::vector<std::string> KnownPlatforms();

// ---- look-up (Unimplemented with JAX's text when missing) ----

absl::StatusOr<ImplRule> GetImplRule(const Primitive& prim);
absl::StatusOr<AbstractEvalRule> GetAbstractEvalRule(const Primitive& prim);
absl::StatusOr<JvpRule> GetJvpRule(const Primitive& prim);
absl::StatusOr<TransposeRule> GetTransposeRule(const Primitive& prim);
absl::StatusOr<BatchingRule> GetBatchingRule(const Primitive& prim);
// The platform's own rule if registered, else the default rule.
absl::StatusOr<LoweringRule> GetLoweringRule(const Primitive& prim, absl::string_view platform);

// Runs the abstract-evaluation rule, checking that a single-result primitive returned one
// type (Internal otherwise).
absl::StatusOr<std::vector<ShapedArray>> AbstractEval(const Primitive& prim,
                                                      absl::Span<const ShapedArray> avals,
                                                      const Params& params);

}  // namespace axe::ir

#endif  // AXE_IR_PRIMITIVE_H_
