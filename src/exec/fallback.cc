// The equations no typed kernel takes: the primitive's impl rule on the reference interpreter's
// values, converted at the edges (integers through their bits, floats exactly).
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitive.h"
#include "exec/plan.h"

namespace axe::exec::internal {

BuiltKernel FallbackKernel(const ir::Eqn& eqn, const std::vector<ir::ShapedArray>& out) {
  BuiltKernel k;
  k.description = "interpreter";
  for (size_t i = 0; i < out.size(); ++i) {
    absl::StrAppend(&k.description, i == 0 ? " -> " : ", ", out[i].ShortString());
  }
  int64_t elements = 0;
  for (const ir::ShapedArray& a : out) elements += NumElements(a);
  k.work = elements * 64;
  const ir::Primitive* prim = eqn.primitive;
  ir::Params params = eqn.params;
  k.kernel = [prim, params](const RunContext&, absl::Span<const Value> in,
                            std::vector<Value>& result) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(ir::ImplRule rule, ir::GetImplRule(*prim));
    std::vector<ir::HostArray> args;
    args.reserve(in.size());
    for (const Value& v : in) args.push_back(ToHostArray(v));
    AXE_ASSIGN_OR_RETURN(std::vector<ir::HostArray> values, rule(args, params));
    if (values.size() != result.size()) {
      return absl::InternalError(absl::StrCat("the impl rule of ", prim->name(), " returned ",
                                              values.size(), " values for ", result.size(),
                                              " results"));
    }
    for (size_t i = 0; i < values.size(); ++i) {
      AXE_ASSIGN_OR_RETURN(result[i], FromHostArray(values[i]));
    }
    return absl::OkStatus();
  };
  return k;
}

}  // namespace axe::exec::internal
