// A text picture of which devices hold which block of an array, in the spirit of
// jax.debug.visualize_array_sharding: the array drawn as a grid of blocks, each labelled
// with the ids of the devices that hold it ("0,1", runs of three or more as "0-3").
//
//   RenderShardingPicture({8, 8}, *DevicesIndicesMap(Named("x=2,y=2", "P('x')"), {8, 8}))
//   ┌────────────────────────────────────────┐
//   │                  0,1                   │
//   ├────────────────────────────────────────┤
//   │                  2,3                   │
//   └────────────────────────────────────────┘
//
// Only dimensions that are split are drawn (rows: the first, columns: the second; a single
// split dimension is drawn as columns when it is the array's last, as rows otherwise);
// column widths follow the block sizes. A sharding that splits more than two dimensions,
// or more than 32 blocks along one, is not drawn: the picture is one line saying why.
#ifndef AXE_SHARDING_PICTURE_H_
#define AXE_SHARDING_PICTURE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "axe/sharding/device_map.h"

namespace axe::sharding {

// `devices` is a device map of an array of `shape` (DevicesIndicesMap). Returns the lines.
std::vector<std::string> RenderShardingPicture(absl::Span<const int64_t> shape,
                                               absl::Span<const DeviceShard> devices);

// "0,1", "0-3", "0,2,4-7".
std::string DeviceListLabel(std::vector<int64_t> devices);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_PICTURE_H_
