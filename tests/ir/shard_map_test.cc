// shard_map tracing with variance typing (spec §4-5): the jaxprs JAX prints for the same
// programs (tests/ir/testdata/jax/shmap_*.txt) are reproduced byte for byte, and the spec's
// typing vectors give JAX's errors.
#include "axe/ir/shard_map.h"

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/check.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/testdata.h"

namespace axe::ir {
namespace shard_map_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;
using P = sharding::PartitionSpec;

std::string JaxText(const std::string& name) {
  std::string s = testing_support::ReadJaxProgram(name);
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

sharding::Mesh MakeMesh(std::vector<sharding::MeshAxis> axes) {
  return *sharding::Mesh::Create(std::move(axes));
}

P Spec(std::vector<P::Entry> entries) { return *P::Create(std::move(entries)); }

ShapedArray F32(std::vector<int64_t> shape) { return ShapedArray(std::move(shape), DType::kF32); }

// Traces f(args) with a shard_map and returns the printed jaxpr (or the error).
absl::StatusOr<std::string> Trace(std::vector<ShapedArray> arg_types, const ShardMapSpec& spec,
                                  const ShardMapBody& body) {
  Builder b;
  std::vector<Tracer> args;
  for (ShapedArray& t : arg_types) args.push_back(b.Arg(std::move(t)));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, ShardMap(args, spec, body));
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr j, b.Build(outs));
  AXE_RETURN_IF_ERROR(CheckJaxpr(j));
  return PrintJaxpr(j);
}

std::vector<Tracer> One(Tracer t) { return {t}; }

TEST(ShardMapTest, PsumMatchesJax) {
  ShardMapSpec spec{MakeMesh({{"x", 4}}), {Spec({{"x"}})}, {Spec({})}};
  auto body = [](Builder&, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
    AXE_ASSIGN_OR_RETURN(Tracer s, Psum(xs[0], {"x"}));
    return One(s);
  };
  EXPECT_THAT(Trace({F32({8})}, spec, body),
              ::axe::testing_support::IsOkAndHolds(JaxText("shmap_psum")));
  spec.check_vma = false;
  EXPECT_THAT(Trace({F32({8})}, spec, body),
              ::axe::testing_support::IsOkAndHolds(JaxText("shmap_nocheck")));
}

// [TR-3] forward: in_specs=P(), out_specs=P('x'), identity: the implicit pvary.
TEST(ShardMapTest, Tr3IdentityGetsAnImplicitPvary) {
  ShardMapSpec spec{MakeMesh({{"x", 4}}), {Spec({})}, {Spec({{"x"}})}};
  auto body = [](Builder&, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
    return One(xs[0]);
  };
  EXPECT_THAT(Trace({F32({8})}, spec, body),
              ::axe::testing_support::IsOkAndHolds(JaxText("shmap_identity_pvary")));
}

// Auto pcast: the literal and the psum'd operand are pvary'd to the common set (JAX's text).
TEST(ShardMapTest, AutoPvaryOfOperandsMatchesJax) {
  ShardMapSpec spec{MakeMesh({{"x", 2}, {"y", 2}}),
                    {Spec({{"x"}, {"y"}}), Spec({{"x"}, {"y"}})},
                    {Spec({{"x"}, {"y"}})}};
  auto body = [](Builder& b, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
    const BuiltinPrimitives& p = Builtins();
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> x2,
                         BindWithAutoPvary(*p.mul, {xs[0], b.Scalar(2.0, DType::kF32)}));
    AXE_ASSIGN_OR_RETURN(Tracer s, Psum(xs[1], {"y"}));
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> sum, BindWithAutoPvary(*p.add, {x2[0], s}));
    return sum;
  };
  EXPECT_THAT(Trace({F32({4, 4}), F32({4, 4})}, spec, body),
              ::axe::testing_support::IsOkAndHolds(JaxText("shmap_2d")));
}

