#include "runner.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/base/thread_pool.h"
#include "copy_box.h"
#include "program_context.h"
#include "write_check.h"

namespace axe::pallas::internal {

void Runner::BindRef(Worker& w, size_t k) {
  const Operand& op = plan_.operands[k];
  Shape& starts = w.window.starts;  // padded coordinates, turned into buffer coordinates
  bool inside = true;
  int64_t offset = 0;
  for (int d = 0; d < op.rank; ++d) {
    const size_t i = static_cast<size_t>(d);
    const int64_t x = starts[i] - op.buffer_origin[i];
    starts[i] = x;
    if (x < 0 || x + op.block_size[i] > op.buffer_shape[i]) inside = false;
    offset += x * op.buffer_strides[i];
  }
  RawRef& ref = w.refs[k];
  ref.rank = static_cast<int>(op.ref_shape.size());
  ref.shape = op.ref_shape.data();
  ref.dtype = op.dtype;
  if (inside) {
    // An empty array's buffer may have no storage at all (null): its windows are empty too.
    ref.data = op.buffer == nullptr ? nullptr
                                    : op.buffer + offset * static_cast<int64_t>(op.element_bytes);
    ref.strides = op.ref_strides.data();
  } else {
    AXE_CHECK(!op.is_output) << op.origin << ": an output window left its padded buffer";
    ref.data = CopyIn(op, w.scratch[k], starts);
    ref.strides = op.scratch_ref_strides.data();
  }
}

absl::Status Runner::RunProgram(Worker& w, absl::Span<const int64_t> point, int64_t number) {
  for (size_t k = 0; k < plan_.operands.size(); ++k) {
    const Operand& op = plan_.operands[k];
    AXE_RETURN_IF_ERROR(WindowAt(op, point, w.window));
    if (w.window.clamped) {
      ++w.clamped;
      if (spec_.options.clamp_report != nullptr &&
          static_cast<int64_t>(w.clamps.size()) < spec_.options.max_clamp_reports) {
        w.clamps.emplace_back(number, ClampReport(op, point, w.window));
      }
    }
    BindRef(w, k);
  }
  ProgramContext ctx{&spec_.grid, point.data(), &w.program_error};
  absl::Status s;
  {
    ScopedProgram scope(&ctx);
    absl::Span<const RawRef> refs(w.refs);
    s = kernel_(refs.subspan(0, plan_.num_inputs), refs.subspan(plan_.num_inputs));
  }
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat(CallName(spec_, site_), " failed at grid point ",
                                               PointText(point), ": ", s.message()));
  }
  if (!w.program_error.ok()) {
    absl::Status e = std::move(w.program_error);
    w.program_error = absl::OkStatus();
    return e;
  }
  return absl::OkStatus();
}

absl::Status Runner::RunInterpret() {
  const Grid& grid = spec_.grid;
  const int64_t total = grid.num_programs();
  Worker w(plan_);
  Shape point(static_cast<size_t>(grid.rank()), 0);
  for (int64_t p = 0; p < total; ++p) {
    AXE_RETURN_IF_ERROR(RunProgram(w, point, p));
    NextGridPoint(grid, absl::MakeSpan(point));
  }
  Report(w.clamps, w.clamped);
  return absl::OkStatus();
}

void Runner::RunChunk(const Split& split, int64_t chunk, Shared& shared) {
  const Grid& grid = spec_.grid;
  Worker w(plan_);
  Shape point(static_cast<size_t>(grid.rank()), 0);
  // Chunk c covers tasks [first, last): the first num_tasks % num_chunks chunks get one more.
  const int64_t base = split.num_tasks / split.num_chunks;
  const int64_t extra = split.num_tasks % split.num_chunks;
  const int64_t first = chunk * base + std::min(chunk, extra);
  const int64_t last = first + base + (chunk < extra ? 1 : 0);
  for (int64_t t = first; t < last && !shared.failed.load(std::memory_order_relaxed); ++t) {
    int64_t rest = t;
    for (auto it = split.parallel_axes.rbegin(); it != split.parallel_axes.rend(); ++it) {
      point[static_cast<size_t>(*it)] = rest % grid.size(*it);
      rest /= grid.size(*it);
    }
    for (int a : split.arbitrary_axes) point[static_cast<size_t>(a)] = 0;
    for (int64_t p = 0; p < split.programs_per_task; ++p) {
      const int64_t number = ProgramNumber(point);
      absl::Status s = RunProgram(w, point, number);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(shared.mu);
        if (shared.first_error_program < 0 || number < shared.first_error_program) {
          shared.first_error = std::move(s);
          shared.first_error_program = number;
        }
        shared.failed.store(true, std::memory_order_relaxed);
        break;
      }
      for (auto it = split.arbitrary_axes.rbegin(); it != split.arbitrary_axes.rend(); ++it) {
        if (++point[static_cast<size_t>(*it)] < grid.size(*it)) break;
        point[static_cast<size_t>(*it)] = 0;
      }
    }
  }
  if (w.clamped > 0) {
    std::lock_guard<std::mutex> lock(shared.mu);
    for (auto& e : w.clamps) shared.clamps.push_back(std::move(e));
    shared.clamped += w.clamped;
  }
}

