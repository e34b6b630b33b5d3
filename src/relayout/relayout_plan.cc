// RelayoutPlan: planning (the phases live in relayout_plan_analysis.cc, _build.cc,
// _nest.cc, _generic.cc and _search.cc), the plan's description and its execution.
#include "axe/relayout/relayout_plan.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "relayout/plan_data.h"
#include "relayout/relayout_plan_analysis.h"
#include "relayout/relayout_plan_build.h"
#include "relayout/relayout_plan_generic.h"
#include "relayout/relayout_plan_nest.h"
#include "relayout/relayout_plan_search.h"

namespace axe::relayout {

using internal::Chunk;
using internal::KernelKind;
using internal::Loop;
using internal::Nest;
using internal::PlanData;

namespace internal {

absl::Status ExecutePlan(const PlanData& p, const void* src_ptr, void* dst_ptr) {
  if (p.elements_written == 0) return absl::OkStatus();
  if ((p.elements > 0 && src_ptr == nullptr) || dst_ptr == nullptr) {
    return absl::InvalidArgumentError("relayout: null buffer pointer");
  }
  const auto* src = static_cast<const uint8_t*>(src_ptr);
  auto* dst = static_cast<uint8_t*>(dst_ptr);
  const int64_t b = p.element_bytes;
  if (p.elements > 0) {
    const uintptr_t s0 = reinterpret_cast<uintptr_t>(src) + static_cast<uintptr_t>(p.src_begin * b);
    const uintptr_t s1 = reinterpret_cast<uintptr_t>(src) + static_cast<uintptr_t>(p.src_end * b);
    const uintptr_t d0 = reinterpret_cast<uintptr_t>(dst) + static_cast<uintptr_t>(p.dst_begin * b);
    const uintptr_t d1 = reinterpret_cast<uintptr_t>(dst) + static_cast<uintptr_t>(p.dst_end * b);
    if (s0 < d1 && d0 < s1) {
      return absl::InvalidArgumentError(
          "relayout: the source and destination buffers overlap (a relayout is not done in "
          "place)");
    }
  }
  if (p.generic) {
    RunGeneric(p, src, dst);
    return absl::OkStatus();
  }
  const uint8_t* fill = p.padding_value.empty() ? nullptr : p.padding_value.data();
  auto run = [&](int64_t c) {
    const Chunk& ch = p.chunks[static_cast<size_t>(c)];
    const Nest& n = p.nests[static_cast<size_t>(ch.nest)];
    const bool stream = n.stream && (reinterpret_cast<uintptr_t>(dst + n.dst_offset * b) %
                                     static_cast<uintptr_t>(n.stream_align)) == 0;
    RunNestChunk(n, p.element_bytes, src, dst, ch.begin, ch.end, stream, fill);
  };
  const int64_t chunks = static_cast<int64_t>(p.chunks.size());
  if (p.threads <= 1 || chunks <= 1) {
    for (int64_t c = 0; c < chunks; ++c) run(c);
  } else {
    p.pool->ParallelFor(chunks, run, p.threads);
  }
  return absl::OkStatus();
}

}  // namespace internal

int RelayoutPlan::element_bytes() const { return data_->element_bytes; }
const std::vector<int64_t>& RelayoutPlan::shape() const { return data_->shape; }
int64_t RelayoutPlan::elements() const { return data_->elements; }
int64_t RelayoutPlan::elements_written() const { return data_->elements_written; }
int64_t RelayoutPlan::bytes_moved() const {
  return (data_->elements + data_->elements_written) * data_->element_bytes;
}
int64_t RelayoutPlan::src_begin() const { return data_->src_begin; }
int64_t RelayoutPlan::src_end() const { return data_->src_end; }
int64_t RelayoutPlan::dst_begin() const { return data_->dst_begin; }
int64_t RelayoutPlan::dst_end() const { return data_->dst_end; }
int RelayoutPlan::threads() const { return data_->threads; }
int RelayoutPlan::pieces() const { return data_->pieces; }
bool RelayoutPlan::generic() const { return data_->generic; }

std::vector<std::string> RelayoutPlan::kernels() const {
  std::vector<std::string> out;
  if (data_->generic) out.push_back("generic");
  for (const Nest& n : data_->nests) {
    std::string k = internal::KernelName(n);
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

PlanInfo RelayoutPlan::Info() const {
  const PlanData& p = *data_;
  PlanInfo info;
  info.shape = p.shape;
  info.element_bytes = p.element_bytes;
  info.src = p.src_text;
  info.dst = p.dst_text;
  info.generic = p.generic;
  if (p.generic) info.generic_reason = p.note;
  for (const Nest& n : p.nests) {
    PlanPieceInfo piece;
    piece.fill = n.kind == KernelKind::kFill;
    for (const Loop& l : n.fused_loops) {
      piece.loops.push_back({l.extent, l.src_stride, l.dst_stride});
    }
    piece.loop_order = n.unit_order;
    piece.kernel = internal::KernelName(n);
    piece.block_i = n.block_i;
    piece.block_j = n.block_j;
    piece.staged = n.staged;
    piece.streaming_stores = n.stream;
    info.pieces.push_back(std::move(piece));
  }
  info.threads = p.threads;
  info.chunks = p.generic ? 0 : static_cast<int64_t>(p.chunks.size());
  info.simd_target = internal::SimdTargetName();
  if (!p.generic) info.note = p.note;
  return info;
}

std::string RelayoutPlan::ToString() const {
  const PlanInfo info = Info();
  std::string s = absl::StrCat("relayout ", FormatTuple(info.shape), " x ", info.element_bytes,
                               " B: ", info.src, " -> ", info.dst, "\n");
  if (info.generic) {
    absl::StrAppend(&s, "  generic: element by element, odometers over both layouts (",
                    info.generic_reason, ")\n");
  }
  constexpr size_t kShown = 8;
  for (size_t k = 0; k < info.pieces.size(); ++k) {
    if (k == kShown) {
      absl::StrAppend(&s, "  ... ", info.pieces.size() - kShown, " more pieces\n");
      break;
    }
    const PlanPieceInfo& piece = info.pieces[k];
    const std::string dims =
        absl::StrJoin(piece.loops, " ", [](std::string* out, const PlanLoopInfo& l) {
          absl::StrAppend(out, l.extent, "[", l.src_stride, ",", l.dst_stride, "]");
        });
    absl::StrAppend(&s, "  ", piece.fill ? "fill" : "piece", " ", k, ": dims ",
                    dims.empty() ? "(one element)" : dims,
                    " (extent[src stride,dst stride] in elements); loops ", piece.loop_order,
                    "; kernel ", piece.kernel);
    if (absl::StartsWith(piece.kernel, "transpose")) {
      absl::StrAppend(&s, " in ", piece.block_i, "x", piece.block_j, piece.staged ? " staged" : "",
                      " blocks");
    }
    absl::StrAppend(&s, piece.streaming_stores ? ", streaming stores" : "", "\n");
  }
  absl::StrAppend(&s, "  threads ", info.threads, " (", info.chunks, " chunks), SIMD ",
                  info.simd_target);
  if (!info.note.empty()) absl::StrAppend(&s, ", ", info.note);
  return s;
}

absl::Status RelayoutPlan::Execute(const void* src_ptr, void* dst_ptr) const {
  return internal::ExecutePlan(*data_, src_ptr, dst_ptr);
}

absl::StatusOr<RelayoutPlan> PlanRelayout(const BufferLayout& src, const BufferLayout& dst,
                                          absl::Span<const int64_t> shape, int element_bytes,
                                          const RelayoutOptions& options) {
  AXE_ASSIGN_OR_RETURN(internal::Analysis a,
                       internal::Analyze(src, dst, shape, element_bytes, options));
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<PlanData> estimate,
                       internal::BuildPlan(src, dst, a, options, internal::TuningFrom(options)));
  if (options.search != PlanSearch::kMeasure || estimate->generic || estimate->elements == 0) {
    return RelayoutPlan(std::move(estimate));
  }
  return RelayoutPlan(internal::MeasureBestPlan(src, dst, a, options, std::move(estimate)));
}

absl::Status Relayout(const BufferLayout& src, const BufferLayout& dst,
                      absl::Span<const int64_t> shape, int element_bytes, const void* src_ptr,
                      void* dst_ptr, const RelayoutOptions& options) {
  AXE_ASSIGN_OR_RETURN(RelayoutPlan plan, PlanRelayout(src, dst, shape, element_bytes, options));
  return plan.Execute(src_ptr, dst_ptr);
}

}  // namespace axe::relayout
