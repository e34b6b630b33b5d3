#include "axe/ir/linear.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "rule_util.h"

namespace axe::ir {

absl::StatusOr<Tracer> ZerosLike(Builder& builder, const ShapedArray& aval) {
  Tracer zero = builder.Scalar(0, aval.dtype());
  AXE_ASSIGN_OR_RETURN(Tracer z, BroadcastInDim(zero, aval.shape(), {}));
  if (VarianceTypingOn() && !aval.vma().empty()) {
    AXE_ASSIGN_OR_RETURN(z, Pvary(z, aval.vma()));
  }
  return z;
}

void DefLinear2(const Primitive& prim, TransposeRule transpose) {
  const Primitive* p = &prim;
  RegisterJvp(prim,
              [p](Builder& b, absl::Span<const Tracer> primals,
                  absl::Span<const std::optional<Tracer>> tangents,
                  const Params& params) -> absl::StatusOr<JvpResult> {
                AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*p, primals, params));
                bool all_zero = true;
                for (const auto& t : tangents) all_zero = all_zero && !t.has_value();
                JvpResult r{outs, std::vector<std::optional<Tracer>>(outs.size())};
                if (all_zero) return r;
                std::vector<Tracer> ts;
                for (size_t i = 0; i < tangents.size(); ++i) {
                  if (tangents[i]) {
                    ts.push_back(*tangents[i]);
                  } else {
                    AXE_ASSIGN_OR_RETURN(Tracer z, ZerosLike(b, primals[i].aval));
                    ts.push_back(z);
                  }
                }
                AXE_ASSIGN_OR_RETURN(std::vector<Tracer> touts, b.Bind(*p, ts, params));
                for (size_t i = 0; i < touts.size(); ++i) r.tangents_out[i] = touts[i];
                return r;
              });
  RegisterTranspose(prim, std::move(transpose));
}

}  // namespace axe::ir
