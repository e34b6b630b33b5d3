// SVG pictures of a reshard plan (runtime/reshard_plan.h; `axe reshard --svg`): the global
// array twice, the source sharding at the left and the destination at the right, between them
// the messages as arrows from sending to receiving device, and under them the numbered message
// list, the bytes each device sends, receives and keeps, and V_min.
//
// Each cell of a grid is a box of the array that no shard or message boundary cuts. At the
// left it is labelled with the devices holding it and coloured by the first of them; at the
// right with each device that will hold it, "d<-s" (device d receives it from device s) or
// "d" (device d already holds it: a local copy, marked with a dot), coloured by the first
// destination device. Device colours are the palette's (palette.h), the same on both sides.
//
// The drawn dimensions are the split ones, as in ShardingSvg (of more than two, the first
// two at index 0 of the others; the legend says so). Bounded: at most 32 cells per direction,
// arrows only when at most 16 devices and 48 device pairs exchange messages, at most 24
// messages and 16 devices listed, the rest counted.
//
//   ReshardPlan plan = *PlanReshard({8, 8}, 4, from, to);
//   std::string svg = ReshardSvg(plan, *DevicesIndicesMap(from, {8, 8}),
//                                *DevicesIndicesMap(to, {8, 8}));
#ifndef AXE_PICTURE_RESHARD_PICTURE_H_
#define AXE_PICTURE_RESHARD_PICTURE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/runtime/reshard_plan.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/named_sharding.h"

namespace axe::picture {

// Draws `plan`, made from the device maps `from` and `to` (as PlanReshard).
std::string ReshardSvg(const runtime::ReshardPlan& plan,
                       absl::Span<const sharding::DeviceShard> from,
                       absl::Span<const sharding::DeviceShard> to);

// Plans the reshard of an array of `shape` from one sharding to another and draws it.
// Errors: PlanReshard's.
absl::StatusOr<std::string> ReshardSvg(absl::Span<const int64_t> shape, int element_bytes,
                                       const sharding::NamedSharding& from,
                                       const sharding::NamedSharding& to);

}  // namespace axe::picture

#endif  // AXE_PICTURE_RESHARD_PICTURE_H_
