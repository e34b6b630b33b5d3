// bitcast_convert_type: the executor holds every value in its dtype's own little-endian bytes,
// as XLA:CPU does, so reading the bits as another type relabels the storage.
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

absl::StatusOr<std::optional<BuiltKernel>> BuildBitcast(const EqnView& v) {
  BuiltKernel k;
  k.description = "relabel";
  k.relabel = true;
  const ir::ShapedArray out = v.out[0];
  k.kernel = [out](const RunContext&, absl::Span<const Value> in,
                   std::vector<Value>& res) -> absl::Status {
    res[0] = in[0].Relabeled(out);
    return absl::OkStatus();
  };
  return k;
}

}  // namespace

void AddBitcastKernels(KernelTable& table) { table["bitcast_convert_type"] = BuildBitcast; }

}  // namespace axe::exec::internal
