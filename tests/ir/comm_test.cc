// The static communication count (comm.h): the spec's transpose vectors, where variance typing
// moves fewer bytes than the naive (check_vma = false) transpose, and the byte formulas of
// every collective, scan repetition, cond's worst branch and the errors.
#include "axe/ir/comm.h"

#include <random>

#include "axe/base/status_macros.h"
#include "axe/ir/check.h"
#include "axe/ir/control_flow.h"
#include "axe/ir/drop_vma.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "axe/ir/shard_map.h"
#include "axe/ir/transpose.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "support/testdata.h"

namespace axe::ir {
namespace comm_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;
using P = sharding::PartitionSpec;
using Result = absl::StatusOr<std::vector<Tracer>>;

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

ClosedJaxpr Transposed(const ClosedJaxpr& f, std::vector<bool> linear) {
  absl::StatusOr<ClosedJaxpr> t = LinearTranspose(f, linear);
  EXPECT_THAT(t, IsOk());
  if (!t.ok()) return f;
  EXPECT_THAT(CheckJaxpr(*t), IsOk()) << PrintJaxpr(*t);
  return *t;
}

CommunicationCount Count(const ClosedJaxpr& j) {
  absl::StatusOr<CommunicationCount> c = CountCommunication(j);
  EXPECT_THAT(c, IsOk()) << PrintJaxpr(j);
  return c.ok() ? *c : CommunicationCount{};
}

std::vector<std::string> Names(const CommunicationCount& c) {
  std::vector<std::string> out;
  for (const CollectiveCount& e : c.collectives) out.push_back(e.primitive);
  return out;
}

Result IdentityBody(Builder&, absl::Span<const Tracer> xs) { return std::vector<Tracer>{xs[0]}; }

Result PsumBody(Builder&, absl::Span<const Tracer> xs) {
  AXE_ASSIGN_OR_RETURN(Tracer s, Psum(xs[0], {"x"}));
  return std::vector<Tracer>{s};
}

// The cursed identity (in P(), out P()): nothing moves with variance typing; the naive transpose
// all-reduces the whole f32[8] (S = 32 bytes, n = 4: 2 * 3 * 32 / 4 = 48 bytes per device).
TEST(CommTest, CursedIdentityTransposedBothWays) {
  ClosedJaxpr f = ShardMapped({F32({8})}, {*P::Create({})}, {*P::Create({})}, IdentityBody);
  EXPECT_EQ(Count(f).total_bytes_per_device, 0);
  CommunicationCount typed = Count(Transposed(f, {true}));
  EXPECT_TRUE(typed.collectives.empty());
  EXPECT_EQ(typed.total_bytes_per_device, 0);

  ClosedJaxpr g = ShardMapped({F32({8})}, {*P::Create({})}, {*P::Create({})}, IdentityBody, false);
  CommunicationCount naive = Count(Transposed(g, {true}));
  ASSERT_EQ(naive.collectives.size(), 1u);
  EXPECT_EQ(naive.collectives[0].primitive, "psum");
  EXPECT_EQ(naive.collectives[0].kind, "all-reduce");
  EXPECT_EQ(naive.collectives[0].axes, std::vector<std::string>{"x"});
  EXPECT_EQ(naive.collectives[0].group_size, 4);
  EXPECT_EQ(naive.collectives[0].operand, "f32[8]");
  EXPECT_EQ(naive.total_bytes_per_device, 48);
  // Transposing again adds another all-reduce without variance typing.
  EXPECT_GT(Count(Transposed(Transposed(g, {true}), {true})).total_bytes_per_device, 48);
}

// JEP 17111's example 1 ([TR-4] with g = identity): in P('x'), out P(), psum. Forward: one
// all-reduce of the local f32[2] (8 bytes: 12 per device). Under variance typing the transpose
// is a pvary (0 bytes); the naive transpose divides outside and psums inside (12 bytes).
TEST(CommTest, ExampleOneTransposedBothWays) {
  ClosedJaxpr f = ShardMapped({F32({8})}, {*P::Create({{"x"}})}, {*P::Create({})}, PsumBody);
  CommunicationCount forward = Count(f);
  EXPECT_EQ(Names(forward), std::vector<std::string>{"psum_invariant"});
  EXPECT_EQ(forward.collectives[0].operand, "f32[2]{V:x}");
  EXPECT_EQ(forward.total_bytes_per_device, 12);

  CommunicationCount typed = Count(Transposed(f, {true}));
  EXPECT_EQ(Names(typed), std::vector<std::string>{"pvary"});
  EXPECT_EQ(typed.collectives[0].kind, "none");
  EXPECT_EQ(typed.total_bytes_per_device, 0);

  ClosedJaxpr g = ShardMapped({F32({8})}, {*P::Create({{"x"}})}, {*P::Create({})}, PsumBody, false);
  CommunicationCount naive = Count(Transposed(g, {true}));
  EXPECT_EQ(Names(naive), std::vector<std::string>{"psum"});
  EXPECT_EQ(naive.total_bytes_per_device, 12);
  EXPECT_LT(typed.total_bytes_per_device, naive.total_bytes_per_device);
}

// [TR-3] (in P(), out P('x'), identity): forward pvary (0 bytes); the transpose all-reduces the
// local f32[8] either way (48 bytes): variance typing never costs more.
TEST(CommTest, Tr3TransposeCostsTheSameEitherWay) {
  ClosedJaxpr f = ShardMapped({F32({8})}, {*P::Create({})}, {*P::Create({{"x"}})}, IdentityBody);
  EXPECT_EQ(Count(f).total_bytes_per_device, 0);
  EXPECT_EQ(Names(Count(f)), std::vector<std::string>{"pvary"});
  CommunicationCount typed = Count(Transposed(f, {true}));
  EXPECT_EQ(Names(typed), std::vector<std::string>{"psum_invariant"});
  EXPECT_EQ(typed.total_bytes_per_device, 48);
  ClosedJaxpr g =
      ShardMapped({F32({8})}, {*P::Create({})}, {*P::Create({{"x"}})}, IdentityBody, false);
  EXPECT_EQ(Count(Transposed(g, {true})).total_bytes_per_device, 48);
}

// [TR-10]: all_gather of the local f32[2] (3 * 8 = 24 bytes); its transpose reduce-scatters
// the f32[4,2] cotangent (3 * 32 / 4 = 24 bytes).
TEST(CommTest, Tr10AllGatherAndItsReduceScatter) {
  ClosedJaxpr f =
      ShardMapped({F32({8}), F32({4, 2})}, {*P::Create({{"x"}}), *P::Create({{"x"}})},
                  {*P::Create({{"x"}})}, [](Builder&, absl::Span<const Tracer> xs) -> Result {
                    AXE_ASSIGN_OR_RETURN(Tracer g, AllGather(xs[0], {"x"}, 0, false));
                    return BindWithAutoPvary(*Builtins().mul, {g, xs[1]});
                  });
  CommunicationCount forward = Count(f);
  EXPECT_EQ(Names(forward), std::vector<std::string>{"all_gather"});
  EXPECT_EQ(forward.total_bytes_per_device, 24);
  CommunicationCount t = Count(Transposed(f, {true, false}));
  EXPECT_EQ(Names(t), std::vector<std::string>{"reduce_scatter"});
  EXPECT_EQ(t.collectives[0].kind, "reduce-scatter");
  EXPECT_EQ(t.total_bytes_per_device, 24);
}

// ppermute moves S when some pair moves data (a shift), 0 for the identity permutation;
// all_to_all sends (n - 1) / n of S.
TEST(CommTest, PermuteAndAllToAll) {
  auto body = [](Builder& b, absl::Span<const Tracer> xs) -> Result {
    Params shift = {{"axis_name", Param::Names({"x"})},
                    {"perm", Param::Tuple({Param::Ints({0, 1}), Param::Ints({1, 2}),
                                           Param::Ints({2, 3}), Param::Ints({3, 0})})}};
    AXE_ASSIGN_OR_RETURN(Tracer s, b.Bind1(*Builtins().ppermute, {xs[0]}, shift));
    Params same = {{"axis_name", Param::Names({"x"})},
                   {"perm", Param::Tuple({Param::Ints({0, 0}), Param::Ints({1, 1})})}};
    AXE_ASSIGN_OR_RETURN(Tracer t, b.Bind1(*Builtins().ppermute, {s}, same));
    Params a2a = {{"axis_name", Param::Names({"x"})},
                  {"split_axis", Param::Int(0)},
                  {"concat_axis", Param::Int(0)},
                  {"tiled", Param::Bool(true)}};
    AXE_ASSIGN_OR_RETURN(Tracer u, b.Bind1(*Builtins().all_to_all, {t}, a2a));
    return std::vector<Tracer>{u};
  };
  // Local f32[4,2]: S = 32 bytes.
  ClosedJaxpr f = ShardMapped({F32({16, 2})}, {*P::Create({{"x"}})}, {*P::Create({{"x"}})}, body);
  CommunicationCount c = Count(f);
  ASSERT_EQ(Names(c), (std::vector<std::string>{"ppermute", "ppermute", "all_to_all"}));
  EXPECT_EQ(c.collectives[0].bytes_per_device, 32);
  EXPECT_EQ(c.collectives[1].bytes_per_device, 0);
  EXPECT_EQ(c.collectives[2].bytes_per_device, 24);
  EXPECT_EQ(c.total_bytes_per_device, 56);
}

// A scan body's collectives run `length` times; of a cond's branches the costlier one counts.
TEST(CommTest, ScanMultipliesAndCondTakesTheWorstBranch) {
  auto body = [](Builder& b, absl::Span<const Tracer> xs) -> Result {
    TracedFunction step = [](Builder&, absl::Span<const Tracer> c) -> Result {
      AXE_ASSIGN_OR_RETURN(Tracer s, Psum(c[0], {"x"}));
      AXE_ASSIGN_OR_RETURN(Tracer v, PcastVarying(s, {"x"}));
      return std::vector<Tracer>{v};
    };
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> carry, Scan(step, {xs[0]}, {}, 5));
    NamedFunction sum{"sum", [](Builder&, absl::Span<const Tracer> a) -> Result {
                        AXE_ASSIGN_OR_RETURN(Tracer s, Psum(a[0], {"x"}));
                        AXE_ASSIGN_OR_RETURN(Tracer v, PcastVarying(s, {"x"}));
                        return std::vector<Tracer>{v};
                      }};
    NamedFunction id{"id", IdentityBody};
    AXE_ASSIGN_OR_RETURN(Tracer zero, AxisIndex(b, "x"));
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> pred, BindWithAutoPvary(*Builtins().eq, {zero, zero}));
    return Cond(pred[0], id, sum, carry);
  };
  ClosedJaxpr f = ShardMapped({F32({8})}, {*P::Create({{"x"}})}, {*P::Create({{"x"}})}, body);
  CommunicationCount c = Count(f);
  // Each psum_invariant of f32[2] moves 12 bytes: 5 in the scan, 1 in the worse branch.
  ASSERT_EQ(Names(c),
            (std::vector<std::string>{"psum_invariant", "pvary", "psum_invariant", "pvary"}))
      << PrintJaxpr(f);
  EXPECT_EQ(c.collectives[0].count, 5);
  EXPECT_EQ(c.collectives[0].bytes_per_device, 60);
  EXPECT_EQ(c.collectives[2].count, 1);
  EXPECT_EQ(c.total_bytes_per_device, 72);
}

