#include "axe/exec/value_io.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "axe/base/numerics.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval_text.h"
#include "exec/dtype_switch.h"

namespace axe::exec {
namespace {

bool Is64BitInteger(DType dtype) { return dtype == DType::kS64 || dtype == DType::kU64; }

// One item of a 64-bit integer fill read exactly; nullopt when it is not an integer of the
// type's range (then the double-valued grammar decides: its conversions and its errors).
template <typename T>
std::optional<T> ExactInteger(absl::string_view item) {
  T v{};
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(item), &v)) return std::nullopt;
  return v;
}

template <typename T>
std::optional<Value> FillExactly(const ir::ShapedArray& aval, absl::string_view fill) {
  const std::optional<int64_t> n = aval.NumElements();
  if (!n || *n > ir::kMaxEvalTextElements) return std::nullopt;
  absl::StatusOr<Value> v = Value::Uninitialized(aval);
  if (!v.ok()) return std::nullopt;
  T* out = v->mutable_data<T>();
  if (fill == "iota") {
    for (int64_t i = 0; i < *n; ++i) out[i] = static_cast<T>(i);
    return *std::move(v);
  }
  const std::vector<absl::string_view> items = absl::StrSplit(fill, ',');
  if (items.size() != 1 && static_cast<int64_t>(items.size()) != *n) return std::nullopt;
  for (size_t k = 0; k < items.size(); ++k) {
    const std::optional<T> item = ExactInteger<T>(items[k]);
    if (!item) return std::nullopt;
    if (items.size() == 1) {
      std::fill(out, out + *n, *item);
    } else {
      out[k] = *item;
    }
  }
  return *std::move(v);
}

// The 64-bit integer fills that the double-valued grammar cannot hold exactly.
std::optional<Value> ParseExact(absl::string_view spec) {
  const size_t eq = spec.find('=');
  if (eq == absl::string_view::npos) return std::nullopt;
  absl::StatusOr<ir::ShapedArray> aval = ir::ShapedArray::ParseShort(spec.substr(0, eq));
  if (!aval.ok() || !Is64BitInteger(aval->dtype())) return std::nullopt;
  if (!ir::ShapedArray::Create(aval->shape(), aval->dtype()).ok()) return std::nullopt;
  const absl::string_view fill = spec.substr(eq + 1);
  return aval->dtype() == DType::kS64 ? FillExactly<int64_t>(*aval, fill)
                                      : FillExactly<uint64_t>(*aval, fill);
}

std::string FormatAt(const Value& value, int64_t i) {
  const DType dtype = value.aval().dtype();
  if (dtype == DType::kS64) return absl::StrCat(value.data<int64_t>()[i]);
  if (dtype == DType::kU64) return absl::StrCat(value.data<uint64_t>()[i]);
  if (IsKeyType(dtype)) {  // the key's bits, as the interpreter holds them
    double bits = 0;
    std::memcpy(&bits, value.bytes() + i * static_cast<int64_t>(sizeof(double)), sizeof(double));
    return ir::FormatElement(bits, dtype);
  }
  double d = 0;
  DispatchDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    d = ToDouble(value.data<T>()[i]);
  });
  return ir::FormatElement(d, dtype);
}

void AppendNested(const Value& value, const std::vector<std::string>& elements, size_t dim,
                  size_t& next, std::string& out) {
  const std::vector<int64_t>& shape = value.aval().shape();
  if (dim == shape.size()) {
    out += elements[next++];
    return;
  }
  out += "[";
  for (int64_t i = 0; i < shape[dim]; ++i) {
    if (i > 0) out += ", ";
    AppendNested(value, elements, dim + 1, next, out);
  }
  out += "]";
}

}  // namespace

absl::StatusOr<Value> ParseValue(absl::string_view spec) {
  if (std::optional<Value> exact = ParseExact(spec)) return *std::move(exact);
  AXE_ASSIGN_OR_RETURN(ir::HostArray host, ir::ParseArgSpec(spec));
  return FromHostArray(host);
}

std::vector<std::string> FormatElements(const Value& value) {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(value.num_elements()));
  for (int64_t i = 0; i < value.num_elements(); ++i) out.push_back(FormatAt(value, i));
  return out;
}

std::string FormatValue(const Value& value) {
  // Empty: numpy's str, whatever the shape.
  if (value.num_elements() == 0 && value.aval().rank() > 0) return "[]";
  const std::vector<std::string> elements = FormatElements(value);
  std::string out;
  size_t next = 0;
  AppendNested(value, elements, 0, next, out);
  return out;
}

absl::StatusOr<ir::HostArray> ToExactHostArray(const Value& value) {
  const DType dtype = value.aval().dtype();
  for (int64_t i = 0; Is64BitInteger(dtype) && i < value.num_elements(); ++i) {
    const bool exact = dtype == DType::kS64 ? FitsDoubleExactly(value.data<int64_t>()[i])
                                            : FitsDoubleExactly(value.data<uint64_t>()[i]);
    if (!exact) {
      return absl::InvalidArgumentError(
          absl::StrCat("element ", i, " of ", value.aval().ShortString(), " is ",
                       FormatAt(value, i), ", past 2^53: the interpreter holds ", JaxprName(dtype),
                       " values exactly only up to 2^53"));
    }
  }
  return ToHostArray(value);
}

}  // namespace axe::exec
