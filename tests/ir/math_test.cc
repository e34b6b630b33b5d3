// The elementwise functions of family_math.cc against the real JAX (testdata/jax_math, written
// by testdata/generate_math.py): JAX's printouts of common functions (exact gelu, an integer
// hash, shifts past the bit width) and of their gradients round-trip exactly and type-check;
// evaluation gives JAX's numbers (integers exactly), for the function and for JAX's gradient
// text; axe's own Grad gives JAX's gradients, its Vmap a loop's values; typing uses JAX's
// words.
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ad_test_util.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/parser.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace math_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Read(const std::string& file) {
  return testing_support::ReadIrTestdata("jax_math/" + file);
}

bool Exists(const std::string& file) {
  return std::filesystem::exists(std::string(AXE_IR_TESTDATA_DIR) + "/jax_math/" + file);
}

std::map<std::string, std::vector<HostArray>> Values(const std::string& name) {
  return ad_test::ReadTestdataValues("jax_math/" + name + ".values.txt");
}

ClosedJaxpr Parse(const std::string& text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  EXPECT_THAT(j, IsOk());
  return j.ok() ? *j : ClosedJaxpr{};
}

std::vector<HostArray> Eval(const ClosedJaxpr& j, const std::vector<HostArray>& args) {
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(j, args);
  EXPECT_THAT(out, IsOk());
  return out.ok() ? *out : std::vector<HostArray>{};
}

// Floats within a few f32 ulps (JAX's transcendental functions are XLA's approximations),
// integers and bools exactly.
void ExpectJaxs(const std::vector<HostArray>& got, const std::vector<HostArray>& want, double rtol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t k = 0; k < want.size(); ++k) {
    ASSERT_EQ(got[k].aval.shape(), want[k].aval.shape()) << what << " " << k;
    ASSERT_EQ(got[k].aval.dtype(), want[k].aval.dtype()) << what << " " << k;
    for (size_t i = 0; i < want[k].values.size(); ++i) {
      const double g = got[k].values[i], w = want[k].values[i];
      if (!IsFloatingPoint(want[k].aval.dtype())) {
        EXPECT_EQ(g, w) << what << " output " << k << " element " << i;
      } else if (std::isnan(w) || std::isinf(w)) {
        EXPECT_EQ(std::isnan(g), std::isnan(w)) << what << " " << k << " " << i;
        if (std::isinf(w)) {
          EXPECT_EQ(g, w) << what << " " << k << " " << i;
        }
      } else {
        EXPECT_NEAR(g, w, 1e-7 + rtol * std::fabs(w))
            << what << " output " << k << " element " << i;
      }
    }
  }
}

TEST(MathTest, JaxTextsRoundTripTypeCheckAndGiveJaxsValues) {
  int texts = 0;
  for (const std::string& name : testing_support::IrTestdataCases("jax_math")) {
    for (const char* suffix : {".txt", ".loss.txt", ".grad.txt"}) {
      if (!Exists(name + suffix)) continue;
      SCOPED_TRACE(name + suffix);
      std::string text = Read(name + suffix);
      ClosedJaxpr j = Parse(text);
      EXPECT_EQ(PrintJaxpr(j) + "\n", text);
      EXPECT_THAT(CheckJaxpr(j), IsOk());
      ++texts;
    }
    SCOPED_TRACE(name);
    std::map<std::string, std::vector<HostArray>> v = Values(name);
    ExpectJaxs(Eval(Parse(Read(name + ".txt")), v["arg"]), v["out"], 4e-6, "f");
    if (Exists(name + ".grad.txt")) {
      ExpectJaxs(Eval(Parse(Read(name + ".grad.txt")), v["arg"]), v["grad"], 1e-5, "jax grad");
    }
  }
  EXPECT_GE(texts, 24);
}

TEST(MathTest, AxesGradGivesJaxsGradients) {
  for (const std::string& name : testing_support::IrTestdataCases("jax_math")) {
    if (!Exists(name + ".loss.txt")) continue;
    SCOPED_TRACE(name);
    std::map<std::string, std::vector<HostArray>> v = Values(name);
    std::vector<int64_t> argnums;
    for (size_t i = 0; i < v["arg"].size(); ++i) argnums.push_back(static_cast<int64_t>(i));
    absl::StatusOr<ClosedJaxpr> grad = Grad(Parse(Read(name + ".loss.txt")), argnums);
    ASSERT_THAT(grad, IsOk());
    ExpectJaxs(Eval(*grad, v["arg"]), v["grad"], 1e-5, "axe grad");
  }
}

