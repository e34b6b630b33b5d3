// Defines the built-in primitives with their params schemas and JAX's printing conventions,
// then registers their rules.
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/primitives.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir {
namespace {

using Options = Primitive::Options;

const Primitive* Define(Options options) {
  absl::StatusOr<const Primitive*> p = internal::DefinePrimitive(std::move(options));
  AXE_CHECK(p.ok()) << p.status();  // the built-in names are fixed identifiers, defined once
  return *p;
}

const Primitive* Simple(std::string name, std::vector<ParamSpec> params = {}) {
  Options o;
  o.name = std::move(name);
  o.params = std::move(params);
  return Define(std::move(o));
}

// Drops params equal to None (JAX's pp rules drop accuracy=None and sharding=None).
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

const Primitive* UnaryWithAccuracy(std::string name) {
  Options o;
  o.name = std::move(name);
  o.printed_params = DropIfNone({"accuracy"});
  o.complete_parsed_params = DefaultNone({"accuracy"});
  return Define(std::move(o));
}

const Primitive* BroadcastInDimPrimitive() {
  Options o;
  o.name = "broadcast_in_dim";
  o.params = {{"shape", ParamType::kInts}, {"broadcast_dimensions", ParamType::kInts}};
  // JAX: shape and sharding are implied by the binder's type; () dimensions are not shown.
  o.printed_params = [](const Params& params) {
    Params shown = params;
    shown.erase("shape");
    shown.erase("sharding");
    auto it = shown.find("broadcast_dimensions");
    if (it != shown.end() && it->second.kind() == Param::Kind::kTuple &&
        it->second.items().empty()) {
      shown.erase(it);
    }
    return shown;
  };
  o.complete_parsed_params = [](Params& params, absl::Span<const ShapedArray> outs) {
    if (outs.size() == 1) params.try_emplace("shape", Param::Ints(outs[0].shape()));
    params.try_emplace("broadcast_dimensions", Param::Tuple({}));
    params.try_emplace("sharding", Param::None());
  };
  return Define(std::move(o));
}

absl::StatusOr<std::optional<AxisEnv>> ShardMapAxisEnv(const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* mesh_param, GetParam(params, "shard_map", "mesh"));
  AXE_ASSIGN_OR_RETURN(sharding::Mesh mesh, mesh_param->AsMesh("mesh"));
  bool check_vma = true;
  if (auto it = params.find("check_vma"); it != params.end()) {
    AXE_ASSIGN_OR_RETURN(check_vma, it->second.AsBool("check_vma"));
  }
  AxisEnv env;
  if (const AxisEnv* outer = CurrentAxisEnv()) env = *outer;
  env.check_vma = check_vma;
  for (const sharding::MeshAxis& a : mesh.axes()) {
    bool known = false;
    for (const ManualAxis& m : env.axes) known = known || m.name == a.name;
    if (!known) env.axes.push_back({a.name, a.size});
  }
  return std::optional<AxisEnv>(std::move(env));
}

void DefineElementwise(BuiltinPrimitives& p) {
  p.add = Simple("add");
  p.sub = Simple("sub");
  p.mul = Simple("mul");
  p.div = Simple("div");
  p.max = Simple("max");
  p.min = Simple("min");
  p.pow = Simple("pow");
  p.neg = Simple("neg");
  p.abs = Simple("abs");
  p.sign = Simple("sign");
  p.sin = UnaryWithAccuracy("sin");
  p.cos = UnaryWithAccuracy("cos");
  p.exp = UnaryWithAccuracy("exp");
  p.log = UnaryWithAccuracy("log");
  p.tanh = UnaryWithAccuracy("tanh");
  p.sqrt = UnaryWithAccuracy("sqrt");
  p.eq = Simple("eq");
  p.ne = Simple("ne");
  p.lt = Simple("lt");
  p.le = Simple("le");
  p.gt = Simple("gt");
  p.ge = Simple("ge");
}

void DefineStructural(BuiltinPrimitives& p) {
  Options convert;
  convert.name = "convert_element_type";
  convert.params = {{"new_dtype", ParamType::kDType}};
  convert.printed_params = DropIfNone({"sharding"});
  convert.complete_parsed_params = DefaultNone({"sharding"});
  p.convert_element_type = Define(std::move(convert));
  p.broadcast_in_dim = BroadcastInDimPrimitive();
  p.reshape = Simple("reshape", {{"new_sizes", ParamType::kInts}});
  p.squeeze = Simple("squeeze", {{"dimensions", ParamType::kInts}});
  p.transpose = Simple("transpose", {{"permutation", ParamType::kInts}});
  p.reduce_sum = Simple("reduce_sum", {{"axes", ParamType::kInts}});
  p.reduce_max = Simple("reduce_max", {{"axes", ParamType::kInts}});
  p.dot_general = Simple("dot_general", {{"dimension_numbers", ParamType::kAny}});
  p.slice =
      Simple("slice", {{"start_indices", ParamType::kInts}, {"limit_indices", ParamType::kInts}});
  p.dynamic_slice = Simple("dynamic_slice", {{"slice_sizes", ParamType::kInts}});
  p.dynamic_update_slice = Simple("dynamic_update_slice");
  p.concatenate = Simple("concatenate", {{"dimension", ParamType::kInt}});
  p.select_n = Simple("select_n");
  p.iota = Simple(
      "iota",
      {{"dtype", ParamType::kDType}, {"shape", ParamType::kInts}, {"dimension", ParamType::kInt}});
  p.with_layout_constraint = Simple("layout_constraint");
}

Options Multi(std::string name, std::vector<ParamSpec> params) {
  Options o;
  o.name = std::move(name);
  o.multiple_results = true;
  o.params = std::move(params);
  return o;
}

void DefineCalls(BuiltinPrimitives& p) {
  Options jit = Multi("jit", {{"jaxpr", ParamType::kJaxpr}});
  jit.call_primitive = true;
  jit.params_printed_first = {"name"};
  jit.param_named_like_operands = "jaxpr";
  p.jit = Define(std::move(jit));
  Options closed_call = Multi("closed_call", {{"call_jaxpr", ParamType::kJaxpr}});
  closed_call.call_primitive = true;
  p.closed_call = Define(std::move(closed_call));
  p.cond = Define(Multi("cond", {{"branches", ParamType::kJaxprs}}));
  p.scan = Define(Multi("scan", {{"jaxpr", ParamType::kJaxpr},
                                 {"length", ParamType::kInt},
                                 {"num_consts", ParamType::kInt},
                                 {"num_carry", ParamType::kInt}}));
  Options shard_map = Multi("shard_map", {{"jaxpr", ParamType::kJaxpr},
                                          {"mesh", ParamType::kMesh},
                                          {"in_specs", ParamType::kPartitionSpecs},
                                          {"out_specs", ParamType::kPartitionSpecs}});
  shard_map.body_axis_env = ShardMapAxisEnv;
  p.shard_map = Define(std::move(shard_map));
}

void DefineCollectives(BuiltinPrimitives& p) {
  auto collective = [&](std::string name, bool multiple, std::string axes_param) {
    Options o = Multi(std::move(name), {{std::move(axes_param), ParamType::kAxisNames}});
    o.multiple_results = multiple;
    return Define(std::move(o));
  };
  p.psum = collective("psum", true, "axes");
  p.psum_invariant = collective("psum_invariant", true, "axes");
  p.pmax = collective("pmax", true, "axes");
  p.pmin = collective("pmin", true, "axes");
  p.pvary = collective("pvary", true, "axes");
  p.all_gather = collective("all_gather", false, "axis_name");
  p.all_gather_invariant = collective("all_gather_invariant", false, "axis_name");
  p.reduce_scatter = collective("reduce_scatter", false, "axis_name");
  p.all_to_all = collective("all_to_all", false, "axis_name");
  p.ppermute = collective("ppermute", false, "axis_name");
  p.axis_index = collective("axis_index", false, "axis_name");
}

void DefineMore(BuiltinPrimitives& p) {
  p.rem = Simple("rem");
  p.add_any = Simple("add_any");
  p.and_ = Simple("and");
  p.or_ = Simple("or");
  p.not_ = Simple("not");
  p.integer_pow = Simple("integer_pow", {{"y", ParamType::kInt}});
  p.square = Simple("square");
  p.rsqrt = UnaryWithAccuracy("rsqrt");
  p.log1p = UnaryWithAccuracy("log1p");
  p.logistic = UnaryWithAccuracy("logistic");
  p.is_finite = Simple("is_finite");
  p.round = Simple("round", {{"rounding_method", ParamType::kInt}});
  p.floor = Simple("floor");
  p.ceil = Simple("ceil");
  p.clamp = Simple("clamp");
  p.stop_gradient = Simple("stop_gradient");
  p.reduce_min = Simple("reduce_min", {{"axes", ParamType::kInts}});
  p.reduce_prod = Simple("reduce_prod", {{"axes", ParamType::kInts}});
  p.argmax = Simple("argmax", {{"axes", ParamType::kInts}, {"index_dtype", ParamType::kDType}});
  p.argmin = Simple("argmin", {{"axes", ParamType::kInts}, {"index_dtype", ParamType::kDType}});
  p.reduce_or = Simple("reduce_or", {{"axes", ParamType::kInts}});
  p.reduce_and = Simple("reduce_and", {{"axes", ParamType::kInts}});
  p.reduce_xor = Simple("reduce_xor", {{"axes", ParamType::kInts}});
  auto cumulative = [](std::string name) {
    return Simple(std::move(name), {{"axis", ParamType::kInt}, {"reverse", ParamType::kBool}});
  };
  p.cumsum = cumulative("cumsum");
  p.cumprod = cumulative("cumprod");
  p.cummax = cumulative("cummax");
  p.cummin = cumulative("cummin");
  p.cumlogsumexp = cumulative("cumlogsumexp");
  p.rev = Simple("rev", {{"dimensions", ParamType::kInts}});
  p.split = Define(Multi("split", {{"axis", ParamType::kInt}, {"sizes", ParamType::kInts}}));
  p.pad = Simple("pad", {{"padding_config", ParamType::kAny}});
  Options custom_jvp = Multi("custom_jvp_call", {{"call_jaxpr", ParamType::kJaxpr}});
  custom_jvp.call_primitive = true;
  custom_jvp.params_printed_first = {"name"};
  p.custom_jvp_call = Define(std::move(custom_jvp));
  Options custom_vjp = Multi("custom_vjp_call", {{"call_jaxpr", ParamType::kJaxpr}});
  custom_vjp.call_primitive = true;
  custom_vjp.params_printed_first = {"name"};
  p.custom_vjp_call = Define(std::move(custom_vjp));
}

BuiltinPrimitives DefineAll() {
  BuiltinPrimitives p;
  DefineElementwise(p);
  DefineMore(p);
  DefineStructural(p);
  DefineCalls(p);
  DefineCollectives(p);
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
  return p;
}

}  // namespace

const BuiltinPrimitives& Builtins() {
  static const BuiltinPrimitives* builtins = [] {
    auto* p = new BuiltinPrimitives(DefineAll());
    internal::RegisterElementwiseRules(*p);
    internal::RegisterShapeRules(*p);
    internal::RegisterCallRules(*p);
    internal::RegisterCollectiveRules(*p);
    internal::RegisterCollectiveTransposes(*p);
    internal::RegisterLinearRules(*p);
    internal::RegisterMoreLinearRules(*p);
    internal::RegisterRevSplitPad(*p);
    internal::RegisterConvRules(*p);
    internal::RegisterBuiltinImplRules(*p);
    internal::RegisterBuiltinJvpRules(*p);
    internal::RegisterBuiltinBatchingRules(*p);
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
    return p;
  }();
  return *builtins;
}

}  // namespace axe::ir
