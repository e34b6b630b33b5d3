// User-level cond and scan (spec §6): [JP-2] traced through Cond, [VT-15], [VT-18], and the
// branch / carry errors with their pcast hints.
#include "axe/ir/control_flow.h"

#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/check.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "axe/ir/shard_map.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace control_flow_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;
using P = sharding::PartitionSpec;

ShapedArray F32(std::vector<int64_t> shape, std::vector<std::string> vma = {}) {
  return ShapedArray(std::move(shape), DType::kF32, false, std::move(vma));
}

TEST(ControlFlowTest, Jp2ThroughCond) {
  Builder b;
  Tracer x = b.Arg(F32({}));
  Tracer pred = *Binary(*Builtins().ge, x, b.Scalar(0.0, DType::kF32));
  Tracer c = *Add(x, b.Scalar(1.0, DType::kF32));
  Tracer d = *Add(x, b.Scalar(2.0, DType::kF32));
  // The closed-over x is passed as the first operand.
  NamedFunction t{"<lambda>",
                  [](Builder&, absl::Span<const Tracer> a) -> absl::StatusOr<std::vector<Tracer>> {
                    AXE_ASSIGN_OR_RETURN(Tracer r, Add(a[1], a[0]));
                    return std::vector<Tracer>{r};
                  }};
  NamedFunction f{"<lambda>",
                  [](Builder&, absl::Span<const Tracer> a) -> absl::StatusOr<std::vector<Tracer>> {
                    AXE_ASSIGN_OR_RETURN(Tracer r, Sub(a[2], a[0]));
                    return std::vector<Tracer>{r};
                  }};
  absl::StatusOr<std::vector<Tracer>> out = Cond(pred, t, f, {x, c, d});
  ASSERT_THAT(out, IsOk());
  ClosedJaxpr j = *b.Build(*out);
  EXPECT_THAT(CheckJaxpr(j), IsOk());
  EXPECT_EQ(PrintJaxpr(j),
            "{ lambda ; a:f32[]. let\n"
            "    b:bool[] = ge a 0.0:f32[]\n"
            "    c:f32[] = add a 1.0:f32[]\n"
            "    d:f32[] = add a 2.0:f32[]\n"
            "    e:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n"
            "    f:f32[] = cond[\n"
            "      branches=(\n"
            "        { lambda ; g:f32[] h:f32[] i:f32[]. let j:f32[] = sub i g in (j,) }\n"
            "        { lambda ; k:f32[] l:f32[] m:f32[]. let n:f32[] = add l k in (n,) }\n"
            "      )\n"
            "    ] e a c d\n"
            "  in (f,) }");
}

TracedFunction Identity() {
  return [](Builder&, absl::Span<const Tracer> a) -> absl::StatusOr<std::vector<Tracer>> {
    return std::vector<Tracer>{a[0]};
  };
}

// The §6 message for outputs varying over different axes, both hints.
TEST(ControlFlowTest, BranchesWithDifferentVarianceGiveBothHints) {
  ScopedAxisEnv scope(AxisEnv{{{"x", 2}, {"y", 2}}, true});
  Builder b;
  Tracer p = b.Arg(ShapedArray({}, DType::kPred));
  Tracer u = b.Arg(F32({4}, {"x"})), v = b.Arg(F32({4}, {"y"}));
  NamedFunction t{"f defined at a.py:1",
                  [](Builder&, absl::Span<const Tracer> a) -> absl::StatusOr<std::vector<Tracer>> {
                    return std::vector<Tracer>{a[0]};
                  }};
  NamedFunction f{"g defined at a.py:2",
                  [](Builder&, absl::Span<const Tracer> a) -> absl::StatusOr<std::vector<Tracer>> {
                    return std::vector<Tracer>{a[1]};
                  }};
  EXPECT_THAT(
      Cond(p, t, f, {u, v}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "cond branches must have equal output types but they differ.\n\n"
               "true_fun is f defined at a.py:1\n"
               "false_fun is g defined at a.py:2\n\n"
               "The output of true_fun has type float32[4]{V:x} but the corresponding output of "
               "false_fun has type float32[4]{V:y}, so the manual axis types do not match.\n\n"
               "This might be fixed by:\n"
               "  * applying `jax.lax.pcast(..., ('y',), to='varying')` to the output of "
               "true_fun;\n"
               "  * applying `jax.lax.pcast(..., ('x',), to='varying')` to the output of "
               "false_fun.\n"
               "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more "
               "information.\n\n"
               "Revise true_fun and/or false_fun so that all output types match."));
}

