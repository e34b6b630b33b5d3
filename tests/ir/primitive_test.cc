// The rule registry of spec §1, exercised by a third-party primitive defined in this file
// ([PR-1]: multiply_add(x, y, z) = x * y + z), through every kind of rule. The registry is
// process-wide, so these tests see "no rule yet" once per process (ctest runs each test in its
// own process; --gtest_repeat does not apply to them).
#include "axe/ir/primitive.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/builder.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace primitive_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

const ShapedArray kF32x3({3}, DType::kF32);

const Primitive& MultiplyAdd() {
  static const Primitive* p = [] {
    Primitive::Options o;
    o.name = "multiply_add";
    return Primitive::Define(std::move(o)).value();
  }();
  return *p;
}

absl::StatusOr<std::vector<HostArray>> MultiplyAddImpl(absl::Span<const HostArray> args,
                                                       const Params&) {
  HostArray out = args[0];
  for (size_t i = 0; i < out.values.size(); ++i) {
    out.values[i] = args[0].values[i] * args[1].values[i] + args[2].values[i];
  }
  return std::vector<HostArray>{out};
}

absl::StatusOr<std::vector<ShapedArray>> MultiplyAddAbstractEval(
    absl::Span<const ShapedArray> avals, const Params&) {
  if (avals.size() != 3) return absl::InvalidArgumentError("multiply_add takes 3 operands");
  return std::vector<ShapedArray>{ShapedArray(avals[0].shape(), avals[0].dtype())};
}

absl::StatusOr<std::vector<Tracer>> MultiplyAddLowering(LoweringContext&,
                                                        absl::Span<const Tracer> args,
                                                        const Params&) {
  AXE_ASSIGN_OR_RETURN(Tracer xy, Mul(args[0], args[1]));
  AXE_ASSIGN_OR_RETURN(Tracer out, Add(xy, args[2]));
  return std::vector<Tracer>{out};
}

// A second multiply-add, "mul_add", with impl, abstract eval and a default lowering registered
// up front, so the tests below do not depend on the order tests run in.
const Primitive& MulAdd() {
  static const Primitive* p = [] {
    Primitive::Options o;
    o.name = "mul_add";
    const Primitive* prim = Primitive::Define(std::move(o)).value();
    RegisterImpl(*prim, MultiplyAddImpl);
    RegisterAbstractEval(*prim, MultiplyAddAbstractEval);
    (void)RegisterLowering(*prim, MultiplyAddLowering);
    return prim;
  }();
  return *p;
}

// The registrations happen in this order, one per test step, so each missing-rule error is
// seen before its rule exists ([PR-1]). The tests of this file run in declaration order.
TEST(PrimitiveTest, Pr1MissingRulesReportJaxTexts) {
  const Primitive& p = MultiplyAdd();
  EXPECT_EQ(p.name(), "multiply_add");
  EXPECT_FALSE(p.multiple_results());
  EXPECT_THAT(GetImplRule(p), StatusIs(absl::StatusCode::kUnimplemented,
                                       "Evaluation rule for 'multiply_add' not implemented"));
  RegisterImpl(p, MultiplyAddImpl);
  ASSERT_THAT(GetImplRule(p), IsOk());
  HostArray x{kF32x3, {1, 2, 3}}, y{kF32x3, {4, 5, 6}}, z{kF32x3, {1, 1, 1}};
  absl::StatusOr<std::vector<HostArray>> out = (*GetImplRule(p))({x, y, z}, {});
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ((*out)[0].values, (std::vector<double>{5, 11, 19}));

  // Tracing (jit) needs the abstract evaluation rule.
  Builder b;
  Tracer a = b.Arg(kF32x3), c = b.Arg(kF32x3);
  EXPECT_THAT(b.Bind(p, {a, a, c}),
              StatusIs(absl::StatusCode::kUnimplemented,
                       "Abstract evaluation for 'multiply_add' not implemented"));
  RegisterAbstractEval(p, MultiplyAddAbstractEval);
  absl::StatusOr<Tracer> sq = b.Bind1(p, {a, a, c});  // square_add(a, c)
  ASSERT_THAT(sq, IsOk());
  absl::StatusOr<ClosedJaxpr> j = b.Build({*sq});
  ASSERT_THAT(j, IsOk());
  EXPECT_EQ(PrintJaxpr(*j),
            "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = multiply_add a a b in (c,) }");

  // Compiling needs a lowering for the platform.
  EXPECT_THAT(GetLoweringRule(p, "cpu"),
              StatusIs(absl::StatusCode::kUnimplemented,
                       "MLIR translation rule for primitive 'multiply_add' not found for "
                       "platform cpu"));
  ASSERT_THAT(RegisterLowering(p, MultiplyAddLowering), IsOk());
  absl::StatusOr<LoweringRule> lower = GetLoweringRule(p, "cpu");
  ASSERT_THAT(lower, IsOk());
  Builder lb;
  Tracer la = lb.Arg(kF32x3), lc = lb.Arg(kF32x3);
  LoweringContext ctx{"cpu", &lb};
  absl::StatusOr<std::vector<Tracer>> lowered = (*lower)(ctx, {la, la, lc}, {});
  ASSERT_THAT(lowered, IsOk());
  EXPECT_EQ(PrintJaxpr(*lb.Build(*lowered)),
            "{ lambda ; a:f32[3] b:f32[3]. let\n"
            "    c:f32[3] = mul a a\n"
            "    d:f32[3] = add c b\n"
            "  in (d,) }");
}

