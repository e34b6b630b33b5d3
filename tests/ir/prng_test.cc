// JAX's PRNG (random_seed, random_wrap, random_unwrap, random_split, random_fold_in,
// random_bits, threefry2x32 and the key<fry> element type) against the real JAX
// (testdata/jax_prng, written by testdata/generate_prng.py): printouts round-trip exactly and
// type-check, evaluation gives JAX's bits exactly, with jax_threefry_partitionable on (the
// jaxprs) and off (threefry.h's other path); typing errors in JAX's words; the key type in
// text; grad and vmap of programs over keys.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "ad_test_util.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/check.h"
#include "axe/ir/eval.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/parser.h"
#include "axe/ir/primitive.h"
#include "axe/ir/primitives.h"
#include "axe/ir/printer.h"
#include "axe/ir/threefry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace prng_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Read(const std::string& file) {
  return testing_support::ReadIrTestdata("jax_prng/" + file);
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names = testing_support::IrTestdataCases("jax_prng");
  std::erase(names, "original");
  return names;
}

// The primitives of JAX's uniform/normal that axe may not define yet: texts using one are
// skipped until it is defined.
std::string MissingPrimitive(const std::string& text) {
  for (const char* name : {"shift_right_logical", "bitcast_convert_type", "erf_inv"}) {
    if (Primitive::Find(name) == nullptr &&
        text.find(std::string(" ") + name + " ") != std::string::npos) {
      return name;
    }
  }
  return "";
}

// Same type and the same bits (keys by their key data, integers exactly); floats computed from
// the bits (uniform, normal, dropout) within 1e-6 relative, JAX's f32 tolerance, NaN matching
// NaN.
void ExpectSame(const HostArray& got, const HostArray& want, const std::string& what) {
  ASSERT_EQ(got.aval.ShortString(), want.aval.ShortString()) << what;
  ASSERT_EQ(got.values.size(), want.values.size()) << what;
  for (size_t i = 0; i < want.values.size(); ++i) {
    if (IsKeyType(want.aval.dtype())) {
      EXPECT_EQ(std::bit_cast<uint64_t>(got.values[i]), std::bit_cast<uint64_t>(want.values[i]))
          << what << " key " << i << ": " << FormatElement(got.values[i], got.aval.dtype())
          << " where JAX has " << FormatElement(want.values[i], want.aval.dtype());
    } else if (IsFloatingPoint(want.aval.dtype())) {
      if (std::isnan(want.values[i]) && std::isnan(got.values[i])) continue;
      if (std::isinf(want.values[i])) {
        EXPECT_EQ(got.values[i], want.values[i]) << what << " element " << i;
        continue;
      }
      EXPECT_NEAR(got.values[i], want.values[i], 1e-6 * std::max(1.0, std::fabs(want.values[i])))
          << what << " element " << i;
    } else {
      EXPECT_EQ(got.values[i], want.values[i]) << what << " element " << i;
    }
  }
}

TEST(PrngTest, ThreefryHashGivesTheRandom123KnownAnswers) {
  EXPECT_THAT(threefry::Hash(0, 0, 0, 0), ElementsAre(0x6b200159u, 0x99ba4efeu));
  EXPECT_THAT(threefry::Hash(~0u, ~0u, ~0u, ~0u), ElementsAre(0x1cb996fcu, 0xbb002be7u));
  EXPECT_THAT(threefry::Hash(0x13198a2e, 0x03707344, 0x243f6a88, 0x85a308d3),
              ElementsAre(0xc4923a9cu, 0x483df7a0u));
}

TEST(PrngTest, JaxTextsRoundTripExactlyAndTypeCheck) {
  int texts = 0, skipped = 0;
  for (const std::string& name : CaseNames()) {
    SCOPED_TRACE(name);
    std::string text = Read(name + ".txt");
    if (!MissingPrimitive(text).empty()) {
      ++skipped;
      continue;
    }
    absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
    ASSERT_THAT(j, IsOk());
    EXPECT_EQ(PrintJaxpr(*j) + "\n", text);
    j->consts = ad_test::ReadTestdataValues("jax_prng/" + name + ".values.txt")["const"];
    EXPECT_THAT(CheckJaxpr(*j), IsOk());
    ++texts;
  }
  EXPECT_GE(texts, 36);
  if (skipped > 0) {
    std::cout << "[ SKIPPED  ] " << skipped
              << " jax_prng texts need shift_right_logical, bitcast_convert_type or erf_inv\n";
  }
}

