// Argument specs and numpy-like values for axe ir run.
#include "axe/ir/eval_text.h"

#include <charconv>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "axe/base/numerics.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/threefry.h"
#include "eval_util.h"

namespace axe::ir {
namespace {

absl::Status At(size_t position, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("at position ", position, ": ", message));
}

absl::StatusOr<double> ParseNumber(absl::string_view item, size_t position) {
  std::string s(absl::StripAsciiWhitespace(item));
  std::string lower = absl::AsciiStrToLower(s);
  if (lower == "true") return 1.0;
  if (lower == "false") return 0.0;
  if (lower == "inf" || lower == "+inf") return HUGE_VAL;
  if (lower == "-inf") return -HUGE_VAL;
  if (lower == "nan") return NAN;
  double v = 0;
  if (s.empty() || !absl::SimpleAtod(s, &v) || !std::isfinite(v)) {
    return At(position, absl::StrCat("'", ElideForMessage(s, 40), "' is not a number"));
  }
  return v;
}

// An integer literal past 2^53 would silently become another number in the interpreter's
// doubles; it is refused instead.
absl::Status CheckExactInteger(absl::string_view item, double value, DType dtype, size_t position) {
  if (!IsIntegral(dtype)) return absl::OkStatus();
  absl::string_view s = absl::StripAsciiWhitespace(item);
  int64_t i = 0;
  uint64_t u = 0;
  bool past = std::fabs(value) > static_cast<double>(kMaxExactDoubleInteger);
  if (absl::SimpleAtoi(s, &i)) {
    past = past || !FitsDoubleExactly(i);
  } else if (absl::SimpleAtoi(s, &u)) {
    past = past || !FitsDoubleExactly(u);
  }
  if (!past) return absl::OkStatus();
  return At(position, absl::StrCat(s, " is past 2^53: the interpreter holds ", JaxprName(dtype),
                                   " values exactly only up to 2^53"));
}

absl::StatusOr<HostArray> Fill(const ShapedArray& aval, absl::string_view fill, size_t at) {
  std::optional<int64_t> n = aval.NumElements();
  if (!n || *n > kMaxEvalTextElements) {
    return At(
        0, absl::StrCat(aval.ShortString(), " has more than ", kMaxEvalTextElements, " elements"));
  }
  HostArray a{aval, std::vector<double>(static_cast<size_t>(*n), 0.0)};
  if (fill == "iota") {
    for (size_t i = 0; i < a.values.size(); ++i) a.values[i] = static_cast<double>(i);
  } else {
    std::vector<absl::string_view> items = absl::StrSplit(fill, ',');
    if (items.size() != 1 && items.size() != a.values.size()) {
      return At(at, absl::StrCat(items.size(), " values for ", aval.ShortString(), ", which has ",
                                 *n, " elements (give one value, all of them, or iota)"));
    }
    size_t position = at;
    for (size_t i = 0; i < items.size(); ++i) {
      AXE_ASSIGN_OR_RETURN(double v, ParseNumber(items[i], position));
      AXE_RETURN_IF_ERROR(CheckExactInteger(items[i], v, aval.dtype(), position));
      if (items.size() == 1) {
        std::fill(a.values.begin(), a.values.end(), v);
      } else {
        a.values[i] = v;
      }
      position += items[i].size() + 1;
    }
  }
  for (double& v : a.values) v = ConvertValue(v, DType::kF64, aval.dtype());
  return a;
}

// A key array's values are its key data: two u32 words per key, row-major, each key's pair
// optionally in brackets as FormatElement prints it ("[0, 42],[0, 7]").
absl::StatusOr<HostArray> FillKeys(const ShapedArray& aval, absl::string_view fill, size_t at) {
  std::vector<int64_t> data_shape = aval.shape();
  data_shape.push_back(KeyDataWords(aval.dtype()));
  std::string words(fill);
  for (char& c : words) {
    if (c == '[' || c == ']') c = ' ';
  }
  AXE_ASSIGN_OR_RETURN(HostArray data, Fill(ShapedArray(data_shape, DType::kU32), words, at));
  HostArray keys{aval, std::vector<double>(data.values.size() / 2)};
  for (size_t i = 0; i < keys.values.size(); ++i) {
    threefry::KeyData key = {static_cast<uint32_t>(data.values[2 * i]),
                             static_cast<uint32_t>(data.values[2 * i + 1])};
    keys.values[i] = threefry::KeyToDouble(key);
  }
  return keys;
}

}  // namespace

absl::StatusOr<HostArray> ParseArgSpec(absl::string_view text) {
  size_t eq = text.find('=');
  if (eq == absl::string_view::npos) {
    return At(text.size(), "expected TYPE=VALUES, e.g. f32[8]=iota, f32[2]=0.5 or i32[3]=1,2,3");
  }
  absl::StatusOr<ShapedArray> aval = ShapedArray::ParseShort(text.substr(0, eq));
  if (!aval.ok()) return At(0, aval.status().message());
  AXE_RETURN_IF_ERROR(ShapedArray::Create(aval->shape(), aval->dtype()).status());
  AXE_RETURN_IF_ERROR(internal::CheckEvalDType(aval->dtype()));
  if (IsKeyType(aval->dtype())) return FillKeys(*aval, text.substr(eq + 1), eq + 1);
  return Fill(*aval, text.substr(eq + 1), eq + 1);
}

std::string FormatElement(double value, DType dtype) {
  if (dtype == DType::kPred) return value != 0 ? "True" : "False";
  if (IsKeyType(dtype)) {
    threefry::KeyData key = threefry::KeyFromDouble(value);
    return absl::StrCat("[", key[0], ", ", key[1], "]");
  }
  if (IsUnsignedIntegral(dtype)) return absl::StrCat(static_cast<uint64_t>(value));
  if (!IsFloatingPoint(dtype)) return absl::StrCat(static_cast<int64_t>(value));
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  std::to_chars_result r =
      dtype == DType::kF64
          ? std::to_chars(buffer, buffer + sizeof(buffer), value)
          : std::to_chars(buffer, buffer + sizeof(buffer), static_cast<float>(value));
  std::string s(buffer, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

namespace {

void AppendNested(const HostArray& a, size_t dim, size_t& next, std::string& out) {
  if (dim == a.aval.rank()) {
    out += FormatElement(a.values[next++], a.aval.dtype());
    return;
  }
  out += "[";
  for (int64_t i = 0; i < a.aval.shape()[dim]; ++i) {
    if (i > 0) out += ", ";
    AppendNested(a, dim + 1, next, out);
  }
  out += "]";
}

}  // namespace

std::string FormatValues(const HostArray& array) {
  // Empty: numpy's str, whatever the shape (the nested lists of f32[2^31,2^31,0] would be
  // 2^62 of them).
  if (array.values.empty() && array.aval.rank() > 0) return "[]";
  std::string out;
  size_t next = 0;
  AppendNested(array, 0, next, out);
  return out;
}

}  // namespace axe::ir
