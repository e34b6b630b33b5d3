// The manual mesh axes in scope while a shard_map body is typed (spec ir-and-shard-map.md
// §4-5): the axes, in mesh order, with their sizes, and whether variance typing is on
// (check_vma). Abstract-evaluation rules read the innermost environment of the current thread;
// outside any shard_map there is none, and collectives report an unbound axis name.
//
//   ScopedAxisEnv scope(AxisEnv{{{"x", 4}}, /*check_vma=*/true});
//   ... Bind(psum_invariant, ...) ...   // sees axis x of size 4
#ifndef AXE_IR_AXIS_ENV_H_
#define AXE_IR_AXIS_ENV_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace axe::ir {

struct ManualAxis {
  std::string name;
  int64_t size = 1;
};

struct AxisEnv {
  std::vector<ManualAxis> axes;  // mesh order; outer shard_maps' axes included
  bool check_vma = true;
};

// Pushes `env` for the current thread until destroyed (scopes nest; innermost wins).
class ScopedAxisEnv {
 public:
  explicit ScopedAxisEnv(AxisEnv env);
  ~ScopedAxisEnv();
  ScopedAxisEnv(const ScopedAxisEnv&) = delete;
  ScopedAxisEnv& operator=(const ScopedAxisEnv&) = delete;
};

// The innermost environment of this thread, or nullptr outside every shard_map.
const AxisEnv* CurrentAxisEnv();
// True inside a shard_map with check_vma on.
bool VarianceTypingOn();

// The size of manual axis `name`. Outside a shard_map binding it: NotFound with JAX's
// NameError text "Found an unbound axis name: {name}. To fix this, please call {api} under
// `jax.shard_map`."
absl::StatusOr<int64_t> ManualAxisSize(absl::string_view name, absl::string_view api);
// The product of the sizes of `names` (each checked as above).
absl::StatusOr<int64_t> ManualAxesSize(absl::Span<const std::string> names, absl::string_view api);

// Set operations on variance sets; results are in mesh order (names the environment does not
// know keep their relative order after the known ones).
std::vector<std::string> VmaUnion(absl::Span<const std::string> a, absl::Span<const std::string> b);
std::vector<std::string> VmaMinus(absl::Span<const std::string> a, absl::Span<const std::string> b);
std::vector<std::string> InMeshOrder(std::vector<std::string> names);
// Python's repr of a variance set as JAX shows it in messages, in mesh order:
// frozenset({'x', 'y'}), frozenset().
std::string FrozensetRepr(absl::Span<const std::string> names);
// Python's repr of a tuple of names: ('x',), ('x', 'y').
std::string NamesTupleRepr(absl::Span<const std::string> names);

}  // namespace axe::ir

#endif  // AXE_IR_AXIS_ENV_H_
