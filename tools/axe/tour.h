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
  std::string part;  // module name, e.g. "layout"
  std::string title;
  std::function<absl::Status(std::ostream&)> body;
};

// Each module registers its part from its own file, in tour order:
//
//   std::vector<TourSection> XlaTour() { ... }
//   AXE_TOUR_PART(20, XlaTour);
using TourPart = std::vector<TourSection> (*)();
struct TourPartRegistration {
  TourPartRegistration(int order, TourPart part);
};
// Every registered part's sections, in order.
std::vector<TourSection> AllTourSections();

#define AXE_TOUR_CONCAT_INNER_(a, b) a##b
#define AXE_TOUR_CONCAT_(a, b) AXE_TOUR_CONCAT_INNER_(a, b)
#define AXE_TOUR_PART(order, part)                                                             \
  static const ::axe::cli::TourPartRegistration AXE_TOUR_CONCAT_(axe_tour_part_, __COUNTER__)( \
      order, part)

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_TOUR_H_