// [VT-15]: mesh (2,2) axes x,y, in_specs (P('x'), P('y')), cond(True, x -> x, x -> x + 1) on
// the first argument: fine with out_specs P('x'), an error with P(None).
TEST(ControlFlowTest, Vt15CondOutputKeepsTheBranchesVariance) {
  auto run = [](P out_spec) -> absl::Status {
    Builder b;
    Tracer a = b.Arg(F32({4})), c = b.Arg(F32({4}));
    ShardMapSpec spec{*sharding::Mesh::Create({{"x", 2}, {"y", 2}}),
                      {*P::Create({{"x"}}), *P::Create({{"y"}})},
                      {out_spec}};
    auto body = [](Builder& inner,
                   absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
      NamedFunction same{"<lambda>", Identity()};
      NamedFunction plus{
          "<lambda>",
          [](Builder& bb, absl::Span<const Tracer> v) -> absl::StatusOr<std::vector<Tracer>> {
            return BindWithAutoPvary(*Builtins().add, {v[0], bb.Scalar(1, DType::kF32)});
          }};
      return Cond(inner.Lit(Literal::Bool(true)), same, plus, {xs[0]});
    };
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, ShardMap({a, c}, spec, body));
    AXE_ASSIGN_OR_RETURN(ClosedJaxpr j, b.Build(outs));
    return CheckJaxpr(j);
  };
  EXPECT_THAT(run(*P::Create({{"x"}})), IsOk());
  EXPECT_THAT(run(*P::Create({{}})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("out_specs is P(None,) which implies that the corresponding "
                                 "output value is only varying across mesh axes {} and not {x}, "
                                 "but it was inferred to be possibly varying over {x}")));
}

// [VT-18]: a scan whose body swaps the carry (x{V:i}, y{}).
TEST(ControlFlowTest, Vt18ScanCarrySwapHintsAtTheInitialCarry) {
  ScopedAxisEnv scope(AxisEnv{{{"i", 1}, {"j", 1}}, true});
  Builder b;
  Tracer x = b.Arg(F32({3}, {"i"})), y = b.Arg(F32({3}));
  TracedFunction swap = [](Builder&,
                           absl::Span<const Tracer> c) -> absl::StatusOr<std::vector<Tracer>> {
    return std::vector<Tracer>{c[1], c[0]};
  };
  EXPECT_THAT(
      Scan(swap, {x, y}, {}, 2),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "scan body function carry input and carry output must have equal types, but "
               "they differ:\n\n"
               "  * the input carry component carry[0] has type float32[3]{V:i} but the "
               "corresponding output carry component has type float32[3], so the manual axis "
               "types do not match;\n"
               "  * the input carry component carry[1] has type float32[3] but the "
               "corresponding output carry component has type float32[3]{V:i}, so the manual "
               "axis types do not match.\n\n"
               "This might be fixed by applying `jax.lax.pcast(..., ('i',), to='varying')`, to "
               "the initial carry value corresponding to the input carry component carry[1].\n"
               "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more "
               "information.\n\n"
               "Revise the function so that all output types match the corresponding input "
               "types."));
  // The fix: pcast(y, 'i', to='varying') on the initial carry.
  Tracer yv = *PcastVarying(y, {"i"});
  absl::StatusOr<std::vector<Tracer>> out = Scan(swap, {x, yv}, {}, 2);
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ((*out)[1].aval.ShortString(), "f32[3]{V:i}");
}

TEST(ControlFlowTest, ScanStacksTheYs) {
  Builder b;
  Tracer c = b.Arg(F32({})), xs = b.Arg(F32({5}));
  TracedFunction step = [](Builder&,
                           absl::Span<const Tracer> a) -> absl::StatusOr<std::vector<Tracer>> {
    AXE_ASSIGN_OR_RETURN(Tracer s, Add(a[0], a[1]));
    AXE_ASSIGN_OR_RETURN(Tracer p, Mul(a[0], a[1]));
    return std::vector<Tracer>{s, p};
  };
  absl::StatusOr<std::vector<Tracer>> out = Scan(step, {c}, {xs}, 5);
  ASSERT_THAT(out, IsOk());
  ClosedJaxpr j = *b.Build(*out);
  EXPECT_THAT(CheckJaxpr(j), IsOk());
  EXPECT_EQ((*out)[1].aval.ShortString(), "f32[5]");
  EXPECT_THAT(PrintJaxpr(j), HasSubstr("num_carry=1"));
}

}  // namespace
}  // namespace control_flow_test
}  // namespace axe::ir
