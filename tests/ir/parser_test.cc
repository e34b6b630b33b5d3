#include "axe/ir/parser.h"

#include <filesystem>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "axe/ir/builder.h"
#include "axe/ir/check.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "support/testdata.h"

namespace axe::ir {
namespace parser_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;
using testing_support::ReadFile;

std::vector<std::filesystem::path> JaxTexts() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(AXE_IR_TESTDATA_DIR) + "/jax")) {
    if (entry.path().extension() == ".txt") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every text JAX printed (tests/ir/testdata/generate.py) parses and prints back identically.
TEST(ParserTest, JaxPrintedJaxprsParseAndReprintIdentically) {
  std::vector<std::filesystem::path> files = JaxTexts();
  ASSERT_GE(files.size(), 25u);
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    std::string text = ReadFile(path);
    absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
    ASSERT_THAT(j, IsOk());
    EXPECT_EQ(PrintJaxpr(*j) + "\n", text);
    absl::StatusOr<ClosedJaxpr> again = ParseJaxpr(PrintJaxpr(*j));
    ASSERT_THAT(again, IsOk());
    EXPECT_TRUE(*again == *j);
  }
}

// Every proper prefix of a JAX text is an error (never a crash or a hang).
// Regression (jax_vectors_test): JAX names a jit body's outputs like the jit equation's, so a
// dropped jit output makes the body read a variable printed "_" (printed by jax 0.10.2).
TEST(ParserTest, JitBodyReadingUnderscoreParsesAndReprints) {
  const std::string jax =
      "{ lambda ; a:bf16[2] b:i32[1,1,2]. let\n"
      "    _:bf16[2] = jit[\n"
      "      name=<lambda>\n"
      "      jaxpr={ lambda ; a:bf16[2] b:i32[1,1,2]. let\n"
      "          _:bf16[2] = mul a a\n"
      "          c:bool[2] = ge a _\n"
      "        in (_,) }\n"
      "    ] a b\n"
      "    d:i32[1,2] = squeeze[dimensions=(0,)] b\n"
      "  in (d,) }";
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(jax);
  ASSERT_THAT(j, IsOk());
  EXPECT_EQ(PrintJaxpr(*j), jax);
  EXPECT_THAT(CheckJaxpr(*j), IsOk());
  // Outside jit's naming a "_" that nothing bound is still an unknown variable.
  EXPECT_THAT(ParseJaxpr("{ lambda ; a:f32[]. let b:f32[] = sin _ in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown variable '_'")));
}

TEST(ParserTest, TruncatedTextsAreErrors) {
  for (const auto& path : JaxTexts()) {
    std::string text = ReadFile(path);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    for (size_t n = 0; n < text.size(); n += 1 + text.size() / 200) {
      EXPECT_FALSE(ParseJaxpr(text.substr(0, n)).ok()) << path << " prefix " << n;
    }
  }
}

TEST(ParserTest, ShardMapParamsAreReadable) {
  absl::StatusOr<ClosedJaxpr> j =
      ParseJaxpr(ReadFile(std::string(AXE_IR_TESTDATA_DIR) + "/jax/shmap_psum.txt"));
  ASSERT_THAT(j, IsOk());
  const Eqn& e = j->jaxpr.eqns[0];
  EXPECT_EQ(e.primitive, Builtins().shard_map);
  absl::StatusOr<sharding::Mesh> mesh = e.params.at("mesh").AsMesh("mesh");
  ASSERT_THAT(mesh, IsOk());
  EXPECT_EQ(mesh->ToString(), "Mesh('x': 4)");
  absl::StatusOr<sharding::PartitionSpec> in =
      e.params.at("in_specs").items()[0].AsPartitionSpec("in_specs");
  ASSERT_THAT(in, IsOk());
  EXPECT_EQ(in->ToString(), "P('x',)");
  EXPECT_EQ(e.params.at("check_vma"), Param::Bool(true));
  EXPECT_EQ(e.params.at("newly_manual_axes").ToString(), "frozenset({'x'})");
  const Jaxpr& body = e.params.at("jaxpr").jaxpr()->jaxpr;
  EXPECT_EQ(body.aval(body.invars[0]).ShortString(), "f32[2]{V:x}");
  EXPECT_EQ(body.eqns[0].primitive, Builtins().psum_invariant);
  EXPECT_THAT(body.eqns[0].params.at("axes").AsAxisNames("axes"),
              ::axe::testing_support::IsOkAndHolds(std::vector<std::string>{"x"}));
}

TEST(ParserTest, BroadcastInDimGetsItsShapeFromTheBinder) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(
      "{ lambda ; a:f32[3]. let b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a in "
      "(b,) }");
  ASSERT_THAT(j, IsOk());
  EXPECT_EQ(j->jaxpr.eqns[0].params.at("shape"), Param::Ints({2, 3}));
}

