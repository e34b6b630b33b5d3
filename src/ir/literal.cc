#include "axe/ir/literal.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "python_text.h"

namespace axe::ir {

Literal Literal::OfDType(double value, DType dtype) {
  if (dtype == DType::kPred)
    return Literal(Kind::kBool, value != 0 ? 1 : 0, 0, ShapedArray({}, dtype));
  if (IsIntegral(dtype)) {
    int64_t i = 0;
    // Truncation toward zero, saturating (and nan -> 0) so no conversion is undefined.
    if (std::isnan(value)) {
      i = 0;
    } else if (value >= 9.2e18) {
      i = std::numeric_limits<int64_t>::max();
    } else if (value <= -9.2e18) {
      i = std::numeric_limits<int64_t>::min();
    } else {
      i = static_cast<int64_t>(value);
    }
    return Literal(Kind::kInt, i, 0, ShapedArray({}, dtype));
  }
  return Literal(Kind::kFloat, 0, value, ShapedArray({}, dtype));
}

double Literal::AsDouble() const {
  switch (kind_) {
    case Kind::kBool:
    case Kind::kInt: return static_cast<double>(int_);
    case Kind::kFloat: return float_;
    case Kind::kElided: return 0;
  }
  return 0;
}

std::string Literal::ValueString() const {
  switch (kind_) {
    case Kind::kBool: return int_ ? "True" : "False";
    case Kind::kInt: return absl::StrCat(int_);
    case Kind::kFloat: return internal::PythonFloat(float_);
    case Kind::kElided: return "[...]";
  }
  return "";
}

std::string Literal::ToString() const {
  return absl::StrCat(ValueString(), ":", aval_.ShortString());
}

bool operator==(const Literal& a, const Literal& b) {
  return a.kind_ == b.kind_ && a.int_ == b.int_ &&
         std::memcmp(&a.float_, &b.float_, sizeof(double)) == 0 && a.aval_ == b.aval_;
}

}  // namespace axe::ir