TEST(PrngTest, EvaluationGivesJaxsBitsExactly) {
  int cases = 0;
  for (const std::string& name : CaseNames()) {
    SCOPED_TRACE(name);
    std::string text = Read(name + ".txt");
    if (!MissingPrimitive(text).empty()) continue;
    std::map<std::string, std::vector<HostArray>> v =
        ad_test::ReadTestdataValues("jax_prng/" + name + ".values.txt");
    absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
    ASSERT_THAT(j, IsOk());
    j->consts = v["const"];
    absl::StatusOr<std::vector<HostArray>> outs = EvalJaxpr(*j, v["arg"]);
    ASSERT_THAT(outs, IsOk());
    ASSERT_EQ(outs->size(), v["out"].size());
    for (size_t i = 0; i < outs->size(); ++i) {
      ExpectSame((*outs)[i], v["out"][i], "out " + std::to_string(i));
    }
    ++cases;
  }
  EXPECT_GE(cases, 36);
}

std::vector<uint64_t> Numbers(absl::string_view list) {
  std::vector<uint64_t> out;
  for (absl::string_view s : absl::StrSplit(list, ',')) {
    uint64_t v = 0;
    EXPECT_TRUE(absl::SimpleAtoi(s, &v)) << s;
    out.push_back(v);
  }
  return out;
}

TEST(PrngTest, TheNonPartitionablePathGivesJaxsBits) {
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(Read("original.values.txt"), '\n')) {
    if (line.empty()) continue;
    SCOPED_TRACE(line);
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(line, '=');
    std::vector<absl::string_view> words = absl::StrSplit(kv.first, ' ');
    std::vector<uint64_t> key_words = Numbers(words[1]);
    threefry::KeyData key = {static_cast<uint32_t>(key_words[0]),
                             static_cast<uint32_t>(key_words[1])};
    std::vector<uint64_t> got;
    if (words[0] == "split") {
      int64_t n = 0;
      ASSERT_TRUE(absl::SimpleAtoi(words[2], &n));
      for (const threefry::KeyData& k : threefry::SplitKey(key, n, false)) {
        got.push_back(k[0]);
        got.push_back(k[1]);
      }
    } else {
      int width = 0;
      int64_t n = 0;
      ASSERT_TRUE(absl::SimpleAtoi(words[2], &width));
      ASSERT_TRUE(absl::SimpleAtoi(words[3], &n));
      got = threefry::RandomBits(key, width, n, false);
    }
    EXPECT_EQ(got, Numbers(kv.second));
    ++lines;
  }
  EXPECT_EQ(lines, 39);
}

absl::Status TypeOf(const std::string& text) {
  absl::StatusOr<ClosedJaxpr> j = ParseJaxpr(text);
  if (!j.ok()) return j.status();
  return CheckJaxpr(*j);
}

