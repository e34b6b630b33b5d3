#include "axe/layout/inverse.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "point_set.h"

namespace axe {
namespace {

using Digit = InverseMap::Digit;

absl::Status TooMany(absl::string_view what, int64_t limit) {
  return absl::ResourceExhaustedError(absl::StrCat("inverse: more than ", limit, " ", what));
}

// Solves sum_k c_k |s_k| = v over digits[i..] (the negative-stride digits already mirrored),
// appending `acc + sum c_k B_k` for every solution.
class Search {
 public:
  Search(const std::vector<Digit>& digits, std::vector<int64_t>& out, int64_t& nodes)
      : digits_(digits), out_(out), nodes_(nodes) {}

  absl::Status Run(size_t i, int64_t v, int64_t acc) {
    if (++nodes_ > kMaxSearchNodes) return TooMany("search steps", kMaxSearchNodes);
    if (i == digits_.size()) {
      if (v != 0) return absl::OkStatus();
      if (static_cast<int64_t>(out_.size()) >= kMaxEnumeratedPoints) {
        return TooMany("preimage points", kMaxEnumeratedPoints);
      }
      out_.push_back(acc);
      return absl::OkStatus();
    }
    const Digit& d = digits_[i];
    if (v < 0 || v > d.max_rest) return absl::OkStatus();
    if (d.gcd_rest == 0 ? v != 0 : v % d.gcd_rest != 0) return absl::OkStatus();
    int64_t rest = i + 1 < digits_.size() ? digits_[i + 1].max_rest : 0;
    int64_t lo = 0, hi = d.extent - 1;
    if (d.abs_stride > 0) {
      lo = std::max<int64_t>(0, CeilDiv(v - rest, d.abs_stride));
      hi = std::min(hi, v / d.abs_stride);
    }
    for (int64_t c = lo; c <= hi; ++c) {
      int64_t digit = d.negative ? d.extent - 1 - c : c;
      AXE_RETURN_IF_ERROR(Run(i + 1, v - c * d.abs_stride, acc + digit * d.weight));
    }
    return absl::OkStatus();
  }

