#include "ir_values.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "axe/base/checked_math.h"
#include "axe/base/npy.h"
#include "axe/base/status_macros.h"
#include "axe/exec/value.h"
#include "axe/exec/value_io.h"
#include "axe/ir/check.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/parser.h"

namespace axe::cli {

void AddConstOptions(CLI::App* cmd, ConstOptions& options) {
  cmd->add_option("--const", options.consts,
                  "The value of a constvar, in the jaxpr's order: @FILE.npy or TYPE=...");
  cmd->add_option("--consts", options.consts_npz,
                  "Every constvar's value from @FILE.npz: arr_0, arr_1, ... in order (what "
                  "np.savez(f, *consts) writes)");
}

absl::StatusOr<exec::Value> ReadTypedValue(const std::string& spec, const std::string& option,
                                           const MemoryBudget& budget) {
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(spec, option));
  if (!LooksLikeNpy(text)) {
    absl::StatusOr<exec::Value> v = exec::ParseValue(text);
    if (!v.ok()) return InOption(option, v.status());
    return v;
  }
  const std::string what = absl::StrCat(option, " ", spec.substr(1));
  // The file's bytes are already read; the typed copy takes as many again.
  AXE_RETURN_IF_ERROR(
      budget.Check(static_cast<int64_t>(text.size()), absl::StrCat("reading ", what)));
  AXE_ASSIGN_OR_RETURN(NpyArray npy, ParseNpy(text, what));
  return exec::FromNpy(npy);
}

absl::StatusOr<ir::HostArray> ReadValue(const std::string& spec, const std::string& option,
                                        const MemoryBudget& budget) {
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(spec, option));
  if (!LooksLikeNpy(text)) {
    absl::StatusOr<ir::HostArray> a = ir::ParseArgSpec(text);
    if (!a.ok()) return InOption(option, a.status());
    return a;
  }
  const std::string what = absl::StrCat(option, " ", spec.substr(1));
  AXE_ASSIGN_OR_RETURN(NpyArray npy, ParseNpy(text, what));
  std::optional<int64_t> elements = int64_t{1};
  for (int64_t d : npy.shape) elements = elements ? CheckedMul(*elements, d) : std::nullopt;
  std::optional<int64_t> bytes = elements ? CheckedMul(*elements, int64_t{8}) : std::nullopt;
  AXE_RETURN_IF_ERROR(budget.Check(bytes, absl::StrCat("reading ", what)));
  AXE_ASSIGN_OR_RETURN(exec::Value v, exec::FromNpy(npy));
  absl::StatusOr<ir::HostArray> a = exec::ToExactHostArray(v);
  if (!a.ok()) return absl::InvalidArgumentError(absl::StrCat(what, ": ", a.status().message()));
  return a;
}

// An .npz archive's arr_0, arr_1, ... (what np.savez(f, *consts) writes), in that order.
namespace {

absl::StatusOr<std::vector<ir::HostArray>> ReadNpzConsts(const std::string& spec,
                                                         const MemoryBudget& budget) {
  if (spec.empty() || spec[0] != '@') {
    return absl::InvalidArgumentError("--consts: expected @FILE.npz");
  }
  AXE_ASSIGN_OR_RETURN(std::string bytes, ReadInputText(spec, "--consts"));
  const std::string what = absl::StrCat("--consts ", spec.substr(1));
  AXE_ASSIGN_OR_RETURN(std::vector<NpzEntry> entries, ParseNpz(bytes, what));
  // As doubles: 8 bytes an element, checked before converting.
  std::optional<int64_t> total = int64_t{0};
  for (const NpzEntry& e : entries) {
    std::optional<int64_t> n = int64_t{8};
    for (int64_t d : e.array.shape) n = n ? CheckedMul(*n, d) : std::nullopt;
    total = total && n ? CheckedAdd(*total, *n) : std::nullopt;
  }
  AXE_RETURN_IF_ERROR(budget.Check(total, absl::StrCat("reading ", what)));
  std::vector<ir::HostArray> out(entries.size());
  std::vector<bool> seen(entries.size());
  for (NpzEntry& e : entries) {
    size_t k = entries.size();
    absl::string_view index = e.name;
    if (absl::ConsumePrefix(&index, "arr_") && !index.empty() && index.size() < 6 &&
        std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      k = static_cast<size_t>(std::stoi(std::string(index)));
    }
    if (k >= entries.size() || seen[k]) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": entry '", e.name, "' is not one of arr_0 ... arr_", entries.size() - 1,
          " (save the constants positionally: np.savez(f, *consts))"));
    }
    seen[k] = true;
    AXE_ASSIGN_OR_RETURN(exec::Value v, exec::FromNpy(e.array));
    absl::StatusOr<ir::HostArray> a = exec::ToExactHostArray(v);
    if (!a.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": ", e.name, ": ", a.status().message()));
    }
    out[k] = *std::move(a);
  }
  return out;
}

}  // namespace

