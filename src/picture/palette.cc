#include "axe/picture/palette.h"

#include <array>
#include <cmath>

#include "axe/base/checked_math.h"

namespace axe::picture {
namespace {

constexpr std::array<absl::string_view, kPaletteSize> kFills = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f4e79", "#a0cbe8"};

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The sRGB channel (0..255) as linear light.
double Linear(int channel) {
  const double c = channel / 255.0;
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

}  // namespace

std::string ContrastingText(absl::string_view fill) {
  if (fill.size() != 7 || fill[0] != '#') return "#ffffff";
  int rgb[3];
  for (int i = 0; i < 3; ++i) {
    const int hi = HexDigit(fill[1 + 2 * i]), lo = HexDigit(fill[2 + 2 * i]);
    if (hi < 0 || lo < 0) return "#ffffff";
    rgb[i] = hi * 16 + lo;
  }
  const double luminance =
      0.2126 * Linear(rgb[0]) + 0.7152 * Linear(rgb[1]) + 0.0722 * Linear(rgb[2]);
  // WCAG contrast against black (L + 0.05) / 0.05 and white 1.05 / (L + 0.05) are equal at
  // L = 0.179.
  return luminance > 0.179 ? "#000000" : "#ffffff";
}

Swatch PaletteSwatch(int64_t index) {
  const absl::string_view fill = kFills[static_cast<size_t>(FloorMod(index, kPaletteSize))];
  return {std::string(fill), ContrastingText(fill)};
}

}  // namespace axe::picture
