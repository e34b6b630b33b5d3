# Writes the explorer's page (PAGE, an HTML file) into a C++ source (OUT) as a raw string
# literal returned by axe::explorer::ExplorerPage(). Run by add_custom_command at build time.
file(READ ${PAGE} content)
string(FIND "${content}" ")axe_page\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${PAGE} contains the raw string's closing delimiter )axe_page\"")
endif()
file(WRITE ${OUT}.tmp
"// Generated from src/explorer/page.html by src/explorer/embed_page.cmake; do not edit.
#include \"axe/explorer/page.h\"

namespace axe::explorer {

absl::string_view ExplorerPage() {
  static constexpr char kPage[] = R\"axe_page(${content})axe_page\";
  return absl::string_view(kPage, sizeof(kPage) - 1);
}

}  // namespace axe::explorer
")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