absl::Status BindConsts(const ConstOptions& run, const MemoryBudget& budget, ir::ClosedJaxpr& j) {
  const std::vector<ir::VarId>& constvars = j.jaxpr.constvars;
  if (!run.consts_npz.empty()) {
    if (!run.consts.empty()) {
      return absl::InvalidArgumentError("--consts: give the constants by --const or --consts");
    }
    AXE_ASSIGN_OR_RETURN(std::vector<ir::HostArray> values, ReadNpzConsts(run.consts_npz, budget));
    if (values.size() != constvars.size()) {
      return absl::InvalidArgumentError(absl::StrCat("--consts: the jaxpr has ", constvars.size(),
                                                     " constvars; the archive holds ",
                                                     values.size(), " arrays"));
    }
    for (size_t i = 0; i < constvars.size(); ++i) {
      const ir::ShapedArray& want = j.jaxpr.aval(constvars[i]);
      if (values[i].aval.shape() != want.shape() || values[i].aval.dtype() != want.dtype()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--consts: arr_", i, " of type ", values[i].aval.ShortString(),
                         " for constvar ", i, " of type ", want.ShortString()));
      }
    }
    j.consts = std::move(values);
    return absl::OkStatus();
  }
  if (run.consts.empty() && (constvars.empty() || j.consts.size() == constvars.size())) {
    return absl::OkStatus();
  }
  if (run.consts.size() != constvars.size()) {
    return absl::InvalidArgumentError(absl::StrCat("--const: the jaxpr has ", constvars.size(),
                                                   " constvars; ", run.consts.size(),
                                                   " values were given (one --const each, in "
                                                   "order)"));
  }
  j.consts.clear();
  for (size_t i = 0; i < constvars.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(ir::HostArray a, ReadValue(run.consts[i], "--const", budget));
    const ir::ShapedArray& want = j.jaxpr.aval(constvars[i]);
    if (a.aval.shape() != want.shape() || a.aval.dtype() != want.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat("--const ", i, ": a value of type ",
                                                     a.aval.ShortString(), " for constvar ", i,
                                                     " of type ", want.ShortString()));
    }
    j.consts.push_back(std::move(a));
  }
  return absl::OkStatus();
}

absl::StatusOr<ir::ClosedJaxpr> ReadJaxprWithConsts(const std::string& arg,
                                                    const ConstOptions& options,
                                                    const MemoryBudget& budget) {
  AXE_ASSIGN_OR_RETURN(std::string text, ReadInputText(arg, "JAXPR"));
  AXE_ASSIGN_OR_RETURN(ir::ClosedJaxpr j, ir::ParseJaxpr(text));
  AXE_RETURN_IF_ERROR(BindConsts(options, budget, j));
  AXE_RETURN_IF_ERROR(ir::CheckJaxpr(j));
  return j;
}

}  // namespace axe::cli
