#include "axe/ir/primitive.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "axe/ir/primitives.h"
#include "python_text.h"
#include "rule_util.h"

namespace axe::ir {
namespace {

struct Rules {
  ImplRule impl;
  AbstractEvalRule abstract_eval;
  JvpRule jvp;
  TransposeRule transpose;
  BatchingRule batching;
  LoweringRule default_lowering;
  std::map<std::string, LoweringRule, std::less<>> lowerings;
};

struct Registry {
  absl::Mutex mu;
  std::map<std::string, std::unique_ptr<Primitive>, std::less<>> primitives ABSL_GUARDED_BY(mu);
  absl::flat_hash_map<const Primitive*, Rules> rules ABSL_GUARDED_BY(mu);
  std::set<std::string, std::less<>> platforms ABSL_GUARDED_BY(mu) = {"cpu", "cuda", "rocm", "tpu"};
};

Registry& GetRegistry() {
  static Registry* registry = new Registry;  // never destroyed: primitives outlive main
  return *registry;
}

template <typename Rule>
absl::StatusOr<Rule> Lookup(const Primitive& prim, Rule Rules::*field, absl::string_view what) {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  auto it = r.rules.find(&prim);
  if (it == r.rules.end() || !(it->second.*field)) {
    return absl::UnimplementedError(absl::StrCat(what));
  }
  return it->second.*field;
}

template <typename Rule>
Rule Store(const Primitive& prim, Rule Rules::*field, Rule rule) {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  Rule previous = std::move(r.rules[&prim].*field);
  r.rules[&prim].*field = std::move(rule);
  return previous;
}

}  // namespace

namespace internal {

struct PrimitiveFactory {
  static std::unique_ptr<Primitive> Make(Primitive::Options options) {
    return std::unique_ptr<Primitive>(new Primitive(std::move(options)));
  }
};

absl::StatusOr<const Primitive*> DefinePrimitive(Primitive::Options options) {
  if (!internal::IsPrimitiveName(options.name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "primitive name '", options.name, "' is not an identifier (or identifiers joined by '-')"));
  }
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  if (r.primitives.count(options.name) != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("a primitive named '", options.name, "' is already registered"));
  }
  std::string name = options.name;
  std::unique_ptr<Primitive> prim = PrimitiveFactory::Make(std::move(options));
  const Primitive* p = prim.get();
  r.primitives.emplace(std::move(name), std::move(prim));
  return p;
}

}  // namespace internal

absl::StatusOr<const Primitive*> Primitive::Define(Options options) {
  Builtins();
  return internal::DefinePrimitive(std::move(options));
}

const Primitive* Primitive::Find(absl::string_view name) {
  Builtins();
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  auto it = r.primitives.find(name);
  return it == r.primitives.end() ? nullptr : it->second.get();
}

std::vector<const Primitive*> Primitive::All() {
  Builtins();
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  std::vector<const Primitive*> out;
  for (const auto& [name, p] : r.primitives) out.push_back(p.get());
  return out;
}

ImplRule RegisterImpl(const Primitive& prim, ImplRule rule) {
  return Store(prim, &Rules::impl, std::move(rule));
}
AbstractEvalRule RegisterAbstractEval(const Primitive& prim, AbstractEvalRule rule) {
  return Store(prim, &Rules::abstract_eval, std::move(rule));
}
JvpRule RegisterJvp(const Primitive& prim, JvpRule rule) {
  return Store(prim, &Rules::jvp, std::move(rule));
}
TransposeRule RegisterTranspose(const Primitive& prim, TransposeRule rule) {
  return Store(prim, &Rules::transpose, std::move(rule));
}
BatchingRule RegisterBatching(const Primitive& prim, BatchingRule rule) {
  return Store(prim, &Rules::batching, std::move(rule));
}

void RegisterPlatform(absl::string_view platform) {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  r.platforms.emplace(platform);
}

std::vector<std::string> KnownPlatforms() {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  return std::vector<std::string>(r.platforms.begin(), r.platforms.end());
}

absl::Status RegisterLowering(const Primitive& prim, LoweringRule rule,
                              std::optional<absl::string_view> platform) {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  Rules& rules = r.rules[&prim];
  if (!platform.has_value()) {
    rules.default_lowering = std::move(rule);
    return absl::OkStatus();
  }
  std::vector<std::string> targets;
  if (*platform == "gpu") {
    targets = {"cuda", "rocm"};
  } else if (r.platforms.count(*platform) != 0) {
    targets = {std::string(*platform)};
  } else {
    std::vector<std::string> known(r.platforms.begin(), r.platforms.end());
    known.push_back("gpu");
    std::sort(known.begin(), known.end());
    return absl::UnimplementedError(
        absl::StrCat("Registering an MLIR lowering rule for primitive ", prim.name(),
                     " for an unknown platform ", *platform,
                     ". Known platforms are: ", absl::StrJoin(known, ", "), "."));
  }
  for (const std::string& t : targets) rules.lowerings[t] = rule;
  return absl::OkStatus();
}

absl::StatusOr<ImplRule> GetImplRule(const Primitive& prim) {
  return Lookup(prim, &Rules::impl,
                absl::StrCat("Evaluation rule for '", prim.name(), "' not implemented"));
}
absl::StatusOr<AbstractEvalRule> GetAbstractEvalRule(const Primitive& prim) {
  return Lookup(prim, &Rules::abstract_eval,
                absl::StrCat("Abstract evaluation for '", prim.name(), "' not implemented"));
}
absl::StatusOr<JvpRule> GetJvpRule(const Primitive& prim) {
  return Lookup(prim, &Rules::jvp,
                absl::StrCat("Differentiation rule for '", prim.name(), "' not implemented"));
}
absl::StatusOr<TransposeRule> GetTransposeRule(const Primitive& prim) {
  return Lookup(prim, &Rules::transpose,
                absl::StrCat("Transpose rule (for reverse-mode differentiation) for '", prim.name(),
                             "' not implemented"));
}
absl::StatusOr<BatchingRule> GetBatchingRule(const Primitive& prim) {
  return Lookup(prim, &Rules::batching,
                absl::StrCat("Batching rule for '", prim.name(), "' not implemented"));
}

absl::StatusOr<LoweringRule> GetLoweringRule(const Primitive& prim, absl::string_view platform) {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  auto it = r.rules.find(&prim);
  if (it != r.rules.end()) {
    auto p = it->second.lowerings.find(platform);
    if (p != it->second.lowerings.end()) return p->second;
    if (it->second.default_lowering) return it->second.default_lowering;
  }
  return absl::UnimplementedError(absl::StrCat("MLIR translation rule for primitive '", prim.name(),
                                               "' not found for platform ", platform));
}

absl::StatusOr<std::vector<ShapedArray>> AbstractEval(const Primitive& prim,
                                                      absl::Span<const ShapedArray> avals,
                                                      const Params& params) {
  absl::StatusOr<AbstractEvalRule> rule = GetAbstractEvalRule(prim);
  if (!rule.ok()) return rule.status();
  absl::StatusOr<std::vector<ShapedArray>> out = (*rule)(avals, params);
  if (!out.ok()) return out.status();
  if (!prim.multiple_results() && out->size() != 1) {
    return absl::InternalError(absl::StrCat("the abstract evaluation rule of '", prim.name(),
                                            "' returned ", out->size(),
                                            " types for a single-result primitive"));
  }
  return out;
}

}  // namespace axe::ir
