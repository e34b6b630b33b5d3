// ShardingJson: `axe shard explain --json`.
#include <string>

#include "axe/base/dtype.h"
#include "axe/base/utf8.h"
#include "axe/explorer/answer_json.h"
#include "nlohmann/json.hpp"

namespace axe::explorer {
namespace {

using Json = nlohmann::ordered_json;
using sharding::TextOrReason;

Json TextOrNull(const TextOrReason& t) { return t.text ? Json(*t.text) : Json(nullptr); }
Json ReasonOrNull(const TextOrReason& t) { return t.text ? Json(nullptr) : Json(t.reason); }

}  // namespace

std::string ShardingJson(const sharding::ShardingExplanation& e) {
  Json devices = Json::array();
  for (const sharding::DeviceShard& d : e.devices) {
    Json index = Json::array();
    for (const auto& [start, stop] : d.index) index.push_back({start, stop});
    devices.push_back({{"id", d.device}, {"index", index}, {"replica_group", d.replica_group}});
  }
  Json j = {{"global_shape", e.global_shape},
            {"dtype", std::string(XlaName(e.dtype))},
            {"named", TextOrNull(e.named)},
            {"named_reason", ReasonOrNull(e.named)},
            {"hlo", TextOrNull(e.hlo)},
            {"hlo_reason", ReasonOrNull(e.hlo)},
            {"axe", TextOrNull(e.axe)},
            {"axe_reason", ReasonOrNull(e.axe)},
            {"shardy", TextOrNull(e.shardy)},
            {"shardy_reason", ReasonOrNull(e.shardy)},
            {"shardy_mesh", e.shardy_mesh.empty() ? Json(nullptr) : Json(e.shardy_mesh)},
            {"format", TextOrNull(e.format)},
            {"format_reason", ReasonOrNull(e.format)},
            {"device_assignment",
             e.device_assignment.empty() ? Json(nullptr) : Json(e.device_assignment)},
            {"shard_shape", e.shard_shape},
            {"fully_replicated", e.fully_replicated},
            {"num_devices", e.num_devices},
            {"local_shape", e.local_shape},
            {"local_axe", TextOrNull(e.local_axe)},
            {"local_axe_reason", ReasonOrNull(e.local_axe)},
            {"picture", e.picture},
            {"devices", devices}};
  return DumpJson(j);
}

}  // namespace axe::explorer
