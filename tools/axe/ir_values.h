// Values the `axe ir` commands read: argument text (TYPE=...), .npy files and .npz archives,
// and the constvars' values of a closed jaxpr (--const @w.npy in order, or --consts @c.npz).
#ifndef AXE_TOOLS_AXE_IR_VALUES_H_
#define AXE_TOOLS_AXE_IR_VALUES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/base/memory_budget.h"
#include "axe/exec/value.h"
#include "axe/ir/host_array.h"
#include "axe/ir/jaxpr.h"
#include "cli.h"

namespace axe::cli {

struct ConstOptions {
  std::vector<std::string> consts;  // --const: the constvars' values, in order
  std::string consts_npz;           // --consts @FILE.npz: arr_0, arr_1, ... (np.savez(f, *c))
};

// Adds --const and --consts to `cmd`.
void AddConstOptions(CLI::App* cmd, ConstOptions& options);

// An --arg value in its dtype's own encoding (what the executor runs on): TYPE=... text, or
// @FILE holding such text or a .npy file (told apart by the .npy magic); 64-bit integers
// exactly. A .npy file's size is checked against the memory budget first.
absl::StatusOr<exec::Value> ReadTypedValue(const std::string& spec, const std::string& option,
                                           const MemoryBudget& budget);

// The same value as the interpreter's doubles (8 bytes an element, checked against the
// memory budget first); a 64-bit integer past 2^53, which a double cannot hold, is refused.
absl::StatusOr<ir::HostArray> ReadValue(const std::string& spec, const std::string& option,
                                        const MemoryBudget& budget);

// The constvars' values from --const (in order) or --consts, checked against their types;
// nothing to do when neither is given and the jaxpr has its values.
absl::Status BindConsts(const ConstOptions& options, const MemoryBudget& budget,
                        ir::ClosedJaxpr& j);

// The JAXPR argument read and parsed, its constvars' values bound, then type-checked (the
// check wants a value per constvar).
absl::StatusOr<ir::ClosedJaxpr> ReadJaxprWithConsts(const std::string& arg,
                                                    const ConstOptions& options,
                                                    const MemoryBudget& budget);

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_IR_VALUES_H_
