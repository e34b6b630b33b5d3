// Evaluation of jaxprs with shard_map bodies run on a distributed runtime's devices, with
// the runtime's collectives: the double-valued reference the executor's runs on a client
// (exec::ExecOptions::client: threads, MPI ranks) are tested against. Target axe::ir_run
// (axe::ir itself stays free of the runtime).
//
//   std::unique_ptr<runtime::Client> client = *runtime::Client::InProcess(4);
//   absl::StatusOr<std::vector<HostArray>> out = EvalJaxprOnDevices(closed, args, *client);
//
// Outside shard_map the program runs on the host as EvalJaxpr does. A shard_map equation
// runs its body SPMD on the devices of its mesh (mesh position p on device
// mesh.DeviceAtPosition(p), which must be a device of the client): the ordinary equations of
// the body run on each device's worker thread (RunOnDevices), and every communicating
// collective moves the devices' values through the runtime's collectives (collectives.h:
// AllReduce for psum/psum_invariant/pmax/pmin, AllGather for all_gather(_invariant),
// ReduceScatter, AllToAll, CollectivePermute), staged in DeviceValues in each device's
// memory. axis_index and pvary need no messages. The results equal EvalJaxpr's (same
// rounding, the runtime folds reductions in member order as the host simulation does).
//
// The collectives go to the client's backend (runtime/backend.h). On a client whose process
// holds only some devices (backend "mpi", one device per rank, every rank calling with the
// same program and arguments) each process computes only its own mesh position inside a
// shard_map, and each output's blocks are all-gathered over the mesh before assembly, so
// every rank returns the whole result. A cond whose branch
// differs between ranks may only run collective-free branches (otherwise the ranks disagree
// on the next collective: InvalidArgument or DeadlineExceeded from the MPI client).
//
// Errors: EvalJaxpr's; a mesh with more devices than the client or naming a device it does
// not have (InvalidArgument); on MPI, a mesh whose device count is not the rank count; the
// runtime's collective errors.
#ifndef AXE_IR_EVAL_DEVICES_H_
#define AXE_IR_EVAL_DEVICES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/base/memory_budget.h"
#include "axe/ir/host_array.h"
#include "axe/ir/jaxpr.h"
#include "axe/runtime/client.h"

namespace axe::ir {

// `memory`: as EvalJaxpr's (an MPI client's ranks resolve their own).
absl::StatusOr<std::vector<HostArray>> EvalJaxprOnDevices(const ClosedJaxpr& jaxpr,
                                                          absl::Span<const HostArray> args,
                                                          runtime::Client& client,
                                                          const MemoryBudget* memory = nullptr);

// The most devices any shard_map of the program (nested calls included) runs on; 1 without
// shard_map. What a client for EvalJaxprOnDevices needs at least.
int64_t DevicesNeeded(const ClosedJaxpr& jaxpr);

}  // namespace axe::ir

#endif  // AXE_IR_EVAL_DEVICES_H_
