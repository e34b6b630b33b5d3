// `axe tour`: a guided walk through axe, one part per module. Every part computes what it
// shows with the library (nothing is hard-coded), so the tour doubles as a smoke test.
#ifndef AXE_TOOLS_AXE_TOUR_H_
#define AXE_TOOLS_AXE_TOUR_H_

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace axe::cli {

struct TourSection {
  std::string part;   // module name, e.g. "layout"
  std::string title;
  std::function<absl::Status(std::ostream&)> body;
};

// One function per module.
std::vector<TourSection> LayoutTour();

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_TOUR_H_
