// SVG pictures of a sharded array (`axe shard explain --svg`), in the spirit of
// jax.debug.visualize_array_sharding: the global array split into the blocks the devices
// hold, drawn to scale (the array's aspect ratio, clamped at 8:1, within 160..640 pixels),
// each block labelled with its devices (replicas grouped: "0,1"; runs as "0-3") where the
// label fits, and coloured by its replica group, and beside it the device mesh (each position
// labelled with its device id, in the same colours), or the list of devices when there is no mesh.
//
// The drawn dimensions are the split ones (as sharding/picture.h): none, one (columns when
// it is the array's last dimension, rows otherwise) or two; of a sharding that splits more,
// the first two are drawn at index 0 of the others (the legend says so). At most 64 block
// rows and columns and 32 x 32 mesh positions are drawn.
//
//   ShardingExplanation e = *ExplainNamedSharding({8, 8}, named, {});
//   std::string svg = ShardingSvg(e, named.mesh());
#ifndef AXE_PICTURE_SHARDING_PICTURE_H_
#define AXE_PICTURE_SHARDING_PICTURE_H_

#include <optional>
#include <string>
#include <vector>

#include "axe/sharding/explain.h"
#include "axe/sharding/mesh.h"

namespace axe::picture {

// `extra_notes` are added to the legend (e.g. what the caller assumed about the array).
std::string ShardingSvg(const sharding::ShardingExplanation& explanation,
                        const std::optional<sharding::Mesh>& mesh,
                        const std::vector<std::string>& extra_notes = {});

}  // namespace axe::picture

#endif  // AXE_PICTURE_SHARDING_PICTURE_H_
