#include "axe/pallas/index_map.h"

namespace axe::pallas {

std::string IndexMap::Describe() const {
  if (!fn_) return "<zeros>";
  if (file_.empty()) return name_;
  return absl::StrCat(name_, " at ", file_, ":", line_);
}

absl::Status IndexMap::Evaluate(absl::Span<const int64_t> grid_point, int rank,
                                BlockIndices* out) const {
  out->clear();
  if (!fn_) {
    out->assign(static_cast<size_t>(rank), 0);
    return absl::OkStatus();
  }
  return fn_(grid_point, out);
}

}  // namespace axe::pallas