TEST(PrngTest, TypingErrorsUseJaxsWords) {
  EXPECT_THAT(TypeOf("{ lambda ; a:u32[2]. let b:u32[3] = random_bits[bit_width=32 shape=(3,)] a "
                     "in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("random_bits takes key array operand, got "
                                 "keys.dtype=dtype('uint32')")));
  EXPECT_THAT(TypeOf("{ lambda ; a:f32[2]. let b:u32[2,2] = random_unwrap a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("random_unwrap takes key array operand, got "
                                 "keys.dtype=dtype('float32')")));
  EXPECT_THAT(TypeOf("{ lambda ; a:key<fry>[]. let b:u32[3] = random_bits[bit_width=12 "
                     "shape=(3,)] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("requires 8-, 16-, 32- or 64-bit field width, got 12")));
  EXPECT_THAT(TypeOf("{ lambda ; a:u32[3]. let b:key<fry>[] = random_wrap[impl=fry] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("invalid PRNG key data: expected key_data.shape to end with "
                                 "(2,); got shape=(3,)")));
  EXPECT_THAT(TypeOf("{ lambda ; a:i32[2]. let b:key<fry>[] = random_wrap[impl=fry] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected key_data.dtype = uint32; got dtype=int32")));
  EXPECT_THAT(TypeOf("{ lambda ; a:u32[2]. let b:key<fry>[] = random_wrap[impl=rbg] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("random_wrap: unknown PRNG implementation rbg")));
  EXPECT_THAT(TypeOf("{ lambda ; a:f32[]. let b:key<fry>[] = random_seed[impl=fry] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("PRNG key seed must be an integer; got f32[]")));
  EXPECT_THAT(TypeOf("{ lambda ; a:key<fry>[2] b:u32[3]. let c:key<fry>[2] = random_fold_in a b "
                     "in (c,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("random_fold_in got incompatible shapes for broadcasting: (2,), "
                                 "(3,).")));
  EXPECT_THAT(TypeOf("{ lambda ; a:u32[] b:f32[]. let c:u32[] d:u32[] = threefry2x32 a a b a "
                     "in (c, d) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Arguments to threefry2x32 must have uint32 type, got (u32[], "
                                 "u32[], f32[], u32[])")));
  EXPECT_THAT(TypeOf("{ lambda ; a:key<fry>[]. let b:key<fry>[] = add a a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("add does not accept dtype key<fry> at position 0. Accepted "
                                 "dtypes at position 0 are subtypes of integer, complexfloating, "
                                 "floating.")));
  EXPECT_THAT(TypeOf("{ lambda ; a:key<fry>[]. let b:f32[] = convert_element_type["
                     "new_dtype=float32 weak_type=False] a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Cannot convert_element_type from key<fry> to float32")));
  EXPECT_THAT(TypeOf("{ lambda ; a:key<fry>[2]. let b:key<fry>[] = reduce_sum[axes=(0,)] a "
                     "in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("reduce_sum does not accept dtype key<fry>. Accepted dtypes are "
                                 "subtypes of number.")));
  EXPECT_THAT(TypeOf("{ lambda ; a:key<fry>[]. let b:key<fry>[] = neg a in (b,) }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("neg does not accept dtype key<fry>")));
}

TEST(PrngTest, KeyTypesReadAndPrint) {
  absl::StatusOr<ShapedArray> t = ShapedArray::ParseShort("key<fry>[2,3]");
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->dtype(), DType::kKeyFry);
  EXPECT_EQ(t->ShortString(), "key<fry>[2,3]");
  EXPECT_EQ(t->Str(), "key<fry>[2,3]");
  EXPECT_THAT(ShapedArray::ParseShort("key<rbg>[]"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("key<rbg>")));
  EXPECT_THAT(ShapedArray::ParseShort("key<fry[]"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("key<fry>")));
  // key<fry> is a jaxpr type only: no XLA or NumPy dtype by that name.
  EXPECT_FALSE(ParseDType("key<fry>").ok());
  EXPECT_FALSE(IsArrayType(DType::kKeyFry));
  // Arguments give keys by their key data; outputs print it.
  absl::StatusOr<HostArray> keys = ParseArgSpec("key<fry>[2]=0,42,4294967295,7");
  ASSERT_THAT(keys, IsOk());
  EXPECT_EQ(FormatValues(*keys), "[[0, 42], [4294967295, 7]]");
  // Each key printed alone reads back.
  absl::StatusOr<HostArray> again =
      ParseArgSpec("key<fry>[2]=" + FormatElement(keys->values[0], DType::kKeyFry) + "," +
                   FormatElement(keys->values[1], DType::kKeyFry));
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(*again, *keys);
  EXPECT_THAT(ParseArgSpec("key<fry>[2]=1,2,3"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("3 values for u32[2,2]")));
}

TEST(PrngTest, GradOfAFunctionOfAnArrayAndAKeyIsJaxs) {
  std::map<std::string, std::vector<HostArray>> v =
      ad_test::ReadTestdataValues("jax_prng/bits_mask_grad.values.txt");
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(Read("bits_mask.txt"));
  ASSERT_THAT(f, IsOk());
  absl::StatusOr<ClosedJaxpr> g = Grad(*f, {0});
  ASSERT_THAT(g, IsOk());
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(*g, v["arg"]);
  ASSERT_THAT(out, IsOk());
  ASSERT_EQ(out->size(), 1u);
  ExpectSame((*out)[0], v["out"][0], "grad");
  // The key has no gradient: asking for one is refused.
  EXPECT_FALSE(Grad(*f, {1}).ok());
  // Its JVP with a tangent for the array only: JAX's primal and the bits as the derivative.
  absl::StatusOr<ClosedJaxpr> jvp = Jvp(*f, {true, false});
  ASSERT_THAT(jvp, IsOk());
  std::vector<HostArray> args = v["arg"];
  args.push_back(HostArray{args[0].aval, std::vector<double>(6, 0.0)});
  args.back().values[4] = 1.0;
  absl::StatusOr<std::vector<HostArray>> primal_tangent = EvalJaxpr(*jvp, args);
  ASSERT_THAT(primal_tangent, IsOk());
  ASSERT_EQ(primal_tangent->size(), 2u);
  EXPECT_EQ((*primal_tangent)[1].values[0], v["out"][0].values[4]);
}

