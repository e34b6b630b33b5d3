// The untyped core of PallasCall: runs a kernel over a grid on AnyArray operands whose
// dtypes are known only at run time (the CLI uses it; PallasCall wraps it with types).
//
// Interpret mode is JAX's HLO interpreter, exactly:
//   1. outputs start as the uninitialized value (NaN / integer minimum / false), or as a
//      copy of their aliased input;
//   2-3. every operand is (virtually) padded: Element padding lo/hi, then at the end of each
//      dim up to a multiple of the block size, with the uninitialized value;
//   4. for each grid point in row-major order, each window start (b*v for Blocked, v for
//      Element and Squeezed) is clamped into [0, padded - b]; the kernel sees the input
//      blocks and the *current* output blocks; what it writes stays (last writer wins);
//   5. Element padding is removed from outputs and they are cut to their shapes.
// Blocks that lie inside their array are passed as views (no copy); only input windows that
// reach into padding are copied. Outputs that need padding run in a padded buffer.
//
// Parallel mode runs the same programs with grid axes marked kParallel spread over a
// ThreadPool; it equals interpret mode when programs in different parallel slices write
// disjoint output windows (checked unless options.check_parallel_writes is false).
// The kernel is then called concurrently and must be thread-safe.
//
//   // Doubles a float32 array in blocks of 4; the dtype is known only at run time.
//   auto kernel = [](absl::Span<const RawRef> in, absl::Span<const RawRef> out) {
//     Ref<const float> x = in[0].As<const float>();
//     Ref<float> y = out[0].As<float>();
//     for (int64_t i = 0; i < y.shape(0); ++i) y(i) = 2 * x(i);
//     return absl::OkStatus();
//   };
//   CallSpec spec{.grid = {3}, .in_specs = {BlockSpec({4}, [](int64_t i) { return i; })},
//                 .out_specs = {BlockSpec({4}, [](int64_t i) { return i; })}};
//   absl::StatusOr<std::vector<AnyArray>> out = ExecuteCall(spec, {&x}, {{DType::kF32, {12}}},
//   kernel);
#ifndef AXE_PALLAS_EXECUTE_H_
#define AXE_PALLAS_EXECUTE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/pallas/array.h"
#include "axe/pallas/call_spec.h"
#include "axe/pallas/ref.h"

namespace axe::pallas {

// A block as the kernel sees it, untyped: Squeezed dims removed.
struct RawRef {
  void* data;
  int rank;
  const int64_t* shape;
  const int64_t* strides;  // in elements
  DType dtype;

  // The typed view; requires DTypeOf<T> == dtype (checked).
  template <typename T>
  Ref<T> As() const {
    AXE_CHECK(DTypeOf<T> == dtype) << "a " << NumpyName(dtype) << " block used as "
                                   << NumpyName(DTypeOf<std::remove_const_t<T>>);
    return Ref<T>(static_cast<T*>(data), rank, shape, strides);
  }
};

// Called once per program with the input blocks (read only) and the output blocks.
using RawKernel = absl::FunctionRef<absl::Status(absl::Span<const RawRef> inputs,
                                                 absl::Span<const RawRef> outputs)>;

// Where the call was written, for messages ("pallas_call kernel at f.cc:12").
struct CallSite {
  std::string file;
  int line = 0;
};

// Checks a call without running it: the grid, dimension_semantics, spec counts, block
// shapes against operand ranks and sizes, index-map arities, aliases, and (when the grid
// has programs) each index map's result count at the first grid point. Errors use JAX's
// wording adapted to C++, naming the operand as args[i] / outputs[j].
absl::Status ValidateCall(const CallSpec& spec, absl::Span<const ShapeDType> inputs,
                          absl::Span<const ShapeDType> outputs, const CallSite& site = {});

// Runs the call (ValidateCall first) and returns the outputs. Errors: validation errors,
// an index map's error or wrong result count at some grid point ("... at grid point (1, 0)"),
// a window start that overflows int64, the kernel's own error, an out-of-range ProgramId
// axis, BoundedSlice/Indirect dims (Unimplemented), and in parallel mode overlapping
// writes from different parallel slices.
absl::StatusOr<std::vector<AnyArray>> ExecuteCall(const CallSpec& spec,
                                                  absl::Span<const AnyArray* const> inputs,
                                                  absl::Span<const ShapeDType> out_shapes,
                                                  RawKernel kernel, const CallSite& site = {});

}  // namespace axe::pallas

#endif  // AXE_PALLAS_EXECUTE_H_
