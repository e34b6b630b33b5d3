// JVP rules of cumprod, cummax and cummin. The tangent runs along the axis in a scan whose
// carry is the running primal value and its tangent, started at the first element:
//   cumprod  (p, dp) then (x, t)  ->  (p * x, dp * x + p * t)
//   cummax   (m, dm) then (x, t)  ->  (max(m, x), t where x > m, dm where x < m,
//                                     (dm + t) / 2 where x == m)
// (cummin likewise with <). JAX differentiates its associative scan of the same combination
// instead; the tangents are equal, except that at ties JAX's tree may pair the tied elements
// differently before halving. The scan's body is linear in the tangent carry and the tangent
// input, so the result linearizes and transposes as other scans do.
#include <numeric>
#include <vector>

#include "axe/base/status_macros.h"
#include "axe/ir/control_flow.h"
#include "axe/ir/primitives.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

enum class Running { kProd, kMax, kMin };

// One step of the scan: the next carry (value, tangent) and the tangent as the step's output.
absl::StatusOr<std::vector<Tracer>> Step(Builder& body, Running op, const Tracer& m,
                                         const Tracer& dm, const Tracer& x, const Tracer& t) {
  const BuiltinPrimitives& p = Builtins();
  if (op == Running::kProd) {
    AXE_ASSIGN_OR_RETURN(Tracer next, Op(*p.mul, {m, x}));
    AXE_ASSIGN_OR_RETURN(Tracer carried, Op(*p.mul, {dm, x}));
    AXE_ASSIGN_OR_RETURN(Tracer fresh, Op(*p.mul, {m, t}));
    AXE_ASSIGN_OR_RETURN(Tracer dnext, Op(*p.add, {carried, fresh}));
    return std::vector<Tracer>{next, dnext, dnext};
  }
  const bool is_max = op == Running::kMax;
  AXE_ASSIGN_OR_RETURN(Tracer next, Op(is_max ? *p.max : *p.min, {m, x}));
  AXE_ASSIGN_OR_RETURN(Tracer takes, Op(is_max ? *p.gt : *p.lt, {x, m}));
  AXE_ASSIGN_OR_RETURN(Tracer ties, Op(*p.eq, {x, m}));
  AXE_ASSIGN_OR_RETURN(Tracer sum, Op(*p.add, {dm, t}));
  AXE_ASSIGN_OR_RETURN(Tracer half, Op(*p.mul, {sum, body.Scalar(0.5, t.aval.dtype())}));
  AXE_ASSIGN_OR_RETURN(Tracer kept, Op(*p.select_n, {ties, dm, half}));
  AXE_ASSIGN_OR_RETURN(Tracer dnext, Op(*p.select_n, {takes, kept, t}));
  return std::vector<Tracer>{next, dnext, dnext};
}

absl::StatusOr<Tracer> Rev0(const Tracer& x) {
  return Op(*Builtins().rev, {x}, {{"dimensions", Param::Ints({0})}});
}

// The tangent of the running reduction along dimension 0 of `x` (n >= 1 rows).
absl::StatusOr<Tracer> RunningTangent(Running op, const Tracer& x, const Tracer& t) {
  const int64_t n = x.aval.shape()[0];
  if (n == 1) return t;
  AXE_ASSIGN_OR_RETURN(Tracer x0_row, SliceRows(x, 0, 1));
  AXE_ASSIGN_OR_RETURN(Tracer t0_row, SliceRows(t, 0, 1));
  AXE_ASSIGN_OR_RETURN(Tracer x0, Squeeze(x0_row, {0}));
  AXE_ASSIGN_OR_RETURN(Tracer t0, Squeeze(t0_row, {0}));
  AXE_ASSIGN_OR_RETURN(Tracer x_rest, SliceRows(x, 1, n));
  AXE_ASSIGN_OR_RETURN(Tracer t_rest, SliceRows(t, 1, n));
  TracedFunction body = [op](Builder& b, absl::Span<const Tracer> a) {
    return Step(b, op, a[0], a[1], a[2], a[3]);
  };
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> res, Scan(body, {x0, t0}, {x_rest, t_rest}, n - 1));
  return Concatenate({t0_row, res[2]}, 0);
}

JvpRule CumulativeJvp(const Primitive* prim, Running op) {
  return
      [prim, op](Builder&, absl::Span<const Tracer> primals, absl::Span<const OptTracer> tangents,
                 const Params& params) -> absl::StatusOr<JvpResult> {
        const Tracer& x = primals[0];
        AXE_ASSIGN_OR_RETURN(Tracer out, Op(*prim, {x}, params));
        const std::optional<int64_t> count = x.aval.NumElements();
        if (!tangents[0] || !count || *count == 0) return JvpResult{{out}, {std::nullopt}};
        AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, prim->name(), "axis"));
        bool reverse = false;
        if (auto it = params.find("reverse"); it != params.end()) {
          AXE_ASSIGN_OR_RETURN(reverse, it->second.AsBool("reverse"));
        }
        std::vector<int64_t> perm(x.aval.rank());
        std::iota(perm.begin(), perm.end(), 0);
        perm.erase(perm.begin() + axis);
        perm.insert(perm.begin(), axis);
        Tracer xs = x, ts = *tangents[0];
        for (Tracer* v : {&xs, &ts}) {
          if (axis != 0) {
            AXE_ASSIGN_OR_RETURN(*v, Transpose(*v, perm));
          }
          if (reverse) {
            AXE_ASSIGN_OR_RETURN(*v, Rev0(*v));
          }
        }
        AXE_ASSIGN_OR_RETURN(Tracer t, RunningTangent(op, xs, ts));
        if (reverse) {
          AXE_ASSIGN_OR_RETURN(t, Rev0(t));
        }
        if (axis != 0) {
          AXE_ASSIGN_OR_RETURN(t, Transpose(t, InversePermutation(perm)));
        }
        return JvpResult{{out}, {t}};
      };
}

}  // namespace

void RegisterCumulativeJvps(const BuiltinPrimitives& p) {
  RegisterIfMissing(p.cumprod, CumulativeJvp(p.cumprod, Running::kProd));
  RegisterIfMissing(p.cummax, CumulativeJvp(p.cummax, Running::kMax));
  RegisterIfMissing(p.cummin, CumulativeJvp(p.cummin, Running::kMin));
}

}  // namespace axe::ir::internal
