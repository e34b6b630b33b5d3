// axe: describe, check, convert and execute tensor layouts.
#include <iostream>

#include "run_cli.h"

int main(int argc, char** argv) {
  return axe::cli::RunCli(argc, argv, std::cin, std::cout, std::cerr);
}
