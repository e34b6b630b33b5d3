// IndexMap: a BlockSpec's function from a grid point to one value per array dimension
// (block indices for Blocked dims, element indices for Element and Squeezed dims).
//
// Any C++ callable works: one taking one int64_t per grid axis, or one taking
// absl::Span<const int64_t> (any number of axes). It may return an integer (a 1-tuple), a
// std::tuple/std::pair of integers, a range of integers (std::vector, std::array,
// BlockIndices, ...), or absl::StatusOr of those to report its own errors.
//
//   BlockSpec({2, 3}, [](int64_t i, int64_t j) { return BlockIndices{i, j}; });
//   BlockSpec({128}, [](int64_t i, int64_t k) { return k; });
//   IndexMap::Named("my_index_map", [](int64_t i) { return std::pair{i, 0}; });
//
// The default IndexMap returns zeros (one per array dimension), as JAX's default index map.
// Error messages describe a map by its name ("<lambda>" unless named) and the place it was
// created ("<lambda> at kernel.cc:12"). Index maps must be pure: interpret mode calls them
// once per program and operand, parallel mode may call an output's map twice.
#ifndef AXE_PALLAS_INDEX_MAP_H_
#define AXE_PALLAS_INDEX_MAP_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace axe::pallas {

// What an index map returns: one value per array dimension.
using BlockIndices = absl::InlinedVector<int64_t, 6>;

namespace internal {

template <typename T>
struct IsStatusOr : std::false_type {};
template <typename T>
struct IsStatusOr<absl::StatusOr<T>> : std::true_type {};

template <typename T, typename = void>
struct IsRange : std::false_type {};
template <typename T>
struct IsRange<T, std::void_t<decltype(std::begin(std::declval<T&>())),
                              decltype(std::end(std::declval<T&>()))>> : std::true_type {};

template <typename T, typename = void>
struct IsTupleLike : std::false_type {};
template <typename T>
struct IsTupleLike<T, std::void_t<decltype(std::tuple_size<T>::value)>> : std::true_type {};

template <typename T>
inline constexpr bool kIsIndexInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
absl::Status PushIndex(T v, BlockIndices* out) {
  static_assert(kIsIndexInteger<T>, "an index map must return integer scalars (int32/int64)");
  if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) {
    if (v > static_cast<T>(std::numeric_limits<int64_t>::max())) {
      return absl::InvalidArgumentError(
          absl::StrCat("index map returned ", v, ", which does not fit int64"));
    }
  }
  out->push_back(static_cast<int64_t>(v));
  return absl::OkStatus();
}

// Appends the values of an index map's result to `out`.
template <typename R>
absl::Status AppendIndices(R&& r, BlockIndices* out) {
  using T = std::decay_t<R>;
  if constexpr (IsStatusOr<T>::value) {
    if (!r.ok()) return r.status();
    return AppendIndices(*std::forward<R>(r), out);
  } else if constexpr (std::is_arithmetic_v<T>) {
    return PushIndex(r, out);
  } else if constexpr (IsRange<T>::value) {
    for (const auto& v : r) {
      absl::Status s = PushIndex(v, out);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  } else if constexpr (IsTupleLike<T>::value) {
    return std::apply(
        [&](const auto&... v) {
          absl::Status s;
          ((s.ok() ? (void)(s = PushIndex(v, out)) : (void)0), ...);
          return s;
        },
        r);
  } else {
    static_assert(
        sizeof(T) == 0,
        "an index map must return an integer, a tuple or range of integers, or StatusOr of those");
    return absl::OkStatus();
  }
}

template <typename F, size_t... I>
constexpr bool InvocableWithInts(std::index_sequence<I...>) {
  return std::is_invocable_v<const F&, decltype((void)I, int64_t{})...>;
}

inline constexpr int kMaxIndexMapArity = 8;

// -1: takes a Span; 0..8: takes that many int64_t; -2: not an index map.
template <typename F>
constexpr int IndexMapArity() {
  if constexpr (std::is_invocable_v<const F&, absl::Span<const int64_t>>) {
    return -1;
  } else {
    int arity = -2;
    [&]<size_t... K>(std::index_sequence<K...>) {
      ((arity == -2 && InvocableWithInts<F>(std::make_index_sequence<K>{})
            ? (void)(arity = static_cast<int>(K))
            : (void)0),
       ...);
    }
    (std::make_index_sequence<kMaxIndexMapArity + 1>{});
    return arity;
  }
}

template <typename F>
inline constexpr bool kIsIndexMapCallable = IndexMapArity<F>() != -2;

}  // namespace internal