TEST(PrimitiveTest, PlatformRuleWinsAndGpuExpands) {
  const Primitive& p = MulAdd();
  // The rule outlives this test in the registry: it shares the counter, never a stack slot.
  auto called_count = std::make_shared<int>(0);
  const int& called = *called_count;
  ASSERT_THAT(RegisterLowering(
                  p,
                  [called_count](LoweringContext& ctx, absl::Span<const Tracer> args,
                                 const Params& ps) -> absl::StatusOr<std::vector<Tracer>> {
                    ++*called_count;
                    return MultiplyAddLowering(ctx, args, ps);
                  },
                  "gpu"),
              IsOk());
  Builder b;
  Tracer x = b.Arg(kF32x3);
  LoweringContext ctx{"cuda", &b};
  ASSERT_THAT((*GetLoweringRule(p, "cuda"))(ctx, {x, x, x}, {}), IsOk());
  ASSERT_THAT((*GetLoweringRule(p, "rocm"))(ctx, {x, x, x}, {}), IsOk());
  EXPECT_EQ(called, 2);
  ASSERT_THAT((*GetLoweringRule(p, "tpu"))(ctx, {x, x, x}, {}), IsOk());  // the default rule
  EXPECT_EQ(called, 2);
  EXPECT_THAT(RegisterLowering(p, MultiplyAddLowering, "quantum"),
              StatusIs(absl::StatusCode::kUnimplemented,
                       "Registering an MLIR lowering rule for primitive mul_add for an "
                       "unknown platform quantum. Known platforms are: cpu, cuda, gpu, rocm, "
                       "tpu."));
  RegisterPlatform("quantum");
  EXPECT_THAT(RegisterLowering(p, MultiplyAddLowering, "quantum"), IsOk());
}

