#include "axe/pallas/numpy_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace axe::pallas {
namespace {

std::string PadLeft(absl::string_view s, size_t width) {
  return s.size() >= width ? std::string(s) : absl::StrCat(std::string(width - s.size(), ' '), s);
}

// Shortest round-trip digits of v, as to_chars prints them.
template <typename F>
std::string ToChars(F v, std::chars_format fmt) {
  char buf[512];
  std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v, fmt);
  return std::string(buf, r.ptr);
}
template <typename F>
std::string ToChars(F v, std::chars_format fmt, int precision) {
  char buf[512];
  std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v, fmt, precision);
  return std::string(buf, r.ptr);
}

void TrimZeros(std::string& frac) {
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
}

constexpr int kPrecision = 8;  // NumPy's default print precision

// A finite value in positional form, split at the point: the shortest digits that read back
// as v, rounded to at most 8 fractional digits, trailing zeros trimmed ("42" and "").
template <typename F>
std::pair<std::string, std::string> Positional(F v) {
  std::string s = ToChars(v, std::chars_format::fixed);
  size_t dot = s.find('.');
  if (dot != std::string::npos && s.size() - dot - 1 > kPrecision) {
    s = ToChars(v, std::chars_format::fixed, kPrecision);
    dot = s.find('.');
  }
  if (dot == std::string::npos) return {s, ""};
  std::string frac = s.substr(dot + 1);
  TrimZeros(frac);
  return {s.substr(0, dot), frac};
}

struct Scientific {
  std::string int_part, frac, exp_sign, exp_digits;
};
template <typename F>
Scientific ToScientific(F v) {
  std::string s = ToChars(v, std::chars_format::scientific);
  size_t e = s.find('e');
  size_t dot = s.find('.');
  if (dot != std::string::npos && e - dot - 1 > kPrecision) {
    s = ToChars(v, std::chars_format::scientific, kPrecision);
    e = s.find('e');
    dot = s.find('.');
  }
  Scientific r;
  std::string mantissa = s.substr(0, e);
  if (dot == std::string::npos) {
    r.int_part = mantissa;
  } else {
    r.int_part = mantissa.substr(0, dot);
    r.frac = mantissa.substr(dot + 1);
    TrimZeros(r.frac);
  }
  r.exp_sign = s.substr(e + 1, 1);
  r.exp_digits = s.substr(e + 2);
  return r;
}

// NumPy's FloatingFormat (floatmode "maxprec", precision 8, sign "-").
template <typename F>
std::vector<std::string> FormatFloats(const F* data, int64_t n) {
  std::vector<F> finite;
  bool has_nonfinite = false, neg_inf = false;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isfinite(data[i])) {
      finite.push_back(data[i]);
    } else {
      has_nonfinite = true;
      if (std::isinf(data[i]) && data[i] < 0) neg_inf = true;
    }
  }
  bool exp_format = false;
  F max_val = 0, min_val = 0;
  bool any_nonzero = false;
  for (F v : finite) {
    if (v == 0) continue;
    F a = std::fabs(v);
    if (!any_nonzero || a > max_val) max_val = a;
    if (!any_nonzero || a < min_val) min_val = a;
    any_nonzero = true;
  }
  if (any_nonzero) {
    F ratio = max_val / min_val;
    exp_format = static_cast<double>(max_val) >= 1e8 || static_cast<double>(min_val) < 0.0001 ||
                 static_cast<double>(ratio) > 1000.0;
  }
  size_t pad_left = 0, pad_right = 0, precision = 0, exp_size = 0;
  std::vector<std::string> out(static_cast<size_t>(n));
  if (exp_format) {
    std::vector<Scientific> parts;
    for (F v : finite) parts.push_back(ToScientific(v));
    for (const Scientific& p : parts) {
      pad_left = std::max(pad_left, p.int_part.size());
      precision = std::max(precision, p.frac.size());
      exp_size = std::max(exp_size, p.exp_digits.size());
    }
    pad_right = exp_size + 2 + precision;
  } else {
    for (F v : finite) {
      auto [i, f] = Positional(v);
      pad_left = std::max(pad_left, i.size());
      pad_right = std::max(pad_right, f.size());
    }
  }
  if (has_nonfinite) {
    size_t offset = pad_right + 1;
    size_t inf_len = 3 + (neg_inf ? 1 : 0);
    if (3 > offset) pad_left = std::max(pad_left, 3 - offset);
    if (inf_len > offset) pad_left = std::max(pad_left, inf_len - offset);
  }
  const size_t width = pad_left + pad_right + 1;
  for (int64_t k = 0; k < n; ++k) {
    F v = data[k];
    std::string s;
    if (std::isnan(v)) {
      s = PadLeft("nan", width);
    } else if (std::isinf(v)) {
      s = PadLeft(v < 0 ? "-inf" : "inf", width);
    } else if (exp_format) {
      Scientific p = ToScientific(v);
      std::string frac = p.frac + std::string(precision - p.frac.size(), '0');
      std::string exp = std::string(exp_size - p.exp_digits.size(), '0') + p.exp_digits;
      s = absl::StrCat(PadLeft(p.int_part, pad_left), ".", frac, "e", p.exp_sign, exp);
    } else {
      auto [i, f] = Positional(v);
      s = absl::StrCat(PadLeft(i, pad_left), ".", f, std::string(pad_right - f.size(), ' '));
    }
    out[static_cast<size_t>(k)] = std::move(s);
  }
  return out;
}

