// The layout-control part of `axe tour`: seed 001's layout notebook run on the runtime
// (jit::RunLayoutNotebook): apply_fn compiled with Format(Layout.AUTO), then called with
// uncommitted and committed arrays. The outcomes the text claims are checked.
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/jit/notebook.h"
#include "axe/runtime/client.h"
#include "tour.h"

namespace axe::cli {
namespace tour_jit {
namespace {

using jit::LocalLayout;

absl::Status Notebook(std::ostream& os) {
  AXE_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Client> client, runtime::Client::InProcess(1));
  AXE_ASSIGN_OR_RETURN(jit::Notebook notebook, jit::RunLayoutNotebook(*client));
  const bool as_claimed = notebook.calls.size() == 4 && notebook.calls[0].status.ok() &&
                          notebook.calls[0].relayouts.size() == 1 &&
                          notebook.calls[1].status.ok() && notebook.calls[2].status.ok() &&
                          !notebook.calls[3].status.ok();
  if (!as_claimed) {
    return absl::InternalError("tour self-check failed: the notebook's four calls");
  }
  os << "apply_fn(x, y) = (x[0, :], y[:, 0]) on two f32[512,1024], compiled with\n"
        "Format(Layout.AUTO) for inputs and outputs. The cost model lays each input out so\n"
        "that the line it reads is contiguous:\n\n";
  for (const jit::Format& f : notebook.apply.input_formats()) {
    os << "  " << f.local_layout()->ToString() << "\n";
  }
  const jit::ArgumentRelayout& moved = notebook.calls[0].relayouts[0];
  os << "\nCalled four ways. Uncommitted arrays are re-laid-out before the call (the first\n"
        "call moved "
     << moved.name << " from major_to_minor " << FormatTuple(moved.from.major_to_minor(), true)
     << " to " << FormatTuple(moved.to.major_to_minor(), true)
     << "); committed ones must\nalready match:\n\n"
     << jit::FormatNotebook(notebook) << "\nThe last error in full:\n\n"
     << notebook.calls[3].status.message() << "\n";
  return absl::OkStatus();
}

std::vector<TourSection> JitTour() {
  return {{"jit", "Layouts end to end: the layout notebook's four calls", Notebook}};
}

AXE_TOUR_PART(65, JitTour);

}  // namespace
}  // namespace tour_jit

}  // namespace axe::cli