TEST(CommTest, RoundsUpAndGroupsOfOne) {
  // f32[1] over x=3: 2 * 2 * 4 / 3 = 5.33 -> 6 bytes; an axis of size 1 moves nothing.
  ClosedJaxpr three = *ParseJaxpr(
      "{ lambda ; a:f32[3]. let b:f32[1] = shard_map[check_vma=True in_specs=(P('x',),) "
      "jaxpr={ lambda ; c:f32[1]{V:x}. let d:f32[1] = psum_invariant[axes=('x',)] c in (d,) } "
      "mesh=Mesh('x': 3, axis_types=(Auto,)) newly_manual_axes=frozenset({'x'}) "
      "out_specs=(P(),)] a in (b,) }");
  ASSERT_THAT(CheckJaxpr(three), IsOk());
  EXPECT_EQ(Count(three).total_bytes_per_device, 6);
  ClosedJaxpr one = *ParseJaxpr(
      "{ lambda ; a:f32[3]. let b:f32[3] = shard_map[check_vma=True in_specs=(P('x',),) "
      "jaxpr={ lambda ; c:f32[3]{V:x}. let d:f32[3] = psum_invariant[axes=('x',)] c in (d,) } "
      "mesh=Mesh('x': 1, axis_types=(Auto,)) newly_manual_axes=frozenset({'x'}) "
      "out_specs=(P(),)] a in (b,) }");
  CommunicationCount c = Count(one);
  ASSERT_EQ(c.collectives.size(), 1u);
  EXPECT_EQ(c.collectives[0].group_size, 1);
  EXPECT_EQ(c.total_bytes_per_device, 0);
}

