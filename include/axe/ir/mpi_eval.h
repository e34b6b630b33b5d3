// Evaluation of jaxprs on an MPI client (target axe::ir_run_mpi, built when AXE_MPI is on;
// found with find_package(axe COMPONENTS mpi)). EvalJaxprOnDevices runs on an MPI client's
// backend like on any other (eval_devices.h); this switch is kept for programs that call it.
#ifndef AXE_IR_MPI_EVAL_H_
#define AXE_IR_MPI_EVAL_H_

namespace axe::ir {

// Does nothing: EvalJaxprOnDevices runs programs on a runtime::MpiClient without it.
void EnableMpiEvaluation();

}  // namespace axe::ir

#endif  // AXE_IR_MPI_EVAL_H_
