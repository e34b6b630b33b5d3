// Kernels of sort and top_k on every held dtype, in the values' own encodings (integers
// bit-exact, 64-bit ones past 2^53 too).
//
// sort: per row along `dimension`, a stable sort of the positions by the first num_keys
// operands (lexicographic; floats as JAX's comparator: every NaN above +inf and equal to the
// others, -0.0 equal to 0.0), then every operand's elements moved by that permutation (bytes,
// whatever the dtype). is_stable=False sorts stably too (XLA promises nothing more).
// top_k: per row along `axis`, the k first positions of the descending order, ties by lower
// index; floats in XLA's total order (-NaN < -inf < -0.0 < +0.0 < +inf < +NaN), compared as
// their sign-magnitude bits mapped to unsigned integers.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "exec/dtype_switch.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

// SortRows along an axis: element i of row r is at ((r / inner) * n + i) * inner + r % inner.
struct SortRows {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t At(int64_t row, int64_t i) const { return ((row / inner) * n + i) * inner + row % inner; }
  int64_t count() const { return outer * inner; }
};

SortRows SortRowsAlong(absl::Span<const int64_t> shape, int64_t axis) {
  SortRows r;
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t s = shape[d];
    if (static_cast<int64_t>(d) < axis) r.outer *= s;
    if (static_cast<int64_t>(d) == axis) r.n = s;
    if (static_cast<int64_t>(d) > axis) r.inner *= s;
  }
  return r;
}

// JAX's sort comparator on one key, three-way.
template <typename T>
int SortCompare(const std::byte* data, int64_t a, int64_t b) {
  const T* x = reinterpret_cast<const T*>(data);
  if constexpr (std::is_floating_point_v<T> || kIsHalf<T>) {
    const double u = ToDouble(x[a]), v = ToDouble(x[b]);
    const bool nu = std::isnan(u), nv = std::isnan(v);
    if (nu || nv) return nu == nv ? 0 : (nu ? 1 : -1);
    return u < v ? -1 : (v < u ? 1 : 0);
  } else {
    return x[a] < x[b] ? -1 : (x[b] < x[a] ? 1 : 0);
  }
}

using SortCompareFn = int (*)(const std::byte*, int64_t, int64_t);

SortCompareFn SortCompareFor(DType t) {
  SortCompareFn fn = nullptr;
  DispatchDType(t, [&](auto tag) { fn = &SortCompare<typename decltype(tag)::type>; });
  return fn;
}

// Runs task(row) for every row, in parallel when the work is large.
template <typename Task>
void ForSortRows(const RunContext& ctx, const SortRows& rows, Task task) {
  const bool parallel = ctx.pool != nullptr && ctx.threads > 1 && rows.count() > 1 &&
                        rows.count() * rows.n >= (int64_t{1} << 16);
  if (parallel) {
    ctx.pool->ParallelFor(rows.count(), task, ctx.threads);
  } else {
    for (int64_t r = 0; r < rows.count(); ++r) task(r);
  }
}

struct SortPlan {
  SortRows rows;
  int64_t num_keys = 1;
  std::vector<SortCompareFn> compare;  // per key
  std::vector<size_t> bytes;           // per operand
  std::vector<ir::ShapedArray> out;
};

absl::Status RunSort(const SortPlan& s, const RunContext& ctx, absl::Span<const Value> in,
                     std::vector<Value>& out) {
  for (size_t k = 0; k < in.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(out[k], ctx.Allocate(s.out[k]));
  }
  const SortRows& rows = s.rows;
  ForSortRows(ctx, rows, [&](int64_t row) {
    std::vector<int64_t> perm(static_cast<size_t>(rows.n));
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      const int64_t fa = rows.At(row, a), fb = rows.At(row, b);
      for (int64_t k = 0; k < s.num_keys; ++k) {
        const int c = s.compare[static_cast<size_t>(k)](in[static_cast<size_t>(k)].bytes(), fa, fb);
        if (c != 0) return c < 0;
      }
      return false;
    });
    for (size_t k = 0; k < in.size(); ++k) {
      const size_t b = s.bytes[k];
      const std::byte* from = in[k].bytes();
      std::byte* to = out[k].mutable_bytes();
      for (int64_t i = 0; i < rows.n; ++i) {
        std::memcpy(to + static_cast<size_t>(rows.At(row, i)) * b,
                    from + static_cast<size_t>(rows.At(row, perm[static_cast<size_t>(i)])) * b, b);
      }
    }
  });
  return absl::OkStatus();
}

absl::StatusOr<int64_t> SortIntParam(const ir::Eqn& eqn, const char* name) {
  auto it = eqn.params.find(name);
  if (it == eqn.params.end()) return absl::NotFoundError(name);
  return it->second.AsInt(name);
}

