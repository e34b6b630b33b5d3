// Evaluation of jaxprs on an MPI client (target axe::ir_run_mpi, built when AXE_MPI is on;
// found with find_package(axe COMPONENTS mpi)). axe::ir_run itself needs no MPI: until
// EnableMpiEvaluation() is called, EvalJaxprOnDevices on an MPI client is Unimplemented.
#ifndef AXE_IR_MPI_EVAL_H_
#define AXE_IR_MPI_EVAL_H_

namespace axe::ir {

// Lets EvalJaxprOnDevices run programs on a runtime::MpiClient: every rank computes its own
// mesh position and the collectives move data with MPI. Call once, before the first such
// evaluation; calling it again is harmless.
void EnableMpiEvaluation();

}  // namespace axe::ir

#endif  // AXE_IR_MPI_EVAL_H_
