// The colours of every picture: a fixed palette of fills, each with a text colour chosen
// from its luminance (black on light fills, white on dark ones), drawn on an explicit light
// background so that the pictures read the same in light and dark viewers.
//
//   Swatch s = PaletteSwatch(3);   // {fill "#76b7b2", text "#000000"}
#ifndef AXE_PICTURE_PALETTE_H_
#define AXE_PICTURE_PALETTE_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace axe::picture {

struct Swatch {
  std::string fill;  // "#rrggbb"
  std::string text;  // the text colour that contrasts with fill
};

// The number of distinct palette colours.
inline constexpr int64_t kPaletteSize = 12;

// Colour number `index` (any integer; taken modulo kPaletteSize, negatives too).
Swatch PaletteSwatch(int64_t index);

// "#000000" or "#ffffff", whichever contrasts more with `fill` ("#rrggbb"; anything else
// reads as black).
std::string ContrastingText(absl::string_view fill);

// The picture background, the ink of labels and lines, and the fills of padding, of an
// empty (unused) cell and of a highlighted (clamped, elided) mark.
inline constexpr absl::string_view kBackground = "#ffffff";
inline constexpr absl::string_view kInk = "#1a1a1a";
inline constexpr absl::string_view kPaddingFill = "#d0d0d0";
inline constexpr absl::string_view kEmptyFill = "#f0f0f0";
inline constexpr absl::string_view kMarkStroke = "#c00000";

}  // namespace axe::picture

#endif  // AXE_PICTURE_PALETTE_H_
