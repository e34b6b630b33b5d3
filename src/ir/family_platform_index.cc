// platform_index (JAX's platform_index_p: what `lax.platform_dependent` binds, and so
// `jnp.trace` and `jnp.diagonal`, which pick a branch for Mosaic), with every rule. It has no
// operands; `platforms` is a tuple of platform-name tuples, with None for the default branch,
// and its value (i32[]) is the position of the tuple naming the platform the program runs on,
// else of None. axe runs programs on the CPU ("cpu"). Its tangent is zero; with no operands
// there is nothing to batch or transpose.
#include <string>

#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace platform_index_family {

constexpr const char* kPlatform = "cpu";

// The branch for kPlatform: the tuple naming it, else the default (None).
absl::StatusOr<int64_t> BranchIndex(const Params& params) {
  auto it = params.find("platforms");
  if (it == params.end() || it->second.kind() != Param::Kind::kTuple) {
    return absl::InvalidArgumentError("platform_index needs a tuple param `platforms`");
  }
  const std::vector<Param>& platforms = it->second.items();
  std::optional<int64_t> fallback;
  for (size_t i = 0; i < platforms.size(); ++i) {
    const Param& p = platforms[i];
    if (p.is_none()) {
      if (!fallback) fallback = static_cast<int64_t>(i);
      continue;
    }
    for (const Param& name : p.items()) {
      if (name.kind() == Param::Kind::kString && name.text() == kPlatform) {
        return static_cast<int64_t>(i);
      }
    }
  }
  if (fallback) return *fallback;
  return absl::InvalidArgumentError(
      absl::StrCat("platform_index: no branch for platform '", kPlatform,
                   "' and no default in platforms=", it->second.ToString()));
}

absl::StatusOr<std::vector<ShapedArray>> PlatformIndexRule(absl::Span<const ShapedArray> avals,
                                                           const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("platform_index", avals, 0));
  AXE_RETURN_IF_ERROR(BranchIndex(params).status());
  return One(ShapedArray({}, DType::kS32));
}

absl::StatusOr<std::vector<HostArray>> PlatformIndexImpl(absl::Span<const HostArray>,
                                                         const Params& params) {
  AXE_ASSIGN_OR_RETURN(int64_t index, BranchIndex(params));
  return OneArray(HostArray{ShapedArray({}, DType::kS32), {static_cast<double>(index)}});
}

}  // namespace platform_index_family

void DefinePlatformIndex(BuiltinPrimitives& p) {
  Primitive::Options o;
  o.name = "platform_index";
  absl::StatusOr<const Primitive*> prim = DefinePrimitive(std::move(o));
  AXE_CHECK(prim.ok()) << prim.status();  // a fixed identifier, defined once
  p.platform_index = *prim;
}

void RegisterPlatformIndexRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.platform_index, platform_index_family::PlatformIndexRule);
  RegisterImpl(*p.platform_index, platform_index_family::PlatformIndexImpl);
  RegisterJvp(*p.platform_index, ZeroTangentJvpRule(p.platform_index));
}

}  // namespace axe::ir::internal
