#include "axe/ir/axis_env.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"

namespace axe::ir {
namespace {

std::vector<AxisEnv>& Stack() {
  thread_local std::vector<AxisEnv> stack;
  return stack;
}

}  // namespace

ScopedAxisEnv::ScopedAxisEnv(AxisEnv env) { Stack().push_back(std::move(env)); }
ScopedAxisEnv::~ScopedAxisEnv() { Stack().pop_back(); }

const AxisEnv* CurrentAxisEnv() { return Stack().empty() ? nullptr : &Stack().back(); }

bool VarianceTypingOn() {
  const AxisEnv* env = CurrentAxisEnv();
  return env != nullptr && env->check_vma;
}

absl::StatusOr<int64_t> ManualAxisSize(absl::string_view name, absl::string_view api) {
  if (const AxisEnv* env = CurrentAxisEnv()) {
    for (const ManualAxis& a : env->axes) {
      if (a.name == name) return a.size;
    }
  }
  return absl::NotFoundError(absl::StrCat("Found an unbound axis name: ", name,
                                          ". To fix this, please call ", api,
                                          " under `jax.shard_map`."));
}

absl::StatusOr<int64_t> ManualAxesSize(absl::Span<const std::string> names, absl::string_view api) {
  int64_t product = 1;
  for (const std::string& n : names) {
    absl::StatusOr<int64_t> size = ManualAxisSize(n, api);
    if (!size.ok()) return size.status();
    std::optional<int64_t> p = CheckedMul(product, *size);
    if (!p) return absl::InvalidArgumentError("the product of the axis sizes overflows");
    product = *p;
  }
  return product;
}

std::vector<std::string> InMeshOrder(std::vector<std::string> names) {
  const AxisEnv* env = CurrentAxisEnv();
  auto rank = [&](const std::string& n) -> size_t {
    if (env != nullptr) {
      for (size_t i = 0; i < env->axes.size(); ++i) {
        if (env->axes[i].name == n) return i;
      }
    }
    return SIZE_MAX;
  };
  std::stable_sort(names.begin(), names.end(),
                   [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  return names;
}

std::vector<std::string> VmaUnion(absl::Span<const std::string> a,
                                  absl::Span<const std::string> b) {
  std::vector<std::string> out(a.begin(), a.end());
  for (const std::string& n : b) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return InMeshOrder(std::move(out));
}

std::vector<std::string> VmaMinus(absl::Span<const std::string> a,
                                  absl::Span<const std::string> b) {
  std::vector<std::string> out;
  for (const std::string& n : a) {
    if (std::find(b.begin(), b.end(), n) == b.end()) out.push_back(n);
  }
  return InMeshOrder(std::move(out));
}

std::string FrozensetRepr(absl::Span<const std::string> names) {
  if (names.empty()) return "frozenset()";
  std::vector<std::string> sorted = InMeshOrder({names.begin(), names.end()});
  return absl::StrCat("frozenset({",
                      absl::StrJoin(sorted, ", ",
                                    [](std::string* out, const std::string& n) {
                                      absl::StrAppend(out, "'", n, "'");
                                    }),
                      "})");
}

std::string NamesTupleRepr(absl::Span<const std::string> names) {
  std::string body = absl::StrJoin(names, ", ", [](std::string* out, const std::string& n) {
    absl::StrAppend(out, "'", n, "'");
  });
  return absl::StrCat("(", body, names.size() == 1 ? ",)" : ")");
}

}  // namespace axe::ir