// Byte counts past 2^63 - 1 are an error, not a wrapped number: 12 bytes run 2^62 times.
TEST(CommTest, OverflowIsAnError) {
  auto body = [](Builder&, absl::Span<const Tracer> xs) -> Result {
    TracedFunction step = [](Builder&, absl::Span<const Tracer> c) -> Result {
      AXE_ASSIGN_OR_RETURN(Tracer s, Psum(c[0], {"x"}));
      AXE_ASSIGN_OR_RETURN(Tracer v, PcastVarying(s, {"x"}));
      return std::vector<Tracer>{v};
    };
    return Scan(step, {xs[0]}, {}, int64_t{1} << 62);
  };
  ClosedJaxpr f = ShardMapped({F32({8})}, {*P::Create({{"x"}})}, {*P::Create({{"x"}})}, body);
  EXPECT_THAT(CountCommunication(f),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("exceeds 2^63 - 1 bytes")));
}

TEST(CommTest, UnboundAxisIsAnError) {
  // Built by hand (the builder refuses it): a psum_invariant outside any shard_map.
  ClosedJaxpr j = *ParseJaxpr("{ lambda ; a:f32[3]. let  in (a,) }");
  Eqn e;
  e.primitive = Builtins().psum_invariant;
  e.params = {{"axes", Param::Names({"y"})}};
  e.inputs = {Atom::OfVar(0)};
  e.outputs = {0};
  j.jaxpr.eqns.push_back(e);
  EXPECT_THAT(CountCommunication(j),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Found an unbound axis name: y. To fix this, please call psum "
                                 "under `jax.shard_map`.")));
}

