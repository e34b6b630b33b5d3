// The layout notebook of seed 001: apply_fn(x, y) = (x[0, :], y[:, 0]) compiled with
// Format(Layout.AUTO) for every input and output, then called with uncommitted and committed
// arrays whose layouts match or do not match the compiled ones. Prints the notebook's four
// cases line for line (docs/layouts.md walks through them).
#include <iostream>
#include <memory>

#include "axe/jit/notebook.h"
#include "axe/runtime/client.h"

int main() {
  using namespace axe;
  absl::StatusOr<std::unique_ptr<runtime::Client>> client = runtime::Client::InProcess(1);
  if (!client.ok()) {
    std::cerr << client.status() << "\n";
    return 1;
  }
  absl::StatusOr<jit::Notebook> notebook = jit::RunLayoutNotebook(**client);
  if (!notebook.ok()) {
    std::cerr << notebook.status() << "\n";
    return 1;
  }
  for (const jit::Format& format : notebook->apply.input_formats()) {
    std::cout << "compiled input: " << format.ToString() << "\n";
  }
  std::cout << "\n" << jit::FormatNotebook(*notebook);
  return 0;
}
