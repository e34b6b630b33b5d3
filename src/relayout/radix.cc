#include "relayout/radix.h"

#include <algorithm>
#include <functional>

#include "axe/base/checked_math.h"

namespace axe::relayout::internal {
namespace {

// Place values of the digits, most significant first (the last is 1).
std::vector<int64_t> PlaceValues(const std::vector<Digit>& digits) {
  std::vector<int64_t> w(digits.size());
  int64_t p = 1;
  for (size_t j = digits.size(); j-- > 0;) {
    w[j] = p;
    p *= digits[j].extent;  // <= the side's domain extent
  }
  return w;
}

}  // namespace

std::optional<CommonRadix> MakeCommonRadix(const std::vector<std::vector<Digit>>& sides) {
  CommonRadix r;
  r.weights.push_back(1);
  std::vector<std::vector<int64_t>> places;
  for (const std::vector<Digit>& digits : sides) {
    places.push_back(PlaceValues(digits));
    r.weights.insert(r.weights.end(), places.back().begin(), places.back().end());
  }
  std::sort(r.weights.begin(), r.weights.end(), std::greater<>());
  r.weights.erase(std::unique(r.weights.begin(), r.weights.end()), r.weights.end());
  for (size_t i = 0; i + 1 < r.weights.size(); ++i) {
    if (r.weights[i] % r.weights[i + 1] != 0) return std::nullopt;
  }
  for (size_t k = 0; k < sides.size(); ++k) {
    const std::vector<Digit>& digits = sides[k];
    const std::vector<int64_t>& w = places[k];
    const int64_t range = digits.empty() ? 1 : w[0] * digits[0].extent;
    std::vector<int64_t> sigma;
    for (int64_t v : r.weights) {
      if (v >= range) {  // this digit of x is 0 everywhere in the side's range
        sigma.push_back(0);
        continue;
      }
      size_t j = 0;
      while (w[j] > v) ++j;  // the digit holding place value v (w[last] == 1 <= v)
      std::optional<int64_t> s = CheckedMul(digits[j].stride, v / w[j]);
      if (!s) return std::nullopt;
      sigma.push_back(*s);
    }
    r.strides.push_back(std::move(sigma));
  }
  return r;
}

int64_t DigitsValue(const std::vector<Digit>& digits, int64_t x) {
  int64_t value = 0;
  for (size_t j = digits.size(); j-- > 0;) {
    value += (x % digits[j].extent) * digits[j].stride;
    x /= digits[j].extent;
  }
  return value;
}

std::vector<RadixBox> DecomposeInterval(int64_t lo, int64_t hi,
                                        const std::vector<int64_t>& weights) {
  std::vector<RadixBox> out;
  if (lo >= hi) return out;
  const size_t m = weights.size();
  auto descend = [&](size_t from) {
    for (size_t k = from; k < m; ++k) {
      const int64_t count = (hi - lo) / weights[k];
      if (count > 0) {
        out.push_back({lo, k, count});
        lo += count * weights[k];
      }
    }
  };
  // Ascending: lo is aligned to weights[i]; finish its parent block at level i.
  for (size_t i = m - 1; i >= 1; --i) {
    const int64_t parent = weights[i - 1], w = weights[i];
    if (lo % parent == 0) continue;
    const int64_t limit = (lo / parent + 1) * parent;
    if (limit > hi) {  // hi lies inside this parent block
      descend(i);
      return out;
    }
    out.push_back({lo, i, (limit - lo) / w});
    lo = limit;
  }
  descend(0);
  return out;
}

}  // namespace axe::relayout::internal