TEST(CommTest, TablePrintsEveryEntryAndTheTotal) {
  ClosedJaxpr f = ShardMapped({F32({8})}, {*P::Create({{"x"}})}, {*P::Create({})}, PsumBody);
  std::string table = CommunicationTable(Count(f));
  EXPECT_THAT(table, HasSubstr("psum_invariant"));
  EXPECT_THAT(table, HasSubstr("all-reduce"));
  EXPECT_THAT(table, HasSubstr("f32[2]{V:x}"));
  EXPECT_THAT(table, HasSubstr("total bytes per device: 12\n"));
}

// DropVarianceTyping gives the program check_vma = false would have traced: the pvary casts go,
// psum_invariant becomes psum, and its transpose is the naive one.
TEST(CommTest, DropVarianceTypingIsTheUncheckedTrace) {
  ClosedJaxpr f = ShardMapped({F32({8})}, {*P::Create({{"x"}})}, {*P::Create({})}, PsumBody);
  ClosedJaxpr g = ShardMapped({F32({8})}, {*P::Create({{"x"}})}, {*P::Create({})}, PsumBody, false);
  absl::StatusOr<ClosedJaxpr> naive = DropVarianceTyping(f);
  ASSERT_THAT(naive, IsOk());
  EXPECT_EQ(PrintJaxpr(*naive), PrintJaxpr(g));
  ClosedJaxpr h = ShardMapped({F32({8})}, {*P::Create({})}, {*P::Create({{"x"}})}, IdentityBody);
  ClosedJaxpr k =
      ShardMapped({F32({8})}, {*P::Create({})}, {*P::Create({{"x"}})}, IdentityBody, false);
  ASSERT_THAT(DropVarianceTyping(h), IsOk());
  EXPECT_EQ(PrintJaxpr(*DropVarianceTyping(h)), PrintJaxpr(k));
  EXPECT_EQ(Count(Transposed(*naive, {true})).total_bytes_per_device, 12);
}

