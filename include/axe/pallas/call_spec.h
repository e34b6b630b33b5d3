// How a Pallas call runs: the grid, one BlockSpec per input and output, and options.
//
//   CallSpec spec{
//       .grid = {8, 8, 8},
//       .in_specs = {BlockSpec({128, 128}, [](int64_t i, int64_t j, int64_t k) { return
//       std::pair{i, k}; }),
//                    BlockSpec({128, 128}, [](int64_t i, int64_t j, int64_t k) { return
//                    std::pair{k, j}; })},
//       .out_specs = {BlockSpec({128, 128}, [](int64_t i, int64_t j, int64_t) { return std::pair{i,
//       j}; })}, .options = {.mode = Mode::kParallel,
//                   .dimension_semantics = {kParallel, kParallel, kArbitrary}},
//   };
//
// An empty in_specs (out_specs) gives every input (output) the whole-array BlockSpec(), as
// an omitted in_specs does in JAX.
#ifndef AXE_PALLAS_CALL_SPEC_H_
#define AXE_PALLAS_CALL_SPEC_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/base/thread_pool.h"
#include "axe/pallas/block_spec.h"
#include "axe/pallas/clamp_report.h"
#include "axe/pallas/grid.h"

namespace axe::pallas {

enum class Mode : uint8_t {
  // JAX's HLO interpreter (interpret=True), exactly: one program at a time in grid order.
  kInterpret,
  // Programs along "parallel" grid axes run concurrently on a ThreadPool; "arbitrary" axes
  // run in order within each parallel slice.
  kParallel,
};

enum class DimensionSemantics : uint8_t { kParallel, kArbitrary };
inline constexpr DimensionSemantics kParallel = DimensionSemantics::kParallel;
inline constexpr DimensionSemantics kArbitrary = DimensionSemantics::kArbitrary;

struct CallOptions {
  Mode mode = Mode::kInterpret;
  // One entry per grid axis; empty means all "arbitrary" (JAX's default). Ignored by
  // interpret mode apart from the length check.
  std::vector<DimensionSemantics> dimension_semantics{};
  // {input index, output index}: the output starts as a copy of the input instead of
  // uninitialized values. Same dtype and shape required; no Element padding anywhere.
  std::vector<std::pair<int64_t, int64_t>> input_output_aliases{};
  // When set, every clamped window is appended here (clamp_report.h), in program order, up
  // to max_clamp_reports of them (each takes a few hundred bytes; the first ones in
  // interpret mode).
  std::vector<ClampEvent>* clamp_report = nullptr;
  int64_t max_clamp_reports = INT64_MAX;
  // When set, the number of clamped windows, reported or not, is added here.
  int64_t* clamp_count = nullptr;
  // Parallel mode: the pool (default ThreadPool::Default()) and at most this many of its
  // threads (0: all).
  ThreadPool* pool = nullptr;
  int num_threads = 0;
  // Parallel mode: before running, check that programs in different parallel slices write
  // disjoint output windows (else the result would depend on timing), and fail if not.
  bool check_parallel_writes = true;
  // The kernel's name in messages ("pallas_call <name>").
  std::string name = "kernel";
  // The most bytes one operand's buffer may take, padding to whole blocks included (a block
  // far larger than its array pads it that far): beyond, the call is refused
  // (ResourceExhausted) instead of allocating and filling it.
  int64_t max_buffer_bytes = int64_t{1} << 32;
};

struct CallSpec {
  Grid grid{};
  std::vector<BlockSpec> in_specs{};
  std::vector<BlockSpec> out_specs{};
  CallOptions options{};
};

}  // namespace axe::pallas

#endif  // AXE_PALLAS_CALL_SPEC_H_