// Anything malformed is left to the interpreter's error (nullopt: the fallback).
absl::StatusOr<std::optional<BuiltKernel>> BuildSort(const EqnView& v) {
  if (v.in.empty() || v.out.size() != v.in.size()) return std::nullopt;
  absl::StatusOr<int64_t> dimension = SortIntParam(v.eqn, "dimension");
  absl::StatusOr<int64_t> num_keys = SortIntParam(v.eqn, "num_keys");
  if (!dimension.ok() || !num_keys.ok() || *dimension < 0 ||
      *dimension >= static_cast<int64_t>(v.in[0].rank()) || *num_keys < 1 ||
      *num_keys > static_cast<int64_t>(v.in.size())) {
    return std::nullopt;
  }
  auto s = std::make_shared<SortPlan>();
  for (size_t k = 0; k < v.in.size(); ++k) {
    if (v.in[k].shape() != v.in[0].shape() || v.out[k] != v.in[k]) return std::nullopt;
    AXE_ASSIGN_OR_RETURN(size_t b, ElementBytes(v.in[k].dtype()));
    s->bytes.push_back(b);
  }
  for (int64_t k = 0; k < *num_keys; ++k) {
    s->compare.push_back(SortCompareFor(v.in[static_cast<size_t>(k)].dtype()));
  }
  s->rows = SortRowsAlong(v.in[0].shape(), *dimension);
  s->num_keys = *num_keys;
  s->out = v.out;
  BuiltKernel k;
  k.description = absl::StrCat("sort (", *num_keys, " key", *num_keys == 1 ? "" : "s", ")");
  k.work = NumElements(v.in[0]) * static_cast<int64_t>(v.in.size()) *
           (1 + static_cast<int64_t>(std::log2(static_cast<double>(s->rows.n) + 1)));
  k.kernel = [s](const RunContext& ctx, absl::Span<const Value> in, std::vector<Value>& out) {
    return RunSort(*s, ctx, in, out);
  };
  return k;
}

// XLA's total order as an unsigned key (floats: sign-magnitude bits folded so that unsigned
// comparison orders them); other types compare as they are.
template <typename T>
auto TotalOrderKey(T v) {
  if constexpr (std::is_floating_point_v<T> || kIsHalf<T>) {
    using U = std::conditional_t<sizeof(T) == 2, uint16_t,
                                 std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
    U u;
    std::memcpy(&u, &v, sizeof(T));
    const U sign = static_cast<U>(U{1} << (8 * sizeof(T) - 1));
    return (u & sign) != 0 ? static_cast<U>(~u) : static_cast<U>(u | sign);
  } else {
    return v;
  }
}

struct TopKPlan {
  SortRows in, out;
  int64_t k = 0;
  std::vector<ir::ShapedArray> avals;
};

template <typename T>
absl::Status RunTopK(const TopKPlan& s, const RunContext& ctx, absl::Span<const Value> in,
                     std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(s.avals[0]));
  AXE_ASSIGN_OR_RETURN(out[1], ctx.Allocate(s.avals[1]));
  const T* x = in[0].data<T>();
  T* values = out[0].mutable_data<T>();
  int32_t* indices = out[1].mutable_data<int32_t>();
  ForSortRows(ctx, s.in, [&](int64_t row) {
    std::vector<int64_t> perm(static_cast<size_t>(s.in.n));
    std::iota(perm.begin(), perm.end(), 0);
    auto before = [&](int64_t a, int64_t b) {
      const auto ka = TotalOrderKey(x[s.in.At(row, a)]), kb = TotalOrderKey(x[s.in.At(row, b)]);
      return ka > kb || (ka == kb && a < b);
    };
    std::partial_sort(perm.begin(), perm.begin() + s.k, perm.end(), before);
    for (int64_t i = 0; i < s.k; ++i) {
      const int64_t from = perm[static_cast<size_t>(i)];
      values[s.out.At(row, i)] = x[s.in.At(row, from)];
      indices[s.out.At(row, i)] = static_cast<int32_t>(from);
    }
  });
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildTopK(const EqnView& v) {
  if (v.in.size() != 1 || v.out.size() != 2 || v.in[0].rank() == 0 ||
      v.out[1].dtype() != DType::kS32 || v.out[0].dtype() != v.in[0].dtype()) {
    return std::nullopt;
  }
  absl::StatusOr<int64_t> k = SortIntParam(v.eqn, "k");
  int64_t axis = static_cast<int64_t>(v.in[0].rank()) - 1;
  if (v.eqn.params.count("axis") != 0) {
    absl::StatusOr<int64_t> a = SortIntParam(v.eqn, "axis");
    if (!a.ok()) return std::nullopt;
    axis = *a;
  }
  if (!k.ok() || axis < 0 || axis >= static_cast<int64_t>(v.in[0].rank()) || *k < 0 ||
      *k > v.in[0].shape()[static_cast<size_t>(axis)] ||
      v.out[0].shape()[static_cast<size_t>(axis)] != *k) {
    return std::nullopt;
  }
  auto s = std::make_shared<TopKPlan>();
  s->in = SortRowsAlong(v.in[0].shape(), axis);
  s->out = SortRowsAlong(v.out[0].shape(), axis);
  s->k = *k;
  s->avals = v.out;
  BuiltKernel kernel;
  kernel.description = "top_k";
  kernel.work = NumElements(v.in[0]) * 2;
  DispatchDType(v.in[0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernel.kernel = [s](const RunContext& ctx, absl::Span<const Value> in,
                        std::vector<Value>& out) { return RunTopK<T>(*s, ctx, in, out); };
  });
  return kernel;
}

}  // namespace

void AddSortKernels(KernelTable& table) {
  table["sort"] = BuildSort;
  table["top_k"] = BuildTopK;
}

}  // namespace axe::exec::internal
