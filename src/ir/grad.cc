// Reverse mode (ad.h): Vjp = linearize + transpose; Grad of a scalar-output jaxpr.
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/ad.h"
#include "axe/ir/linear.h"
#include "axe/ir/transpose.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir {
namespace {

// JAX's _check_scalar and _check_output_dtype_grad.
absl::Status CheckScalarOutput(const Jaxpr& j) {
  if (j.outvars.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Gradient only defined for scalar-output functions. Output was a tuple of ",
                     j.outvars.size(), " values."));
  }
  const ShapedArray& a = j.aval(j.outvars[0]);
  if (a.rank() != 0) {
    std::optional<int64_t> size = a.NumElements();
    std::string extract;
    if (size && *size == 1) {
      extract = absl::StrCat("extract the scalar with output.reshape(())",
                             a.rank() == 1 ? " or output[0]" : "", ", ");
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "Gradient only defined for scalar-output functions. Output had shape: ",
        internal::PyTuple(a.shape()), ". To get the gradient, ", extract,
        "reduce the output to a scalar with output.sum(), or use jax.jacobian to differentiate "
        "a function with a non-scalar output."));
  }
  if (!IsFloatingPoint(a.dtype())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
        "but got ",
        internal::DTypeName(a.dtype()),
        ". For differentiation of functions with integer outputs, use jax.vjp directly."));
  }
  return absl::OkStatus();
}

// JAX's _check_input_dtype_grad.
absl::Status CheckInput(const ShapedArray& a) {
  if (internal::Differentiable(a.dtype())) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
      "np.inexact), but got ",
      internal::DTypeName(a.dtype()),
      ". If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to "
      "True."));
}

}  // namespace

absl::StatusOr<ClosedJaxpr> Vjp(const ClosedJaxpr& f) {
  AXE_ASSIGN_OR_RETURN(Linearized lin, Linearize(f));
  const Jaxpr& j = f.jaxpr;
  size_t n = j.invars.size(), m = j.outvars.size(), r = lin.num_residuals;
  std::vector<bool> linear(r, false);
  linear.resize(r + n, true);
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr t, LinearTranspose(lin.linear, linear));
  Builder b;
  std::vector<Tracer> primals, cts;
  for (VarId v : j.invars) primals.push_back(b.Arg(j.aval(v)));
  for (const Atom& a : j.outvars) cts.push_back(b.Arg(j.aval(a)));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> fwd, internal::InlineJaxpr(b, lin.primal, primals));
  std::vector<Tracer> args(fwd.begin() + m, fwd.end());
  args.insert(args.end(), cts.begin(), cts.end());
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> in_cts, internal::InlineJaxpr(b, t, args));
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr out, b.Build(in_cts));
  return internal::DeadCodeEliminated(out);
}

absl::StatusOr<ClosedJaxpr> Grad(const ClosedJaxpr& f, std::vector<int64_t> argnums) {
  const Jaxpr& j = f.jaxpr;
  if (argnums.empty()) argnums = {0};
  std::vector<bool> mask(j.invars.size(), false);
  for (int64_t a : argnums) {
    if (a < 0 || static_cast<size_t>(a) >= j.invars.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argnums: ", a, " is out of range for a function of ", j.invars.size(), " inputs"));
    }
    AXE_RETURN_IF_ERROR(CheckInput(j.aval(j.invars[a])));
    mask[a] = true;
  }
  AXE_RETURN_IF_ERROR(CheckScalarOutput(j));
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr jvp, Jvp(f, mask));
  Builder b;
  std::vector<Tracer> consts;
  for (const HostArray& c : jvp.consts) consts.push_back(b.Const(c));
  std::vector<std::optional<Tracer>> inputs;
  for (VarId v : j.invars) inputs.push_back(b.Arg(j.aval(v)));
  inputs.resize(jvp.jaxpr.invars.size());  // the tangents: linear
  std::vector<std::optional<Tracer>> cts(2);
  cts[1] = b.Scalar(1.0, j.aval(j.outvars[0]).dtype());
  AXE_ASSIGN_OR_RETURN(std::vector<std::optional<Tracer>> in_cts,
                       BackwardPass(b, jvp.jaxpr, consts, inputs, cts));
  std::vector<size_t> tangent_index(j.invars.size());
  for (size_t i = 0, next = j.invars.size(); i < mask.size(); ++i) {
    if (mask[i]) tangent_index[i] = next++;
  }
  std::vector<Tracer> grads;
  for (int64_t a : argnums) {
    const std::optional<Tracer>& g = in_cts[tangent_index[a]];
    const ShapedArray& aval = j.aval(j.invars[a]);
    AXE_ASSIGN_OR_RETURN(Tracer t, internal::Instantiate(b, g, aval));
    grads.push_back(t);
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr out, b.Build(grads));
  return internal::DeadCodeEliminated(out);
}

}  // namespace axe::ir
