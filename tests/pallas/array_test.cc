// DType names, arrays, ShapeDType, and NumPy printing.
#include <cmath>
#include <limits>

#include "absl/hash/hash_testing.h"
#include "absl/strings/str_cat.h"
#include "axe/pallas/array.h"
#include "axe/pallas/numpy_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::pallas {
namespace array_test {
namespace {

using ::testing::HasSubstr;
using testing_support::IsOk;
using testing_support::IsOkAndHolds;
using testing_support::StatusIs;

// Pallas uses axe::DType and prints NumPy names; the element size is the byte width (bool: 1).
TEST(DType, PallasUsesTheOneVocabulary) {
  for (DType d : {DType::kPred, DType::kS8, DType::kS16, DType::kS32, DType::kS64, DType::kU8,
                  DType::kU16, DType::kU32, DType::kU64, DType::kF32, DType::kF64}) {
    EXPECT_TRUE(IsStorable(d)) << NumpyName(d);
    EXPECT_THAT(ParseDType(NumpyName(d)), IsOkAndHolds(d));
    EXPECT_EQ(VisitDType(d, [](auto tag) { return sizeof(typename decltype(tag)::type); }),
              static_cast<size_t>(ByteWidth(d)))
        << NumpyName(d);
    EXPECT_THAT(AnyArray::Zeros(d, {3}), IsOk());
  }
  for (DType d : {DType::kBF16, DType::kF16, DType::kS4, DType::kF8E4M3FN, DType::kC64}) {
    EXPECT_FALSE(IsStorable(d)) << NumpyName(d);
    EXPECT_THAT(AnyArray::Zeros(d, {2}),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         absl::StrCat("arrays of ", NumpyName(d),
                                      " are not supported (it is known only by its bit width)")));
  }
  EXPECT_EQ(DTypeOf<const float>, DType::kF32);
  EXPECT_EQ(DTypeOf<bool>, DType::kPred);
  EXPECT_EQ((ShapeDType{DType::kPred, {2, 3}}.ToString()), "bool[2,3]");
  EXPECT_EQ((ShapeDType{DType::kBF16, {8}}.ToString()), "bfloat16[8]");
  EXPECT_THAT(ShapeDType::Parse("f32[4]"), IsOkAndHolds(ShapeDType{DType::kF32, {4}}));
  EXPECT_THAT(ShapeDType::Parse("int4[4]"), IsOkAndHolds(ShapeDType{DType::kS4, {4}}));
  EXPECT_THAT(ShapeDType::Parse("int33[4]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 0: unknown element type 'int33'")));
}

