// axe ir grad / axe ir vmap: a jaxpr differentiated or vectorized, printed in JAX's text form.
//
//   axe ir grad JAXPR [--argnums 0,1] [--json]          the gradient jaxpr (scalar output)
//   axe ir vmap JAXPR --size N [--axis K] [--in-axes 0,none,...] [--json]
//                                                       the vmapped jaxpr
//
// JAXPR is the text itself, "-" (standard input) or "@FILE". These commands add themselves to
// the `axe ir` group (ir_cmd.cc); axe::ir (Grad, Vmap) does the work.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "axe/base/status_macros.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "cli.h"
#include "ir_args.h"
#include "ir_values.h"

namespace axe::cli {
namespace ir_ad_cmd {
namespace {

struct AdArgs {
  std::string jaxpr;
  ConstOptions constants;              // grad: the constvars' values
  const Selected* selected = nullptr;  // grad: its memory budget
  std::string argnums = "0";
  int64_t axis = 0;
  std::optional<int64_t> size;
  std::string in_axes;
};

absl::Status RunGrad(std::ostream& out, const AdArgs& args, bool json) {
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr f,
                       ReadJaxprWithConsts(args.jaxpr, args.constants, args.selected->budget));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> argnums, ParseIntListOption(args.argnums, "--argnums"));
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr g, ir::Grad(f, argnums));
  PrintJaxprResult(out, g, json, {{"argnums", argnums}});
  return absl::OkStatus();
}

// "0,none,1" (none or None: unmapped); empty: --axis for every input.
absl::StatusOr<std::vector<std::optional<int64_t>>> ParseInAxes(const AdArgs& args, size_t inputs) {
  if (args.in_axes.empty()) return std::vector<std::optional<int64_t>>(inputs, args.axis);
  std::vector<std::optional<int64_t>> out;
  for (absl::string_view item : absl::StrSplit(args.in_axes, ',')) {
    std::string word(absl::StripAsciiWhitespace(item));
    int64_t v = 0;
    if (absl::AsciiStrToLower(word) == "none") {
      out.push_back(std::nullopt);
    } else if (absl::SimpleAtoi(word, &v)) {
      out.push_back(v);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--in-axes: '", word, "' is neither an integer nor none"));
    }
  }
  return out;
}

absl::Status RunVmap(std::ostream& out, const AdArgs& args, bool json) {
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr f, ReadCheckedJaxpr(args.jaxpr));
  ir::VmapOptions o;
  AXE_ASSIGN_OR_RETURN(o.in_axes, ParseInAxes(args, f.jaxpr.invars.size()));
  o.out_axes.assign(f.jaxpr.outvars.size(), args.axis);
  o.axis_size = args.size;
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr v, ir::Vmap(f, o));
  Json in_axes = Json::array();
  for (const auto& a : o.in_axes) in_axes.push_back(a ? Json(*a) : Json(nullptr));
  PrintJaxprResult(out, v, json,
                   {{"in_axes", in_axes}, {"out_axes", o.out_axes}, {"axis_size", *args.size}});
  return absl::OkStatus();
}

void AddIrAdCommands(CLI::App& app, Selected& selected) {
  std::vector<CLI::App*> found =
      app.get_subcommands([](CLI::App* sub) { return sub->get_name() == "ir"; });
  if (found.empty()) return;
  CLI::App* group = found[0];
  auto gargs = std::make_shared<AdArgs>();
  CLI::App* g =
      AddJaxprCommand(group, selected, "grad",
                      "Differentiate a scalar-output jaxpr (jax.grad): prints the gradient "
                      "jaxpr",
                      gargs, RunGrad);
  g->add_option("--argnums", gargs->argnums, "The inputs to differentiate, e.g. 0,1 (default 0)");
  gargs->selected = &selected;
  AddConstOptions(g, gargs->constants);
  auto vargs = std::make_shared<AdArgs>();
  CLI::App* v =
      AddJaxprCommand(group, selected, "vmap",
                      "Vectorize a jaxpr (jax.vmap): prints the batched jaxpr", vargs, RunVmap);
  v->add_option("--size", vargs->size, "The size of the mapped axis")->required();
  v->add_option("--axis", vargs->axis,
                "The mapped axis of every input (unless --in-axes) and of every output");
  v->add_option("--in-axes", vargs->in_axes, "One axis per input, e.g. 0,none,1");
}

AXE_CLI_COMMAND_GROUP(71, AddIrAdCommands);

}  // namespace
}  // namespace ir_ad_cmd

}  // namespace axe::cli
