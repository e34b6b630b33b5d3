// LayoutShowJson: `axe layout show --json`.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/base/utf8.h"
#include "axe/explorer/answer_json.h"
#include "nlohmann/json.hpp"

namespace axe::explorer {
namespace {

using Json = nlohmann::ordered_json;

Json PointJson(const PhysCoord& p, const std::vector<Axis>& axes) {
  Json j = Json::object();
  for (Axis a : axes) j[std::string(a.name())] = p.get(a);
  return j;
}

}  // namespace

absl::StatusOr<std::string> LayoutShowJson(const Layout& layout, std::array<int64_t, 2> shape,
                                           GridWindow window) {
  AXE_ASSIGN_OR_RETURN(GridView view, ViewGrid(layout, shape[0], shape[1], window));
  Json rows = Json::array();
  for (int64_t r = 0; r < view.shown_rows; ++r) {
    Json row = Json::array();
    for (int64_t c = 0; c < view.shown_cols; ++c) {
      row.push_back(PointJson(view.cells[static_cast<size_t>(r * view.shown_cols + c)], view.axes));
    }
    rows.push_back(std::move(row));
  }
  Json axes = Json::array();
  for (Axis a : view.axes) axes.push_back(std::string(a.name()));
  Json replica = nullptr;
  if (!layout.replica().empty()) replica = absl::StrCat("R[", FormatIters(layout.replica()), "]");
  Json j = {{"layout", layout.ToString()},
            {"shape", {view.rows, view.cols}},
            {"shown", {view.shown_rows, view.shown_cols}},
            {"axes", axes},
            {"replica", replica},
            {"grid", rows}};
  return DumpJson(j);
}

}  // namespace axe::explorer