absl::Status Runner::RunParallel() {
  const Grid& grid = spec_.grid;
  if (grid.num_programs() == 0) return absl::OkStatus();
  const std::vector<DimensionSemantics>& semantics = spec_.options.dimension_semantics;
  Split split;
  for (int a = 0; a < grid.rank(); ++a) {
    const bool parallel =
        !semantics.empty() && semantics[static_cast<size_t>(a)] == DimensionSemantics::kParallel;
    (parallel ? split.parallel_axes : split.arbitrary_axes).push_back(a);
  }
  for (int a : split.parallel_axes) split.num_tasks *= grid.size(a);
  for (int a : split.arbitrary_axes) split.programs_per_task *= grid.size(a);
  if (spec_.options.check_parallel_writes && split.num_tasks > 1) {
    AXE_RETURN_IF_ERROR(CheckDisjointWrites(spec_, plan_, split.parallel_axes));
  }
  ThreadPool& pool = spec_.options.pool != nullptr ? *spec_.options.pool : ThreadPool::Default();
  const int threads = spec_.options.num_threads > 0
                          ? std::min(spec_.options.num_threads, pool.size())
                          : pool.size();
  split.num_chunks = threads <= 1 ? 1 : std::min<int64_t>(split.num_tasks, int64_t{8} * threads);
  Shared shared;
  pool.ParallelFor(
      split.num_chunks, [&](int64_t chunk) { RunChunk(split, chunk, shared); }, threads);
  if (shared.first_error_program >= 0) return shared.first_error;
  std::stable_sort(shared.clamps.begin(), shared.clamps.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Report(shared.clamps, shared.clamped);
  return absl::OkStatus();
}

int64_t Runner::ProgramNumber(absl::Span<const int64_t> point) const {
  int64_t number = 0;
  for (int a = 0; a < spec_.grid.rank(); ++a) {
    number = number * spec_.grid.size(a) + point[static_cast<size_t>(a)];
  }
  return number;
}

void Runner::Report(std::vector<std::pair<int64_t, ClampEvent>>& clamps, int64_t clamped) const {
  if (spec_.options.clamp_count != nullptr) *spec_.options.clamp_count += clamped;
  if (spec_.options.clamp_report == nullptr) return;
  for (auto& [number, event] : clamps) {
    if (static_cast<int64_t>(spec_.options.clamp_report->size()) >=
        spec_.options.max_clamp_reports) {
      break;
    }
    spec_.options.clamp_report->push_back(std::move(event));
  }
}

ClampEvent Runner::ClampReport(const Operand& op, absl::Span<const int64_t> point,
                               const Window& window) const {
  ClampEvent e;
  e.operand = op.origin;
  e.grid_point.assign(point.begin(), point.end());
  e.indices.assign(window.indices.begin(), window.indices.end());
  for (int d = 0; d < op.rank; ++d) {
    const size_t k = static_cast<size_t>(d);
    // No overflow: WindowAt checked block_size * index.
    const int64_t requested =
        op.is_blocked[k] ? op.block_size[k] * window.indices[k] : window.indices[k];
    e.requested_start.push_back(requested - op.padding_lo[k]);
    e.start.push_back(window.starts[k] - op.padding_lo[k]);
    e.size.push_back(op.block_size[k]);
    e.array_shape.push_back(op.array_shape[k]);
  }
  e.blocked_dim_moved = window.blocked_moved;
  e.negative_start = window.negative_start;
  return e;
}

std::byte* Runner::CopyIn(const Operand& op, std::vector<std::byte>& scratch,
                          const Shape& starts) const {
  const size_t bytes = static_cast<size_t>(op.block_elements) * op.element_bytes;
  if (scratch.size() != bytes) scratch.resize(bytes);
  std::byte* dst = scratch.data();
  const auto element = static_cast<int64_t>(op.element_bytes);
  for (int64_t i = 0; i < op.block_elements; ++i) {
    std::memcpy(dst + i * element, op.uninitialized_bytes, op.element_bytes);
  }
  int64_t counts[kMaxRank];
  int64_t src_offset = 0, dst_offset = 0;
  for (int d = 0; d < op.rank; ++d) {
    const size_t k = static_cast<size_t>(d);
    const int64_t from = std::max<int64_t>(starts[k], 0);
    const int64_t to = std::min(starts[k] + op.block_size[k], op.array_shape[k]);
    if (from >= to) return dst;  // the window holds only padding
    counts[d] = to - from;
    src_offset += from * op.buffer_strides[k];
    dst_offset += (from - starts[k]) * op.scratch_strides[k];
  }
  CopyBlock(dst + dst_offset * element, op.scratch_strides.data(), op.buffer + src_offset * element,
            op.buffer_strides.data(), counts, op.rank, op.element_bytes);
  return dst;
}

}  // namespace axe::pallas::internal