TEST(DType, UninitializedValues) {
  EXPECT_TRUE(std::isnan(UninitializedValue<float>()));
  EXPECT_TRUE(std::isnan(UninitializedValue<double>()));
  EXPECT_EQ(UninitializedValue<int32_t>(), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(UninitializedValue<int8_t>(), -128);
  EXPECT_EQ(UninitializedValue<uint32_t>(), 0u);
  EXPECT_EQ(UninitializedValue<bool>(), false);
}

TEST(ShapeDType, RoundTrip) {
  for (const char* text : {"int32[8,6]", "float32[]", "bool[0]", "bfloat16[4,256]"}) {
    absl::StatusOr<ShapeDType> s = ShapeDType::Parse(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.status();
    EXPECT_EQ(s->ToString(), text);
  }
  EXPECT_EQ(ShapeDType::Parse("f32[2, 3]")->ToString(), "float32[2,3]");
  EXPECT_THAT(ShapeDType::Parse("int32[8,-1]"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 8")));
  EXPECT_THAT(ShapeDType::Parse("int31[8]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 0: unknown element type 'int31'")));
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly({ShapeDType{DType::kS32, {8}},
                                                           ShapeDType{DType::kS32, {8, 1}},
                                                           ShapeDType{DType::kF32, {8}}}));
}

TEST(Array, CreationAndErrors) {
  Array<int32_t> a = *Array<int32_t>::Iota({2, 3});
  EXPECT_EQ(a(1, 2), 5);
  EXPECT_EQ(a.strides()[0], 3);
  EXPECT_EQ(a.ref().shape(1), 3);
  EXPECT_TRUE(a.ref().contiguous());
  Array<int32_t> b = a;  // deep copy
  b(0, 0) = 7;
  EXPECT_EQ(a(0, 0), 0);
  EXPECT_FALSE(a == b);
  EXPECT_THAT(Array<float>::Zeros({2, -1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has a negative size -1 in dimension 1")));
  EXPECT_THAT(
      Array<float>::Zeros({int64_t{1} << 40, int64_t{1} << 40}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more elements than fit in int64")));
  EXPECT_EQ(Array<double>::Zeros({int64_t{1} << 50}).status().code(),
            absl::StatusCode::kResourceExhausted);
  // Empty, but its strides would leave int64: refused as NumPy refuses it.
  EXPECT_THAT(AnyArray::Zeros(DType::kS32, {0, int64_t{1} << 62, 4}),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("int32(0, 4611686018427387904, 4) is too large to allocate: its "
                                 "nonzero dimensions times the element size pass 2^63 bytes")));
  AnyArray empty_wide = *AnyArray::Zeros(DType::kS8, {0, int64_t{1} << 31, int64_t{1} << 31});
  EXPECT_EQ(empty_wide.size(), 0);
  EXPECT_EQ(empty_wide.strides()[0], int64_t{1} << 62);
  EXPECT_FALSE(Array<float>::FromValues({3}, {1.0f, 2.0f}).ok());
  EXPECT_FALSE(AnyArray::Zeros(DType::kBF16, {2}).ok());
  EXPECT_FALSE(Array<float>::FromAny(*AnyArray::Zeros(DType::kS32, {2})).ok());
  EXPECT_EQ(Array<float>().size(), 0);
  AnyArray moved = *AnyArray::Zeros(DType::kF64, {3, 4});
  AnyArray target = std::move(moved);
  EXPECT_EQ(target.size(), 12);
  EXPECT_EQ(moved.size(), 0);  // NOLINT(bugprone-use-after-move): a moved-from array is empty
  EXPECT_EQ(moved.rank(), 1);
}

TEST(Array, EqualityTreatsNanAsEqual) {
  Array<float> x = *Array<float>::Uninitialized({3});
  Array<float> y = *Array<float>::Uninitialized({3});
  EXPECT_EQ(x, y);
  y(1) = 0.0f;
  EXPECT_FALSE(x == y);
  EXPECT_FALSE(*AnyArray::Zeros(DType::kS32, {2}) == *AnyArray::Zeros(DType::kU32, {2}));
  EXPECT_FALSE(*AnyArray::Zeros(DType::kS32, {2}) == *AnyArray::Zeros(DType::kS32, {1, 2}));
}

std::string Np(std::vector<int64_t> shape, std::vector<double> values) {
  Array<double> a = *Array<double>::FromValues(shape, values);
  return FormatNumpy(a.any());
}
std::string Np32(std::vector<float> values) {
  return FormatNumpy(
      Array<float>::FromValues({static_cast<int64_t>(values.size())}, values)->any());
}

TEST(NumpyFormat, Integers) {
  EXPECT_EQ(FormatNumpy(Array<int32_t>::FromValues({2}, {-1, 10})->any()), "[-1 10]");
  EXPECT_EQ(FormatNumpy(Array<int32_t>::Iota({2, 2, 2})->any()),
            "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
  EXPECT_EQ(FormatNumpyRepr(Array<int32_t>::Iota({2, 2, 2})->any()),
            "Array([[[0, 1],\n        [2, 3]],\n\n       [[4, 5],\n        [6, 7]]], dtype=int32)");
  EXPECT_EQ(FormatNumpy(Array<uint8_t>::FromValues({3}, {0, 255, 7})->any()), "[  0 255   7]");
  EXPECT_EQ(FormatNumpy(Array<bool>::FromValues({2}, {true, false})->any()), "[ True False]");
  EXPECT_EQ(FormatNumpyRepr(Array<bool>::FromValues({2}, {true, false})->any()),
            "Array([ True, False], dtype=bool)");
}

TEST(NumpyFormat, Floats) {
  EXPECT_EQ(Np({3}, {0, 10, NAN}), "[ 0. 10. nan]");
  EXPECT_EQ(Np({2}, {0.5, 1.25}), "[0.5  1.25]");
  EXPECT_EQ(Np({3}, {0.1, 0.2, 0.1 + 0.2}), "[0.1 0.2 0.3]");
  EXPECT_EQ(Np({3}, {-1.5, INFINITY, -INFINITY}), "[-1.5  inf -inf]");
  EXPECT_EQ(Np({2}, {NAN, NAN}), "[nan nan]");
  EXPECT_EQ(Np({2}, {1, 1111}), "[1.000e+00 1.111e+03]");
  EXPECT_EQ(Np({2}, {1e-5, 1}), "[1.e-05 1.e+00]");
  EXPECT_EQ(Np({1}, {123456789.0}), "[1.23456789e+08]");
  EXPECT_EQ(Np({2}, {-0.0, 2}), "[-0.  2.]");
  EXPECT_EQ(Np32({0.1f, 42.0f}), "[ 0.1 42. ]");
  EXPECT_EQ(FormatNumpyRepr(Array<float>::FromValues({2}, {1, 2})->any()),
            "Array([1., 2.], dtype=float32)");
}

TEST(NumpyFormat, EmptyAndScalar) {
  EXPECT_EQ(FormatNumpy(*AnyArray::Zeros(DType::kS32, {0})), "[]");
  EXPECT_EQ(FormatNumpy(*AnyArray::Zeros(DType::kS32, {2, 0})), "[]");
  EXPECT_EQ(FormatNumpyRepr(*AnyArray::Zeros(DType::kS32, {0})), "Array([], dtype=int32)");
  EXPECT_EQ(FormatNumpyRepr(*AnyArray::Zeros(DType::kS32, {2, 0})),
            "Array([], shape=(2, 0), dtype=int32)");
  EXPECT_EQ(FormatNumpy(Array<int32_t>::Full({}, 5)->any()), "5");
  EXPECT_EQ(FormatNumpy(Array<float>::Full({}, 42)->any()), "42.0");
  EXPECT_EQ(FormatNumpy(Array<float>::Uninitialized({})->any()), "nan");
  EXPECT_EQ(FormatNumpyRepr(Array<float>::Full({}, 42)->any()), "Array(42., dtype=float32)");
}

}  // namespace
}  // namespace array_test
}  // namespace axe::pallas
