// The explorer's web page: one HTML document with its JavaScript inline (no build step, no
// external resources), embedded in the library at build time from src/explorer/page.html.
#ifndef AXE_EXPLORER_PAGE_H_
#define AXE_EXPLORER_PAGE_H_

#include "absl/strings/string_view.h"

namespace axe::explorer {

absl::string_view ExplorerPage();

}  // namespace axe::explorer

#endif  // AXE_EXPLORER_PAGE_H_
