// What a job launcher (mpirun, srun) tells a process before any backend starts: how many
// processes it started and which one this is, read from the launcher's environment. Lets a
// program refuse a run that cannot work, or name its rank in an error line, without
// starting MPI (whose libraries keep allocations until exit).
#ifndef AXE_RUNTIME_LAUNCHER_H_
#define AXE_RUNTIME_LAUNCHER_H_

namespace axe::runtime {

// The number of ranks the launcher started (mpirun's OMPI_COMM_WORLD_SIZE, or PMI_SIZE),
// known before MPI is initialized; 1 outside a launcher.
int MpiLaunchedWorldSize();
// This process's rank as the launcher numbered it (OMPI_COMM_WORLD_RANK, PMIX_RANK or
// PMI_RANK), known before MPI is initialized; 0 outside a launcher.
int MpiLaunchedWorldRank();

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_LAUNCHER_H_
