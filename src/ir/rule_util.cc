#include "rule_util.h"

#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "axe/ir/axis_env.h"

namespace axe::ir::internal {

std::string PyTuple(absl::Span<const int64_t> values) { return FormatTuple(values, true); }

std::string DTypeName(DType t) { return std::string(NumpyName(t)); }

absl::StatusOr<std::vector<std::string>> NaryVma(absl::string_view prim,
                                                 absl::Span<const ShapedArray> avals) {
  const AxisEnv* env = CurrentAxisEnv();
  if (env != nullptr && !env->check_vma) return std::vector<std::string>{};
  if (avals.empty()) return std::vector<std::string>{};
  std::vector<std::string> first = InMeshOrder(avals[0].vma());
  bool all_equal = true;
  for (const ShapedArray& a : avals.subspan(1)) {
    if (InMeshOrder(a.vma()) != first) all_equal = false;
  }
  if (all_equal) return first;
  std::vector<std::string> sets;
  for (const ShapedArray& a : avals) sets.push_back(FrozensetRepr(a.vma()));
  return absl::InvalidArgumentError(absl::StrCat(
      "Primitive ", prim, " requires varying manual axes to match, but got [",
      absl::StrJoin(sets, ", "),
      "]. Please open an issue at https://github.com/jax-ml/jax/issues and as a temporary "
      "workaround pass the check_vma=False argument to `jax.shard_map`"));
}

bool Given(const Params& params, absl::string_view name) {
  auto it = params.find(name);
  return it != params.end() && !it->second.is_none();
}

absl::StatusOr<std::vector<int64_t>> OptionalInts(const Params& params, absl::string_view name,
                                                  std::vector<int64_t> fallback) {
  auto it = params.find(name);
  if (it == params.end() || it->second.is_none()) return fallback;
  return it->second.AsInts(name);
}

absl::StatusOr<std::vector<int64_t>> RequiredInts(const Params& params, absl::string_view prim,
                                                  absl::string_view name) {
  absl::StatusOr<const Param*> p = GetParam(params, prim, name);
  if (!p.ok()) return p.status();
  return (*p)->AsInts(name);
}

absl::StatusOr<int64_t> RequiredInt(const Params& params, absl::string_view prim,
                                    absl::string_view name) {
  absl::StatusOr<const Param*> p = GetParam(params, prim, name);
  if (!p.ok()) return p.status();
  return (*p)->AsInt(name);
}

absl::Status CheckScanLength(int64_t length) {
  if (length >= 0) return absl::OkStatus();
  return TypeError(
      absl::StrCat("invalid scan param length of type int, non-negative int required: ", length));
}

absl::Status ExpectArity(absl::string_view prim, absl::Span<const ShapedArray> avals, size_t n) {
  if (avals.size() == n) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(prim, " takes ", n, " operand", n == 1 ? "" : "s", ", got ", avals.size()));
}

std::string Shapes(absl::Span<const ShapedArray> avals) {
  std::vector<std::string> s;
  for (const ShapedArray& a : avals) s.push_back(PyTuple(a.shape()));
  return absl::StrJoin(s, ", ");
}

}  // namespace axe::ir::internal
