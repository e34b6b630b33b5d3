#include "axe/sharding/format.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/layout/canonical.h"
#include "axe/sharding/to_axe.h"

namespace axe::sharding {

absl::StatusOr<Format> Format::Create(LayoutChoice layout, std::optional<Sharding> sharding) {
  if (std::holds_alternative<LocalLayout>(layout) && !sharding) {
    return absl::InvalidArgumentError(
        "Sharding has to be concrete when layout is of type <class 'jax._src.layout.Layout'>. "
        "Please pass a `jax.sharding.NamedSharding` or `jax.sharding.SingleDeviceSharding` to "
        "the sharding argument. Got sharding None");
  }
  return Format(std::move(layout), std::move(sharding));
}

std::string Format::LayoutToString(const LayoutChoice& layout) {
  if (const LocalLayout* l = std::get_if<LocalLayout>(&layout)) return l->ToString();
  if (std::holds_alternative<AutoLayout>(layout)) return "AUTO";
  return "None";
}

std::string Format::ToString() const {
  return absl::StrCat("Format(layout=", LayoutToString(layout_),
                      ", sharding=", sharding_ ? sharding_->ToString() : "None", ")");
}

absl::StatusOr<axe::Layout> FormatToAxe(absl::Span<const int64_t> global_shape,
                                        const Format& format, DType dtype, DeviceAxisMode mode) {
  if (format.is_auto()) {
    return absl::FailedPreconditionError(
        "not expressible: the layout is AUTO; it is chosen at compile time");
  }
  const LocalLayout* local = format.local_layout();
  if (local == nullptr) {
    return absl::FailedPreconditionError(
        "not expressible: the layout is None; the backend chooses its default layout");
  }
  if (!format.sharding()) {  // Create forbids this; kept for safety
    return absl::FailedPreconditionError(
        "not expressible: the sharding is None; no device holds the array yet");
  }
  AXE_RETURN_IF_ERROR(local->CheckCompatibleAval(global_shape));
  AXE_ASSIGN_OR_RETURN(xla::Layout xla_layout, local->ToXla(dtype));
  const Sharding& sharding = *format.sharding();
  if (const NamedSharding* named = sharding.named()) {
    return ShardedToAxe(global_shape, *named, xla_layout, mode, dtype);
  }
  const int64_t device = sharding.single_device()->device();
  AXE_ASSIGN_OR_RETURN(NamedSharding whole, NamedSharding::Create(Mesh(), PartitionSpec()));
  AXE_ASSIGN_OR_RETURN(axe::Layout memory,
                       ShardedToAxe(global_shape, whole, xla_layout, mode, dtype));
  PhysCoord offset = memory.offset();
  offset.set(Axis::Get("gpuid"), device);
  AXE_ASSIGN_OR_RETURN(axe::Layout layout,
                       axe::Layout::Create(memory.shard(), memory.replica(), offset));
  return Canonicalize(layout);
}

}  // namespace axe::sharding
