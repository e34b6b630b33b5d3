// The equations no typed kernel takes: the primitive's impl rule on the reference interpreter's
// values, converted at the edges (integers through their bits, floats exactly).
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitive.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

// The matrix decompositions the interpreter runs cost about n^3 per matrix, not a constant per
// output element: their multiply-adds, read off the output types (qr's q and r, eigh's v, svd's
// s and, with compute_uv, u and vt; cholesky's and lu's factor). 0 for other primitives.
int64_t MatrixWork(const std::string& name, const std::vector<ir::ShapedArray>& out) {
  if (out.empty() || out[0].rank() < 1) return 0;
  auto last = [](const ir::ShapedArray& a, size_t from_end) {
    return a.rank() < from_end ? int64_t{1} : a.shape()[a.rank() - from_end];
  };
  const int64_t elements = NumElements(out[0]);
  if (name == "qr" && out.size() >= 2) {  // m x k times k x n, per matrix of m x k
    return 4 * elements * last(out[1], 2) * last(out[1], 1) / std::max<int64_t>(1, last(out[0], 1));
  }
  if (name == "eigh" || name == "cholesky" || name == "lu") return 9 * elements * last(out[0], 1);
  if (name == "svd") {
    const int64_t k = last(out[0], 1);  // s: min(m, n); u and vt give max(m, n)
    const int64_t wide = out.size() == 3 ? std::max(last(out[1], 2), last(out[2], 1)) : k;
    return 12 * elements * k * wide;
  }
  return 0;
}

}  // namespace

BuiltKernel FallbackKernel(const ir::Eqn& eqn, const std::vector<ir::ShapedArray>& out) {
  BuiltKernel k;
  k.description = "fallback (interpreter)";
  int64_t elements = 0;
  for (const ir::ShapedArray& a : out) elements += NumElements(a);
  k.work = elements * 64 + MatrixWork(eqn.primitive->name(), out);
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
