// EvalOnMpi when axe is built without MPI (AXE_MPI off): no MPI client can exist, but the
// backend name is checked all the same.
#include "absl/strings/str_cat.h"
#include "eval_device_bytes.h"

namespace axe::ir::internal {

absl::StatusOr<std::vector<HostArray>> EvalOnMpi(const ClosedJaxpr&, absl::Span<const HostArray>,
                                                 runtime::Client& client) {
  return absl::UnimplementedError(absl::StrCat("axe was built without MPI; the ", client.backend(),
                                               " client cannot run jaxprs"));
}

}  // namespace axe::ir::internal
