// GridShowJson: `axe grid show --json`.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <variant>

#include "axe/base/utf8.h"
#include "axe/explorer/answer_json.h"
#include "axe/pallas/clamp_report.h"
#include "axe/pallas/dtype.h"
#include "nlohmann/json.hpp"

namespace axe::explorer {
namespace {

using Json = nlohmann::ordered_json;

// An element as JSON: integers as integers, NaN (and infinities) as null.
template <typename T>
Json Element(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v)) return nullptr;
    if (v == std::trunc(v) && std::fabs(v) < 9.0e15) return static_cast<int64_t>(v);
    return static_cast<double>(v);
  } else {
    return v;
  }
}

Json Nested(const pallas::AnyArray& a) {
  return pallas::VisitDType(a.dtype(), [&](auto tag) -> Json {
    using T = typename decltype(tag)::type;
    const T* data = a.data_as<T>();
    if (a.rank() == 0) return Element(data[0]);
    // Empty: one empty list whatever the shape (the nested lists of an (2^32, 0) output would
    // be 2^32 of them).
    if (a.size() == 0) return Json::array();
    int64_t next = 0;
    std::function<Json(int)> build = [&](int axis) {
      Json level = Json::array();
      for (int64_t i = 0; i < a.shape()[static_cast<size_t>(axis)]; ++i) {
        level.push_back(axis + 1 == a.rank() ? Element(data[next++]) : build(axis + 1));
      }
      return level;
    };
    return build(0);
  });
}

Json ClampJson(const pallas::ClampEvent& e) {
  Json windows = Json::array(), clamped = Json::array();
  for (size_t d = 0; d < e.start.size(); ++d) {
    auto end = [](int64_t start, int64_t size) {
      return std::visit([](auto v) { return Json(v); }, pallas::WindowEnd(start, size));
    };
    windows.push_back({e.requested_start[d], end(e.requested_start[d], e.size[d])});
    clamped.push_back({e.start[d], end(e.start[d], e.size[d])});
  }
  return {{"operand", e.operand}, {"grid_point", e.grid_point}, {"index", e.indices},
          {"requested", windows}, {"clamped_to", clamped},      {"message", e.ToString()}};
}

}  // namespace

std::string GridShowJson(const pallas::AnyArray& output,
                         const std::vector<pallas::ClampEvent>& clamps) {
  Json j = {{"output", Nested(output)}};
  if (!clamps.empty()) {
    Json list = Json::array();
    for (const pallas::ClampEvent& e : clamps) list.push_back(ClampJson(e));
    j["clamped"] = list;
  }
  return DumpJson(j);
}

}  // namespace axe::explorer