TEST(PrngTest, VmapOverKeysIsALoopOverThem) {
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(
      "{ lambda ; a:key<fry>[] b:u32[]. let c:key<fry>[] = random_fold_in a b; "
      "d:key<fry>[2] = random_split[shape=(2,)] c; e:u32[2,3] = random_bits[bit_width=32 "
      "shape=(3,)] d; f:u32[2,2] = random_unwrap d in (e, f) }");
  ASSERT_THAT(f, IsOk());
  VmapOptions o;
  o.in_axes = {0, std::nullopt};
  o.axis_size = 3;
  o.out_axes = {1, 0};
  absl::StatusOr<ClosedJaxpr> batched = Vmap(*f, o);
  ASSERT_THAT(batched, IsOk());
  absl::StatusOr<HostArray> keys = ParseArgSpec("key<fry>[3]=0,1,2,3,4294967295,5");
  absl::StatusOr<HostArray> msg = ParseArgSpec("u32[]=17");
  ASSERT_THAT(keys, IsOk());
  ASSERT_THAT(msg, IsOk());
  absl::StatusOr<std::vector<HostArray>> all = EvalJaxpr(*batched, {*keys, *msg});
  ASSERT_THAT(all, IsOk());
  ASSERT_EQ((*all)[0].aval.ShortString(), "u32[2,3,3]");
  for (int64_t i = 0; i < 3; ++i) {
    HostArray key{ShapedArray({}, DType::kKeyFry), {keys->values[i]}};
    absl::StatusOr<std::vector<HostArray>> one = EvalJaxpr(*f, {key, *msg});
    ASSERT_THAT(one, IsOk());
    for (int64_t r = 0; r < 2; ++r) {
      for (int64_t c = 0; c < 3; ++c) {
        EXPECT_EQ((*all)[0].values[r * 9 + i * 3 + c], (*one)[0].values[r * 3 + c]);
      }
    }
    for (int64_t w = 0; w < 4; ++w) EXPECT_EQ((*all)[1].values[i * 4 + w], (*one)[1].values[w]);
  }
}

// axe's Vmap prints what jax.vmap traced: the key's batch dimension stays in front.
TEST(PrngTest, VmapPrintsWhatJaxVmapPrints) {
  absl::StatusOr<ClosedJaxpr> bits = ParseJaxpr(
      "{ lambda ; a:key<fry>[]. let b:u32[2] = random_bits[bit_width=32 shape=(2,)] a in (b,) }");
  ASSERT_THAT(bits, IsOk());
  VmapOptions o;
  o.axis_size = 4;
  absl::StatusOr<ClosedJaxpr> batched = Vmap(*bits, o);
  ASSERT_THAT(batched, IsOk());
  EXPECT_EQ(PrintJaxpr(*batched),
            "{ lambda ; a:key<fry>[4]. let\n"
            "    b:u32[4,2] = random_bits[bit_width=32 shape=(2,)] a\n"
            "  in (b,) }");
  absl::StatusOr<ClosedJaxpr> fold = ParseJaxpr(
      "{ lambda ; a:key<fry>[] b:u32[]. let c:key<fry>[] = random_fold_in a b in (c,) }");
  ASSERT_THAT(fold, IsOk());
  o.in_axes = {std::nullopt, 0};
  batched = Vmap(*fold, o);
  ASSERT_THAT(batched, IsOk());
  EXPECT_EQ(PrintJaxpr(*batched) + "\n", Read("fold_in_vmap.txt"));
}

TEST(PrngTest, RandomWrapBatchesAlongTheKeyDataAxis) {
  absl::StatusOr<ClosedJaxpr> f = ParseJaxpr(
      "{ lambda ; a:u32[2]. let b:key<fry>[] = random_wrap[impl=fry] a; "
      "c:u32[4] = random_bits[bit_width=32 shape=(4,)] b in (c,) }");
  ASSERT_THAT(f, IsOk());
  VmapOptions o;
  o.in_axes = {1};  // the key data of key i is column i
  o.axis_size = 2;
  absl::StatusOr<ClosedJaxpr> batched = Vmap(*f, o);
  ASSERT_THAT(batched, IsOk());
  absl::StatusOr<HostArray> data = ParseArgSpec("u32[2,2]=0,7,42,9");
  ASSERT_THAT(data, IsOk());
  absl::StatusOr<std::vector<HostArray>> all = EvalJaxpr(*batched, {*data});
  ASSERT_THAT(all, IsOk());
  absl::StatusOr<std::vector<HostArray>> second = EvalJaxpr(*f, {*ParseArgSpec("u32[2]=7,9")});
  ASSERT_THAT(second, IsOk());
  for (int64_t c = 0; c < 4; ++c) EXPECT_EQ((*all)[0].values[4 + c], (*second)[0].values[c]);
}

}  // namespace
}  // namespace prng_test
}  // namespace axe::ir
