#include <iostream>

#include "axe/axe.h"

int main() {
  absl::StatusOr<axe::Layout> l = axe::Layout::Parse("S[(8,8,8,4,2):(512,64,8,2,1)]");
  if (!l.ok()) return 1;
  std::string canonical = axe::Canonicalize(*l).ToString();
  std::cout << canonical << "\n";
  return canonical == "S[4096:1]" ? 0 : 1;
}
