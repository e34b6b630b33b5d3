// The README's C++ example: parse a layout, map an element forward and back, canonicalize,
// tile, and take the Axe form of an XLA tiled layout.
#include <iostream>

#include "axe/axe.h"

int main() {
  using namespace axe;
  absl::StatusOr<Layout> la =
      Layout::Parse("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp");
  if (!la.ok()) {
    std::cerr << la.status() << "\n";
    return 1;
  }
  std::vector<PhysCoord> points = *Apply(*la, {8, 16}, {2, 9});
  for (const PhysCoord& p : points) std::cout << p << "\n";
  // {lane:8, reg:1, warp:6} and {lane:8, reg:1, warp:10}
  PhysCoord point = *PhysCoord::Parse("warp=6,lane=8,reg=1");
  std::vector<std::vector<int64_t>> coords = *Inverse(*la, {8, 16}, point);
  for (const auto& coord : coords) std::cout << FormatTuple(coord) << "\n";
  // (2, 9)
  std::cout << Canonicalize(*Layout::Parse("S[(8,8,8,4,2):(512,64,8,2,1)]")) << "\n";  // S[4096:1]
  // A 16x24 matrix as an 8x8 grid of 2x3 tiles.
  Layout t =
      *Tile(*Layout::Parse("S[(8,8):(8,1)]"), {8, 8}, *Layout::Parse("S[(2,3):(3,1)]"), {2, 3});
  std::cout << t << "\n";  // S[(8,2,8,3):(48,3,6,1)]
  // The exact Axe form of a TPU tiling, over its (padded) domain.
  xla::AxeForm f = *xla::ToAxe("bf16[16,256]{1,0:T(8,128)(2,1)}");
  std::cout << f.layout << "\n";  // S[(2,4,2,2,128):(2048,256,1,1024,2)]
  return 0;
}