TEST(ParserTest, ErrorsNameLineAndColumn) {
  EXPECT_THAT(ParseJaxpr("{ lambda ; a:f32[3]. let\n    b:f32[3] = frobnicate a\n  in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "line 2, column 16: unknown primitive 'frobnicate' (register it with "
                       "Primitive::Define)"));
  // An unknown primitive without outputs (an effect, like JAX's debug_print) is named as a
  // primitive.
  EXPECT_THAT(ParseJaxpr("{ lambda ; a:f32[3]. let\n    b:f32[3] = sin a\n"
                         "    frobnicate_print[ordered=False] b\n  in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "line 3, column 5: unknown primitive 'frobnicate_print' (register it "
                       "with Primitive::Define)"));
  EXPECT_THAT(
      ParseJaxpr("{ lambda ; a:f32[3]. let b:f32[3] = sin q in (b,) }"),
      StatusIs(absl::StatusCode::kInvalidArgument, "line 1, column 41: unknown variable 'q'"));
  EXPECT_THAT(ParseJaxpr("{ lambda ; a:f32[3]. let b:f32[3] = sin b in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown variable 'b'")));
  EXPECT_THAT(ParseJaxpr("{ lambda ; a:f32[3] a:f32[3]. let  in (a,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "line 1, column 21: Variable 'a' already bound"));
  EXPECT_THAT(ParseJaxpr("{ lambda ; a:f33[3]. let  in (a,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 1, column 14: position 0: unknown element type 'f33'")));
  EXPECT_THAT(ParseJaxpr("{ lambda ; a:f32[3]. let  in (a,) } extra"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "line 1, column 37: expected the end of the text, found 'e'"));
  EXPECT_THAT(ParseJaxpr("{ lambda ; a:f32[]. let b:f32[] = add a 1.5:i32[] in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'1.5' is not an integer fitting int64")));
}

TEST(ParserTest, BoundsDepthAndLength) {
  std::string deep = "{ lambda ; a:f32[]. let b:f32[] = sin[accuracy=";
  for (int i = 0; i < 100; ++i) deep += "(";
  EXPECT_THAT(ParseJaxpr(deep), StatusIs(absl::StatusCode::kInvalidArgument,
                                         HasSubstr("nesting deeper than 64 levels")));
  ParseOptions small;
  small.max_length = 10;
  EXPECT_THAT(ParseJaxpr("{ lambda ; a:f32[]. let  in (a,) }", small),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 10")));
}

TEST(ParserTest, ThirdPartyPrimitivesParseOnceRegistered) {
  const std::string text = "{ lambda ; a:f32[2]. let b:f32[2] = my_op[k=3] a in (b,) }";
  if (Primitive::Find("my_op") == nullptr) {  // (it is, when the test is repeated)
    EXPECT_THAT(ParseJaxpr(text), StatusIs(absl::StatusCode::kInvalidArgument,
                                           HasSubstr("unknown primitive 'my_op'")));
    Primitive::Options o;
    o.name = "my_op";
    ASSERT_THAT(Primitive::Define(o), IsOk());
  }
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  ASSERT_THAT(j, IsOk());
  EXPECT_EQ(PrintJaxpr(*j), text);
}

// ---- round trip over random builder-made jaxprs ----

class RandomJaxprs {
 public:
  explicit RandomJaxprs(uint64_t seed) : rng_(seed) {}

  ClosedJaxpr Make(int depth) {
    Builder b;
    std::vector<Tracer> pool;
    int num_args = Uniform(1, 3);
    for (int i = 0; i < num_args; ++i) pool.push_back(b.Arg(RandomType()));
    int num_eqns = Uniform(0, 8);
    for (int i = 0; i < num_eqns; ++i) {
      absl::StatusOr<std::vector<Tracer>> outs = Step(b, pool, depth);
      if (outs.ok()) pool.insert(pool.end(), outs->begin(), outs->end());
    }
    std::vector<Tracer> results;
    int num_outs = Uniform(1, 3);
    for (int i = 0; i < num_outs; ++i) results.push_back(Pick(pool));
    if (Uniform(0, 4) == 0) results.push_back(b.Scalar(Uniform(-3, 3) * 0.25, DType::kF32));
    return *b.Build(results);
  }

 private:
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  const Tracer& Pick(const std::vector<Tracer>& pool) { return pool[Uniform(0, pool.size() - 1)]; }
  ShapedArray RandomType() {
    static const std::vector<std::vector<int64_t>> shapes = {{}, {3}, {2, 3}, {4}};
    static const DType dtypes[] = {DType::kF32, DType::kF32, DType::kS32, DType::kBF16};
    return ShapedArray(shapes[Uniform(0, 3)], dtypes[Uniform(0, 3)]);
  }

  absl::StatusOr<std::vector<Tracer>> One(absl::StatusOr<Tracer> t) {
    if (!t.ok()) return t.status();
    return std::vector<Tracer>{*t};
  }

  absl::StatusOr<std::vector<Tracer>> Step(Builder& b, const std::vector<Tracer>& pool, int depth) {
    const Tracer& x = Pick(pool);
    const BuiltinPrimitives& p = Builtins();
    switch (Uniform(0, 9)) {
      case 0: return One(Binary(*p.add, x, Pick(pool)));
      case 1: return One(Binary(*p.mul, x, b.Scalar(Uniform(0, 8) * 0.5, x.aval.dtype())));
      case 2: return One(Sin(x));
      case 3: return One(Binary(*p.lt, x, Pick(pool)));
      case 4: return One(ConvertElementType(x, DType::kF32));
      case 5:
        return One(
            ReduceSum(x, x.aval.rank() > 0 ? std::vector<int64_t>{0} : std::vector<int64_t>{}));
      case 6: return One(ExpandDims(x, {0}));
      case 7: return One(Reshape(x, {*x.aval.NumElements()}));
      case 8:
        if (depth < 2) {
          auto body = std::make_shared<const ClosedJaxpr>(Make(depth + 1));
          std::vector<Tracer> args;
          for (VarId v : body->jaxpr.invars) {
            ShapedArray t = body->jaxpr.aval(v);
            args.push_back(b.Arg(t));
          }
          return Jit(body, args, "f");
        }
        return One(Neg(x));
      default:
        return One(Transpose(
            x, x.aval.rank() == 2 ? std::vector<int64_t>{1, 0} : std::vector<int64_t>{0}));
    }
  }

  std::mt19937_64 rng_;
};

TEST(ParserTest, RoundTripOverRandomBuilderJaxprs) {
  RandomJaxprs gen(testing_support::TestSeed(12));
  for (int i = 0; i < 300; ++i) {
    ClosedJaxpr j = gen.Make(0);
    std::string text = PrintJaxpr(j);
    absl::StatusOr<ClosedJaxpr> parsed = ParseJaxpr(text);
    ASSERT_THAT(parsed, IsOk()) << text;
    EXPECT_TRUE(*parsed == j) << text << "\nreprinted:\n" << PrintJaxpr(*parsed);
    EXPECT_EQ(PrintJaxpr(*parsed), text);
  }
}

}  // namespace
}  // namespace parser_test
}  // namespace axe::ir

