#include "cli/run_axe_in_process.h"

#include <sstream>

#include "run_cli.h"

namespace axe::testing {

RunResult RunAxeInProcess(const std::vector<std::string>& args, const std::string& input) {
  std::vector<const char*> argv = {"axe"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::istringstream in(input);
  std::ostringstream out, err;
  RunResult r;
  r.exit_code = cli::RunCli(static_cast<int>(argv.size()), argv.data(), in, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace axe::testing
