// DType names, arrays, ShapeDType, and NumPy printing.
#include <cmath>
#include <limits>

#include "absl/hash/hash_testing.h"
#include "axe/pallas/array.h"
#include "axe/pallas/numpy_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe::pallas {
namespace {

using ::testing::HasSubstr;

TEST(DType, NamesRoundTripAndAliases) {
  for (int t = 0; t <= static_cast<int>(DType::kFloat64); ++t) {
    DType d = static_cast<DType>(t);
    absl::StatusOr<DType> back = ParseDType(DTypeName(d));
    ASSERT_TRUE(back.ok()) << DTypeName(d);
    EXPECT_EQ(*back, d);
  }
  EXPECT_EQ(*ParseDType("i32"), DType::kInt32);
  EXPECT_EQ(*ParseDType("s32"), DType::kInt32);
  EXPECT_EQ(*ParseDType("f32"), DType::kFloat32);
  EXPECT_EQ(*ParseDType("F64"), DType::kFloat64);
  EXPECT_EQ(*ParseDType("u8"), DType::kUInt8);
  EXPECT_EQ(*ParseDType("bf16"), DType::kBFloat16);
  EXPECT_EQ(*ParseDType("pred"), DType::kBool);
  EXPECT_THAT(std::string(ParseDType("int33").status().message()), HasSubstr("unknown dtype 'int33'"));
  EXPECT_EQ(BitWidth(DType::kBFloat16), 16);
  EXPECT_EQ(BitWidth(DType::kInt64), 64);
  EXPECT_FALSE(IsStorable(DType::kFloat16));
  EXPECT_TRUE(IsFloating(DType::kBFloat16));
  EXPECT_EQ(DTypeOf<const float>, DType::kFloat32);
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
  EXPECT_THAT(std::string(ShapeDType::Parse("int32[8,-1]").status().message()), HasSubstr("position 8"));
  EXPECT_THAT(std::string(ShapeDType::Parse("int31[8]").status().message()), HasSubstr("position 0: unknown dtype"));
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly(
      {ShapeDType{DType::kInt32, {8}}, ShapeDType{DType::kInt32, {8, 1}}, ShapeDType{DType::kFloat32, {8}}}));
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
  EXPECT_THAT(std::string(Array<float>::Zeros({2, -1}).status().message()),
              HasSubstr("has a negative size -1 in dimension 1"));
  EXPECT_THAT(std::string(Array<float>::Zeros({int64_t{1} << 40, int64_t{1} << 40}).status().message()),
              HasSubstr("more elements than fit in int64"));
  EXPECT_EQ(Array<double>::Zeros({int64_t{1} << 50}).status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_FALSE(Array<float>::FromValues({3}, {1.0f, 2.0f}).ok());
  EXPECT_FALSE(AnyArray::Zeros(DType::kBFloat16, {2}).ok());
  EXPECT_FALSE(Array<float>::FromAny(*AnyArray::Zeros(DType::kInt32, {2})).ok());
  EXPECT_EQ(Array<float>().size(), 0);
  AnyArray moved = *AnyArray::Zeros(DType::kFloat64, {3, 4});
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
  EXPECT_FALSE(*AnyArray::Zeros(DType::kInt32, {2}) == *AnyArray::Zeros(DType::kUInt32, {2}));
  EXPECT_FALSE(*AnyArray::Zeros(DType::kInt32, {2}) == *AnyArray::Zeros(DType::kInt32, {1, 2}));
}

std::string Np(std::vector<int64_t> shape, std::vector<double> values) {
  Array<double> a = *Array<double>::FromValues(shape, values);
  return FormatNumpy(a.any());
}
std::string Np32(std::vector<float> values) {
  return FormatNumpy(Array<float>::FromValues({static_cast<int64_t>(values.size())}, values)->any());
}

TEST(NumpyFormat, Integers) {
  EXPECT_EQ(FormatNumpy(Array<int32_t>::FromValues({2}, {-1, 10})->any()), "[-1 10]");
  EXPECT_EQ(FormatNumpy(Array<int32_t>::Iota({2, 2, 2})->any()), "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
  EXPECT_EQ(FormatNumpyRepr(Array<int32_t>::Iota({2, 2, 2})->any()),
            "Array([[[0, 1],\n        [2, 3]],\n\n       [[4, 5],\n        [6, 7]]], dtype=int32)");
  EXPECT_EQ(FormatNumpy(Array<uint8_t>::FromValues({3}, {0, 255, 7})->any()), "[  0 255   7]");
  EXPECT_EQ(FormatNumpy(Array<bool>::FromValues({2}, {true, false})->any()), "[ True False]");
  EXPECT_EQ(FormatNumpyRepr(Array<bool>::FromValues({2}, {true, false})->any()), "Array([ True, False], dtype=bool)");
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
  EXPECT_EQ(FormatNumpyRepr(Array<float>::FromValues({2}, {1, 2})->any()), "Array([1., 2.], dtype=float32)");
}

TEST(NumpyFormat, EmptyAndScalar) {
  EXPECT_EQ(FormatNumpy(*AnyArray::Zeros(DType::kInt32, {0})), "[]");
  EXPECT_EQ(FormatNumpy(*AnyArray::Zeros(DType::kInt32, {2, 0})), "[]");
  EXPECT_EQ(FormatNumpyRepr(*AnyArray::Zeros(DType::kInt32, {0})), "Array([], dtype=int32)");
  EXPECT_EQ(FormatNumpyRepr(*AnyArray::Zeros(DType::kInt32, {2, 0})), "Array([], shape=(2, 0), dtype=int32)");
  EXPECT_EQ(FormatNumpy(Array<int32_t>::Full({}, 5)->any()), "5");
  EXPECT_EQ(FormatNumpy(Array<float>::Full({}, 42)->any()), "42.0");
  EXPECT_EQ(FormatNumpy(Array<float>::Uninitialized({})->any()), "nan");
  EXPECT_EQ(FormatNumpyRepr(Array<float>::Full({}, 42)->any()), "Array(42., dtype=float32)");
}

}  // namespace
}  // namespace axe::pallas