template <typename T>
std::vector<std::string> FormatInts(const T* data, int64_t n) {
  std::vector<std::string> out(static_cast<size_t>(n));
  size_t width = 0;
  for (int64_t k = 0; k < n; ++k) {
    out[static_cast<size_t>(k)] = absl::StrCat(data[k]);
    width = std::max(width, out[static_cast<size_t>(k)].size());
  }
  for (std::string& s : out) s = PadLeft(s, width);
  return out;
}

// Every element of a (rank >= 1) in row-major order, each padded to the common width.
std::vector<std::string> FormatElements(const AnyArray& a) {
  return VisitDType(a.dtype(), [&](auto tag) -> std::vector<std::string> {
    using T = typename decltype(tag)::type;
    const T* data = a.data_as<T>();
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<std::string> out;
      for (int64_t k = 0; k < a.size(); ++k) out.push_back(data[k] ? " True" : "False");
      return out;
    } else if constexpr (std::is_floating_point_v<T>) {
      return FormatFloats(data, a.size());
    } else {
      return FormatInts(data, a.size());
    }
  });
}

// NumPy's _formatArray without wrapping or summarization.
std::string Nest(const std::vector<std::string>& elems, absl::Span<const int64_t> shape,
                 size_t& next, int axis, const std::string& hanging_indent,
                 absl::string_view separator) {
  const int axes_left = static_cast<int>(shape.size()) - axis;
  const int64_t n = shape[static_cast<size_t>(axis)];
  std::string s = "[";
  if (axes_left == 1) {
    for (int64_t i = 0; i < n; ++i) {
      if (i > 0) absl::StrAppend(&s, separator);
      absl::StrAppend(&s, elems[next++]);
    }
  } else {
    std::string next_indent = hanging_indent + " ";
    std::string line_sep = absl::StrCat(absl::StripTrailingAsciiWhitespace(separator),
                                        std::string(static_cast<size_t>(axes_left - 1), '\n'));
    for (int64_t i = 0; i < n; ++i) {
      if (i > 0) absl::StrAppend(&s, line_sep, hanging_indent);
      absl::StrAppend(&s, Nest(elems, shape, next, axis + 1, next_indent, separator));
    }
  }
  return s + "]";
}

std::string FormatBody(const AnyArray& a, const std::string& hanging_indent,
                       absl::string_view separator) {
  std::vector<std::string> elems = FormatElements(a);
  size_t next = 0;
  return Nest(elems, a.shape(), next, 0, hanging_indent, separator);
}

// A 0-d array's str(): the Python scalar.
std::string FormatScalar(const AnyArray& a) {
  return VisitDType(a.dtype(), [&](auto tag) -> std::string {
    using T = typename decltype(tag)::type;
    T v = a.data_as<T>()[0];
    if constexpr (std::is_same_v<T, bool>) {
      return v ? "True" : "False";
    } else if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v)) return "nan";
      if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
      double m = std::fabs(static_cast<double>(v));
      if (m == 0 || (m >= 1e-4 && m < 1e16)) {
        std::string s = ToChars(v, std::chars_format::fixed);
        return s.find('.') == std::string::npos ? s + ".0" : s;
      }
      return ToChars(v, std::chars_format::scientific);
    } else {
      return absl::StrCat(v);
    }
  });
}

bool IsEmpty(const AnyArray& a) { return a.size() == 0; }

}  // namespace

std::string FormatNumpy(const AnyArray& a) {
  if (a.rank() == 0) return FormatScalar(a);
  if (IsEmpty(a)) return "[]";
  return FormatBody(a, " ", " ");
}

std::string FormatNumpyRepr(const AnyArray& a) {
  constexpr absl::string_view kPrefix = "Array(";
  std::string dtype = absl::StrCat("dtype=", NumpyName(a.dtype()));
  if (IsEmpty(a) && a.rank() > 0) {
    if (a.rank() == 1) return absl::StrCat(kPrefix, "[], ", dtype, ")");
    std::string shape = absl::StrCat("(", absl::StrJoin(a.shape(), ", "), ")");
    return absl::StrCat(kPrefix, "[], shape=", shape, ", ", dtype, ")");
  }
  if (a.rank() == 0) {
    // NumPy formats a 0-d array's repr with the array formatter: "42." for a float.
    std::vector<std::string> elems = FormatElements(a);
    std::string e(absl::StripLeadingAsciiWhitespace(elems[0]));
    return absl::StrCat(kPrefix, e, ", ", dtype, ")");
  }
  std::string indent(kPrefix.size() + 1, ' ');
  return absl::StrCat(kPrefix, FormatBody(a, indent, ", "), ", ", dtype, ")");
}

}  // namespace axe::pallas