ClosedJaxpr ReadJaxData(const std::string& name) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(testing_support::ReadIrTestdata("jax/" + name));
  EXPECT_THAT(j, IsOk()) << name;
  return j.ok() ? *j : ClosedJaxpr{};
}

// Programs JAX 0.10.2 printed, over x=4: every collective of shmap_collectives.txt on a local
// f32[4] (S = 16 bytes) and all_gather of a local f32[2].
TEST(CommTest, JaxPrintedPrograms) {
  CommunicationCount c = Count(ReadJaxData("shmap_collectives.txt"));
  ASSERT_EQ(Names(c),
            (std::vector<std::string>{"pmax", "pmin", "reduce_scatter", "ppermute", "all_to_all"}));
  std::vector<int64_t> bytes;
  for (const CollectiveCount& e : c.collectives) bytes.push_back(e.bytes_per_device);
  EXPECT_EQ(bytes, (std::vector<int64_t>{24, 24, 12, 16, 12}));
  EXPECT_EQ(c.total_bytes_per_device, 88);
  EXPECT_EQ(Count(ReadJaxData("shmap_all_gather.txt")).total_bytes_per_device, 24);
  EXPECT_EQ(Count(ReadJaxData("shmap_psum.txt")).total_bytes_per_device, 12);
  EXPECT_EQ(Count(ReadJaxData("shmap_nocheck.txt")).total_bytes_per_device, 12);
}

// One random linear step inside a shard_map body over x=2,y=2: psum over some axes, a pcast to
// every axis the value does not vary over yet, neg, or v + v. (A value pcast axis by axis, x
// then y, transposes to one all-reduce per cast, which can cost more than the single psum over
// both axes of the naive transpose; see PcastAxisByAxisCostsMoreThanOnce.)
absl::StatusOr<Tracer> RandomStep(std::mt19937_64& rng, const Tracer& v) {
  static const std::vector<std::vector<std::string>> kAxes = {{"x"}, {"y"}, {"x", "y"}};
  const std::vector<std::string>& axes = kAxes[rng() % kAxes.size()];
  switch (rng() % 4) {
    case 0: return Psum(v, axes);
    case 1: {
      std::vector<std::string> missing;
      for (const char* a : {"x", "y"}) {
        if (!v.aval.IsVaryingOver(a)) missing.push_back(a);
      }
      if (missing.empty()) return Neg(v);
      return PcastVarying(v, missing);
    }
    case 2: return Neg(v);
    default: {
      AXE_ASSIGN_OR_RETURN(std::vector<Tracer> sum, BindWithAutoPvary(*Builtins().add, {v, v}));
      return sum[0];
    }
  }
}

