#include "axe/ir/check.h"

#include <filesystem>

#include "axe/base/python_error.h"
#include "axe/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/testdata.h"

namespace axe::ir {
namespace check_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

// Every jaxpr JAX printed type-checks with axe's rules (shard_map bodies with their variance
// sets, the check_vma=False body, nested jit/cond/scan bodies).
TEST(CheckTest, JaxPrintedJaxprsTypeCheck) {
  int checked = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(AXE_IR_TESTDATA_DIR) + "/jax")) {
    SCOPED_TRACE(entry.path().filename().string());
    absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(testing_support::ReadFile(entry.path()));
    ASSERT_THAT(j, IsOk());
    EXPECT_THAT(CheckJaxpr(*j), IsOk());
    ++checked;
  }
  EXPECT_GE(checked, 25);
}

absl::Status CheckText(absl::string_view text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  if (!j.ok()) return j.status();
  return CheckJaxpr(*j);
}

TEST(CheckTest, BinderTypesMustMatchTheRule) {
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3]. let b:f32[4] = sin a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Value for variable 'b' inconsistently typed as f32[3] for let-binder of "
                       "type f32[4]\n\nin equation:\n\nb:f32[4] = sin a"));
}

// Regression (jax_vectors_test): JAX's check_jaxpr names an equation output nothing reads "_"
// (core._dropvars), in the message and in the equation; the equation starts at column 0.
TEST(CheckTest, UnusedBindersAreNamedUnderscoreLikeJax) {
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3]. let b:f32[4] = sin a; c:f32[3] = cos a in (c,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Value for variable '_' inconsistently typed as f32[3] for let-binder of "
                       "type f32[4]\n\nin equation:\n\n_:f32[4] = sin a"));
}

// Regression (jax_vectors_test): JAX's pmax (and pmin) type-check with psum_invariant's rule,
// whose message says "psum" whichever of them failed.
TEST(CheckTest, PmaxOfAnInvariantValueGivesJaxsPsumMessage) {
  EXPECT_THAT(
      CheckText("{ lambda ; a:f32[4]. let b:f32[4] = shard_map[check_vma=True "
                "in_specs=(P(None,),) jaxpr={ lambda ; c:f32[4]. let d:f32[4] = pmax[axes=('x',) "
                "axis_index_groups=None] c in (d,) } mesh=Mesh('x': 2, axis_types=(Auto,)) "
                "newly_manual_axes=frozenset({'x'}) out_specs=(P(None,),)] a in (b,) }"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("psum is a variant->invariant collective. This means that the axis "
                         "names mentioned in `axes` passed to `psum` must be present in "
                         "`jax.typeof(inp).mat.varying`. Got axes=('x',) and "
                         "jax.typeof(inp).mat.varying=frozenset()")));
}

// Regression (jax_vectors_test): JAX's shard_map typecheck refuses an output varying over an
// axis its out_spec leaves out; axe's CheckJaxpr used to accept it.
TEST(CheckTest, OutSpecsMustNameTheAxesTheOutputVariesOver) {
  const std::string text =
      "{ lambda ; a:f32[8]. let b:f32[2] = shard_map[check_vma=True in_specs=(P('x',),) "
      "jaxpr={ lambda ; c:f32[2]{V:x}. let d:f32[2]{V:x} = sin c in (d,) } "
      "mesh=Mesh('x': 4, axis_types=(Auto,)) newly_manual_axes=frozenset({'x'}) "
      "out_specs=(P(None,),)] a in (b,) }";
  absl::Status s = CheckText(text);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("shard_map can't prove output is sufficiently replicated\n\n"
                                    "in equation:\n\nb:f32[2] = shard_map[")));
  EXPECT_TRUE(IsTypeError(s));  // JAX's JaxprTypeError
  std::string unchecked = text;
  unchecked.replace(unchecked.find("check_vma=True"), 14, "check_vma=False");
  unchecked.replace(unchecked.find("{V:x}. let d:f32[2]{V:x}"), 24, ". let d:f32[2]");
  EXPECT_THAT(CheckText(unchecked), IsOk());
}

TEST(CheckTest, RuleErrorsNameTheEquation) {
  EXPECT_THAT(
      CheckText("{ lambda ; a:f32[3] b:f32[4]. let c:f32[3] = add a b in (c,) }"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "add got incompatible shapes for broadcasting: (3,), (4,).\n\nin equation:\n\n"
               "c:f32[3] = add a b"));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3] b:i32[3]. let c:f32[3] = mul a b in (c,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("lax.mul requires arguments to have the same dtypes, got "
                                 "float32, int32. (Tip: jnp.multiply is a similar function that "
                                 "does automatic type promotion on inputs).")));
}

TEST(CheckTest, ParamsMustHaveTheirDeclaredForms) {
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3]. let b:f32[3] = reduce_sum[axes=x] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("parameter axes must be a tuple of integers, got x")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3]. let b:f32[] = reduce_sum a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("primitive 'reduce_sum' needs the parameter 'axes'")));
}

TEST(CheckTest, VariablesBoundOnceBeforeUse) {
  absl::StatusOr<ClosedJaxpr> j =
      ParseJaxpr("{ lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = cos b in (c,) }");
  ASSERT_THAT(j, IsOk());
  ClosedJaxpr swapped = *j;
  std::swap(swapped.jaxpr.eqns[0], swapped.jaxpr.eqns[1]);
  EXPECT_THAT(CheckJaxpr(swapped),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Variable 'c' not defined")));
  ClosedJaxpr twice = *j;
  twice.jaxpr.eqns[1].outputs = twice.jaxpr.eqns[0].outputs;
  EXPECT_THAT(CheckJaxpr(twice), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("Variable 'b' already bound")));
  ClosedJaxpr consts = *j;
  consts.consts.push_back(HostArray{});
  EXPECT_THAT(CheckJaxpr(consts),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 consts for 0 constvars")));
}

TEST(CheckTest, ShardMapBodiesAreTypedWithTheirMesh) {
  // [VT-6] inside, x : f32[3]{V:i} and psum(x, 'i') : f32[3].
  const std::string ok =
      "{ lambda ; a:f32[6]. let\n"
      "    b:f32[3] = shard_map[\n"
      "      check_vma=True\n"
      "      in_specs=(P('i',),)\n"
      "      jaxpr={ lambda ; c:f32[3]{V:i}. let d:f32[3] = psum_invariant[axes=('i',)] c in (d,) "
      "}\n"
      "      mesh=Mesh('i': 2, axis_types=(Auto,))\n"
      "      newly_manual_axes=frozenset({'i'})\n"
      "      out_specs=(P(),)\n"
      "    ] a\n"
      "  in (b,) }";
  EXPECT_THAT(CheckText(ok), IsOk());
  std::string wrong = ok;
  wrong.replace(wrong.find("d:f32[3] ="), 10, "d:f32[3]{V:i} =");
  EXPECT_THAT(CheckText(wrong),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Value for variable 'b' inconsistently typed as f32[3] for "
                                 "let-binder of type f32[3]{V:i}\n\nin equation:\n\n"
                                 "b:f32[3]{V:i} = psum_invariant[axes=('i',)] a\n\nin the jaxpr "
                                 "of parameter jaxpr\n\nin equation:\n\nb:f32[3] = "
                                 "shard_map[")));
}

}  // namespace
}  // namespace check_test
}  // namespace axe::ir