// Vmap over two copies of the arguments (the second shifted for floats) against evaluating
// each copy.
TEST(MathTest, VmapMatchesALoop) {
  for (const std::string& name : testing_support::IrTestdataCases("jax_math")) {
    SCOPED_TRACE(name);
    ClosedJaxpr f = Parse(Read(name + ".txt"));
    std::vector<HostArray> args = Values(name)["arg"], shifted = args, stacked;
    for (HostArray& a : shifted) {
      if (!IsFloatingPoint(a.aval.dtype())) continue;
      for (double& x : a.values) x = RoundToDType(x * 0.5, a.aval.dtype());
    }
    for (size_t k = 0; k < args.size(); ++k) {
      std::vector<int64_t> shape = args[k].aval.shape();
      shape.insert(shape.begin(), 2);
      HostArray s{args[k].aval.WithShape(shape), args[k].values};
      s.values.insert(s.values.end(), shifted[k].values.begin(), shifted[k].values.end());
      stacked.push_back(s);
    }
    VmapOptions options;
    options.axis_size = 2;
    absl::StatusOr<ClosedJaxpr> batched = Vmap(f, options);
    ASSERT_THAT(batched, IsOk());
    std::vector<HostArray> out = Eval(*batched, stacked);
    std::vector<HostArray> first = Eval(f, args), second = Eval(f, shifted);
    ASSERT_EQ(out.size(), first.size());
    for (size_t k = 0; k < out.size(); ++k) {
      std::vector<double> want = first[k].values;
      want.insert(want.end(), second[k].values.begin(), second[k].values.end());
      ASSERT_EQ(out[k].values.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        if (std::isnan(want[i])) {
          EXPECT_TRUE(std::isnan(out[k].values[i]));
        } else {
          EXPECT_EQ(out[k].values[i], want[i]) << k << " " << i;
        }
      }
    }
  }
}

std::vector<double> RunOne(const std::string& type, const std::string& eqn, std::vector<double> x,
                           std::vector<double> y) {
  ClosedJaxpr j = Parse("{ lambda ; a:" + type + " b:" + type + ". let c:" + type + " = " + eqn +
                        " a b in (c,) }");
  ShapedArray aval = *ShapedArray::ParseShort(type);
  std::vector<HostArray> out = Eval(j, {HostArray{aval, x}, HostArray{aval, y}});
  return out.empty() ? std::vector<double>{} : out[0].values;
}

// XLA's shifts in every width: amounts of the width or more (or negative, read as unsigned)
// give 0, or the sign fill for the arithmetic shift; 64-bit values keep their bits.
TEST(MathTest, ShiftsFollowXlaInEveryWidth) {
  EXPECT_THAT(RunOne("i64[4]", "shift_left", {1, 1, -1, 3}, {62, 63, 64, -1}),
              ElementsAre(0x1p62, -0x1p63, 0, 0));
  EXPECT_THAT(RunOne("i64[3]", "shift_right_arithmetic", {-0x1p63, -5, 5}, {63, 64, 64}),
              ElementsAre(-1, -1, 0));
  EXPECT_THAT(RunOne("u64[2]", "shift_right_logical", {0x1p63, 0x1p63}, {63, 64}),
              ElementsAre(1, 0));
  EXPECT_THAT(RunOne("u16[3]", "shift_right_arithmetic", {32768, 32768, 4}, {15, 16, 1}),
              ElementsAre(65535, 65535, 2));
  EXPECT_THAT(RunOne("i8[3]", "shift_left", {1, 3, 64}, {7, 6, 1}), ElementsAre(-128, -64, -128));
}

absl::Status CheckText(const std::string& text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  if (!j.ok()) return j.status();
  return CheckJaxpr(*j);
}

TEST(MathTest, TypingUsesJaxsWords) {
  EXPECT_THAT(CheckText("{ lambda ; a:i32[3]. let b:i32[3] = erf a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("erf does not accept dtype int32. Accepted dtypes are subtypes "
                                 "of floating.")));
  EXPECT_THAT(
      CheckText("{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = shift_left a b in (c,) }"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("shift_left does not accept dtype float32 at position 0. Accepted dtypes "
                         "at position 0 are subtypes of integer.")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = xor a b in (c,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("xor does not accept dtype float32 at position 0. Accepted "
                                 "dtypes at position 0 are subtypes of integer, bool.")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3] b:f32[4]. let c:f32[3] = atan2 a b in (c,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("atan2 got incompatible shapes for broadcasting: (3,), (4,).")));
  EXPECT_THAT(CheckText("{ lambda ; a:f32[3]. let b:f32[3] = tan[accuracy=None] a in (b,) }"),
              IsOk());
}

TEST(MathTest, NextafterHasNoDerivativeAsInJax) {
  ClosedJaxpr f = Parse(Read("nextafter.txt"));
  EXPECT_THAT(Jvp(f).status(), StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("nextafter")));
}

}  // namespace
}  // namespace math_test
}  // namespace axe::ir