TEST(PrimitiveTest, JvpTransposeAndBatchingRules) {
  const Primitive& p = MulAdd();
  EXPECT_THAT(GetJvpRule(p), StatusIs(absl::StatusCode::kUnimplemented,
                                      "Differentiation rule for 'mul_add' not implemented"));
  EXPECT_THAT(GetTransposeRule(p),
              StatusIs(absl::StatusCode::kUnimplemented,
                       "Transpose rule (for reverse-mode differentiation) for 'mul_add' "
                       "not implemented"));
  EXPECT_THAT(GetBatchingRule(p), StatusIs(absl::StatusCode::kUnimplemented,
                                           "Batching rule for 'mul_add' not implemented"));
  // d(x*y + z) = dx*y + x*dy + dz, with symbolic zeros skipped.
  RegisterJvp(p,
              [pp = &p](Builder& b, absl::Span<const Tracer> primals,
                        absl::Span<const std::optional<Tracer>> tangents,
                        const Params& params) -> absl::StatusOr<JvpResult> {
                AXE_ASSIGN_OR_RETURN(Tracer out, b.Bind1(*pp, primals, params));
                std::optional<Tracer> t;
                auto accumulate = [&](absl::StatusOr<Tracer> term) -> absl::Status {
                  AXE_RETURN_IF_ERROR(term.status());
                  if (!t) {
                    t = *term;
                  } else {
                    AXE_ASSIGN_OR_RETURN(t, Add(*t, *term));
                  }
                  return absl::OkStatus();
                };
                if (tangents[0]) AXE_RETURN_IF_ERROR(accumulate(Mul(*tangents[0], primals[1])));
                if (tangents[1]) AXE_RETURN_IF_ERROR(accumulate(Mul(primals[0], *tangents[1])));
                if (tangents[2]) AXE_RETURN_IF_ERROR(accumulate(*tangents[2]));
                return JvpResult{{out}, {t}};
              });
  // Linear in z (x, y known): ct_z = ct.
  RegisterTranspose(
      p,
      [](Builder&, absl::Span<const std::optional<Tracer>> cts, absl::Span<const TransposeArg> args,
         const Params&) -> absl::StatusOr<std::vector<std::optional<Tracer>>> {
        if (args[0].is_undefined_primal() || args[1].is_undefined_primal()) {
          return absl::InvalidArgumentError("mul_add is linear only in z here");
        }
        return std::vector<std::optional<Tracer>>{std::nullopt, std::nullopt, cts[0]};
      });
  RegisterBatching(p,
                   [pp = &p](Builder& b, absl::Span<const Tracer> args,
                             absl::Span<const std::optional<int64_t>> dims,
                             const Params& params) -> absl::StatusOr<BatchResult> {
                     for (const auto& d : dims) {
                       if (d != dims[0])
                         return absl::UnimplementedError("operands batched differently");
                     }
                     AXE_ASSIGN_OR_RETURN(Tracer out, b.Bind1(*pp, args, params));
                     return BatchResult{{out}, {dims[0]}};
                   });

  Builder b;
  Tracer x = b.Arg(kF32x3), y = b.Arg(kF32x3), tx = b.Arg(kF32x3);
  absl::StatusOr<JvpResult> jvp = (*GetJvpRule(p))(b, {x, y, x}, {tx, std::nullopt, tx}, {});
  ASSERT_THAT(jvp, IsOk());
  ASSERT_TRUE(jvp->tangents_out[0].has_value());
  EXPECT_EQ(PrintJaxpr(*b.Build({jvp->primals_out[0], *jvp->tangents_out[0]})),
            "{ lambda ; a:f32[3] b:f32[3] c:f32[3]. let\n"
            "    d:f32[3] = mul_add a b a\n"
            "    e:f32[3] = mul c b\n"
            "    f:f32[3] = add e c\n"
            "  in (d, f) }");

  Builder tb;
  Tracer ct = tb.Arg(kF32x3), tx2 = tb.Arg(kF32x3);
  absl::StatusOr<std::vector<std::optional<Tracer>>> cts = (*GetTransposeRule(p))(
      tb, {ct},
      {TransposeArg::Defined(tx2), TransposeArg::Defined(tx2), TransposeArg::Undefined(kF32x3)},
      {});
  ASSERT_THAT(cts, IsOk());
  EXPECT_FALSE((*cts)[0].has_value());
  ASSERT_TRUE((*cts)[2].has_value());
  EXPECT_EQ((*cts)[2]->var, ct.var);

  Builder bb;
  Tracer xb = bb.Arg(ShapedArray({5, 3}, DType::kF32));
  absl::StatusOr<BatchResult> batched = (*GetBatchingRule(p))(bb, {xb, xb, xb}, {0, 0, 0}, {});
  ASSERT_THAT(batched, IsOk());
  EXPECT_EQ(batched->outs[0].aval.ShortString(), "f32[5,3]");
  EXPECT_EQ(batched->out_dims[0], 0);
}

TEST(PrimitiveTest, DefineRejectsBadAndTakenNames) {
  Primitive::Options bad;
  bad.name = "not a name";
  EXPECT_THAT(Primitive::Define(bad), StatusIs(absl::StatusCode::kInvalidArgument,
                                               HasSubstr("'not a name' is not an identifier")));
  Primitive::Options taken;
  taken.name = "add";  // a built-in
  EXPECT_THAT(Primitive::Define(taken),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("'add'")));
  EXPECT_EQ(Primitive::Find("add"), Builtins().add);
  EXPECT_EQ(Primitive::Find("no_such_primitive"), nullptr);
}

TEST(PrimitiveTest, BindRejectsForeignTracers) {
  Builder a, b;
  Tracer x = a.Arg(kF32x3);
  Tracer y = b.Arg(kF32x3);
  EXPECT_THAT(b.Bind(*Builtins().add, {y, x}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Error interpreting argument to add as a JAX value. The problematic value "
                       "is of type a Tracer of another Builder and was passed to add at "
                       "position 1."));
  EXPECT_THAT(b.Bind(*Builtins().add, {y, Tracer{}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("an unbound Tracer")));
}

}  // namespace
}  // namespace primitive_test
}  // namespace axe::ir
