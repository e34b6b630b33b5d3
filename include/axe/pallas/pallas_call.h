// PallasCall: JAX's pl.pallas_call for C++ kernels.
//
//   PallasCall(kernel, out_shape, spec)(inputs...)
//
// runs `kernel` once per grid point of spec.grid. The kernel takes one Ref<const In> per
// input and one Ref<Out> per output (its blocks; see ref.h and block_spec.h), may ask
// ProgramId(axis) / NumPrograms(axis) (program.h), and returns void or absl::Status.
// `out_shape` is an OutShape<T> (the call returns StatusOr<Array<T>>) or a std::tuple of
// them (StatusOr<std::tuple<Array<T>...>>). Semantics (interpret and parallel mode, padding,
// clamping, aliasing) are described in execute.h; errors in ExecuteCall's comment.
//
//   // [SPI-1]: each program fills its block with its grid indices as decimal digits.
//   auto call = PallasCall(
//       [](Ref<int32_t> o) { o.Fill(static_cast<int32_t>(10 * ProgramId(0) + ProgramId(1))); },
//       OutShape<int32_t>{{8, 6}},
//       {.grid = {4, 2}, .out_specs = {BlockSpec({2, 3}, [](int64_t i, int64_t j) { return
//       std::pair{i, j}; })}});
//   absl::StatusOr<Array<int32_t>> out = call();
//
// Kernels run on the calling thread in interpret mode and concurrently in parallel mode;
// they must not throw.
#ifndef AXE_PALLAS_PALLAS_CALL_H_
#define AXE_PALLAS_PALLAS_CALL_H_

#include <array>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "axe/pallas/array.h"
#include "axe/pallas/call_spec.h"
#include "axe/pallas/execute.h"
#include "axe/pallas/program.h"
#include "axe/pallas/ref.h"

namespace axe::pallas {

namespace internal {

template <typename Kernel, typename... Args>
absl::Status InvokeKernel(const Kernel& kernel, Args&&... args) {
  using R = std::invoke_result_t<const Kernel&, Args...>;
  if constexpr (std::is_void_v<R>) {
    kernel(std::forward<Args>(args)...);
    return absl::OkStatus();
  } else {
    static_assert(
        std::is_convertible_v<R, absl::Status>,
        "a Pallas kernel must return void or absl::Status (JAX: the kernel should return None)");
    return kernel(std::forward<Args>(args)...);
  }
}

}  // namespace internal

// A configured call; invoke it with the inputs. `kSingle`: out_shape was one OutShape.
template <typename Kernel, bool kSingle, typename... Outs>
class Call {
 public:
  using Result = std::conditional_t<kSingle, Array<std::tuple_element_t<0, std::tuple<Outs...>>>,
                                    std::tuple<Array<Outs>...>>;

  Call(Kernel kernel, std::tuple<OutShape<Outs>...> out_shapes, CallSpec spec, CallSite site)
      : kernel_(std::move(kernel)),
        out_shapes_(std::move(out_shapes)),
        spec_(std::move(spec)),
        site_(std::move(site)) {}

  // Runs the call on `inputs` (one Array per input, in order).
  template <typename... Ins>
  absl::StatusOr<Result> operator()(const Array<Ins>&... inputs) const {
    static_assert(std::is_invocable_v<const Kernel&, Ref<const Ins>..., Ref<Outs>...>,
                  "the kernel must accept (Ref<const In>..., Ref<Out>...) for the inputs and "
                  "out_shape given");
    std::array<const AnyArray*, sizeof...(Ins)> in = {&inputs.any()...};
    std::vector<ShapeDType> outs = out_shapes();
    auto raw = [this](absl::Span<const RawRef> ri, absl::Span<const RawRef> ro) -> absl::Status {
      return Invoke<Ins...>(ri, ro, std::index_sequence_for<Ins...>{},
                            std::index_sequence_for<Outs...>{});
    };
    absl::StatusOr<std::vector<AnyArray>> results = ExecuteCall(spec_, in, outs, raw, site_);
    if (!results.ok()) return results.status();
    std::tuple<Array<Outs>...> typed =
        Typed(*std::move(results), std::index_sequence_for<Outs...>{});
    if constexpr (kSingle) {
      return std::move(std::get<0>(typed));
    } else {
      return typed;
    }
  }

  const CallSpec& spec() const { return spec_; }
  const CallSite& site() const { return site_; }
  std::vector<ShapeDType> out_shapes() const {
    return std::apply([](const auto&... o) { return std::vector<ShapeDType>{o.shape_dtype()...}; },
                      out_shapes_);
  }

 private:
  template <typename... Ins, size_t... I, size_t... J>
  absl::Status Invoke([[maybe_unused]] absl::Span<const RawRef> ri,
                      [[maybe_unused]] absl::Span<const RawRef> ro, std::index_sequence<I...>,
                      std::index_sequence<J...>) const {
    return internal::InvokeKernel(kernel_, ri[I].template As<const Ins>()...,
                                  ro[J].template As<Outs>()...);
  }

  template <size_t... J>
  static std::tuple<Array<Outs>...> Typed([[maybe_unused]] std::vector<AnyArray> results,
                                          std::index_sequence<J...>) {
    // ExecuteCall returns arrays of exactly the requested dtypes.
    return {*Array<Outs>::FromAny(std::move(results[J]))...};
  }

  Kernel kernel_;
  std::tuple<OutShape<Outs>...> out_shapes_;
  CallSpec spec_;
  CallSite site_;
};

// One output. `file` and `line` default to the caller's place (messages name it).
template <typename Kernel, typename T>
Call<Kernel, true, T> PallasCall(Kernel kernel, OutShape<T> out_shape, CallSpec spec,
                                 const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return Call<Kernel, true, T>(std::move(kernel), std::tuple<OutShape<T>>(std::move(out_shape)),
                               std::move(spec), CallSite{file, line});
}

// Several outputs (a tuple of OutShape; the result is a tuple of arrays).
template <typename Kernel, typename... Ts>
Call<Kernel, false, Ts...> PallasCall(Kernel kernel, std::tuple<OutShape<Ts>...> out_shapes,
                                      CallSpec spec, const char* file = __builtin_FILE(),
                                      int line = __builtin_LINE()) {
  return Call<Kernel, false, Ts...>(std::move(kernel), std::move(out_shapes), std::move(spec),
                                    CallSite{file, line});
}

}  // namespace axe::pallas

#endif  // AXE_PALLAS_PALLAS_CALL_H_