 private:
  const std::vector<Digit>& digits_;
  std::vector<int64_t>& out_;
  int64_t& nodes_;
};

// All per-axis flat contributions whose axis value is `target`.
absl::Status DecodeAxis(const InverseMap::AxisDecoder& dec, int64_t target,
                        std::vector<int64_t>& out, int64_t& nodes) {
  std::optional<int64_t> v = CheckedAdd(target, dec.neg_shift);
  int64_t max_total = dec.digits.empty() ? 0 : dec.digits.front().max_rest;
  if (!v || *v < 0 || *v > max_total) return absl::OkStatus();
  if (dec.greedy) {
    int64_t rem = *v, acc = 0;
    for (const Digit& d : dec.digits) {
      int64_t c = rem / d.abs_stride;
      if (c >= d.extent) return absl::OkStatus();
      rem -= c * d.abs_stride;
      acc += (d.negative ? d.extent - 1 - c : c) * d.weight;
    }
    if (rem == 0) out.push_back(acc);
    return absl::OkStatus();
  }
  return Search(dec.digits, out, nodes).Run(0, *v, 0);
}

}  // namespace

absl::StatusOr<InverseMap> InverseMap::Build(const Layout& layout) {
  InverseMap m;
  const std::vector<Iter>& d = layout.shard();
  std::vector<int64_t> weight(d.size());
  int64_t w = 1;
  for (size_t k = d.size(); k-- > 0;) {
    weight[k] = w;
    w *= d[k].extent;  // <= E_D
  }
  AXE_ASSIGN_OR_RETURN(std::vector<internal::AxisValues> replica_values,
                       internal::ReplicaValuesPerAxis(layout, kMaxEnumeratedPoints));
  auto values_of = [&replica_values](Axis a) -> std::vector<int64_t> {
    for (const auto& av : replica_values) {
      if (av.axis == a) return av.values;
    }
    return {0};
  };
  for (size_t k = 0; k < d.size(); ++k) {
    auto it = std::find_if(m.decoders_.begin(), m.decoders_.end(),
                           [&](const AxisDecoder& x) { return x.axis == d[k].axis; });
    if (it == m.decoders_.end()) {
      m.decoders_.push_back(AxisDecoder{d[k].axis, {}, 0, true, values_of(d[k].axis)});
      it = m.decoders_.end() - 1;
    }
    if (d[k].extent == 1) continue;
    int64_t abs_stride = d[k].stride < 0 ? -d[k].stride : d[k].stride;
    it->digits.push_back(Digit{d[k].extent, abs_stride, d[k].stride < 0, weight[k], 0, 0});
    if (d[k].stride < 0) it->neg_shift += abs_stride * (d[k].extent - 1);
  }
  for (AxisDecoder& dec : m.decoders_) {
    std::stable_sort(dec.digits.begin(), dec.digits.end(),
                     [](const Digit& a, const Digit& b) { return a.abs_stride > b.abs_stride; });
    int64_t max_rest = 0, gcd_rest = 0;
    for (size_t i = dec.digits.size(); i-- > 0;) {
      Digit& g = dec.digits[i];
      // Greedy works iff |s_i| > the largest value the smaller digits reach.
      if (g.abs_stride < 1 + max_rest) dec.greedy = false;
      max_rest += g.abs_stride * (g.extent - 1);  // bounded by the axis span
      gcd_rest = std::gcd(gcd_rest, g.abs_stride);
      g.max_rest = max_rest;
      g.gcd_rest = gcd_rest;
    }
  }
  for (const auto& av : replica_values) {
    bool in_d = std::any_of(m.decoders_.begin(), m.decoders_.end(),
                            [&](const AxisDecoder& x) { return x.axis == av.axis; });
    if (!in_d) m.others_.emplace_back(av.axis, av.values);
  }
  return m;
}

bool InverseMap::mixed_radix() const {
  return std::all_of(decoders_.begin(), decoders_.end(),
                     [](const AxisDecoder& d) { return d.greedy; });
}

absl::StatusOr<std::vector<int64_t>> InverseMap::Preimage(const PhysCoord& p) const {
  // Axes of p that no iter or offset uses must be 0.
  for (const auto& [axis, value] : p.entries()) {
    bool known = std::any_of(decoders_.begin(), decoders_.end(),
                             [a = axis](const AxisDecoder& x) { return x.axis == a; }) ||
                 std::any_of(others_.begin(), others_.end(),
                             [a = axis](const auto& x) { return x.first == a; });
    if (!known) return std::vector<int64_t>{};
  }
  for (const auto& [axis, values] : others_) {
    if (!std::binary_search(values.begin(), values.end(), p.get(axis)))
      return std::vector<int64_t>{};
  }
  std::vector<int64_t> result = {0};
  int64_t nodes = 0;
  for (const AxisDecoder& dec : decoders_) {
    std::vector<int64_t> sols;
    int64_t target = p.get(dec.axis);
    for (int64_t v : dec.replica_values) {
      std::optional<int64_t> t = CheckedSub(target, v);
      if (!t) continue;
      AXE_RETURN_IF_ERROR(DecodeAxis(dec, *t, sols, nodes));
      if (static_cast<int64_t>(sols.size()) > kMaxEnumeratedPoints) {
        return TooMany("preimage points", kMaxEnumeratedPoints);
      }
    }
    if (sols.empty()) return std::vector<int64_t>{};
    std::sort(sols.begin(), sols.end());
    sols.erase(std::unique(sols.begin(), sols.end()), sols.end());
    if (static_cast<double>(result.size()) * static_cast<double>(sols.size()) >
        static_cast<double>(kMaxEnumeratedPoints)) {
      return TooMany("preimage points", kMaxEnumeratedPoints);
    }
    std::vector<int64_t> next;
    next.reserve(result.size() * sols.size());
    for (int64_t a : result) {
      for (int64_t b : sols) next.push_back(a + b);
    }
    result = std::move(next);
  }
  std::sort(result.begin(), result.end());
  return result;
}

absl::StatusOr<std::vector<int64_t>> InverseFlat(const Layout& layout, const PhysCoord& p) {
  AXE_ASSIGN_OR_RETURN(InverseMap m, InverseMap::Build(layout));
  return m.Preimage(p);
}

absl::StatusOr<std::vector<std::vector<int64_t>>> Inverse(const Layout& layout,
                                                          absl::Span<const int64_t> shape,
                                                          const PhysCoord& p) {
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(layout, shape));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> flat, InverseFlat(layout, p));
  std::vector<std::vector<int64_t>> out;
  out.reserve(flat.size());
  for (int64_t x : flat) out.push_back(UnflattenIndex(shape, x));
  return out;
}

}  // namespace axe
