// Backend block-shape rules: would a real Pallas backend accept these BlockSpecs?
// Validate() first runs ValidateCall (execute.h), then the backend's rules for every operand
// (inputs, then outputs) and returns the first violation with JAX's message, or ok.
//
//  TPU (Mosaic): blocks of rank >= 1; rank >= 2: the last two block dims are each equal to
//    the array's or divisible by 8 (second-to-last) and 128 (last) — a Squeezed dim counts
//    as 1; rank 1: equal to the array, a multiple of 1024, or a power of two >= 128 * packing
//    (packing = 32 / bit width, bool counts as 32 bits). ValidateOptions::old_tpu_rank1_rule
//    restores the rule before 2026-02: equal or a multiple of 128 * packing. Only Blocked,
//    Element and Squeezed dims, and Element for all dims or none. ANY-space operands need a
//    trivial window (whole array, zero index map); trivial SMEM operands are skipped.
//  Mosaic GPU: no Element dims; the minor-most block dim spans a multiple of 16 bytes; the
//    array's strides except the last are multiples of 16 bytes (TMA); GMEM operands need a
//    trivial window.
//  Triton: every block has a power-of-two number of elements; no Element padding; no
//    BoundedSlice or Indirect dims.
//
//   Validate(spec, {{DType::kF32, {9, 128}}}, {}, Backend::kTpu);
//   // "The Pallas TPU lowering currently requires that the last two dimensions of your block
//   //  shape are divisible by 8 and 128 respectively, or be equal to ... Block spec for
//   //  args[0] in pallas_call kernel has block shape (9, 64), array shape (9, 128), ..."
#ifndef AXE_PALLAS_VALIDATE_H_
#define AXE_PALLAS_VALIDATE_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/pallas/array.h"
#include "axe/pallas/call_spec.h"
#include "axe/pallas/execute.h"
#include "axe/pallas/pallas_call.h"

namespace axe::pallas {

enum class Backend : uint8_t { kTpu, kMosaicGpu, kTriton };
// "tpu", "mosaic-gpu", "triton".
absl::string_view BackendName(Backend b);
// Accepts those names and JAX's pallas_call(backend=...) names "mosaic_tpu", "mosaic_gpu"
// (also "mosaic-tpu"), case-insensitively. "gpu" and "mosaic" are rejected as ambiguous
// (two GPU backends; Mosaic TPU and Mosaic GPU), with the accepted names.
absl::StatusOr<Backend> ParseBackend(absl::string_view text);

struct ValidateOptions {
  // TPU rank-1 rule as it was before 2026-02-27 (for comparing with older documents).
  bool old_tpu_rank1_rule = false;
};

absl::Status Validate(const CallSpec& spec, absl::Span<const ShapeDType> inputs,
                      absl::Span<const ShapeDType> outputs, Backend backend,
                      const ValidateOptions& options = {}, const CallSite& site = {});

// The same for a configured PallasCall (its spec, out_shape and call site) on inputs of the
// given dtypes and shapes; bfloat16/float16 may stand in for the element types' bit widths.
//
//   Validate(call, {{DType::kBF16, {1024, 1024}}}, Backend::kTpu);
template <typename Kernel, bool kSingle, typename... Outs>
absl::Status Validate(const Call<Kernel, kSingle, Outs...>& call,
                      absl::Span<const ShapeDType> inputs, Backend backend,
                      const ValidateOptions& options = {}) {
  return Validate(call.spec(), inputs, call.out_shapes(), backend, options, call.site());
}

}  // namespace axe::pallas

#endif  // AXE_PALLAS_VALIDATE_H_
