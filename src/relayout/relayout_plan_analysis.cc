#include "relayout/relayout_plan_analysis.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"
#include "axe/layout/properties.h"
#include "axe/relayout/element_type.h"

namespace axe::relayout::internal {
namespace {

absl::Status CheckMemoryAxes(const Layout& l, absl::string_view what) {
  std::optional<Axis> axis;
  auto visit = [&](Axis a, const std::string& where) -> absl::Status {
    if (!a.is_memory()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " layout ", l.ToString(), ": ", where, " is on ",
                       AxisKindName(a.kind()), " axis '", a.name(),
                       "'; the relayout engine copies between memory buffers (take Storage() of a "
                       "distributed layout first)"));
    }
    if (axis && *axis != a) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " layout ", l.ToString(), " uses two memory axes '", axis->name(),
                       "' and '", a.name(), "'; a buffer is addressed along one axis"));
    }
    axis = a;
    return absl::OkStatus();
  };
  for (size_t k = 0; k < l.shard().size(); ++k) {
    AXE_RETURN_IF_ERROR(visit(l.shard()[k].axis,
                              absl::StrCat("shard iter ", k, " (", l.shard()[k].ToString(), ")")));
  }
  for (size_t k = 0; k < l.replica().size(); ++k) {
    AXE_RETURN_IF_ERROR(visit(l.replica()[k].axis, absl::StrCat("replica iter ", k, " (",
                                                                l.replica()[k].ToString(), ")")));
  }
  for (const auto& [a, v] : l.offset().entries()) {
    AXE_RETURN_IF_ERROR(visit(a, absl::StrCat("the offset ", v)));
  }
  return absl::OkStatus();
}

// The memory-axis offset of a layout (all its entries are on one memory axis).
int64_t MemoryOffset(const Layout& l) {
  int64_t o = 0;
  for (const auto& [a, v] : l.offset().entries()) o += v;
  return o;
}

std::optional<std::vector<std::vector<Digit>>> DigitsPerDim(const Layout& l,
                                                            const std::vector<int64_t>& domain) {
  absl::StatusOr<Grouped> g = Group(l, domain);
  if (!g.ok()) return std::nullopt;
  std::vector<std::vector<Digit>> dims(domain.size());
  for (size_t d = 0; d < domain.size(); ++d) {
    for (size_t k = g->seps[d]; k < g->seps[d + 1]; ++k) {
      const Iter& it = g->layout.shard()[k];
      if (it.extent > 1) dims[d].push_back({it.extent, it.stride});
    }
  }
  return dims;
}

absl::Status CheckLayouts(const BufferLayout& src, const BufferLayout& dst,
                          absl::Span<const int64_t> shape, int element_bytes) {
  AXE_RETURN_IF_ERROR(CheckElementBytes(element_bytes));
  AXE_RETURN_IF_ERROR(CheckBufferLayout(src, shape, "source"));
  AXE_RETURN_IF_ERROR(CheckBufferLayout(dst, shape, "destination"));
  AXE_RETURN_IF_ERROR(CheckMemoryAxes(src.layout, "source"));
  AXE_RETURN_IF_ERROR(CheckMemoryAxes(dst.layout, "destination"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Analysis> Analyze(const BufferLayout& src, const BufferLayout& dst,
                                 absl::Span<const int64_t> shape_in, int element_bytes,
                                 const RelayoutOptions& options) {
  AXE_RETURN_IF_ERROR(CheckLayouts(src, dst, shape_in, element_bytes));
  Analysis a{Side{src.layout, {}, 0, {}, std::nullopt},
             Side{dst.layout, {}, 0, {}, std::nullopt},
             {},
             element_bytes,
             {},
             0};
  a.shape.assign(shape_in.begin(), shape_in.end());
  a.src.domain = src.DomainFor(a.shape);
  a.dst.domain = dst.DomainFor(a.shape);
  if (a.shape.empty()) {  // a scalar: one element
    a.shape = {1};
    a.src.domain = {1};
    a.dst.domain = {1};
  }
  std::optional<int64_t> elements = CheckedProduct(a.shape);
  if (!elements) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", FormatTuple(a.shape), " overflows int64"));
  }
  a.elements = *elements;
  if (options.padding_value) {
    if (static_cast<int>(options.padding_value->size()) != element_bytes) {
      return absl::InvalidArgumentError(absl::StrCat("padding value has ",
                                                     options.padding_value->size(),
                                                     " bytes but elements have ", element_bytes));
    }
    a.padding_value = *options.padding_value;
  }

  // Source: the base copy f_D(x) + O (replica copies hold the same values).
  AXE_ASSIGN_OR_RETURN(a.src.layout, Layout::Create(src.layout.shard(), {}, src.layout.offset()));
  a.src.offset = MemoryOffset(a.src.layout);
  // Destination: canonical, so that its replicas are positive and merged.
  a.dst.layout = Canonicalize(dst.layout);
  a.dst.offset = MemoryOffset(a.dst.layout);
  a.dst.replicas = a.dst.layout.replica();
  if (!SatisfiesGapCondition(a.dst.layout)) {
    return absl::InvalidArgumentError(
        absl::StrCat("destination ", dst.ToString(),
                     ": its replica copies overlap each other (the replicas do not satisfy the gap "
                     "condition), so a write is ambiguous"));
  }
  a.src.digits_per_dim = DigitsPerDim(a.src.layout, a.src.domain);
  AXE_ASSIGN_OR_RETURN(Layout dst_shard, Layout::Create(a.dst.layout.shard()));
  a.dst.digits_per_dim = DigitsPerDim(dst_shard, a.dst.domain);
  return a;
}

}  // namespace axe::relayout::internal
