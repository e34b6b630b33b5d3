// XlaShapeJson: `axe xla explain --json`.
#include <string>
#include <utility>
#include <vector>

#include "axe/base/status_macros.h"
#include "axe/base/utf8.h"
#include "axe/explorer/answer_json.h"
#include "axe/xla/explain.h"
#include "nlohmann/json.hpp"

namespace axe::explorer {
namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json OrNull(const absl::StatusOr<T>& v) {
  return v.ok() ? Json(*v) : Json(nullptr);
}

Json TileLevelsJson(const std::vector<xla::TileLevelFacts>& levels) {
  Json out = Json::array();
  for (const xla::TileLevelFacts& l : levels) {
    out.push_back({{"tile", l.tile},
                   {"input_rank", l.input_rank},
                   {"covered", l.covered},
                   {"folded", l.folded},
                   {"tiles", l.counts},
                   {"bounds", l.bounds}});
  }
  return out;
}

// The stable fields of a leaf, in the order of the text output: the same keys for every kind,
// null where they do not apply (token and opaque leaves have no array facts).
Json LeafJson(const xla::ArrayExplanation& e) {
  const bool array = xla::HasArrayFacts(e);
  auto if_array = [array](Json v) { return array ? std::move(v) : Json(nullptr); };
  auto if_layout = [&e](Json v) { return e.has_layout ? std::move(v) : Json(nullptr); };
  Json j = {{"kind", e.kind},
            {"shape", e.shape},
            {"element_type", e.element_type},
            {"element_kind", e.element_kind},
            {"bit_width", if_array(e.bit_width)},
            {"byte_width", if_array(e.byte_width)},
            {"invalid", e.invalid ? Json(*e.invalid) : Json(nullptr)}};
  j["minor_to_major"] = if_layout(e.minor_to_major);
  j["major_to_minor"] = if_layout(e.major_to_minor);
  j["physical_order"] = if_layout(e.physical_order);
  j["tile_levels"] = TileLevelsJson(e.tile_levels);
  j["expanded_shape"] = if_layout(e.expanded_shape);
  j["element_size_in_bits"] = if_array(e.element_size_in_bits);
  j["tail_padding_alignment"] = if_array(e.tail_padding_alignment);
  j["split_configs"] = e.split_configs;
  j["metadata_prefix_bytes"] = if_array(e.metadata_prefix_bytes);
  j["memory_space"] = if_array(e.memory_space);
  j["memory_space_name"] = if_array(e.memory_space_name);
  j["memory_space_description"] = if_array(e.memory_space_description);
  j["elements_in"] = OrNull(e.elements_in);
  j["byte_size_of"] = OrNull(e.byte_size_of);
  j["array_size_bytes"] = OrNull(e.array_size_bytes);
  j["array_size_note"] = e.array_size_note ? Json(*e.array_size_note) : Json(nullptr);
  j["padded_elements"] = OrNull(e.padded_elements);
  j["axe"] = e.axe.ok() ? Json(e.axe->layout.ToString()) : Json(nullptr);
  j["axe_domain"] = e.axe.ok() ? Json(e.axe->domain) : Json(nullptr);
  j["axe_error"] = e.axe.ok() ? Json(nullptr) : Json(std::string(e.axe.status().message()));
  return j;
}

absl::StatusOr<Json> ShapeJson(const xla::Shape& s, int depth) {
  if (depth > 512) return absl::InvalidArgumentError("tuple nesting too deep for --json");
  if (!s.IsTuple()) {
    AXE_ASSIGN_OR_RETURN(xla::ArrayExplanation e, xla::ExplainNonTuple(s));
    return LeafJson(e);
  }
  Json elements = Json::array();
  for (const xla::Shape& e : s.tuple_shapes()) {
    AXE_ASSIGN_OR_RETURN(Json j, ShapeJson(e, depth + 1));
    elements.push_back(std::move(j));
  }
  return Json{{"shape", s.ToString()}, {"tuple", elements}};
}

}  // namespace

absl::StatusOr<std::string> XlaShapeJson(const xla::Shape& shape) {
  AXE_ASSIGN_OR_RETURN(Json j, ShapeJson(shape, 0));
  return DumpJson(j);
}

}  // namespace axe::explorer