// [TR-10] forward: all_gather(x, 'i') * y.
TEST(ShardMapTest, AllGatherTimesYMatchesJax) {
  ShardMapSpec spec{MakeMesh({{"x", 4}}), {Spec({{"x"}}), Spec({{"x"}})}, {Spec({{"x"}})}};
  auto body = [](Builder&, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
    AXE_ASSIGN_OR_RETURN(Tracer g, AllGather(xs[0], {"x"}, 0, false));
    return BindWithAutoPvary(*Builtins().mul, {g, xs[1]});
  };
  EXPECT_THAT(Trace({F32({8}), F32({4, 2})}, spec, body),
              ::axe::testing_support::IsOkAndHolds(JaxText("shmap_all_gather")));
}

TEST(ShardMapTest, Vt1IdentityIntoReplicatedOutputIsAnError) {
  ShardMapSpec spec{MakeMesh({{"i", 2}}), {Spec({{"i"}})}, {Spec({})}};
  spec.function_name = "<lambda>";
  EXPECT_THAT(
      Trace({F32({4})}, spec,
            [](Builder&, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
              return One(xs[0]);
            }),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "shard_map applied to the function '<lambda>' was given out_specs which require "
               "replication which can't be statically inferred given the mesh:\n\n"
               "The mesh given has shape (2,) with corresponding axis names ('i',).\n\n"
               "out_specs is P() which implies that the corresponding output value is "
               "replicated across mesh axis 'i', but could not infer replication over any "
               "axes\n\n"
               "Check if these output values are meant to be replicated over those mesh axes. "
               "If not, consider revising the corresponding out_specs entries. If so, consider "
               "disabling the check by passing the check_vma=False argument to "
               "`jax.shard_map`."));
}

TEST(ShardMapTest, Vt4PartiallyVaryingOutput) {
  ShardMapSpec spec{
      MakeMesh({{"x", 2}, {"y", 2}, {"z", 2}}), {Spec({{"x"}, {"y"}, {"z"}})}, {Spec({{"x"}})}};
  EXPECT_THAT(
      Trace({F32({4, 4, 4})}, spec,
            [](Builder& b, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
              return BindWithAutoPvary(*Builtins().mul, {xs[0], b.Scalar(2, DType::kF32)});
            }),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("out_specs is P('x',) which implies that the corresponding output "
                         "value is only varying across mesh axes {x} and not {y,z}, but it was "
                         "inferred to be possibly varying over {x,y,z}")));
}

TEST(ShardMapTest, SeveralFailingOutputsAreBulleted) {
  ShardMapSpec spec{MakeMesh({{"i", 2}}), {Spec({{"i"}})}, {Spec({}), Spec({})}};
  auto status =
      Trace({F32({4})}, spec,
            [](Builder&, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
              return std::vector<Tracer>{xs[0], xs[0]};
            });
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                               HasSubstr("\n\n* out_specs[0] is P() which implies")));
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                               HasSubstr("\n\n* out_specs[1] is P() which implies")));
}

// [VT-8]: an invariant input all_gather'd is pvary'd first.
TEST(ShardMapTest, Vt8AllGatherOfInvariantInsertsPvary) {
  ShardMapSpec spec{MakeMesh({{"x", 2}}), {Spec({})}, {Spec({{"x"}})}};
  absl::StatusOr<std::string> text =
      Trace({F32({3})}, spec,
            [](Builder&, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
              AXE_ASSIGN_OR_RETURN(Tracer g, AllGather(xs[0], {"x"}, 0, false));
              return One(g);
            });
  ASSERT_THAT(text, IsOk());
  EXPECT_THAT(*text, HasSubstr("pvary[axes=('x',)"));
  EXPECT_THAT(*text, HasSubstr("f32[2,3]{V:x} = all_gather["));
}

