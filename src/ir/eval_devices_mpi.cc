// ir::EnableMpiEvaluation: kept for programs written against it. EvalJaxprOnDevices runs on
// any runtime client's backend, MPI's included (eval_devices.cc), without it.
#include "axe/ir/mpi_eval.h"

namespace axe::ir {

void EnableMpiEvaluation() {}

}  // namespace axe::ir
