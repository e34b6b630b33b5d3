// What the kernels of a shard_map body know of the mesh (internal to src/exec): while the
// body's plan is built, the mesh it runs on (so that each collective computes its groups
// once); while it runs, the position a thread computes and the exchange it meets the others
// at.
#ifndef AXE_SRC_EXEC_SPMD_H_
#define AXE_SRC_EXEC_SPMD_H_

#include <cstdint>

#include "axe/exec/communicator.h"
#include "axe/sharding/mesh.h"

namespace axe::exec::internal {

// The position a thread of a shard_map runs (RunContext::spmd).
struct SpmdPosition {
  int64_t position = 0;  // in [0, mesh.num_devices()), row-major over the mesh's axes
  Communicator* comm = nullptr;
};

// The mesh of the shard_map whose body this thread is planning; null outside one.
const sharding::Mesh* PlanningMesh();

// Sets PlanningMesh() for this thread while it lives (nested shard_maps restore the outer one).
class ScopedPlanningMesh {
 public:
  explicit ScopedPlanningMesh(const sharding::Mesh* mesh);
  ~ScopedPlanningMesh();
  ScopedPlanningMesh(const ScopedPlanningMesh&) = delete;
  ScopedPlanningMesh& operator=(const ScopedPlanningMesh&) = delete;

 private:
  const sharding::Mesh* previous_;
};

}  // namespace axe::exec::internal

#endif  // AXE_SRC_EXEC_SPMD_H_
