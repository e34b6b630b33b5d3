#include "axe/layout/pack.h"

#include "absl/strings/str_cat.h"
#include "algebra_internal.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/layout/canonical.h"

namespace axe {
namespace {

absl::Status CheckAddressAxis(absl::string_view op, Axis axis) {
  if (axis.is_memory()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(op, ": axis ", axis.name(), " is a ",
                                                 AxisKindName(axis.kind()),
                                                 " axis; sub-elements live on a memory axis"));
}

}  // namespace

absl::StatusOr<Layout> Unpack(const Layout& layout, int64_t n, std::optional<Axis> axis) {
  if (n < 1) return absl::InvalidArgumentError(absl::StrCat("unpack: n must be >= 1, got ", n));
  Axis mem = Axis::Memory();
  for (const Iter& it : layout.shard()) {
    if (it.axis.is_memory()) mem = it.axis;
  }
  if (axis) {
    AXE_RETURN_IF_ERROR(CheckAddressAxis("unpack", *axis));
    mem = *axis;
  }
  std::vector<Iter> shard, replica;
  auto scale = [n, mem](const std::vector<Iter>& in, std::vector<Iter>& out) -> absl::Status {
    for (const Iter& it : in) {
      if (it.axis != mem) {
        out.push_back(it);
        continue;
      }
      absl::StatusOr<Iter> s = internal::ScaleIter(it, n);
      if (!s.ok()) return internal::Annotate(s.status(), "unpack: ");
      out.push_back(*s);
    }
    return absl::OkStatus();
  };
  AXE_RETURN_IF_ERROR(scale(layout.shard(), shard));
  AXE_RETURN_IF_ERROR(scale(layout.replica(), replica));
  shard.push_back(Iter{n, 1, mem});
  PhysCoord offset;
  for (const auto& [a, value] : layout.offset().entries()) {
    std::optional<int64_t> v = a == mem ? CheckedMul(value, n) : value;
    if (!v)
      return absl::InvalidArgumentError(
          absl::StrCat("unpack: the offset on ", a.name(), " overflows int64"));
    offset.set(a, *v);
  }
  absl::StatusOr<Layout> out =
      Layout::Create(std::move(shard), std::move(replica), std::move(offset));
  if (!out.ok()) return internal::Annotate(out.status(), "unpack: ");
  return Canonicalize(*out);
}

absl::StatusOr<Layout> Pack(const Layout& layout, int64_t n, std::optional<Axis> axis) {
  if (n < 1) return absl::InvalidArgumentError(absl::StrCat("pack: n must be >= 1, got ", n));
  if (axis) AXE_RETURN_IF_ERROR(CheckAddressAxis("pack", *axis));
  const Layout c = Canonicalize(layout);
  if (n == 1) return c;  // nothing to pack
  std::vector<Iter> shard = c.shard(), replica = c.replica();
  const Iter last = shard.back();
  const Axis mem = axis.value_or(last.axis);
  if (last.axis != mem || !mem.is_memory() || last.stride != 1 || last.extent % n != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pack(", n, "): the last shard iter of ", c.ToString(), ", ", last.ToString(),
        ", must have stride 1 on memory axis ", mem.name(), " and an extent divisible by ", n));
  }
  shard.back().extent /= n;
  auto divide = [&](std::vector<Iter>& iters, size_t skip,
                    absl::string_view which) -> absl::Status {
    for (size_t i = 0; i < iters.size(); ++i) {
      Iter& it = iters[i];
      if (i == skip || it.axis != mem || it.extent == 1) continue;
      if (it.stride % n != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("pack(", n, "): ", which, " iter ", i, " (", it.ToString(), ") of ",
                         c.ToString(), " has a memory stride not divisible by ", n));
      }
      it.stride /= n;
    }
    return absl::OkStatus();
  };
  AXE_RETURN_IF_ERROR(divide(shard, shard.size() - 1, "shard"));
  AXE_RETURN_IF_ERROR(divide(replica, replica.size(), "replica"));
  PhysCoord offset;
  for (const auto& [a, value] : c.offset().entries()) {
    if (a == mem && value % n != 0) {
      return absl::InvalidArgumentError(absl::StrCat("pack(", n, "): the offset ", value,
                                                     " on axis ", a.name(), " of ", c.ToString(),
                                                     " is not divisible by ", n));
    }
    offset.set(a, a == mem ? value / n : value);
  }
  absl::StatusOr<Layout> out =
      Layout::Create(std::move(shard), std::move(replica), std::move(offset));
  if (!out.ok()) return internal::Annotate(out.status(), "pack: ");
  return Canonicalize(*out);
}

}  // namespace axe
