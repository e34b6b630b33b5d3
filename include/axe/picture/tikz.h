// The TikZ form of a picture (`--latex FILE` beside `--svg FILE`): a standalone LaTeX
// document, compilable with pdflatex (packages: standalone, tikz, fontenc), drawing the same
// rectangles, lines, dots, arrows and text as the SVG the picture module wrote, at the same
// positions (one SVG pixel is 0.75 pt, as in a browser).
//
//   std::string svg = *LayoutSvg(layout, {});
//   absl::StatusOr<std::string> tex = SvgToTikz(svg);   // \documentclass ... \end{document}
//
// The input is an SVG written by picture::Svg (one element per line, integer coordinates);
// anything else is refused with the line it could not read.
#ifndef AXE_PICTURE_TIKZ_H_
#define AXE_PICTURE_TIKZ_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace axe::picture {

// `text` for LaTeX's text mode in a \texttt font: its special characters escaped, the
// picture module's few non-ASCII symbols (…, •, arrows, box drawing) as LaTeX commands or
// ASCII, any other non-ASCII character as '?'.
std::string EscapeLatex(absl::string_view text);

absl::StatusOr<std::string> SvgToTikz(absl::string_view svg);

}  // namespace axe::picture

#endif  // AXE_PICTURE_TIKZ_H_
