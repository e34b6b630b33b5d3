// Calling a compiled program on the distributed runtime's arrays: the arguments are checked
// against the formats the program was compiled for, the uncommitted ones are re-laid-out (or
// resharded) through the relayout engine, the program runs on the executor (exec::Executable:
// a shard_map's positions on threads in process; on an MPI client each rank runs its own
// position, the collectives through the client's backend), and the results come back as
// committed arrays in the compiled output formats.
//
//   Compiled c = *Compile(jaxpr, {Format(AUTO), Format(AUTO)}, {});
//   CallResult r = *Execute(c, *client, {&x, &y}, {"x", "y"});
//   r.relayouts;   // what was re-laid-out before the call, e.g. y: (0, 1) -> (1, 0)
//
// A committed argument whose sharding or layout differs from the compiled one is an error
// (never silently moved); an uncommitted one is always moved to the compiled format (never
// silently ignored: jax-ml/jax#23100).
#ifndef AXE_JIT_EXECUTE_H_
#define AXE_JIT_EXECUTE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/jit/compile.h"
#include "axe/runtime/array.h"
#include "axe/runtime/client.h"

namespace axe::jit {

// An uncommitted argument moved to the compiled format before the call.
struct ArgumentRelayout {
  size_t index = 0;
  std::string name;
  LocalLayout from;
  LocalLayout to;
  bool resharded = false;  // its sharding changed too (a reshard, not only a relayout)
};

struct CallResult {
  std::vector<runtime::Array> outputs;  // committed, in the compiled output formats
  std::vector<ArgumentRelayout> relayouts;
};

// The device-local layout an array's shards are stored in (row-major when it has none).
LocalLayout LayoutOfArray(const runtime::Array& array);

// `names` extended to `n` entries with JAX's default key paths args[i].
std::vector<std::string> ArgumentNames(absl::Span<const std::string> names, size_t n);

// True when `array`'s shards sit where `target` puts them (same devices, same boxes).
bool SameDeviceMap(const runtime::Array& array, const sharding::NamedSharding& target);

// The NamedSharding the runtime stores an array of `sharding` with: itself, or for
// SingleDeviceSharding(device=k) a mesh with no axes on device k.
absl::StatusOr<sharding::NamedSharding> RuntimeSharding(const sharding::Sharding& sharding);

// `names`: the arguments' pytree key paths for messages (empty: args[0], args[1], ...).
// Errors: a count or type that differs from the compiled program's (JAX's TypeErrors:
// "Computation compiled for N inputs but called with M", "Argument types differ from the
// types for which this computation was compiled. ... The mismatches are:\nArgument 'x'
// compiled with f32[8] and called with f32[4]"); committed arguments in another sharding or
// layout (JAX's ValueError: "Compiled object called with input layout(s) does not
// match ..."); the program's evaluation errors.
absl::StatusOr<CallResult> Execute(const Compiled& compiled, runtime::Client& client,
                                   absl::Span<const runtime::Array* const> args,
                                   absl::Span<const std::string> names = {});

}  // namespace axe::jit

#endif  // AXE_JIT_EXECUTE_H_