class IndexMap {
 public:
  // Evaluates a map at a grid point, appending one value per array dimension.
  using Function =
      std::function<absl::Status(absl::Span<const int64_t> grid_point, BlockIndices* out)>;

  // The default map: zeros.
  IndexMap() = default;

  // Wraps a callable (see the file comment). `file` and `line` record where the map was
  // written: the defaults are the caller's place (__builtin_FILE/__builtin_LINE, which g++
  // and clang both provide; clang 14 with libstdc++ 12 has no std::source_location).
  template <typename F, typename = std::enable_if_t<internal::kIsIndexMapCallable<std::decay_t<F>>>>
  IndexMap(F f, const char* file = __builtin_FILE(),  // NOLINT(google-explicit-constructor)
           int line = __builtin_LINE())
      : IndexMap(std::is_class_v<std::decay_t<F>> ? "<lambda>" : "<function>", std::move(f), file,
                 line) {}

  // The same with a name for messages (JAX shows the Python function's name).
  template <typename F, typename = std::enable_if_t<internal::kIsIndexMapCallable<std::decay_t<F>>>>
  static IndexMap Named(std::string name, F f, const char* file = __builtin_FILE(),
                        int line = __builtin_LINE()) {
    return IndexMap(std::move(name), std::move(f), file, line);
  }

  // A map from an already type-erased function taking `arity` grid indices (-1: any).
  static IndexMap FromFunction(std::string name, int arity, Function fn) {
    IndexMap m;
    m.name_ = std::move(name);
    m.arity_ = arity;
    m.fn_ = std::move(fn);
    return m;
  }

  // True for the default map.
  bool is_zeros() const { return !fn_; }
  // Grid indices the callable takes; -1 when it takes a Span (any number).
  int arity() const { return arity_; }
  const std::string& name() const { return name_; }
  // "<lambda> at file.cc:12", "my_index_map at file.cc:12", "(i, j) -> (i, j)", or
  // "<zeros>" for the default map.
  std::string Describe() const;

  // Evaluates the map at `grid_point`, replacing `out` with its values. The default map
  // yields `rank` zeros. Errors are the callable's own (a StatusOr it returned).
  absl::Status Evaluate(absl::Span<const int64_t> grid_point, int rank, BlockIndices* out) const;

 private:
  template <typename F>
  IndexMap(std::string name, F f, const char* file, int line)
      : name_(std::move(name)), file_(file), line_(line) {
    using D = std::decay_t<F>;
    constexpr int kArity = internal::IndexMapArity<D>();
    arity_ = kArity;
    if constexpr (kArity == -1) {
      fn_ = [f = std::move(f)](absl::Span<const int64_t> g, BlockIndices* out) {
        return internal::AppendIndices(f(g), out);
      };
    } else {
      fn_ = [f = std::move(f)](absl::Span<const int64_t> g, BlockIndices* out) {
        return [&]<size_t... I>(std::index_sequence<I...>) {
          return internal::AppendIndices(f(g[I]...), out);
        }
        (std::make_index_sequence<static_cast<size_t>(kArity)>{});
      };
    }
  }

  Function fn_;
  int arity_ = -1;
  std::string name_;
  std::string file_;
  int line_ = 0;
};

}  // namespace axe::pallas

#endif  // AXE_PALLAS_INDEX_MAP_H_
