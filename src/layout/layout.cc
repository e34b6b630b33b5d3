#include "axe/layout/layout.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"

namespace axe {
namespace {

absl::Status IterError(absl::string_view which, size_t index, const Iter& it,
                       absl::string_view problem, absl::Span<const Iter> shard,
                       absl::Span<const Iter> replica, const PhysCoord& offset) {
  return absl::InvalidArgumentError(
      absl::StrCat(which, " iter ", index, " (", it.ToString(), "): ", problem, " in ",
                   ElideForMessage(FormatLayoutParts(shard, replica, offset))));
}

// Per-axis running bounds of mapped values, all checked.
struct AxisRange {
  int64_t lo = 0;    // offset + sum of negative s(e-1)
  int64_t hi = 0;    // offset + sum of positive s(e-1)
  int64_t span = 1;  // 1 + sum |s|(e-1)
};

// The text form names an axis by its name alone: one name, one kind.
absl::Status CheckOneKindPerName(absl::Span<const Iter> shard, absl::Span<const Iter> replica,
                                 const PhysCoord& offset) {
  absl::flat_hash_map<absl::string_view, Axis> by_name;
  auto check = [&](Axis a) -> absl::Status {
    auto [it, inserted] = by_name.emplace(a.name(), a);
    if (inserted || it->second == a) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("axis '", a.name(), "' is used as both a ", AxisKindName(it->second.kind()),
                     " axis and a ", AxisKindName(a.kind()), " axis in ",
                     ElideForMessage(FormatLayoutParts(shard, replica, offset))));
  };
  for (const Iter& it : shard) AXE_RETURN_IF_ERROR(check(it.axis));
  for (const Iter& it : replica) AXE_RETURN_IF_ERROR(check(it.axis));
  for (const auto& [axis, value] : offset.entries()) AXE_RETURN_IF_ERROR(check(axis));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Layout> Layout::Create(std::vector<Iter> shard, std::vector<Iter> replica,
                                      PhysCoord offset) {
  if (shard.empty()) {
    return absl::InvalidArgumentError(
        "a layout needs at least one shard iter (use S[1:1] for a single point)");
  }
  absl::flat_hash_map<Axis, AxisRange> ranges;
  for (const auto& [axis, value] : offset.entries()) ranges[axis] = {value, value, 1};
  AXE_RETURN_IF_ERROR(CheckOneKindPerName(shard, replica, offset));

  int64_t size = 1;
  int64_t replica_size = 1;
  for (int pass = 0; pass < 2; ++pass) {
    const bool is_replica = pass == 1;
    const std::vector<Iter>& iters = is_replica ? replica : shard;
    const char* which = is_replica ? "replica" : "shard";
    for (size_t i = 0; i < iters.size(); ++i) {
      const Iter& it = iters[i];
      auto fail = [&](absl::string_view problem) {
        return IterError(which, i, it, problem, shard, replica, offset);
      };
      if (it.extent < 1) return fail("extent must be >= 1");
      if (it.stride == INT64_MIN) return fail("stride must be greater than -2^63");
      if (is_replica && it.stride == 0) {
        return fail("replica stride must be non-zero (a stride-0 shard iter is a broadcast)");
      }
      std::optional<int64_t> count = CheckedMul(is_replica ? replica_size : size, it.extent);
      if (!count) {
        return fail(is_replica ? "the replica count overflows int64"
                               : "the layout size overflows int64");
      }
      (is_replica ? replica_size : size) = *count;
      std::optional<int64_t> reach = CheckedMul(it.stride, it.extent - 1);
      std::optional<int64_t> abs_reach = reach ? CheckedAbs(*reach) : std::nullopt;
      if (!abs_reach) return fail("stride * (extent - 1) overflows int64");
      AxisRange& r = ranges[it.axis];
      std::optional<int64_t> span = CheckedAdd(r.span, *abs_reach);
      std::optional<int64_t> bound =
          *reach < 0 ? CheckedAdd(r.lo, *reach) : CheckedAdd(r.hi, *reach);
      if (!span || !bound) {
        return fail(absl::StrCat("the values on axis ", it.axis.name(), " overflow int64"));
      }
      r.span = *span;
      (*reach < 0 ? r.lo : r.hi) = *bound;
    }
  }
  // The spans of all memory axes together (span_memory()) must fit too.
  int64_t memory_span = 1;
  for (const auto& [axis, r] : ranges) {
    if (!axis.is_memory()) continue;
    std::optional<int64_t> total = CheckedAdd(memory_span, r.span - 1);
    if (!total) {
      return absl::InvalidArgumentError(
          absl::StrCat("the memory span over all memory axes overflows int64 in ",
                       ElideForMessage(FormatLayoutParts(shard, replica, offset))));
    }
    memory_span = *total;
  }
  Layout l;
  l.shard_ = std::move(shard);
  l.replica_ = std::move(replica);
  l.offset_ = std::move(offset);
  l.size_ = size;
  return l;
}

absl::StatusOr<Layout> Layout::RowMajor(absl::Span<const int64_t> extents, Axis axis) {
  std::vector<Iter> iters(extents.size());
  int64_t stride = 1;
  for (size_t k = extents.size(); k-- > 0;) {
    iters[k] = Iter{extents[k], stride, axis};
    if (extents[k] < 1) break;  // Create() reports it
    std::optional<int64_t> next = CheckedMul(stride, extents[k]);
    if (!next) {
      return absl::InvalidArgumentError(
          absl::StrCat("row-major strides for ", ElideForMessage(FormatLayoutParts(iters, {}, {})),
                       " overflow int64"));
    }
    stride = *next;
  }
  return Create(std::move(iters));
}

int64_t Layout::size(Axis a) const {
  int64_t p = 1;
  for (const Iter& it : shard_) {
    if (it.axis == a) p *= it.extent;  // bounded by size_
  }
  return p;
}

int64_t Layout::replica_size() const {
  int64_t p = 1;
  for (const Iter& it : replica_) p *= it.extent;  // validated in Create
  return p;
}

int64_t Layout::span(Axis a) const {
  int64_t s = 1;
  for (const std::vector<Iter>* list : {&shard_, &replica_}) {
    for (const Iter& it : *list) {
      if (it.axis == a && it.extent > 1)
        s += (it.stride < 0 ? -it.stride : it.stride) * (it.extent - 1);
    }
  }
  return s;
}

int64_t Layout::span_memory() const {
  int64_t total = 1;  // fits: checked in Create()
  for (Axis a : axes()) {
    if (a.is_memory()) total += span(a) - 1;
  }
  return total;
}

std::vector<Axis> Layout::axes() const {
  std::vector<Axis> out;
  auto note = [&out](Axis a) {
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  };
  for (const Iter& it : shard_) note(it.axis);
  for (const Iter& it : replica_) note(it.axis);
  // Offset entries are already sorted by name.
  for (const auto& e : offset_.entries()) note(e.first);
  return out;
}

bool Layout::uses(Axis a) const {
  auto on = [a](const Iter& it) { return it.axis == a; };
  return std::any_of(shard_.begin(), shard_.end(), on) ||
         std::any_of(replica_.begin(), replica_.end(), on) || offset_.get(a) != 0;
}

void SortReplicaIters(std::vector<Iter>& iters) {
  std::sort(iters.begin(), iters.end(), [](const Iter& a, const Iter& b) {
    if (a.axis != b.axis) return a.axis < b.axis;
    if (a.stride != b.stride) return a.stride < b.stride;
    return a.extent < b.extent;
  });
}

std::vector<Iter> Layout::SortedReplica() const {
  std::vector<Iter> r = replica_;
  SortReplicaIters(r);
  return r;
}

bool operator==(const Layout& a, const Layout& b) {
  if (a.shard_ != b.shard_ || a.offset_ != b.offset_ || a.replica_.size() != b.replica_.size()) {
    return false;
  }
  return a.replica_ == b.replica_ || a.SortedReplica() == b.SortedReplica();
}

}  // namespace axe
