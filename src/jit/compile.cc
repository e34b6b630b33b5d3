#include "axe/jit/compile.h"

#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"

namespace axe::jit {
namespace {

// The layout choices of one side, checked against the values they annotate.
absl::StatusOr<std::vector<JitLayout>> LayoutChoices(
    const ir::Jaxpr& jaxpr, const std::vector<std::optional<Format>>& formats, bool inputs) {
  const size_t count = inputs ? jaxpr.invars.size() : jaxpr.outvars.size();
  if (!formats.empty() && formats.size() != count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the program has ", count, inputs ? " inputs" : " outputs", " but ", formats.size(),
        inputs ? " input formats were given" : " output formats were given"));
  }
  std::vector<JitLayout> choices(count);
  for (size_t i = 0; i < formats.size(); ++i) {
    if (!formats[i]) continue;
    const ir::ShapedArray& aval =
        inputs ? jaxpr.aval(jaxpr.invars[i]) : jaxpr.aval(jaxpr.outvars[i]);
    const std::string path = absl::StrCat(inputs ? "args[" : "outputs[", i, "]");
    if (const std::optional<sharding::Sharding>& s = formats[i]->sharding(); s && s->named()) {
      AXE_RETURN_IF_ERROR(
          s->named()->CheckShape(aval.shape(), inputs ? "jit arguments" : "jit outputs"));
    }
    if (const LocalLayout* l = formats[i]->local_layout()) {
      if (absl::Status fits = l->CheckCompatibleAval(aval.shape()); !fits.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "One of jit ", inputs ? "arguments" : "outputs", " with pytree key path ", path,
            " is incompatible with its layout annotation ", l->ToString(), ": ", fits.message()));
      }
    }
    choices[i] = formats[i]->layout();
  }
  return choices;
}

// The formats as an executable reports them: every layout with full information (read
// back from its XLA form, so an untiled layout has tiling=(), as JAX shows it).
absl::StatusOr<std::vector<Format>> Formats(const std::vector<LocalLayout>& layouts,
                                            const std::vector<std::optional<Format>>& given,
                                            const std::vector<ir::ShapedArray>& avals) {
  std::vector<Format> out;
  for (size_t i = 0; i < layouts.size(); ++i) {
    std::optional<sharding::Sharding> s;
    if (i < given.size() && given[i]) s = given[i]->sharding();
    AXE_ASSIGN_OR_RETURN(xla::Layout xla_layout, layouts[i].ToXla(avals[i].dtype()));
    AXE_ASSIGN_OR_RETURN(LocalLayout full, LocalLayout::FromXla(xla_layout));
    out.push_back(Format::Compiled(std::move(full), std::move(s)));
  }
  return out;
}

// Pairs each donated input with the first unpaired output of its shape and element type, and
// checks the AUTO donation rules on the pair.
absl::StatusOr<std::vector<std::pair<size_t, size_t>>> Donations(
    const ir::Jaxpr& jaxpr, const std::vector<size_t>& donate_argnums,
    const std::vector<JitLayout>& ins, const std::vector<JitLayout>& outs) {
  const std::vector<ir::ShapedArray> in_avals = jaxpr.in_avals();
  const std::vector<ir::ShapedArray> out_avals = jaxpr.out_avals();
  std::vector<bool> taken(out_avals.size(), false);
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i : donate_argnums) {
    if (i >= in_avals.size()) {
      return absl::InvalidArgumentError(absl::StrCat("donate_argnums entry ", i,
                                                     " is out of range for a program with ",
                                                     in_avals.size(), " inputs"));
    }
    for (size_t o = 0; o < out_avals.size(); ++o) {
      if (taken[o] || out_avals[o].shape() != in_avals[i].shape() ||
          out_avals[o].dtype() != in_avals[i].dtype()) {
        continue;
      }
      AXE_RETURN_IF_ERROR(CheckDonation(ins[i], o < outs.size() ? outs[o] : JitLayout{}));
      taken[o] = true;
      pairs.emplace_back(i, o);
      break;
    }
  }
  return pairs;
}

std::vector<std::optional<sharding::Sharding>> Shardings(
    const std::vector<std::optional<Format>>& formats) {
  std::vector<std::optional<sharding::Sharding>> out;
  for (const std::optional<Format>& f : formats) {
    out.push_back(f ? f->sharding() : std::nullopt);
  }
  return out;
}

}  // namespace

absl::StatusOr<Compiled> Compile(ir::ClosedJaxpr jaxpr,
                                 const std::vector<std::optional<Format>>& in_formats,
                                 const std::vector<std::optional<Format>>& out_formats,
                                 const CompileOptions& options) {
  AXE_ASSIGN_OR_RETURN(std::vector<JitLayout> ins,
                       LayoutChoices(jaxpr.jaxpr, in_formats, /*inputs=*/true));
  AXE_ASSIGN_OR_RETURN(std::vector<JitLayout> outs,
                       LayoutChoices(jaxpr.jaxpr, out_formats, /*inputs=*/false));
  AXE_RETURN_IF_ERROR(
      CheckDeviceAssignment(Shardings(in_formats), Shardings(out_formats), options.arguments));
  Compiled c;
  AXE_ASSIGN_OR_RETURN(c.plan_, ChooseLayouts(jaxpr.jaxpr, ins, outs));
  AXE_ASSIGN_OR_RETURN(c.input_formats_,
                       Formats(c.plan_.inputs, in_formats, jaxpr.jaxpr.in_avals()));
  AXE_ASSIGN_OR_RETURN(c.output_formats_,
                       Formats(c.plan_.outputs, out_formats, jaxpr.jaxpr.out_avals()));
  AXE_ASSIGN_OR_RETURN(c.donations_, Donations(jaxpr.jaxpr, options.donate_argnums, ins, outs));
  c.jaxpr_ = std::move(jaxpr);
  return c;
}

}  // namespace axe::jit