namespace axe::ir {
namespace parser_test {
namespace {

// A long program prints, parses and checks (linear-time paths; no size limit is hit).
TEST(ParserTest, LargeJaxprRoundTrips) {
  Builder b;
  Tracer x = b.Arg(ShapedArray({16}, DType::kF32));
  Tracer acc = x;
  for (int i = 0; i < 20000; ++i) {
    acc = *(i % 2 == 0 ? Sin(acc) : Mul(acc, b.Scalar(0.5 + i, DType::kF32)));
  }
  ClosedJaxpr j = *b.Build({acc});
  std::string text = PrintJaxpr(j);
  absl::StatusOr<ClosedJaxpr> parsed = ParseJaxpr(text);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_TRUE(*parsed == j);
  EXPECT_THAT(CheckJaxpr(*parsed), IsOk());
}

// Random edits of JAX's texts (byte flips, deletions, duplications) never crash the parser or
// the checker; whatever parses prints and parses back to the same jaxpr.
TEST(ParserTest, MutatedTextsNeverCrash) {
  std::mt19937_64 rng(testing_support::TestSeed(1212));
  std::vector<std::string> texts;
  for (const auto& path : JaxTexts()) texts.push_back(ReadFile(path));
  const std::string alphabet = "{}[]()<>:;,.=_ '\"\n-+0123456789abcxyzPVfi";
  int parsed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string t = texts[rng() % texts.size()];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !t.empty(); ++e) {
      size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0: t[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: t.erase(at, 1 + rng() % 8); break;
        default: t.insert(at, t.substr(at, 1 + rng() % 16)); break;
      }
    }
    absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(t);
    if (!j.ok()) continue;
    ++parsed;
    (void)CheckJaxpr(*j);
    absl::StatusOr<ClosedJaxpr> again = ParseJaxpr(PrintJaxpr(*j));
    ASSERT_THAT(again, IsOk()) << t;
    EXPECT_TRUE(*again == *j) << t;
  }
  EXPECT_GT(parsed, 0);
}

}  // namespace
}  // namespace parser_test
}  // namespace axe::ir