// The exception to the rule below, pinned: pcast(x) then pcast(y) of an invariant f32[8,4]
// (128 bytes) over x=2,y=2 transposes to psum_invariant over y, then over x (2 x 128 bytes);
// the naive transpose has one psum over (x, y) (2 * 3 / 4 * 128 = 192 bytes) and the
// division outside.
TEST(CommTest, PcastAxisByAxisCostsMoreThanOnce) {
  Builder b;
  Tracer x = b.Arg(F32({8, 4}));
  sharding::Mesh mesh = *sharding::Mesh::Create({{"x", 2}, {"y", 2}});
  ShardMapSpec spec{mesh, {*P::Create({})}, {*P::Create({{"x", "y"}})}};
  auto outs = ShardMap({x}, spec, [](Builder&, absl::Span<const Tracer> xs) -> Result {
    AXE_ASSIGN_OR_RETURN(Tracer v, PcastVarying(xs[0], {"x"}));
    AXE_ASSIGN_OR_RETURN(v, PcastVarying(v, {"y"}));
    return std::vector<Tracer>{v};
  });
  ASSERT_THAT(outs, IsOk());
  ClosedJaxpr f = *b.Build(*outs);
  CommunicationCount typed = Count(Transposed(f, {true}));
  EXPECT_EQ(Names(typed), (std::vector<std::string>{"psum_invariant", "psum_invariant"}));
  EXPECT_EQ(typed.total_bytes_per_device, 256);
  CommunicationCount naive = Count(Transposed(*DropVarianceTyping(f), {true}));
  EXPECT_EQ(Names(naive), std::vector<std::string>{"psum"});
  EXPECT_EQ(naive.total_bytes_per_device, 192);
}

// For hundreds of random linear shard_map programs: both transposes type-check, and the one
// under variance typing never moves more bytes than the naive one (check_vma=False).
TEST(CommTest, TypedTransposeNeverMovesMoreThanTheNaiveOne) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(20260112));
  static const std::vector<std::vector<std::string>> kSpecs = {{}, {"x"}, {"y"}, {"x", "y"}};
  int strictly_less = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::string> in_axes = kSpecs[rng() % kSpecs.size()];
    int steps = 1 + static_cast<int>(rng() % 4);
    std::vector<std::string> out_vma;
    auto body = [&](Builder&, absl::Span<const Tracer> xs) -> Result {
      Tracer v = xs[0];
      for (int i = 0; i < steps; ++i) {
        AXE_ASSIGN_OR_RETURN(v, RandomStep(rng, v));
      }
      out_vma = v.aval.vma();
      return std::vector<Tracer>{v};
    };
    // The out_spec names the output's variance set (dimension 0 split over all of it).
    Builder b;
    Tracer x = b.Arg(F32({8, 4}));
    auto spec_of = [](const std::vector<std::string>& axes) {
      return axes.empty() ? *P::Create({}) : *P::Create({axes});
    };
    sharding::Mesh mesh = *sharding::Mesh::Create({{"x", 2}, {"y", 2}});
    // Trace once to learn the output's variance set, then again with the matching out_spec.
    uint64_t state = rng();
    rng.seed(state);
    (void)ShardMap({x}, ShardMapSpec{mesh, {spec_of(in_axes)}, {*P::Create({})}}, body);
    rng.seed(state);
    Builder b2;
    Tracer x2 = b2.Arg(F32({8, 4}));
    std::vector<std::string> out_axes = out_vma;
    absl::StatusOr<std::vector<Tracer>> outs =
        ShardMap({x2}, ShardMapSpec{mesh, {spec_of(in_axes)}, {spec_of(out_axes)}}, body);
    ASSERT_THAT(outs, IsOk()) << "trial " << trial;
    ClosedJaxpr f = *b2.Build(*outs);
    ClosedJaxpr typed = Transposed(f, {true});
    absl::StatusOr<ClosedJaxpr> unchecked = DropVarianceTyping(f);
    ASSERT_THAT(unchecked, IsOk()) << PrintJaxpr(f);
    ClosedJaxpr naive = Transposed(*unchecked, {true});
    int64_t t = Count(typed).total_bytes_per_device;
    int64_t n = Count(naive).total_bytes_per_device;
    EXPECT_LE(t, n) << "trial " << trial << "\n"
                    << PrintJaxpr(f) << "\n"
                    << PrintJaxpr(typed) << "\n"
                    << PrintJaxpr(naive);
    if (t < n) ++strictly_less;
  }
  EXPECT_GT(strictly_less, 0);  // the defensive collectives do show up
}

}  // namespace
}  // namespace comm_test
}  // namespace axe::ir
