// Defines the built-in primitives, family by family (family_<name>.cc: each family's
// definitions with JAX's params and printing, then every rule of each primitive), and the
// helpers those definitions share.
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "rule_util.h"

namespace axe::ir {
namespace internal {

const Primitive* DefineBuiltin(Primitive::Options options) {
  absl::StatusOr<const Primitive*> p = DefinePrimitive(std::move(options));
  AXE_CHECK(p.ok()) << p.status();  // the built-in names are fixed identifiers, defined once
  return *p;
}

const Primitive* DefineOneResult(std::string name, std::vector<ParamSpec> params) {
  Primitive::Options o;
  o.name = std::move(name);
  o.params = std::move(params);
  return DefineBuiltin(std::move(o));
}

std::function<Params(const Params&)> DropIfNone(std::vector<std::string> names) {
  return [names](const Params& params) {
    Params shown = params;
    for (const std::string& n : names) {
      auto it = shown.find(n);
      if (it != shown.end() && it->second.is_none()) shown.erase(it);
    }
    return shown;
  };
}

std::function<void(Params&, absl::Span<const ShapedArray>)> DefaultNone(
    std::vector<std::string> names) {
  return [names](Params& params, absl::Span<const ShapedArray>) {
    for (const std::string& n : names) params.try_emplace(n, Param::None());
  };
}

const Primitive* DefineUnaryWithAccuracy(std::string name) {
  Primitive::Options o;
  o.name = std::move(name);
  o.printed_params = DropIfNone({"accuracy"});
  o.complete_parsed_params = DefaultNone({"accuracy"});
  return DefineBuiltin(std::move(o));
}

Primitive::Options MultiResultOptions(std::string name, std::vector<ParamSpec> params) {
  Primitive::Options o;
  o.name = std::move(name);
  o.multiple_results = true;
  o.params = std::move(params);
  return o;
}

}  // namespace internal

namespace {

BuiltinPrimitives DefineAll() {
  BuiltinPrimitives p;
  internal::DefineElementwise(p);
  internal::DefineReduce(p);
  internal::DefineShape(p);
  internal::DefineDot(p);
  internal::DefineControlFlow(p);
  internal::DefineShardMap(p);
  internal::DefineCollectives(p);
  internal::DefineIndexing(p);
  internal::DefineConv(p);
  internal::DefineSort(p);
  internal::DefineRemat(p);
  internal::DefineReshard(p);
  internal::DefineCopy(p);
  internal::DefineReducePrecision(p);
  internal::DefineWhile(p);
  internal::DefineMath(p);
  internal::DefinePrng(p);
  internal::DefineBitcast(p);
  internal::DefineStack(p);
  internal::DefineTotalOrder(p);
  internal::DefinePlatformIndex(p);
  internal::DefineWindow(p);
  internal::DefineLinalg(p);
  internal::DefineCheckpointName(p);
  internal::DefineDebug(p);
  return p;
}

}  // namespace

const BuiltinPrimitives& Builtins() {
  static const BuiltinPrimitives* builtins = [] {
    auto* p = new BuiltinPrimitives(DefineAll());
    internal::RegisterElementwiseRules(*p);
    internal::RegisterReduceRules(*p);
    internal::RegisterShapeRules(*p);
    internal::RegisterDotRules(*p);
    internal::RegisterControlFlowRules(*p);
    internal::RegisterShardMapRules(*p);
    internal::RegisterCollectiveRules(*p);
    internal::RegisterConvRules(*p);
    internal::RegisterIndexingRules(*p);
    internal::RegisterSortRules(*p);
    internal::RegisterRematRules(*p);
    internal::RegisterReshardRules(*p);
    internal::RegisterCopyRules(*p);
    internal::RegisterReducePrecisionRules(*p);
    internal::RegisterWhileRules(*p);
    internal::RegisterMathRules(*p);
    internal::RegisterPrngRules(*p);
    internal::RegisterBitcastRules(*p);
    internal::RegisterStackRules(*p);
    internal::RegisterTotalOrderRules(*p);
    internal::RegisterPlatformIndexRules(*p);
    internal::RegisterWindowRules(*p);
    internal::RegisterLinalgRules(*p);
    internal::RegisterCheckpointNameRules(*p);
    internal::RegisterDebugRules(*p);
    return p;
  }();
  return *builtins;
}

}  // namespace axe::ir