// JAX's all_to_all primitive has the tiled shapes whatever `tiled` says (lax.all_to_all adds
// and squeezes the axes of its untiled form around it); a split axis the group does not
// divide is refused in JAX's words.
// A shard_map over x=4 of an all_to_all (split_axis=1, concat_axis=0) of `global` split by
// rows into blocks of `local`, declared to give blocks of `out`.
std::string AllToAllProgram(const std::string& global, const std::string& local,
                            const std::string& out, bool tiled) {
  return absl::StrCat("{ lambda ; a:f32[", global, "]. let b:f32[64,1] = shard_map[check_vma=True ",
                      "in_specs=(P('x',),) jaxpr={ lambda ; c:f32[", local, "]{V:x}. let d:f32[",
                      out,
                      "]{V:x} = all_to_all[axis_index_groups=None axis_name=x concat_axis=0 "
                      "split_axis=1 tiled=",
                      tiled ? "True" : "False",
                      "] c in (d,) } mesh=Mesh('x': 4, axis_types=(Auto,)) "
                      "newly_manual_axes=frozenset({'x'}) out_specs=(P('x',),)] a in (b,) }");
}

TEST(ShardMapTest, AllToAllHasTheTiledShapesAsJaxsPrimitive) {
  for (bool tiled : {true, false}) {
    absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(AllToAllProgram("16,4", "4,4", "16,1", tiled));
    ASSERT_THAT(j, IsOk());
    EXPECT_THAT(CheckJaxpr(*j), IsOk()) << "tiled=" << tiled;
    absl::StatusOr<ClosedJaxpr> odd = ParseJaxpr(AllToAllProgram("16,6", "4,6", "16,1", tiled));
    ASSERT_THAT(odd, IsOk());
    EXPECT_THAT(CheckJaxpr(*odd),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("The size of all_to_all split_axis (6) has to be divisible "
                                   "by the size of the named axis x (4)")));
  }
}

TEST(ShardMapTest, PsumOfPsumTypeChecks) {
  ShardMapSpec spec{MakeMesh({{"i", 2}}), {Spec({{"i"}})}, {Spec({})}};
  absl::StatusOr<std::string> text =
      Trace({F32({4})}, spec,
            [](Builder&, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
              AXE_ASSIGN_OR_RETURN(Tracer s, Psum(xs[0], {"i"}));
              AXE_ASSIGN_OR_RETURN(Tracer t, Psum(s, {"i"}));
              return One(t);
            });
  ASSERT_THAT(text, IsOk());
  EXPECT_THAT(*text, HasSubstr("pvary[axes=('i',)]"));
}

// [TR-8]: all_gather into a replicated output is a type error; all_gather_invariant is not.
TEST(ShardMapTest, Tr8AllGatherNeedsToInvarying) {
  ShardMapSpec spec{MakeMesh({{"i", 2}}), {Spec({{"i"}})}, {Spec({})}};
  auto gather = [](bool invariant) {
    return
        [invariant](Builder&, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
          AXE_ASSIGN_OR_RETURN(Tracer g, AllGather(xs[0], {"i"}, 0, true, invariant));
          return One(g);
        };
  };
  EXPECT_THAT(
      Trace({F32({4})}, spec, gather(false)),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("replicated across mesh axis 'i'")));
  EXPECT_THAT(Trace({F32({4})}, spec, gather(true)), IsOk());
}

TEST(ShardMapTest, NonDivisibleArguments) {
  ShardMapSpec spec{MakeMesh({{"x", 4}}), {Spec({{"x"}})}, {Spec({{"x"}})}};
  spec.function_name = "f";
  EXPECT_THAT(
      Trace({F32({6})}, spec,
            [](Builder&, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
              return One(xs[0]);
            }),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "shard_map applied to the function 'f' was given argument arrays with axis sizes "
               "that are not evenly divisible by the corresponding mesh axis sizes:\n\n"
               "The mesh given has shape (4,) with corresponding axis names ('x',).\n\n"
               "the passed args[0] of shape f32[6] corresponds to in_specs of value P('x',), "
               "which maps array axis 0 (of size 6) to mesh axis 'x' (of size 4), but 4 does "
               "not evenly divide 6\n\n"
               "Array arguments' axis sizes must be evenly divisible by the mesh axis or axes "
               "indicated by the corresponding elements of the argument's in_specs entry. "
               "Consider checking that in_specs are correct, and if so consider changing the "
               "mesh axis sizes or else padding the input and adapting 'f' appropriately."));
}

}  // namespace
}  // namespace shard_map_test
}  // namespace axe::ir
