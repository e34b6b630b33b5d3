#include "axe/pallas/index_map.h"

namespace axe::pallas {

std::string IndexMap::Describe() const {
  if (!fn_) return "<zeros>";
  if (file_.empty()) return name_;
  return absl::StrCat(name_, " at ", file_, ":", line_);
}

}  // namespace axe::pallas
