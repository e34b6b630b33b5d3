// Helpers of the differentiation and vmap tests: the JAX-printed corpus, seeded random
// arguments, finite differences and slicing of host arrays.
#ifndef AXE_TESTS_IR_AD_TEST_UTIL_H_
#define AXE_TESTS_IR_AD_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "axe/ir/eval.h"
#include "axe/ir/eval_text.h"
#include "axe/ir/jaxpr.h"
#include "axe/ir/parser.h"
#include "gtest/gtest.h"
#include "support/testdata.h"

namespace axe::ir::ad_test {

// A values file of JAX's numbers: lines `<kind> <argument spec>` (kind: arg, out, grad),
// the arrays of each kind in order. A line that does not parse fails the test.
inline std::map<std::string, std::vector<HostArray>> ReadTestdataValues(const std::string& path) {
  return testing_support::ReadJaxValues(testing_support::IrTestdataPath(path), ParseArgSpec);
}

// tests/ir/testdata/<dir>/<name>.txt parsed.
inline ClosedJaxpr LoadJax(const std::string& name, const std::string& dir = "jax") {
  absl::StatusOr<ClosedJaxpr> j =
      ParseJaxpr(testing_support::ReadIrTestdata(dir + "/" + name + ".txt"));
  EXPECT_TRUE(j.ok()) << name << ": " << j.status();
  return j.ok() ? *j : ClosedJaxpr{};
}

inline bool IsFloat(const ShapedArray& a) { return IsFloatingPoint(a.dtype()); }

// Floats uniform in [0.5, 2) (log, sqrt and division stay smooth), integers 1, bools random.
inline HostArray Random(const ShapedArray& aval, std::mt19937_64& rng) {
  HostArray h{aval, std::vector<double>(static_cast<size_t>(*aval.NumElements()))};
  std::uniform_real_distribution<double> u(0.5, 2.0);
  for (double& v : h.values) {
    if (IsFloat(aval)) {
      v = RoundToDType(u(rng), aval.dtype());
    } else if (aval.dtype() == DType::kPred) {
      v = static_cast<double>(rng() % 2);
    } else {
      v = 1;
    }
  }
  return h;
}

inline HostArray Zeros(const ShapedArray& aval) {
  return HostArray{aval, std::vector<double>(static_cast<size_t>(*aval.NumElements()), 0.0)};
}

// x + s * t, elementwise (t zero for non-float x).
inline HostArray Step(const HostArray& x, const HostArray& t, double s) {
  HostArray out = x;
  if (!IsFloat(x.aval)) return out;
  for (size_t i = 0; i < out.values.size(); ++i) out.values[i] += s * t.values[i];
  return out;
}

inline std::vector<HostArray> Eval(const ClosedJaxpr& j, const std::vector<HostArray>& args) {
  absl::StatusOr<std::vector<HostArray>> out = EvalJaxpr(j, args);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::vector<HostArray>{};
}

// |a - b| <= tol * (1 + |b|) elementwise.
inline void ExpectNear(const HostArray& a, const HostArray& b, double tol,
                       const std::string& what) {
  ASSERT_EQ(a.values.size(), b.values.size()) << what;
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (a.values[i] == b.values[i]) continue;  // infinities included
    EXPECT_LE(std::abs(a.values[i] - b.values[i]), tol * (1 + std::abs(b.values[i])))
        << what << " element " << i << ": " << a.values[i] << " vs " << b.values[i];
  }
}

// Index `index` of `x` along `axis` (that dimension removed).
inline HostArray Take(const HostArray& x, size_t axis, int64_t index) {
  const std::vector<int64_t>& shape = x.aval.shape();
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  std::vector<int64_t> out_shape = shape;
  out_shape.erase(out_shape.begin() + static_cast<int64_t>(axis));
  HostArray out{x.aval.WithShape(out_shape), {}};
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      out.values.push_back(x.values[static_cast<size_t>((o * shape[axis] + index) * inner + i)]);
    }
  }
  return out;
}

}  // namespace axe::ir::ad_test

#endif  // AXE_TESTS_IR_AD_TEST_UTIL_H_
