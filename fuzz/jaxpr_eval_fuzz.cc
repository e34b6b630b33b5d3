// Jaxpr evaluation (ir/eval.h, ir/ad.h, ir/batching.h): a jaxpr that parses and type-checks,
// and is small (see Cost), runs on the host interpreter on generated inputs. Laws:
//  - evaluation returns one array of each output's type, or an error, never a crash;
//  - Jvp's program evaluates to the same primal outputs as the program itself;
//  - Vmap over a batch of two evaluates to the two unbatched evaluations stacked;
//  - the executor (exec/executable.h) gives the interpreter's values: integers and bools
//    exactly, floats within 1e-5 relative (its transcendental functions differ in the last
//    bits), NaN where the interpreter has NaN.
// Errors (an impl or differentiation rule refusing a case) are fine; crashes, UB, hangs and
// broken laws are findings.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "axe/exec/executable.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "axe/ir/shard_map.h"
#include "fuzz_check.h"

namespace {

using axe::ir::ClosedJaxpr;
using axe::ir::HostArray;
using axe::ir::Param;

constexpr int64_t kMaxElements = 1024;  // per variable
constexpr int64_t kMaxCost = 256;       // equations run, nested bodies times their trip count

// The equations one run executes, counting a scan body `length` times and a shard_map body
// once per device; -1 when a variable is larger than kMaxElements or the cost passes kMaxCost.
int64_t Cost(const ClosedJaxpr& closed, int depth = 0) {
  if (depth > 8) return -1;
  for (const axe::ir::Var& v : closed.jaxpr.vars) {
    std::optional<int64_t> n = v.aval.NumElements();
    if (!n || *n > kMaxElements) return -1;
  }
  int64_t cost = 0;
  for (const axe::ir::Eqn& eqn : closed.jaxpr.eqns) {
    int64_t trips = 1;
    if (eqn.primitive->name() == "scan") {
      auto it = eqn.params.find("length");
      absl::StatusOr<int64_t> length =
          it == eqn.params.end() ? absl::StatusOr<int64_t>(1) : it->second.AsInt("length");
      if (!length.ok() || *length < 0 || *length > 16) return -1;
      trips = *length;
    } else if (eqn.primitive->name() == "shard_map") {
      absl::StatusOr<axe::ir::ShardMapSpec> spec = axe::ir::ShardMapSpecOfParams(eqn.params);
      if (!spec.ok() || spec->mesh.num_devices() > 16) return -1;
      trips = spec->mesh.num_devices();
    }
    int64_t body = 0;
    for (const auto& [key, param] : eqn.params) {
      std::vector<const Param*> jaxprs;
      if (param.kind() == Param::Kind::kJaxpr) jaxprs.push_back(&param);
      for (const Param& item : param.items()) {
        if (item.kind() == Param::Kind::kJaxpr) jaxprs.push_back(&item);
      }
      for (const Param* p : jaxprs) {
        if (!p->jaxpr()) continue;
        int64_t c = Cost(*p->jaxpr(), depth + 1);
        if (c < 0) return -1;
        body += c;
      }
    }
    cost += 1 + trips * body;
    if (cost > kMaxCost) return -1;
  }
  return cost;
}

// Deterministic values of the types of `vars`; `salt` gives a second, different set.
std::vector<HostArray> Values(const axe::ir::Jaxpr& jaxpr, const std::vector<axe::ir::VarId>& vars,
                              int salt) {
  std::vector<HostArray> args;
  for (axe::ir::VarId id : vars) {
    const axe::ir::ShapedArray& aval = jaxpr.aval(id);
    HostArray a{aval, std::vector<double>(static_cast<size_t>(*aval.NumElements()))};
    for (size_t i = 0; i < a.values.size(); ++i) {
      const int64_t k = static_cast<int64_t>(i) * 7 + salt * 3;
      double v = static_cast<double>(k % 11) - 5;
      if (axe::IsFloatingPoint(aval.dtype())) v = v / 4 + 0.125;
      a.values[i] = axe::ir::RoundToDType(v, aval.dtype());
    }
    args.push_back(std::move(a));
  }
  return args;
}

std::vector<HostArray> Inputs(const ClosedJaxpr& closed, int salt) {
  return Values(closed.jaxpr, closed.jaxpr.invars, salt);
}

bool SameValues(const HostArray& a, const HostArray& b) {
  if (a.values.size() != b.values.size()) return false;
  for (size_t i = 0; i < a.values.size(); ++i) {
    const double x = a.values[i], y = b.values[i];
    if (!(std::isnan(x) && std::isnan(y)) && x != y) return false;
  }
  return true;
}

void CheckOutputTypes(const ClosedJaxpr& closed, const std::vector<HostArray>& outs,
                      const std::string& text) {
  AXE_FUZZ_CHECK(outs.size() == closed.jaxpr.outvars.size(), "one output per outvar: " + text);
  for (size_t k = 0; k < outs.size(); ++k) {
    const axe::ir::ShapedArray& want = closed.jaxpr.aval(closed.jaxpr.outvars[k]);
    AXE_FUZZ_CHECK(outs[k].aval.shape() == want.shape() && outs[k].aval.dtype() == want.dtype() &&
                       static_cast<int64_t>(outs[k].values.size()) == *want.NumElements(),
                   "output " + std::to_string(k) + " has its outvar's type: " + text);
  }
}

// Jvp's primal outputs are the program's outputs.
void CheckJvp(const ClosedJaxpr& closed, const std::vector<HostArray>& args,
              const std::vector<HostArray>& outs, const std::string& text) {
  std::vector<bool> with_tangent;
  std::vector<HostArray> in = args;
  for (const HostArray& a : args) {
    const bool floating = axe::IsFloatingPoint(a.aval.dtype());
    with_tangent.push_back(floating);
    if (floating) in.push_back(HostArray{a.aval, std::vector<double>(a.values.size(), 1.0)});
  }
  absl::StatusOr<ClosedJaxpr> jvp = axe::ir::Jvp(closed, with_tangent);
  if (!jvp.ok()) return;
  absl::StatusOr<std::vector<HostArray>> got = axe::ir::EvalJaxpr(*jvp, in);
  if (!got.ok()) return;
  AXE_FUZZ_CHECK(got->size() == 2 * outs.size(), "Jvp returns primals and tangents: " + text);
  for (size_t k = 0; k < outs.size(); ++k) {
    AXE_FUZZ_CHECK(SameValues((*got)[k], outs[k]),
                   "Jvp's primal output " + std::to_string(k) + " is the program's: " + text);
  }
}

// Vmap over two input sets gives the two evaluations stacked on axis 0.
void CheckVmap(const ClosedJaxpr& closed, const std::vector<HostArray>& args,
               const std::vector<HostArray>& outs, const std::string& text) {
  const std::vector<HostArray> args1 = Inputs(closed, 1);
  absl::StatusOr<std::vector<HostArray>> outs1 = axe::ir::EvalJaxpr(closed, args1);
  if (!outs1.ok()) return;
  axe::ir::VmapOptions options;
  options.axis_size = 2;
  absl::StatusOr<ClosedJaxpr> batched = axe::ir::Vmap(closed, options);
  if (!batched.ok()) return;
  std::vector<HostArray> stacked;
  for (size_t i = 0; i < args.size(); ++i) {
    std::vector<int64_t> shape = args[i].aval.shape();
    shape.insert(shape.begin(), 2);
    HostArray s{args[i].aval.WithShape(shape), args[i].values};
    s.values.insert(s.values.end(), args1[i].values.begin(), args1[i].values.end());
    stacked.push_back(std::move(s));
  }
  absl::StatusOr<std::vector<HostArray>> got = axe::ir::EvalJaxpr(*batched, stacked);
  if (!got.ok()) return;
  AXE_FUZZ_CHECK(got->size() == outs.size(), "Vmap keeps the outputs: " + text);
  for (size_t k = 0; k < outs.size(); ++k) {
    HostArray want{(*got)[k].aval, outs[k].values};
    want.values.insert(want.values.end(), (*outs1)[k].values.begin(), (*outs1)[k].values.end());
    AXE_FUZZ_CHECK(SameValues((*got)[k], want),
                   "Vmap's output " + std::to_string(k) + " stacks the two runs: " + text);
  }
}

// The executor runs the program to the interpreter's values (or refuses it with an error).
void CheckExecutor(const ClosedJaxpr& closed, const std::vector<HostArray>& args,
                   const std::vector<HostArray>& outs, const std::string& text) {
  absl::StatusOr<std::vector<HostArray>> got = axe::exec::ExecuteJaxpr(closed, args);
  if (!got.ok()) return;
  AXE_FUZZ_CHECK(got->size() == outs.size(), "the executor keeps the outputs: " + text);
  for (size_t k = 0; k < outs.size(); ++k) {
    AXE_FUZZ_CHECK((*got)[k].values.size() == outs[k].values.size(),
                   "the executor's output " + std::to_string(k) + " size: " + text);
    const bool floating = axe::IsFloatingPoint(outs[k].aval.dtype());
    for (size_t i = 0; i < outs[k].values.size(); ++i) {
      const double x = outs[k].values[i], y = (*got)[k].values[i];
      const bool same = (std::isnan(x) && std::isnan(y)) || x == y ||
                        (floating && std::fabs(x - y) <= 1e-5 * std::max(1.0, std::fabs(x)));
      AXE_FUZZ_CHECK(same, "the executor's output " + std::to_string(k) + " element " +
                               std::to_string(i) + " is the interpreter's: " + text);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<ClosedJaxpr> closed = axe::ir::ParseJaxpr(axe::fuzz::AsText(data, size));
  if (!closed.ok() || Cost(*closed) < 0) return 0;
  // A printed jaxpr's constvars have types, not values: give the top level's generated ones
  // (nested bodies keep none, which Jvp and Vmap must refuse, not crash on).
  closed->consts = Values(closed->jaxpr, closed->jaxpr.constvars, 2);
  if (!axe::ir::CheckJaxpr(*closed).ok()) return 0;
  const std::string text = axe::ir::PrintJaxpr(*closed);
  const std::vector<HostArray> args = Inputs(*closed, 0);
  absl::StatusOr<std::vector<HostArray>> outs = axe::ir::EvalJaxpr(*closed, args);
  if (!outs.ok()) return 0;
  CheckOutputTypes(*closed, *outs, text);
  CheckJvp(*closed, args, *outs, text);
  CheckVmap(*closed, args, *outs, text);
  CheckExecutor(*closed, args, *outs, text);
  return 0;
}
