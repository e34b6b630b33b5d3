// Linear transposition (§8): the spec's shard_map vectors, t(t(f)) == f structurally where
// §8.1 says so, and the defensive collectives of check_vma = false.
#include "axe/ir/transpose.h"

#include "axe/base/status_macros.h"
#include "axe/ir/check.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "axe/ir/shard_map.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace transpose_test {
namespace {

using ::axe::testing_support::IsOk;
using ::testing::HasSubstr;
using P = sharding::PartitionSpec;

ShapedArray F32(std::vector<int64_t> shape) { return ShapedArray(std::move(shape), DType::kF32); }

// f(args) = shard_map(body)(args) over mesh (4,) axis x.
ClosedJaxpr ShardMapped(std::vector<ShapedArray> types, std::vector<P> in, std::vector<P> out,
                        const ShardMapBody& body, bool check_vma = true) {
  Builder b;
  std::vector<Tracer> args;
  for (ShapedArray& t : types) args.push_back(b.Arg(std::move(t)));
  ShardMapSpec spec{*sharding::Mesh::Create({{"x", 4}}), std::move(in), std::move(out), check_vma};
  absl::StatusOr<std::vector<Tracer>> outs = ShardMap(args, spec, body);
  EXPECT_THAT(outs, IsOk());
  return *b.Build(*outs);
}

// The body of the (single) shard_map equation of `j`.
const Jaxpr& Body(const ClosedJaxpr& j) {
  for (const Eqn& e : j.jaxpr.eqns) {
    if (e.primitive == Builtins().shard_map) return e.params.at("jaxpr").jaxpr()->jaxpr;
  }
  ADD_FAILURE() << "no shard_map in\n" << PrintJaxpr(j);
  static const Jaxpr empty;
  return empty;
}

std::vector<std::string> Prims(const Jaxpr& j) {
  std::vector<std::string> out;
  for (const Eqn& e : j.eqns) out.push_back(e.primitive->name());
  return out;
}

ClosedJaxpr Transposed(const ClosedJaxpr& f, std::vector<bool> linear) {
  absl::StatusOr<ClosedJaxpr> t = LinearTranspose(f, linear);
  EXPECT_THAT(t, IsOk());
  if (!t.ok()) return f;
  EXPECT_THAT(CheckJaxpr(*t), IsOk()) << PrintJaxpr(*t);
  return *t;
}

ShardMapBody Identity() {
  return [](Builder&, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
    return std::vector<Tracer>{xs[0]};
  };
}

TEST(TransposeTest, Tr3PvaryTransposesToOnePsum) {
  ClosedJaxpr f = ShardMapped({F32({8})}, {*P::Create({})}, {*P::Create({{"x"}})}, Identity());
  EXPECT_EQ(Prims(Body(f)), std::vector<std::string>{"pvary"});
  ClosedJaxpr t = Transposed(f, {true});
  EXPECT_EQ(Prims(Body(t)), std::vector<std::string>{"psum_invariant"});
  EXPECT_THAT(PrintJaxpr(t), HasSubstr("psum_invariant[axes=('x',)]"));
  EXPECT_EQ(t.jaxpr.out_avals()[0].ShortString(), "f32[8]");
  // t(t(f)) == f structurally.
  ClosedJaxpr tt = Transposed(t, {true});
  EXPECT_EQ(Prims(Body(tt)), std::vector<std::string>{"pvary"});
  EXPECT_EQ(PrintJaxpr(tt), PrintJaxpr(f));
}

TEST(TransposeTest, Tr4PsumTransposesToOnePvary) {
  ClosedJaxpr f =
      ShardMapped({F32({8})}, {*P::Create({{"x"}})}, {*P::Create({})},
                  [](Builder&, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
                    AXE_ASSIGN_OR_RETURN(Tracer s, Psum(xs[0], {"x"}));
                    return std::vector<Tracer>{s};
                  });
  ClosedJaxpr t = Transposed(f, {true});
  EXPECT_EQ(Prims(Body(t)), std::vector<std::string>{"pvary"});
  EXPECT_EQ(t.jaxpr.out_avals()[0].ShortString(), "f32[8]");
  EXPECT_EQ(PrintJaxpr(Transposed(t, {true})), PrintJaxpr(f));
}

// [TR-10]: f(x, y) = all_gather(x, 'x') * y w.r.t. x: the transpose is mul, psum_scatter.
TEST(TransposeTest, Tr10AllGatherTimesY) {
  ClosedJaxpr f = ShardMapped(
      {F32({8}), F32({4, 2})}, {*P::Create({{"x"}}), *P::Create({{"x"}})}, {*P::Create({{"x"}})},
      [](Builder&, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
        AXE_ASSIGN_OR_RETURN(Tracer g, AllGather(xs[0], {"x"}, 0, false));
        return BindWithAutoPvary(*Builtins().mul, {g, xs[1]});
      });
  EXPECT_EQ(Prims(Body(f)), (std::vector<std::string>{"all_gather", "mul"}));
  ClosedJaxpr t = Transposed(f, {true, false});
  EXPECT_EQ(Prims(Body(t)), (std::vector<std::string>{"mul", "reduce_scatter"}));
  EXPECT_EQ(t.jaxpr.out_avals()[0].ShortString(), "f32[8]");
}

// The cursed identity: in P(), out P(), identity. Bodies stay empty under every transposition
// with variance typing; with check_vma = false each transposition adds a division outside and
// a psum inside.
TEST(TransposeTest, CursedIdentity) {
  ClosedJaxpr f = ShardMapped({F32({8})}, {*P::Create({})}, {*P::Create({})}, Identity());
  EXPECT_TRUE(Body(f).eqns.empty());
  ClosedJaxpr t = Transposed(f, {true});
  ClosedJaxpr tt = Transposed(t, {true});
  EXPECT_TRUE(Body(t).eqns.empty());
  EXPECT_EQ(PrintJaxpr(tt), PrintJaxpr(f));

  ClosedJaxpr g =
      ShardMapped({F32({8})}, {*P::Create({})}, {*P::Create({})}, Identity(), /*check_vma=*/false);
  ClosedJaxpr tg = Transposed(g, {true});
  EXPECT_EQ(Prims(tg.jaxpr), (std::vector<std::string>{"div", "shard_map"}));
  EXPECT_EQ(Prims(Body(tg)), std::vector<std::string>{"psum"});
  EXPECT_THAT(PrintJaxpr(tg), HasSubstr("div a 4.0:f32[]"));
  ClosedJaxpr ttg = Transposed(tg, {true});
  EXPECT_GT(ttg.jaxpr.eqns.size() + Body(ttg).eqns.size(),
            tg.jaxpr.eqns.size() + Body(tg).eqns.size());
}

TEST(TransposeTest, ElementwiseLinearFunction) {
  // f(x, c) = -(x * c) + x - x, linear in x: ct_x = (-ct + ct) + (-ct) * c.
  Builder b;
  Tracer x = b.Arg(F32({3})), c = b.Arg(F32({3}));
  Tracer y = *Neg(*Mul(x, c));
  Tracer z = *Sub(*Add(y, x), x);
  ClosedJaxpr f = *b.Build({z});
  ClosedJaxpr t = Transposed(f, {true, false});
  EXPECT_EQ(PrintJaxpr(t),
            "{ lambda ; a:f32[3] b:f32[3]. let\n"
            "    c:f32[3] = neg b\n"
            "    d:f32[3] = add c b\n"
            "    e:f32[3] = neg b\n"
            "    f:f32[3] = mul e a\n"
            "    g:f32[3] = add d f\n"
            "  in (g,) }");
}

TEST(TransposeTest, ReductionsAndBroadcasts) {
  Builder b;
  Tracer x = b.Arg(F32({2, 3}));
  Tracer s = *ReduceSum(x, {0});
  Tracer back = *BroadcastInDim(s, {4, 3}, {1});
  ClosedJaxpr t = Transposed(*b.Build({back}), {true});
  EXPECT_EQ(Prims(t.jaxpr), (std::vector<std::string>{"reduce_sum", "broadcast_in_dim"}));
  EXPECT_EQ(t.jaxpr.out_avals()[0].ShortString(), "f32[2,3]");
}

TEST(TransposeTest, MissingRulesAndUnusedInputs) {
  Builder b;
  Tracer x = b.Arg(F32({3})), unused = b.Arg(F32({2}));
  (void)unused;
  ClosedJaxpr f = *b.Build({*Sin(x)});
  EXPECT_THAT(LinearTranspose(f, {true, true}),
              ::axe::testing_support::StatusIs(
                  absl::StatusCode::kUnimplemented,
                  "Transpose rule (for reverse-mode differentiation) for 'sin' not implemented"));
  Builder c;
  Tracer p = c.Arg(F32({3}));
  c.Arg(F32({2}));
  ClosedJaxpr g = *c.Build({*Neg(p)});
  ClosedJaxpr t = Transposed(g, {true, true});
  EXPECT_EQ(t.jaxpr.out_avals()[1].ShortString(), "f32[2]");  // zeros for the unused input
}

}  // namespace
}  // namespace transpose_test
}  // namespace axe::ir

namespace axe::ir {
namespace transpose_test {
namespace {

// The printed programs of the cursed identity under check_vma = false, for the record (§8.1:
// the program grows with each transposition).
TEST(TransposeTest, CursedIdentityWithoutVarianceTypingPrints) {
  ClosedJaxpr g = ShardMapped({F32({8})}, {*P::Create({})}, {*P::Create({})}, Identity(), false);
  ClosedJaxpr t = Transposed(g, {true});
  EXPECT_EQ(PrintJaxpr(t),
            "{ lambda ; a:f32[8]. let\n"
            "    b:f32[8] = div a 4.0:f32[]\n"
            "    c:f32[8] = shard_map[\n"
            "      check_vma=False\n"
            "      in_specs=(P(),)\n"
            "      jaxpr={ lambda ; d:f32[8]. let\n"
            "          e:f32[8] = psum[axes=('x',) axis_index_groups=None] d\n"
            "        in (e,) }\n"
            "      mesh=Mesh('x': 4, axis_types=(Auto,))\n"
            "      newly_manual_axes=frozenset({'x'})\n"
            "      out_specs=(P(),)\n"
            "    ] b\n"
            "  in (c,) }");
}

}  // namespace
}  // namespace transpose_test
}  // namespace axe::ir
